// Properties of src/core/wide.hpp (tandem::Wide, the portable signed 128-bit integer):
// exact products against an independent 16-bit-limb reference, algebraic identities, and
// the rounding contracts of div_round and isqrt_round.
#include "tandem/core/wide.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

using tandem::Wide;

namespace {

// splitmix64: a fixed, portable stream of test inputs.
struct Rng {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9E3779B97F4A7C15u);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
        return z ^ (z >> 31);
    }
    // Values of every magnitude: a random bit length, so small and huge inputs both occur.
    int64_t any_i64() {
        const uint64_t v = next();
        const int bits = static_cast<int>(next() % 65);
        const uint64_t m = bits == 64 ? v : bits == 0 ? 0 : v >> (64 - bits);
        return static_cast<int64_t>(m);
    }
};

// Reference product built from 16-bit limbs (a different decomposition from Wide's 32-bit
// limbs), on magnitudes, negated by hand at the end.
Wide reference_mul(int64_t a, int64_t b) {
    const uint64_t ma = a < 0 ? uint64_t{0} - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
    const uint64_t mb = b < 0 ? uint64_t{0} - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
    std::array<uint64_t, 9> acc{};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i + j] += ((ma >> (16 * i)) & 0xFFFF) * ((mb >> (16 * j)) & 0xFFFF);
    for (int k = 0; k < 8; ++k) {  // carry propagation, 16 bits per digit
        acc[k + 1] += acc[k] >> 16;
        acc[k] &= 0xFFFF;
    }
    uint64_t lo = 0, hi = 0;
    for (int k = 0; k < 4; ++k) lo |= acc[k] << (16 * k);
    for (int k = 0; k < 4; ++k) hi |= acc[k + 4] << (16 * k);
    if ((a < 0) != (b < 0)) {  // two's complement negation by hand: ~x + 1
        lo = ~lo + 1;
        hi = ~hi + (lo == 0 ? 1 : 0);
    }
    return Wide::from_parts(static_cast<int64_t>(hi), lo);
}

// Unsigned 128-bit comparison helpers for isqrt checks: (hi, lo) pairs.
bool u128_le(tandem::detail::U128 a, tandem::detail::U128 b) { return a.hi != b.hi ? a.hi < b.hi : a.lo <= b.lo; }
tandem::detail::U128 u128_add(tandem::detail::U128 a, uint64_t b) {
    const uint64_t lo = a.lo + b;
    return {lo, a.hi + (lo < a.lo ? 1 : 0)};
}

// r is the nearest integer to sqrt(n) exactly when r^2 - r < n <= r^2 + r.
bool is_nearest_sqrt(Wide n, uint64_t r) {
    const tandem::detail::U128 nn{n.lo(), static_cast<uint64_t>(n.hi())};
    const tandem::detail::U128 sq = tandem::detail::mul_u64(r, r);
    const bool upper_ok = u128_le(nn, u128_add(sq, r));
    if (r == 0) return upper_ok;
    // n > r^2 - r  <=>  n + r > r^2  <=>  !(n + r <= r^2)
    return upper_ok && !u128_le(u128_add(nn, r), sq);
}

}  // namespace

TEST_CASE("products of small and boundary values are exact") {
    CHECK(Wide::mul(0, INT64_MIN) == Wide::from_i64(0));
    CHECK(Wide::mul(-3, 7) == Wide::from_i64(-21));
    CHECK(Wide::mul(INT64_MAX, 1) == Wide::from_i64(INT64_MAX));
    CHECK(Wide::mul(INT64_MIN, 1) == Wide::from_i64(INT64_MIN));
    // (-2^63)^2 = 2^126
    CHECK(Wide::mul(INT64_MIN, INT64_MIN) == Wide::from_parts(int64_t{1} << 62, 0));
    // -2^63 * (2^63 - 1) = -2^126 + 2^63
    CHECK(Wide::mul(INT64_MIN, INT64_MAX) == Wide::from_parts(-(int64_t{1} << 62), uint64_t{1} << 63));
    CHECK(Wide::mul(-1, -1) == Wide::from_i64(1));
    CHECK(Wide::mul(int64_t{1} << 32, int64_t{1} << 32) == Wide::from_parts(1, 0));
    static_assert(Wide::mul(-4, 5) == Wide::from_i64(-20), "mul is constexpr");
}

