// The field types a game's visitors may name, and the one canonical form of each: its bytes
// (snapshots, the wire), its digest, its text (dumps, diffs) and its place in the canonical
// order (inputs, list keys). Anything else is refused at compile time, so no host-dependent
// type (size_t, long, float, a pointer) can reach a digest.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "tandem/core/bytes.hpp"
#include "tandem/core/digest.hpp"
#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"
#include "tandem/core/slot_key.hpp"

namespace tandem::sim {

// Order keys: each field becomes one or more u64 whose lexicographic order is the field's
// numeric order (signed values with their sign bit flipped), so two commands or two keys
// compare field by field, numerically, without allocating.
inline constexpr uint64_t signed_order(int64_t v) { return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63); }

template <class T>
struct FieldTraits;  // undefined: not a field type

template <class T>
concept FieldType = requires { FieldTraits<std::remove_cv_t<T>>::bytes; };

template <class U>
    requires(std::is_integral_v<U> && !std::is_same_v<U, bool> && sizeof(U) <= 8 &&
             (std::is_same_v<U, uint8_t> || std::is_same_v<U, uint16_t> || std::is_same_v<U, uint32_t> ||
              std::is_same_v<U, uint64_t> || std::is_same_v<U, int8_t> || std::is_same_v<U, int16_t> ||
              std::is_same_v<U, int32_t> || std::is_same_v<U, int64_t>))
struct FieldTraits<U> {
    static constexpr uint32_t bytes = sizeof(U);
    static constexpr uint32_t order_words = 1;
    template <class W>
    static void write(W& w, U v) {
        if constexpr (std::is_signed_v<U>) {
            if constexpr (sizeof(U) == 1) w.i8(v);
            else if constexpr (sizeof(U) == 2) w.i16(v);
            else if constexpr (sizeof(U) == 4) w.i32(v);
            else w.i64(v);
        } else {
            if constexpr (sizeof(U) == 1) w.u8(v);
            else if constexpr (sizeof(U) == 2) w.u16(v);
            else if constexpr (sizeof(U) == 4) w.u32(v);
            else w.u64(v);
        }
    }
    // Every bit pattern is a value: only truncation can refuse (the reader's ok()).
    static bool read(ByteReader& r, U& v) {
        if constexpr (std::is_signed_v<U>) {
            if constexpr (sizeof(U) == 1) v = r.i8();
            else if constexpr (sizeof(U) == 2) v = r.i16();
            else if constexpr (sizeof(U) == 4) v = r.i32();
            else v = r.i64();
        } else {
            if constexpr (sizeof(U) == 1) v = r.u8();
            else if constexpr (sizeof(U) == 2) v = r.u16();
            else if constexpr (sizeof(U) == 4) v = r.u32();
            else v = r.u64();
        }
        return true;
    }
    static void digest(StateDigest& d, U v) {
        if constexpr (std::is_signed_v<U>) {
            if constexpr (sizeof(U) == 1) d.write_i8(v);
            else if constexpr (sizeof(U) == 2) d.write_i16(v);
            else if constexpr (sizeof(U) == 4) d.write_i32(v);
            else d.write_i64(v);
        } else {
            if constexpr (sizeof(U) == 1) d.write_u8(v);
            else if constexpr (sizeof(U) == 2) d.write_u16(v);
            else if constexpr (sizeof(U) == 4) d.write_u32(v);
            else d.write_u64(v);
        }
    }
    template <class Emit>
    static void text(U v, Emit&& emit) {
        emit(std::string_view{}, std::to_string(v));
    }
    template <class Emit>
    static void order(U v, Emit&& emit) {
        if constexpr (std::is_signed_v<U>) emit(signed_order(v));
        else emit(static_cast<uint64_t>(v));
    }
};

