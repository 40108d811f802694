// Fixed-point arithmetic: signed Q16.16 in an int32_t, the number format of the whole
// simulation. Every operation is defined for every input (saturating, never signed-overflow
// UB), correctly rounded where exactness is possible, and identical on every build.
// Never construct an Fx from a float at run time; floats leave through to_f32/to_f64 only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tandem/core/wide.hpp"

namespace tandem {

class Fx {
public:
    static constexpr int frac_bits = 16;
    static constexpr int32_t one_raw = int32_t{1} << frac_bits;

    constexpr Fx() = default;

    // The raw Q16.16 bit pattern: value = raw / 65536.
    static constexpr Fx from_raw(int32_t raw) { Fx f; f.raw_ = raw; return f; }
    // Integer to Fx, saturating outside [-32768, 32767].
    static constexpr Fx from_int(int32_t i) {
        if (i > 32767) return max();
        if (i < -32768) return min();
        return from_raw(static_cast<int32_t>(static_cast<uint32_t>(i) << frac_bits));
    }
    static constexpr Fx max() { return from_raw(INT32_MAX); }
    static constexpr Fx min() { return from_raw(INT32_MIN); }
    static constexpr Fx zero() { return from_raw(0); }
    static constexpr Fx one() { return from_raw(one_raw); }
    static constexpr Fx epsilon() { return from_raw(1); }

    constexpr int32_t raw() const { return raw_; }

    friend constexpr bool operator==(Fx a, Fx b) = default;
    friend constexpr auto operator<=>(Fx a, Fx b) = default;

private:
    int32_t raw_ = 0;
};

// Constants, correctly rounded to the nearest raw value.
namespace fx {
inline constexpr Fx pi = Fx::from_raw(205887);       // 3.14159265358979... * 65536 = 205887.416
inline constexpr Fx half_pi = Fx::from_raw(102944);  // 102943.708
inline constexpr Fx two_pi = Fx::from_raw(411775);   // 411774.832
inline constexpr Fx e = Fx::from_raw(178145);        // 178145.318
}  // namespace fx

namespace detail {
constexpr int32_t saturate32(int64_t v) {
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : static_cast<int32_t>(v);
}
// Two's-complement truncation to 32 bits, defined for every input (C++20).
constexpr int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }

// Q32.32 product -> Q16.16, rounded to nearest, ties to even. Exact in int64: |a*b| <= 2^62.
constexpr int64_t mul_round(int32_t a, int32_t b) {
    const int64_t p = int64_t{a} * int64_t{b};
    int64_t q = p >> Fx::frac_bits;  // arithmetic shift (defined in C++20): floor
    const int64_t rem = p & 0xFFFF;
    if (ties_to_even_up(rem, int64_t{0x8000}, q)) ++q;
    return q;
}

// (a << 16) / b, rounded to nearest, ties to even, on magnitudes. Caller handles b == 0.
constexpr int64_t div_round(int32_t a, int32_t b) {
    const bool negative = (a < 0) != (b < 0);
    const uint64_t n = (a < 0 ? uint64_t{0} - static_cast<uint64_t>(int64_t{a}) : static_cast<uint64_t>(a)) << Fx::frac_bits;
    const uint64_t d = b < 0 ? uint64_t{0} - static_cast<uint64_t>(int64_t{b}) : static_cast<uint64_t>(b);
    uint64_t q = n / d;
    const uint64_t r = n % d;
    if (ties_to_even_up(2 * r, d, q)) ++q;
    // q <= 2^47, so the cast is exact.
    return negative ? -static_cast<int64_t>(q) : static_cast<int64_t>(q);
}

constexpr int64_t div_by_zero(int32_t a) { return a > 0 ? INT32_MAX : a < 0 ? INT32_MIN : 0; }
}  // namespace detail

// Saturating arithmetic: the result is the exact (or correctly rounded) value clamped to
// [Fx::min(), Fx::max()]. Division by zero saturates toward the sign of the dividend; 0/0 is 0.
constexpr Fx operator+(Fx a, Fx b) { return Fx::from_raw(detail::saturate32(int64_t{a.raw()} + b.raw())); }
constexpr Fx operator-(Fx a, Fx b) { return Fx::from_raw(detail::saturate32(int64_t{a.raw()} - b.raw())); }
constexpr Fx operator-(Fx a) { return Fx::from_raw(detail::saturate32(-int64_t{a.raw()})); }
constexpr Fx operator*(Fx a, Fx b) { return Fx::from_raw(detail::saturate32(detail::mul_round(a.raw(), b.raw()))); }
constexpr Fx operator/(Fx a, Fx b) {
    if (b.raw() == 0) return Fx::from_raw(static_cast<int32_t>(detail::div_by_zero(a.raw())));
    return Fx::from_raw(detail::saturate32(detail::div_round(a.raw(), b.raw())));
}
constexpr Fx& operator+=(Fx& a, Fx b) { return a = a + b; }
constexpr Fx& operator-=(Fx& a, Fx b) { return a = a - b; }
constexpr Fx& operator*=(Fx& a, Fx b) { return a = a * b; }
constexpr Fx& operator/=(Fx& a, Fx b) { return a = a / b; }