TEST_CASE("random products equal a reference built from 16-bit limbs") {
    Rng rng{1};
    for (int i = 0; i < 200000; ++i) {
        const int64_t a = rng.any_i64(), b = rng.any_i64();
        const int64_t sa = (rng.next() & 1) ? a : static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(a));
        const int64_t sb = (rng.next() & 1) ? b : static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(b));
        REQUIRE(Wide::mul(sa, sb) == reference_mul(sa, sb));
    }
}

TEST_CASE("addition, subtraction and negation satisfy ring identities") {
    Rng rng{2};
    for (int i = 0; i < 50000; ++i) {
        const int64_t a = rng.any_i64() >> 1, b = rng.any_i64() >> 1, c = rng.any_i64() >> 1;
        // distributivity: a*b + a*c == a*(b + c) (b + c cannot overflow: both < 2^62)
        REQUIRE(Wide::mul(a, b) + Wide::mul(a, c) == Wide::mul(a, b + c));
        REQUIRE(Wide::mul(a, b) - Wide::mul(a, c) == Wide::mul(a, b - c));
        REQUIRE(-Wide::mul(a, b) == Wide::mul(-a, b));
        const Wide x = Wide::mul(a, b);
        Wide y = x;
        y += Wide::from_i64(c);
        y -= Wide::from_i64(c);
        REQUIRE(y == x);
        REQUIRE((x - x).sign() == 0);
        REQUIRE((x + Wide::from_i64(1) > x));
    }
    // Carries and borrows across the 64-bit boundary.
    CHECK(Wide::from_i64(-1) + Wide::from_i64(1) == Wide::from_i64(0));
    CHECK(Wide::from_parts(0, UINT64_MAX) + Wide::from_i64(1) == Wide::from_parts(1, 0));
    CHECK(Wide::from_parts(1, 0) - Wide::from_i64(1) == Wide::from_parts(0, UINT64_MAX));
    CHECK(-Wide::from_parts(0, uint64_t{1} << 63) == Wide::from_parts(-1, uint64_t{1} << 63));
    // Wrapping is defined: max + 1 == min.
    CHECK(Wide::max() + Wide::from_i64(1) == Wide::min());
}

TEST_CASE("ordering is signed 128-bit ordering") {
    CHECK(Wide::from_i64(-1) < Wide::from_i64(0));
    CHECK(Wide::from_parts(-1, UINT64_MAX) < Wide::from_parts(0, 0));
    CHECK(Wide::from_parts(0, UINT64_MAX) < Wide::from_parts(1, 0));
    CHECK(Wide::min() < Wide::from_i64(INT64_MIN));
    CHECK(Wide::max() > Wide::from_i64(INT64_MAX));
    CHECK(Wide::from_i64(5).sign() == 1);
    CHECK(Wide::from_i64(-5).sign() == -1);
    CHECK(Wide::from_parts(1, 0).sign() == 1);
    Rng rng{3};
    for (int i = 0; i < 20000; ++i) {
        const int64_t a = (rng.any_i64() >> 1) - (rng.any_i64() >> 1), b = (rng.any_i64() >> 1) - (rng.any_i64() >> 1);
        REQUIRE((Wide::from_i64(a) < Wide::from_i64(b)) == (a < b));
        REQUIRE((Wide::from_i64(a) == Wide::from_i64(b)) == (a == b));
    }
}

