// State digests: StateDigest folds fields written in one canonical order into a 64-bit
// XXH3 hash ("is this the same world"); SetDigest summarises an unordered set of u64 keys
// ("do we hold the same set"). Every field is hashed as its little-endian bytes whatever the
// host, so never hash a struct's or an array's host bytes yourself; use the writers here.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <ranges>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"

namespace tandem {

static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big,
              "the digest serialises for little- or big-endian hosts only");

// Fields go into a small local buffer first, which the XXH3 streaming state consumes a block
// at a time; a state that never outgrows the buffer is hashed in one shot at finish(). XXH3
// gives the same value however its input is split, so finish() depends only on the bytes
// written, never on how the writes were grouped or when the buffer happened to flush.
//
// Variable-length data has no implicit length prefix (write_bytes("ab") then "c" equals
// "abc"): write the length first wherever two layouts could produce the same bytes.
class StateDigest {
public:
    StateDigest() = default;
    StateDigest(const StateDigest& other) { copy_from(other); }
    StateDigest& operator=(const StateDigest& other) {
        if (this != &other) copy_from(other);
        return *this;
    }

    void write_u8(uint8_t v) {
        if (used_ == buffer_bytes) spill();
        buffer_[used_++] = static_cast<char8_t>(v);
    }
    void write_u16(uint16_t v) {
        if (buffer_bytes - used_ < 2) spill();
        store_le(buffer_ + used_, v);
        used_ += 2;
    }
    void write_u32(uint32_t v) {
        if (buffer_bytes - used_ < 4) spill();
        store_le(buffer_ + used_, v);
        used_ += 4;
    }
    void write_u64(uint64_t v) {
        if (buffer_bytes - used_ < 8) spill();
        store_le(buffer_ + used_, v);
        used_ += 8;
    }
    // Signed values as their two's-complement bit patterns (a defined conversion in C++20).
    void write_i8(int8_t v) { write_u8(static_cast<uint8_t>(v)); }
    void write_i16(int16_t v) { write_u16(static_cast<uint16_t>(v)); }
    void write_i32(int32_t v) { write_u32(static_cast<uint32_t>(v)); }
    void write_i64(int64_t v) { write_u64(static_cast<uint64_t>(v)); }
    void write_bool(bool v) { write_u8(v ? 1 : 0); }

    // Fx by its raw Q16.16 value: equal digests mean equal bits, not merely close values.
    void write_fx(Fx v) { write_i32(v.raw()); }
    void write_vec2(Vec2 v) {
        write_fx(v.x);
        write_fx(v.y);
    }
    // By bit pattern, so -0.0 and 0.0 (and two NaN payloads) disagree and a difference in
    // the lowest bit shows. For render-side checks only: floats never enter simulation state.
    void write_f32(float v) {
        uint32_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);  // no std::bit_cast in Emscripten's libc++
        write_u32(bits);
    }

    // Raw bytes, in order, with no length prefix.
    void write_bytes(std::span<const uint8_t> bytes);
    // Bulk arrays of 32-bit fields, each hashed exactly as write_u32 / write_i32 / write_fx
    // would hash it in turn. On little-endian hosts the array's bytes already are the
    // canonical form and go to XXH3 directly; big-endian hosts swap through the buffer.
    void write_u32s(std::span<const uint32_t> values);
    void write_i32s(std::span<const int32_t> values);
    void write_fx_span(std::span<const Fx> values);

    // The XXH3-64 (seed 0) of every byte written so far. Does not consume the digest:
    // writing may continue and a later finish() covers the longer sequence.
    uint64_t finish() const;

    // How many bytes have been written (hashed or buffered).
    uint64_t bytes_written() const { return flushed_ + used_; }

private:
    static constexpr uint32_t buffer_bytes = 512;
    // Room for XXH3_state_t (576 bytes, 64-byte aligned, on every target); the engines
    // (src/core/xxh3_engine*) check the fit with static_asserts so that this header need not
    // include xxhash.h.
    static constexpr uint32_t engine_bytes = 640;

    // The buffer holds char8_t, not uint8_t: a store through unsigned char may alias any
    // object, so the compiler had to reload used_ (and a visitor's pointer to this digest)
    // after every field written, a serial chain through memory that made a state's digest
    // half again as slow. char8_t is no aliasing type: its stores touch only the buffer.
    // The byte stores of one field are merged into one store by the compiler.
    template <class U>
    static void store_le(char8_t* out, U v) {
        for (unsigned i = 0; i < sizeof(U); ++i) out[i] = static_cast<char8_t>(v >> (8 * i));
    }

    void spill();                    // hand the buffer to the streaming engine
    void start_streaming();          // first spill: initialise the engine
    void feed(const void* data, uint64_t size);  // straight to the engine, buffer empty
    template <class Word>
    void write_words(std::span<const Word> values);
    void copy_from(const StateDigest& other);

    alignas(64) unsigned char engine_[engine_bytes];  // valid only when streaming_
    char8_t buffer_[buffer_bytes];                    // valid up to used_
    uint32_t used_ = 0;
    bool streaming_ = false;
    uint64_t flushed_ = 0;
};

// An order-independent digest of a set (or multiset) of u64 keys, updated in O(1): the
// wrapping sum of a per-key hash plus the element count. insert and remove are exact
// inverses; the empty set digests to 0. Pack a SlotKey with encode() to check occupants,
// not just indices. Never use it where field order matters: that is StateDigest's job.
class SetDigest {
public:
    constexpr SetDigest() = default;

    template <std::ranges::input_range Keys>
        requires std::convertible_to<std::ranges::range_value_t<Keys>, uint64_t>
    static constexpr SetDigest from_keys(const Keys& keys) {
        SetDigest d;
        for (const auto& key : keys) d.insert(static_cast<uint64_t>(key));
        return d;
    }
    static constexpr SetDigest from_keys(std::initializer_list<uint64_t> keys) {
        SetDigest d;
        for (uint64_t key : keys) d.insert(key);
        return d;
    }

    constexpr void insert(uint64_t key) {
        sum_ += key_hash(key);
        ++count_;
    }
    // Removing a key that was never inserted is not detected here; the digest then simply
    // stops matching any set, which the comparison at the other end reports.
    constexpr void remove(uint64_t key) {
        sum_ -= key_hash(key);
        --count_;
    }

    constexpr uint64_t digest() const { return mix64(sum_ ^ mix64(count_)); }
    // Inserts minus removes, wrapping.
    constexpr uint64_t count() const { return count_; }

    friend constexpr bool operator==(const SetDigest&, const SetDigest&) = default;

private:
    // SplitMix64's output for the key: an odd offset keeps key 0 from hashing to 0.
    static constexpr uint64_t key_hash(uint64_t key) { return mix64(key + 0x9E3779B97F4A7C15u); }

    uint64_t sum_ = 0;
    uint64_t count_ = 0;
};

// A digest as text: 16 lowercase hex digits, the one spelling the CLI, the dumps, the
// bindings and the wire's text forms all use. parse_hex64 accepts exactly that spelling
// (16 digits, lowercase or uppercase) and nothing else.
std::string hex64(uint64_t value);
std::optional<uint64_t> parse_hex64(std::string_view text);

}  // namespace tandem
