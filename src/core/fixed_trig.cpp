// Trigonometry on Fx: sin, cos, atan2, atan, asin, acos, each within 1 LSB of the exact
// value for every input and bit-identical on every build. Integers only: never float,
// double, libm, __int128 or a pointer-width type here, and no signed overflow.
#include "tandem/core/fixed.hpp"
#include "core/sqrt_segments.hpp"
#include "core/tables/trig_tables.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace tandem {
namespace {

// Internal results carry 31 fraction bits (Q31) in int64_t, 15 more than Fx: the
// approximation and the truncations together stay below 2^-27 (asin/acos: below 2^-24, at
// most 0.0008 LSB; 30 of their 131073 inputs in [-1, 1] miss the nearest raw value, each
// by under 0.001 LSB beyond the half), so the one rounding to Q16 at the end decides the
// result and it is the nearest raw value almost everywhere.
constexpr int q31_shift = 31;

// The constants and segment tables come from core/tables/trig_tables.hpp, written by
// core/tables/generate.py (mpmath) and checked byte for byte by a unit test.
//
// 2/pi with 64 fraction bits (two_over_pi_hi, _lo). Inputs reach 32768 rad (20861 quarter
// turns), so a 32-bit constant would put the reduced angle off by far more than an LSB at the
// top of the range; with 64 bits the reduced angle is off by less than 2^-46 quarter turns
// everywhere. pi_q31 and half_pi_q31 are pi and pi/2 rounded to Q31.
using detail::tables::two_over_pi_hi;
using detail::tables::two_over_pi_lo;
using detail::tables::pi_q31;
using detail::tables::half_pi_q31;

// sin(pi/2 * u) on [0, 1] in 64 segments of width 1/64; in segment i, sin = b0 + b1 t +
// b2 t^2 + b3 t^3 with t in [-1, 1] across the segment (the cubic through the segment's 4
// Chebyshev nodes, worst error 2^-33), coefficients in Q31. Three multiplies after a 1 KB
// table load, where one polynomial over the whole quarter wave needs degree 11 and six.
using detail::tables::sin_segments;

// atan on [0, 1] in 32 segments of width 1/32; in segment i, atan(r) = b0 + b1 t + b2 t^2
// + b3 t^3 with t in [-1, 1] across the segment (the cubic through the segment's 4 Chebyshev
// nodes, worst error 2^-29.4), coefficients in Q31. Piecewise cubics replace a second
// division (the classic pi/4 + atan((r-1)/(r+1)) step) or a degree-23 polynomial.
using detail::tables::atan_segments;

// |raw| as an unsigned value: INT32_MIN has no positive int32_t, but 2^31 fits here.
constexpr uint32_t magnitude(int32_t raw) {
    return raw < 0 ? 0u - static_cast<uint32_t>(raw) : static_cast<uint32_t>(raw);
}

// Q31 value (>= 0, or a hair below 0 from a fit's error) to the nearest raw Q16 value.
// Ties go up: the Q31 value is itself off by ~2^-29, so no tie rule could make them exact.
constexpr int32_t round_q31_to_raw(int64_t v) {
    return static_cast<int32_t>((v + (int64_t{1} << 14)) >> 15);
}

// sin(magnitude * 2^-16 + quarter_turns * pi/2) as a raw Q16 value, for magnitude <= 2^31.
// Callers fold signs into quarter_turns (sin(-x) = sin(x + 2 quarter turns)), so a result
// is negated once, and exactly.
int32_t sin_of_magnitude(uint32_t magnitude_raw, uint32_t quarter_turns) {
    // angle / (pi/2) with 48 fraction bits: magnitude * (2/pi * 2^64) / 2^32, the low
    // partial product truncated (an error below 2^-47 quarter turns). At most 2^31 * 2^64
    // * 0.64 / 2^32 < 2^63: no overflow.
    const uint64_t n = magnitude_raw;
    const uint64_t turns48 = n * two_over_pi_hi + ((n * two_over_pi_lo) >> 32);
    const uint32_t quadrant = static_cast<uint32_t>(turns48 >> 48) + quarter_turns;
    // Odd quadrants run the quarter wave backwards, sin(pi/2 (1 - f)) = cos(pi/2 f), taking
    // 1 - f as the complement of f's 48 bits (2^-48 short: nothing at Q16). No branch:
    // random angles would mispredict it half the time.
    constexpr uint64_t mask48 = (uint64_t{1} << 48) - 1;
    const uint64_t u48 = (turns48 ^ (uint64_t{0} - (quadrant & 1u))) & mask48;
    const int32_t* b = sin_segments[u48 >> 42];
    // Position within the segment scaled to [-1, 1), Q31 (truncated: an error of 2^-31).
    const int64_t t = (static_cast<int64_t>(u48 & ((uint64_t{1} << 42) - 1)) - (int64_t{1} << 41)) >> 10;
    int64_t s = b[3];
    s = b[2] + ((s * t) >> q31_shift);
    s = b[1] + ((s * t) >> q31_shift);
    s = b[0] + ((s * t) >> q31_shift);
    const int32_t r = round_q31_to_raw(s);
    return (quadrant & 2u) ? -r : r;
}

// atan(r / 2^31) in Q31 for r in [0, 2^31].
int64_t atan_unit_q31(uint64_t r) {
    const uint32_t segment = static_cast<uint32_t>((r >> 26) - (r >> 31));  // r = 2^31 -> 31
    const int32_t* b = atan_segments[segment];
    // Position within the segment, scaled to [-1, 1] in Q31.
    const int64_t t = (static_cast<int64_t>(r) - (int64_t{segment} << 26) - (int64_t{1} << 25)) << 6;
    int64_t a = b[3];
    a = b[2] + ((a * t) >> q31_shift);
    a = b[1] + ((a * t) >> q31_shift);
    a = b[0] + ((a * t) >> q31_shift);
    return a;
}

// The angle of the point (x, y) in Q31, in [0, pi], from magnitudes ay, ax < 2^32 of the
// same scale; the sign of y is applied by the caller after rounding, so atan2 is exactly
// odd in y.
int64_t angle_q31(uint64_t ay, uint64_t ax, bool x_negative) {
    if ((ay | ax) == 0) return 0;
    const bool steep = ay > ax;
    const uint64_t num = steep ? ax : ay;
    const uint64_t den = steep ? ay : ax;
    // Ratio in [0, 1] as Q31, truncated: an error below 2^-31, which atan (slope <= 1)
    // passes on no larger. num < 2^32, so num << 31 < 2^63.
    const uint64_t r = (num << q31_shift) / den;
    int64_t a = atan_unit_q31(r);
    if (steep) a = half_pi_q31 - a;
    if (x_negative) a = pi_q31 - a;
    return a;
}

// asin on [0, 1/2] in 64 segments of width 1/128, and a 65th, [1/2, 65/128], that only the
// argument 1/2 itself reaches, at t = -1 (cheaper than folding it into segment 63). In
// segment i, asin = b0 + b1 t + b2 t^2 with t in [-1, 1] across the segment (Chebyshev
// interpolation, worst error 2^-26.9 with the coefficients rounded to Q31; b0 of segment 0
// set so that asin(0) is exactly 0). asin has no singularity there (slope <= 1.16), so two
// multiplies after a 780-byte table load do.
using detail::tables::asin_segments;

// asin(u / 2^31) in Q31 for u in [0, 2^30] (the argument at most 1/2).
int64_t asin_half_q31(uint64_t u) {
    const int32_t* b = asin_segments[u >> 24];
    // Position within the segment, scaled to [-1, 1) in Q31 (exact).
    const int64_t t = static_cast<int64_t>((u & ((uint64_t{1} << 24) - 1)) << 8) - (int64_t{1} << 31);
    int64_t a = b[2];
    a = b[1] + ((a * t) >> q31_shift);
    a = b[0] + ((a * t) >> q31_shift);
    return a;
}

using detail::sqrt_segments;  // core/sqrt_segments.hpp

// sqrt(n) for n in [2^62, 2^64), or n = 0, within 2^-26.3 relative (under 52 units), without
// a division or an iteration: w = n / 2^62, and sqrt(n) = 2^31 sqrt(w).
uint64_t sqrt_normalised(uint64_t n) {
    const uint64_t i = n >> 56;
    // Position within the segment scaled to [-1, 1) in Q31 (the low 24 bits of n dropped:
    // 2^-38 relative).
    const int64_t t = static_cast<int64_t>((n >> 24) & 0xFFFFFFFFu) - (int64_t{1} << 31);
    int64_t s = sqrt_segments.c2[i];
    s = sqrt_segments.c1[i] + ((s * t) >> q31_shift);
    s = int64_t{sqrt_segments.c0[i]} + ((s * t) >> q31_shift);
    return static_cast<uint64_t>(s);
}

// sqrt((1 - |a|) / 2) in Q31 for |a| = m / 2^16, m <= 2^16: sqrt(d * 2^45) with d = 2^16 - m
// (at most 2^61), to within 2^-26 (26 units, the shift below is at least 2); 0 exactly at
// m = 2^16.
uint64_t half_versine_root_q31(uint32_t m) {
    const uint64_t n = uint64_t{65536u - m} << 45;
    const int shift = std::countl_zero(n | 1) & ~1;  // even, <= 62; n = 0 stays 0
    return sqrt_normalised(n << shift) >> (shift / 2);
}

// asin(|a|) in Q31 for |a| = m / 2^16, m <= 2^16, from two parts: for |a| <= 1/2 (far = 0),
// asin(|a|) = p directly; beyond (far = all ones), asin(|a|) = pi/2 - 2p with
// p = asin(sqrt((1 - |a|) / 2)), which keeps full precision near 1, where asin is steep.
// Both roads share the quadratics. The root is always computed and the roads are chosen by
// masks: a compiler turns a plain select here into a branch, which random inputs
// mispredict half the time at a cost above the root's.
struct AsinParts {
    int64_t far;  // 0 or -1
    int64_t p;
};
AsinParts asin_parts(uint32_t m) {
    const uint64_t far = uint64_t{0} - static_cast<uint64_t>(m > 32768);
    const uint64_t u = (half_versine_root_q31(m) & far) | ((uint64_t{m} << 15) & ~far);
    return {static_cast<int64_t>(far), asin_half_q31(u)};
}

}  // namespace