TEST_CASE("shr is an arithmetic shift: floor division by a power of two") {
    CHECK(Wide::from_i64(-1).shr(1) == Wide::from_i64(-1));
    CHECK(Wide::from_i64(-3).shr(1) == Wide::from_i64(-2));
    CHECK(Wide::from_i64(7).shr(1) == Wide::from_i64(3));
    CHECK(Wide::from_parts(1, 0).shr(64) == Wide::from_i64(1));
    CHECK(Wide::from_parts(1, 0).shr(1) == Wide::from_parts(0, uint64_t{1} << 63));
    CHECK(Wide::min().shr(127) == Wide::from_i64(-1));
    CHECK(Wide::min().shr(200) == Wide::from_i64(-1));
    CHECK(Wide::max().shr(127) == Wide::from_i64(0));
    CHECK(Wide::from_i64(5).shr(0) == Wide::from_i64(5));
    Rng rng{4};
    for (int i = 0; i < 20000; ++i) {
        const int64_t a = static_cast<int64_t>(rng.next()) >> 2;
        const int k = static_cast<int>(rng.next() % 62);
        // (a * 2^k) >> k == a, and >> k of a 64-bit value matches int64's arithmetic shift
        REQUIRE(Wide::mul(a, int64_t{1} << k).shr(k) == Wide::from_i64(a));
        REQUIRE(Wide::from_i64(a).shr(k) == Wide::from_i64(a >> k));
    }
}

TEST_CASE("to_i64_saturating clamps to the int64 range") {
    CHECK(Wide::from_i64(INT64_MIN).to_i64_saturating() == INT64_MIN);
    CHECK(Wide::from_i64(INT64_MAX).to_i64_saturating() == INT64_MAX);
    CHECK((Wide::from_i64(INT64_MAX) + Wide::from_i64(1)).to_i64_saturating() == INT64_MAX);
    CHECK((Wide::from_i64(INT64_MIN) - Wide::from_i64(1)).to_i64_saturating() == INT64_MIN);
    CHECK(Wide::max().to_i64_saturating() == INT64_MAX);
    CHECK(Wide::min().to_i64_saturating() == INT64_MIN);
    CHECK(Wide::from_i64(-42).to_i64_saturating() == -42);
}

TEST_CASE("div_round rounds to nearest with ties to even") {
    CHECK(Wide::from_i64(7).div_round(2) == 4);    // 3.5 -> 4
    CHECK(Wide::from_i64(5).div_round(2) == 2);    // 2.5 -> 2
    CHECK(Wide::from_i64(-5).div_round(2) == -2);  // -2.5 -> -2
    CHECK(Wide::from_i64(-7).div_round(2) == -4);
    CHECK(Wide::from_i64(5).div_round(-2) == -2);
    CHECK(Wide::from_i64(-5).div_round(-2) == 2);
    CHECK(Wide::from_i64(1).div_round(3) == 0);
    CHECK(Wide::from_i64(2).div_round(3) == 1);
    CHECK(Wide::from_i64(-2).div_round(3) == -1);
    CHECK(Wide::from_i64(0).div_round(-9) == 0);
    CHECK(Wide::from_i64(INT64_MIN).div_round(-1) == INT64_MAX);  // 2^63 saturates
    CHECK(Wide::from_i64(INT64_MIN).div_round(1) == INT64_MIN);
    static_assert(Wide::from_i64(9).div_round(6) == 2, "div_round is constexpr");  // 1.5 -> 2
}

TEST_CASE("div_round by zero saturates toward the sign of the dividend and 0/0 is 0") {
    CHECK(Wide::from_i64(3).div_round(0) == INT64_MAX);
    CHECK(Wide::from_i64(-3).div_round(0) == INT64_MIN);
    CHECK(Wide::from_i64(0).div_round(0) == 0);
}