template <>
struct FieldTraits<bool> {
    static constexpr uint32_t bytes = 1;
    static constexpr uint32_t order_words = 1;
    template <class W>
    static void write(W& w, bool v) { w.u8(v ? 1 : 0); }
    // One byte, 0 or 1: any other byte would decode to a value that re-encodes differently.
    static bool read(ByteReader& r, bool& v) {
        const uint8_t b = r.u8();
        v = b == 1;
        return b <= 1;
    }
    static void digest(StateDigest& d, bool v) { d.write_bool(v); }
    template <class Emit>
    static void text(bool v, Emit&& emit) {
        emit(std::string_view{}, v ? std::string("1") : std::string("0"));
    }
    template <class Emit>
    static void order(bool v, Emit&& emit) {
        emit(v ? 1u : 0u);
    }
};

template <>
struct FieldTraits<Fx> {
    static constexpr uint32_t bytes = 4;
    static constexpr uint32_t order_words = 1;
    template <class W>
    static void write(W& w, Fx v) { w.fx(v); }
    static bool read(ByteReader& r, Fx& v) {
        v = r.fx();
        return true;
    }
    static void digest(StateDigest& d, Fx v) { d.write_fx(v); }
    // The raw Q16.16 integer: exact, so two dumps differ exactly where the bits differ.
    template <class Emit>
    static void text(Fx v, Emit&& emit) {
        emit(std::string_view{}, std::to_string(v.raw()));
    }
    template <class Emit>
    static void order(Fx v, Emit&& emit) {
        emit(signed_order(v.raw()));
    }
};

template <>
struct FieldTraits<Vec2> {
    static constexpr uint32_t bytes = 8;
    static constexpr uint32_t order_words = 2;
    template <class W>
    static void write(W& w, Vec2 v) { w.vec2(v); }
    static bool read(ByteReader& r, Vec2& v) {
        v = r.vec2();
        return true;
    }
    static void digest(StateDigest& d, Vec2 v) { d.write_vec2(v); }
    template <class Emit>
    static void text(Vec2 v, Emit&& emit) {
        emit(".x", std::to_string(v.x.raw()));
        emit(".y", std::to_string(v.y.raw()));
    }
    template <class Emit>
    static void order(Vec2 v, Emit&& emit) {
        emit(signed_order(v.x.raw()));
        emit(signed_order(v.y.raw()));
    }
};

template <>
struct FieldTraits<SlotKey> {
    static constexpr uint32_t bytes = 8;
    static constexpr uint32_t order_words = 2;
    template <class W>
    static void write(W& w, SlotKey v) {
        w.u32(v.index);
        w.u32(v.generation);
    }
    static bool read(ByteReader& r, SlotKey& v) {
        v.index = r.u32();
        v.generation = r.u32();
        return true;
    }
    static void digest(StateDigest& d, SlotKey v) {
        d.write_u32(v.index);
        d.write_u32(v.generation);
    }
    template <class Emit>
    static void text(SlotKey v, Emit&& emit) {
        emit(".index", std::to_string(v.index));
        emit(".generation", std::to_string(v.generation));
    }
    template <class Emit>
    static void order(SlotKey v, Emit&& emit) {
        emit(v.index);
        emit(v.generation);
    }
};

template <>
struct FieldTraits<XorShift> {
    static constexpr uint32_t bytes = 8;
    static constexpr uint32_t order_words = 1;
    template <class W>
    static void write(W& w, const XorShift& v) { w.u64(v.state()); }
    // XorShift::from_state(0) substitutes a non-zero state, which would not re-encode to the
    // bytes read: zero is simply not a state a generator can be in.
    static bool read(ByteReader& r, XorShift& v) {
        const uint64_t s = r.u64();
        v = XorShift::from_state(s);
        return s != 0 || !r.ok();
    }
    static void digest(StateDigest& d, const XorShift& v) { d.write_u64(v.state()); }
    template <class Emit>
    static void text(const XorShift& v, Emit&& emit) {
        emit(".state", std::to_string(v.state()));
    }
    template <class Emit>
    static void order(const XorShift& v, Emit&& emit) {
        emit(v.state());
    }
};

// A key's text inside a path: "wells[3]", "ships[7:2]" (a SlotKey's index and generation).
template <class T>
std::string key_text(const T& v) {
    std::string out;
    FieldTraits<std::remove_cv_t<T>>::text(v, [&out](std::string_view, const std::string& value) {
        if (!out.empty()) out += ':';
        out += value;
    });
    return out;
}

}  // namespace tandem::sim
