// The integer arithmetic the link toolkit shares: saturating nanosecond sums and differences
// (stamps come off the wire and may be anything, so no sum of two may overflow), scaling a
// duration by an Fx fraction with stated rounding, and sequence-number comparison that
// survives wrap-around. No floating point, so every build gives the same answers.
#pragma once

#include <cstdint>

#include "tandem/core/fixed.hpp"
#include "tandem/core/wide.hpp"

namespace tandem::net {

// ---- Saturating time ---------------------------------------------------------------------

// a + b and a - b, clamped to the int64_t range. A clamped time is wrong by a little; a
// wrapped one is wrong by everything (and signed overflow is undefined behaviour).
constexpr int64_t sat_add(int64_t a, int64_t b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}
constexpr int64_t sat_sub(int64_t a, int64_t b) {
    if (b < 0 && a > INT64_MAX + b) return INT64_MAX;
    if (b > 0 && a < INT64_MIN + b) return INT64_MIN;
    return a - b;
}
// |a - b|, saturating at INT64_MAX.
constexpr int64_t abs_diff(int64_t a, int64_t b) {
    const uint64_t d = a >= b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
                              : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
    return d > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(d);
}

// a * b / d for d > 0, computed exactly in 128 bits, rounded to nearest with ties to even,
// saturating at the int64_t range.
constexpr int64_t mul_div_round(int64_t a, int64_t b, int64_t d) { return Wide::mul(a, b).div_round(d); }

// ns * fraction, rounded to nearest with ties to even (the fraction is Q16.16, so this is
// ns * raw / 65536 computed exactly).
constexpr int64_t scale_ns(int64_t ns, Fx fraction) { return mul_div_round(ns, fraction.raw(), Fx::one_raw); }

// ---- Sequence numbers --------------------------------------------------------------------
//
// u32 sequence numbers wrap after 2^32 packets (about 2 years at 60 Hz, but a sender may
// start anywhere). They are compared by serial-number arithmetic (RFC 1982): b is newer
// than a when it lies less than 2^31 ahead of it, modulo 2^32. Exactly 2^31 apart is
// ambiguous; it is read as "not newer" in both directions so that no pair is newer than
// each other.

// How far b lies ahead of a: positive when b is newer, negative when older. The difference
// modulo 2^32 read as two's complement, so 0xFFFFFFFF -> 0 is +1.
constexpr int32_t seq_distance(uint32_t a, uint32_t b) {
    return static_cast<int32_t>(b - a);  // modular conversion, defined since C++20
}
constexpr bool seq_newer(uint32_t candidate, uint32_t than) {
    const int32_t d = seq_distance(than, candidate);
    return d > 0;
}

}  // namespace tandem::net