TEST_CASE("div_round saturates quotients beyond the int64 range") {
    CHECK(Wide::max().div_round(1) == INT64_MAX);
    CHECK(Wide::min().div_round(1) == INT64_MIN);
    CHECK(Wide::min().div_round(-1) == INT64_MAX);
    CHECK(Wide::max().div_round(INT64_MIN) == INT64_MIN);
    CHECK(Wide::mul(INT64_MAX, 4).div_round(3) == INT64_MAX);
    CHECK(Wide::mul(INT64_MIN, 3).div_round(3) == INT64_MIN);
    // (2^63 - 0.5) rounds to 2^63: saturates; (-2^63 - 0.4) rounds to -2^63: exact.
    CHECK((Wide::mul(INT64_MAX, 2) + Wide::from_i64(1)).div_round(2) == INT64_MAX);
    CHECK((Wide::mul(INT64_MIN, 5) - Wide::from_i64(2)).div_round(5) == INT64_MIN);
}

TEST_CASE("div_round of random dividends leaves a remainder of at most half the divisor") {
    Rng rng{5};
    for (int i = 0; i < 100000; ++i) {
        const int64_t a = static_cast<int64_t>(rng.next()), b = rng.any_i64() >> (rng.next() % 3);
        int64_t d = rng.any_i64();
        if (rng.next() & 1) d = static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(d));
        if (d == 0) d = 1;
        const Wide n = Wide::mul(a, b) + Wide::from_i64(rng.any_i64());
        const int64_t q = n.div_round(d);
        if (q == INT64_MAX || q == INT64_MIN) continue;  // saturation checked separately
        const Wide rem = n - Wide::mul(q, d);
        const Wide twice = rem + rem;
        const Wide ad = Wide::from_i64(d < 0 ? 0 : d) - Wide::from_i64(d < 0 ? d : 0);  // |d|
        const Wide at = twice.sign() < 0 ? -twice : twice;
        REQUIRE(at <= ad);
        if (at == ad) REQUIRE((q & 1) == 0);
        // exact products divide back exactly
        REQUIRE(Wide::mul(a >> 1, d).div_round(d) == (a >> 1));
    }
}

TEST_CASE("isqrt_round is the nearest integer square root for small values exhaustively") {
    uint64_t s = 0;
    for (uint64_t n = 0; n < 300000; ++n) {
        while ((s + 1) * (s + 1) <= n) ++s;  // floor
        const uint64_t expect = s + (n - s * s > s ? 1 : 0);
        REQUIRE(Wide::from_i64(static_cast<int64_t>(n)).isqrt_round() == expect);
        REQUIRE(tandem::detail::isqrt_floor_u64(n) == s);
    }
}

TEST_CASE("isqrt_round is exact around perfect squares and rounding midpoints") {
    Rng rng{6};
    auto check_around = [](uint64_t s) {
        const tandem::detail::U128 sq = tandem::detail::mul_u64(s, s);
        const Wide base = Wide::from_parts(static_cast<int64_t>(sq.hi), sq.lo);
        if (base.sign() < 0) return;  // s^2 >= 2^127 is outside Wide
        for (int64_t off : {-2, -1, 0, 1, 2}) {
            for (const Wide n : {base + Wide::from_i64(off), base + Wide::from_i64(static_cast<int64_t>(s & 0x3FFFFFFFFFFFFFFF)) + Wide::from_i64(off)}) {
                if (n.sign() < 0) continue;
                REQUIRE(is_nearest_sqrt(n, n.isqrt_round()));
            }
        }
    };
    for (uint64_t s : {uint64_t{1}, uint64_t{2}, uint64_t{0xFFFFFFFF}, uint64_t{0x100000000}, uint64_t{0x100000001},
                       uint64_t{0xB504F333F9DE6484}, uint64_t{0xB504F333F9DE6485}, uint64_t{0xB504F333F9DE6486}})
        check_around(s);
    for (int i = 0; i < 30000; ++i) check_around(rng.next() >> (rng.next() % 64));
    CHECK(Wide::max().isqrt_round() == uint64_t{13043817825332782212u});  // sqrt(2^127 - 1) = ...212.35
    CHECK(Wide::from_i64(-1).isqrt_round() == 0);
    CHECK(Wide::min().isqrt_round() == 0);
    // the 64-bit fast path at its top: sqrt(2^64 - 1) rounds to 2^32
    CHECK(Wide::from_parts(0, UINT64_MAX).isqrt_round() == uint64_t{1} << 32);
    CHECK(tandem::detail::isqrt_floor_u64(UINT64_MAX) == 0xFFFFFFFFu);
}