Fx sin(Fx a) {
    return Fx::from_raw(sin_of_magnitude(magnitude(a.raw()), a.raw() < 0 ? 2u : 0u));
}

Fx cos(Fx a) { return Fx::from_raw(sin_of_magnitude(magnitude(a.raw()), 1)); }

Fx atan2(Fx y, Fx x) {
    const int32_t r = round_q31_to_raw(angle_q31(magnitude(y.raw()), magnitude(x.raw()), x.raw() < 0));
    return Fx::from_raw(y.raw() < 0 ? -r : r);
}

Fx atan(Fx a) {
    // atan(a) = atan2(a, 1): beyond |a| = 1 the core takes pi/2 - atan(1/a) itself.
    const int32_t r = round_q31_to_raw(angle_q31(magnitude(a.raw()), uint64_t{1} << 16, false));
    return Fx::from_raw(a.raw() < 0 ? -r : r);
}

// asin and acos take the sign through masks too, for the same reason, and clamp the
// magnitude (a minimum, not two compares against the ends).
Fx asin(Fx a) {
    const uint32_t neg = 0u - (static_cast<uint32_t>(a.raw()) >> 31);  // all ones when a < 0
    const uint32_t m = std::min((static_cast<uint32_t>(a.raw()) ^ neg) - neg, uint32_t{65536});
    const AsinParts q = asin_parts(m);
    // p, or pi/2 - 2p on the far road
    const int64_t v = q.p + ((half_pi_q31 - 3 * q.p) & q.far);
    const uint32_t r = static_cast<uint32_t>(round_q31_to_raw(v));
    return Fx::from_raw(static_cast<int32_t>((r ^ neg) - neg));  // |r| <= 2^17: exact
}

Fx acos(Fx a) {
    const uint32_t neg = 0u - (static_cast<uint32_t>(a.raw()) >> 31);
    const uint32_t m = std::min((static_cast<uint32_t>(a.raw()) ^ neg) - neg, uint32_t{65536});
    const AsinParts q = asin_parts(m);
    // acos(|a|) = pi/2 - asin(|a|): pi/2 - p, or 2p on the far road. acos(-|a|) = pi -
    // acos(|a|). One rounding at the end.
    const int64_t v = (half_pi_q31 - q.p) + ((3 * q.p - half_pi_q31) & q.far);
    const int64_t neg64 = -static_cast<int64_t>(neg & 1u);
    return Fx::from_raw(round_q31_to_raw(((v ^ neg64) - neg64) + (pi_q31 & neg64)));
}

}  // namespace tandem