// Wrapping variants: the correctly rounded result reduced modulo 2^32 (two's complement),
// for callers who want ring arithmetic (hash-like mixing, phase accumulators).
// wrapping_div by zero returns 0 (there is no value to wrap).
constexpr Fx wrapping_add(Fx a, Fx b) { return Fx::from_raw(detail::wrap32(int64_t{a.raw()} + b.raw())); }
constexpr Fx wrapping_sub(Fx a, Fx b) { return Fx::from_raw(detail::wrap32(int64_t{a.raw()} - b.raw())); }
constexpr Fx wrapping_neg(Fx a) { return Fx::from_raw(detail::wrap32(-int64_t{a.raw()})); }
constexpr Fx wrapping_mul(Fx a, Fx b) { return Fx::from_raw(detail::wrap32(detail::mul_round(a.raw(), b.raw()))); }
constexpr Fx wrapping_div(Fx a, Fx b) {
    return b.raw() == 0 ? Fx::zero() : Fx::from_raw(detail::wrap32(detail::div_round(a.raw(), b.raw())));
}

// Checked variants: nullopt when the result is not representable (or on division by zero),
// so no valid number doubles as an error code.
namespace detail {
constexpr std::optional<Fx> checked(int64_t v) {
    if (v > INT32_MAX || v < INT32_MIN) return std::nullopt;
    return Fx::from_raw(static_cast<int32_t>(v));
}
}  // namespace detail
constexpr std::optional<Fx> checked_add(Fx a, Fx b) { return detail::checked(int64_t{a.raw()} + b.raw()); }
constexpr std::optional<Fx> checked_sub(Fx a, Fx b) { return detail::checked(int64_t{a.raw()} - b.raw()); }
constexpr std::optional<Fx> checked_neg(Fx a) { return detail::checked(-int64_t{a.raw()}); }
constexpr std::optional<Fx> checked_mul(Fx a, Fx b) { return detail::checked(detail::mul_round(a.raw(), b.raw())); }
constexpr std::optional<Fx> checked_div(Fx a, Fx b) {
    if (b.raw() == 0) return std::nullopt;
    return detail::checked(detail::div_round(a.raw(), b.raw()));
}

constexpr Fx abs(Fx a) { return a.raw() < 0 ? -a : a; }  // abs(min()) saturates to max()
constexpr Fx min(Fx a, Fx b) { return b < a ? b : a; }
constexpr Fx max(Fx a, Fx b) { return a < b ? b : a; }
// clamp(v, lo, hi) for lo <= hi; with lo > hi the result is lo (defined, never UB).
constexpr Fx clamp(Fx v, Fx lo, Fx hi) { return v < lo ? lo : hi < v ? (hi < lo ? lo : hi) : v; }

// Rounding to an integer. The results are int32_t because ceil and round of values near
// Fx::max() (32767.99...) are 32768, which an Fx cannot hold.
constexpr int32_t floor_int(Fx a) { return a.raw() >> Fx::frac_bits; }
constexpr int32_t ceil_int(Fx a) { return static_cast<int32_t>((int64_t{a.raw()} + 0xFFFF) >> Fx::frac_bits); }
// Nearest integer, ties to even (the rule every other operation here uses: no bias).
constexpr int32_t round_int(Fx a) {
    int32_t q = a.raw() >> Fx::frac_bits;
    const int32_t rem = a.raw() & 0xFFFF;
    if (detail::ties_to_even_up(rem, int32_t{0x8000}, q)) ++q;  // q <= 32767: no overflow
    return q;
}

// a / b for integers, correctly rounded (ties to even) and saturating; b == 0 as for '/'.
// (a / b) * 2^16 is exactly from_raw(a) / from_raw(b): the raw quotient is scaled by 2^16.
constexpr Fx ratio(int32_t a, int32_t b) { return Fx::from_raw(a) / Fx::from_raw(b); }

// A 2-D vector of Fx. Component-wise operations saturate like Fx's. Products that can
// exceed Q16.16 (dot, squared length and distance) are returned in the wide type from
// core/wide.hpp so they cannot overflow for any two Fx points (fixed.cpp, below).
struct Vec2 {
    Fx x;
    Fx y;
    friend constexpr bool operator==(Vec2 a, Vec2 b) = default;
};
constexpr Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
constexpr Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
constexpr Vec2 operator-(Vec2 a) { return {-a.x, -a.y}; }
constexpr Vec2 operator*(Vec2 a, Fx s) { return {a.x * s, a.y * s}; }
constexpr Vec2 operator*(Fx s, Vec2 a) { return {a.x * s, a.y * s}; }
constexpr Vec2& operator+=(Vec2& a, Vec2 b) { return a = a + b; }
constexpr Vec2& operator-=(Vec2& a, Vec2 b) { return a = a - b; }