TEST_CASE("isqrt_round of random values of every size is the nearest integer") {
    Rng rng{7};
    for (int i = 0; i < 100000; ++i) {
        const Wide n = Wide::from_parts(static_cast<int64_t>(rng.next() >> 1 >> (rng.next() % 64)), rng.next());
        REQUIRE(is_nearest_sqrt(n, n.isqrt_round()));
        const uint64_t m = rng.next() >> (rng.next() % 64);
        const uint64_t f = tandem::detail::isqrt_floor_u64(m);
        REQUIRE(u128_le(tandem::detail::mul_u64(f, f), {m, 0}));
        REQUIRE(!u128_le(tandem::detail::mul_u64(f + 1, f + 1), {m, 0}));
    }
}

TEST_CASE("isqrt_floor_bitwise, which builds the compile-time tables, is the floor square root everywhere") {
    // Exhaustively small, then around squares up to the top of uint64 (the tables use
    // arguments up to 2^64 - 2^56), and random values checked by the 128-bit product bound.
    uint64_t s = 0;
    for (uint64_t n = 0; n < 100000; ++n) {
        while ((s + 1) * (s + 1) <= n) ++s;
        REQUIRE(tandem::detail::isqrt_floor_bitwise(n) == s);
    }
    for (uint64_t r : {uint64_t{3}, uint64_t{65535}, uint64_t{0x7FFFFFFF}, uint64_t{0x80000000}, uint64_t{0xFFFFFFFE},
                       uint64_t{0xFFFFFFFF}}) {
        const uint64_t sq = r * r;
        CHECK(tandem::detail::isqrt_floor_bitwise(sq) == r);
        CHECK(tandem::detail::isqrt_floor_bitwise(sq - 1) == r - 1);
        CHECK(tandem::detail::isqrt_floor_bitwise(sq + 1) == r);
    }
    CHECK(tandem::detail::isqrt_floor_bitwise(UINT64_MAX) == 0xFFFFFFFFu);
    static_assert(tandem::detail::isqrt_floor_bitwise(uint64_t{1} << 62) == uint64_t{1} << 31);
    Rng rng{8};
    for (int i = 0; i < 100000; ++i) {
        const uint64_t m = rng.next() >> (rng.next() % 64);
        const uint64_t f = tandem::detail::isqrt_floor_bitwise(m);
        REQUIRE(u128_le(tandem::detail::mul_u64(f, f), {m, 0}));
        REQUIRE(!u128_le(tandem::detail::mul_u64(f + 1, f + 1), {m, 0}));
    }
}

TEST_CASE("ties_to_even_up rounds up above half, never below, and at half only an odd quotient") {
    using tandem::detail::ties_to_even_up;
    CHECK(ties_to_even_up(6, 5, 2));         // above half
    CHECK_FALSE(ties_to_even_up(4, 5, 3));   // below half, whatever the quotient
    CHECK(ties_to_even_up(5, 5, 3));         // a tie, odd quotient: up to 4
    CHECK_FALSE(ties_to_even_up(5, 5, 2));   // a tie, even quotient: stays
    // A negative floored quotient: -3 at a tie goes up to -2, the even neighbour.
    CHECK(ties_to_even_up(int32_t{0x8000}, int32_t{0x8000}, int32_t{-3}));
    CHECK_FALSE(ties_to_even_up(int32_t{0x8000}, int32_t{0x8000}, int32_t{-4}));
    CHECK(ties_to_even_up(uint64_t{1} << 63, uint64_t{1} << 63, UINT64_MAX));
}
