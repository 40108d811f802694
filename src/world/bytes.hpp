// Little-endian bytes written and read field by field: the one way src/world and src/net turn
// values into bytes (snapshots, inputs, wire messages, replays) and back. Private to the
// library (src/). The Reader takes untrusted bytes: it must never read past its span, and a
// read that does not fit fails and keeps failing.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "tandem/world/world.hpp"

namespace tandem::world {

class Writer {
public:
    explicit Writer(std::vector<uint8_t>& out) : out_(out) {}
    void u8(uint8_t v) { out_.push_back(v); }
    void u16(uint16_t v) { le(v, 2); }
    void u32(uint32_t v) { le(v, 4); }
    void u64(uint64_t v) { le(v, 8); }
    void fx(Fx v) { u32(static_cast<uint32_t>(v.raw())); }
    void vec2(Vec2 v) { fx(v.x); fx(v.y); }

private:
    // One append per field, not per byte: a frame of 16 inputs is about 70 fields, and a
    // push_back per byte cost three times as much (tests/bench/protocol_bench.cpp).
    void le(uint64_t v, int n) {
        uint8_t bytes[8];
        for (int i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(v >> (8 * i));
        out_.insert(out_.end(), bytes, bytes + n);
    }
    std::vector<uint8_t>& out_;
};

// A bounds-checked cursor: every read first asks whether the bytes exist, and the first
// failure sticks, so a caller checks ok() once per section rather than after every field.
class Reader {
public:
    explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
    bool ok() const { return ok_; }
    uint64_t remaining() const { return bytes_.size() - pos_; }
    bool has(uint64_t n) const { return ok_ && n <= remaining(); }
    uint8_t u8() { return static_cast<uint8_t>(le(1)); }
    uint16_t u16() { return static_cast<uint16_t>(le(2)); }
    uint32_t u32() { return static_cast<uint32_t>(le(4)); }
    uint64_t u64() { return le(8); }
    Fx fx() { return Fx::from_raw(static_cast<int32_t>(u32())); }
    Vec2 vec2() {
        const Fx x = fx();
        const Fx y = fx();
        return {x, y};
    }

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

// A WorldConfig as bytes, shared by snapshots and the wire's welcome: each field in
// for_each_config_field order, u64 for the seed, u32 for the integer knobs, i32 raw for each Fx.
inline constexpr uint32_t config_wire_bytes = 8 + 15 * 4;

inline void write_config(Writer& w, const WorldConfig& c) {
    for_each_config_field(c, [&w](std::string_view, auto field) {
        if constexpr (std::is_same_v<decltype(field), uint64_t>) w.u64(field);
        else if constexpr (std::is_same_v<decltype(field), uint32_t>) w.u32(field);
        else w.fx(field);
    });
}

// Reads every field (check r.ok() afterwards); the values are not validated here.
inline WorldConfig read_config(Reader& r) {
    WorldConfig c;
    for_each_config_field(c, [&r](std::string_view, auto& field) {
        using T = std::remove_reference_t<decltype(field)>;
        if constexpr (std::is_same_v<T, uint64_t>) field = r.u64();
        else if constexpr (std::is_same_v<T, uint32_t>) field = r.u32();
        else field = r.fx();
    });
    return c;
}

}  // namespace tandem::world
