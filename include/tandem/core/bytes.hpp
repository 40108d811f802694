// Little-endian bytes written and read field by field: the one way tandem turns values into
// bytes (snapshots, inputs, wire messages, replays) and back, on every host, big-endian ones
// included. Never write a struct's or an array's host bytes. The Reader takes untrusted
// bytes: it never reads past its span, and a read that does not fit fails and keeps failing.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "tandem/core/fixed.hpp"

namespace tandem {

class ByteWriter {
public:
    explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}
    void u8(uint8_t v) { out_.push_back(v); }
    void u16(uint16_t v) { le(v, 2); }
    void u32(uint32_t v) { le(v, 4); }
    void u64(uint64_t v) { le(v, 8); }
    // Signed values as their two's-complement bit patterns (a defined conversion in C++20).
    void i8(int8_t v) { u8(static_cast<uint8_t>(v)); }
    void i16(int16_t v) { u16(static_cast<uint16_t>(v)); }
    void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
    void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
    void fx(Fx v) { i32(v.raw()); }
    void vec2(Vec2 v) {
        fx(v.x);
        fx(v.y);
    }
    void bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
    std::vector<uint8_t>& buffer() { return out_; }

private:
    // One append per field, not per byte: a frame of 16 inputs is about 70 fields, and a
    // push_back per byte cost three times as much (tests/bench/protocol_bench.cpp).
    void le(uint64_t v, int n) {
        uint8_t b[8];
        for (int i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
        out_.insert(out_.end(), b, b + n);
    }
    std::vector<uint8_t>& out_;
};

// The same writes into a buffer already sized: a pointer bump per field, for encoders that
// know their length in advance (a snapshot is measured first). A write that would not fit
// writes nothing and fails the writer, which stays failed.
class SpanWriter {
public:
    explicit SpanWriter(std::span<uint8_t> out) : p_(out.data()), end_(out.data() + out.size()) {}
    bool ok() const { return ok_; }
    bool full() const { return ok_ && p_ == end_; }
    void u8(uint8_t v) { le<1>(v); }
    void u16(uint16_t v) { le<2>(v); }
    void u32(uint32_t v) { le<4>(v); }
    void u64(uint64_t v) { le<8>(v); }
    void i8(int8_t v) { u8(static_cast<uint8_t>(v)); }
    void i16(int16_t v) { u16(static_cast<uint16_t>(v)); }
    void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
    void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
    void fx(Fx v) { i32(v.raw()); }
    void vec2(Vec2 v) {
        fx(v.x);
        fx(v.y);
    }

private:
    // One store of the whole little-endian word (byte stores may alias the cursor itself,
    // which the compiler would then reload after each of them).
    template <int N>
    void le(uint64_t v) {
        if (end_ - p_ < N) {
            ok_ = false;
            return;
        }
        uint8_t b[N];
        for (int i = 0; i < N; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
        std::memcpy(p_, b, N);
        p_ += N;
    }
    uint8_t* p_;
    uint8_t* end_;
    bool ok_ = true;
};

// A bounds-checked cursor: every read first asks whether the bytes exist, and the first
// failure sticks, so a caller checks ok() once per section rather than after every field.
class ByteReader {
public:
    explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
    bool ok() const { return ok_; }
    uint64_t remaining() const { return ok_ ? bytes_.size() - pos_ : 0; }
    uint64_t position() const { return pos_; }
    bool has(uint64_t n) const { return ok_ && n <= remaining(); }
    uint8_t u8() { return static_cast<uint8_t>(le(1)); }
    uint16_t u16() { return static_cast<uint16_t>(le(2)); }
    uint32_t u32() { return static_cast<uint32_t>(le(4)); }
    uint64_t u64() { return le(8); }
    int8_t i8() { return static_cast<int8_t>(u8()); }
    int16_t i16() { return static_cast<int16_t>(u16()); }
    int32_t i32() { return static_cast<int32_t>(u32()); }
    int64_t i64() { return static_cast<int64_t>(u64()); }
    Fx fx() { return Fx::from_raw(i32()); }
    Vec2 vec2() {
        const Fx x = fx();
        const Fx y = fx();
        return {x, y};
    }
    // The next n bytes as a view into the input (empty, and the reader failed, if fewer remain).
    std::span<const uint8_t> take(uint64_t n) {
        if (!has(n)) {
            ok_ = false;
            return {};
        }
        const std::span<const uint8_t> out = bytes_.subspan(static_cast<size_t>(pos_), static_cast<size_t>(n));
        pos_ += n;
        return out;
    }
    // Everything left, as a view.
    std::span<const uint8_t> rest() { return take(remaining()); }
    // Marks the read as failed (a caller's own check refused what it read).
    void fail() { ok_ = false; }

private:
    uint64_t le(uint32_t n) {
        if (!has(n)) {
            ok_ = false;
            return 0;
        }
        // has(n) put pos_ + n within bytes_.size(), so the offset fits size_t even where
        // size_t is 32 bits (wasm32); the span is indexed through that checked value.
        const std::span<const uint8_t> field = bytes_.subspan(static_cast<size_t>(pos_), n);
        uint64_t v = 0;
        for (uint32_t i = 0; i < n; ++i) v |= uint64_t{field[i]} << (8 * i);
        pos_ += n;
        return v;
    }
    std::span<const uint8_t> bytes_;
    uint64_t pos_ = 0;
    bool ok_ = true;
};

}  // namespace tandem
