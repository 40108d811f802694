// Properties of include/tandem/net/link_arith.hpp: saturating time arithmetic at the ends of
// the int64_t range, scaling by a fraction rounded to nearest (ties to even), and sequence
// comparison across the u32 wrap, with exactly-half-apart numbers newer in neither direction.
#include "tandem/net/link_arith.hpp"

#include <catch2/catch.hpp>

#include <cstdint>

using namespace tandem::net;

TEST_CASE("time sums and differences saturate at the ends of the range") {
    CHECK(sat_add(INT64_MAX, 1) == INT64_MAX);
    CHECK(sat_add(INT64_MIN, -1) == INT64_MIN);
    CHECK(sat_add(5, -7) == -2);
    CHECK(sat_sub(INT64_MIN, 1) == INT64_MIN);
    CHECK(sat_sub(INT64_MAX, -1) == INT64_MAX);
    CHECK(sat_sub(0, INT64_MIN) == INT64_MAX);
    CHECK(sat_sub(-1, INT64_MIN) == INT64_MAX);  // exactly INT64_MAX, no clamp needed
    CHECK(sat_sub(-2, INT64_MAX) == INT64_MIN);  // -2 - (2^63 - 1) = -2^63 - 1: clamped
    CHECK(abs_diff(INT64_MIN, INT64_MAX) == INT64_MAX);
    CHECK(abs_diff(3, -4) == 7);
    CHECK(abs_diff(-4, 3) == 7);
}

TEST_CASE("a duration scaled by a fraction rounds to nearest, ties to even") {
    // 3 * 0.5 = 1.5 -> 2; 5 * 0.5 = 2.5 -> 2; -3 * 0.5 = -1.5 -> -2.
    const tandem::Fx half = tandem::Fx::from_raw(32768);
    CHECK(scale_ns(3, half) == 2);
    CHECK(scale_ns(5, half) == 2);
    CHECK(scale_ns(-3, half) == -2);
    CHECK(scale_ns(INT64_MAX, tandem::Fx::from_int(2)) == INT64_MAX);  // saturates
    CHECK(mul_div_round(7, 3, 2) == 10);  // 10.5 -> 10
}

TEST_CASE("a sequence number is newer when it lies less than 2^31 ahead, modulo 2^32") {
    CHECK(seq_newer(1, 0));
    CHECK_FALSE(seq_newer(0, 1));
    CHECK_FALSE(seq_newer(5, 5));
    CHECK(seq_newer(0, 0xFFFFFFFFu));  // across the wrap
    CHECK(seq_distance(0xFFFFFFFFu, 2) == 3);
    CHECK(seq_distance(2, 0xFFFFFFFFu) == -3);
    CHECK(seq_newer(0x7FFFFFFFu, 0));
    // Exactly half the circle apart: newer in neither direction.
    CHECK_FALSE(seq_newer(0x80000000u, 0));
    CHECK_FALSE(seq_newer(0, 0x80000000u));
}