// Exact dot product in raw^2 units (Q32.32: value = result / 2^32). Each product is at most
// 2^62 in magnitude, so the sum fits in Wide for every input (not always in int64).
constexpr Wide dot(Vec2 a, Vec2 b) {
    return Wide::from_i64(int64_t{a.x.raw()} * b.x.raw()) + Wide::from_i64(int64_t{a.y.raw()} * b.y.raw());
}
constexpr Wide length_squared(Vec2 a) { return dot(a, a); }
// Exact, for any two points: the differences are computed in 64 bits (|d| < 2^32), so the
// squared distance (< 2^65) is never saturated or wrapped, unlike length_squared(b - a).
constexpr Wide distance_squared(Vec2 a, Vec2 b) {
    const int64_t dx = int64_t{b.x.raw()} - a.x.raw();
    const int64_t dy = int64_t{b.y.raw()} - a.y.raw();
    const uint64_t mx = static_cast<uint64_t>(dx < 0 ? -dx : dx), my = static_cast<uint64_t>(dy < 0 ? -dy : dy);
    const uint64_t sx = mx * mx, sy = my * my;  // each < 2^64
    const uint64_t lo = sx + sy;
    return Wide::from_parts(lo < sx ? 1 : 0, lo);
}
// Euclidean length and distance, correctly rounded to the nearest raw value (no ties exist),
// saturating at Fx::max() (the length of (min, min) is 46341.0 > max).
Fx length(Vec2 a);
Fx distance(Vec2 a, Vec2 b);
// The direction of a with length one: each component is x / |a| correctly rounded to the
// nearest raw value (no ties can occur), so normalize(a) is exact for axis directions and
// |length(normalize(a)) - 1| <= 1 LSB. normalize of the zero vector is the zero vector.
Vec2 normalize(Vec2 a);
// rotate(a, angle) is defined after sin/cos below.

// ---- Functions (src/core/fixed.cpp, fixed_trig.cpp, fixed_exp.cpp). Each states its
// maximum error in LSB (1 LSB = 2^-16); tests/core and tests/exhaustive enforce it.

// Correctly rounded square root for every input >= 0. Negative input returns 0 (the
// nearest point of the domain), so the function is total and never traps.
Fx sqrt(Fx a);

// Angles in radians. sin/cos: at most 1 LSB from the exact value for every input, with
// sin(-x) == -sin(x) and cos(-x) == cos(x) exactly.
Fx sin(Fx a);
Fx cos(Fx a);
// atan2(y, x) in [-pi, pi], at most 1 LSB everywhere, atan2(0, 0) == 0.
Fx atan2(Fx y, Fx x);
Fx atan(Fx a);
// asin/acos: at most 1 LSB on [-1, 1]; inputs outside are clamped to [-1, 1].
Fx asin(Fx a);
Fx acos(Fx a);
// exp: at most 1 LSB below 1.0, relative error at most 2^-16 above; never negative;
// saturates to Fx::max() when the result is too large.
Fx exp(Fx a);
// log: natural logarithm, at most 1 LSB, unbiased. log of a value <= 0 returns Fx::min().
Fx log(Fx a);

// a rotated counter-clockwise by angle (radians), with sin/cos from fixed_trig.cpp:
// x*cos - y*sin and x*sin + y*cos are each rounded once (ties to even) from the exact Q32.32
// sum (|sum| < 2^49, exact in int64), then saturated. Inline so that programs which never
// rotate do not need the trigonometry linked.
inline Vec2 rotate(Vec2 a, Fx angle) {
    const int64_t c = cos(angle).raw(), s = sin(angle).raw();
    const int64_t x = int64_t{a.x.raw()} * c - int64_t{a.y.raw()} * s;
    const int64_t y = int64_t{a.x.raw()} * s + int64_t{a.y.raw()} * c;
    auto round_q32 = [](int64_t v) {
        int64_t q = v >> Fx::frac_bits;  // floor
        const int64_t rem = v & 0xFFFF;
        if (detail::ties_to_even_up(rem, int64_t{0x8000}, q)) ++q;
        return Fx::from_raw(detail::saturate32(q));
    };
    return {round_q32(x), round_q32(y)};
}

// Rendering only: one way, never fed back into simulation state.
float to_f32(Fx a);
double to_f64(Fx a);

// Decimal text. parse uses every digit and rounds correctly (ties to even); it accepts
// [+-]digits[.digits] and returns nullopt on anything else or on overflow.
std::optional<Fx> parse(std::string_view text);
// The shortest decimal that parses back to the same value ("-1.5", "0.0001", "3").
std::string to_string(Fx a);

}  // namespace tandem
