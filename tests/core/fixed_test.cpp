// Properties of src/core/fixed.*: exact or correctly rounded arithmetic, saturation, the
// wrapping and checked variants, sqrt/length/normalize, decimal text, and golden hashes that
// pin every build to the same bits. Dense random samples use an exact integer reference.
#include "tandem/core/fixed.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>

using tandem::Fx;
using tandem::Vec2;
using tandem::Wide;

namespace {

struct Rng {  // splitmix64
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9E3779B97F4A7C15u);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
        return z ^ (z >> 31);
    }
    // A raw value of random magnitude (random bit length), random sign.
    int32_t raw() {
        const uint32_t v = static_cast<uint32_t>(next());
        const int bits = static_cast<int>(next() % 33);
        const uint32_t m = bits == 0 ? 0 : v >> (32 - bits);
        return static_cast<int32_t>((next() & 1) ? m : 0u - m);
    }
};

Fx raw(int32_t r) { return Fx::from_raw(r); }
int64_t clamp32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v; }

// Exact reference for a * b in raw units: floor by truncating division plus correction,
// then ties to even. Unclamped (the caller saturates, wraps or checks).
int64_t ref_mul(int32_t a, int32_t b) {
    const int64_t p = int64_t{a} * b;
    int64_t q = p / 65536, r = p % 65536;
    if (r < 0) { --q; r += 65536; }
    if (r > 32768 || (r == 32768 && (q & 1) != 0)) ++q;
    return q;
}
// Exact reference for a / b (b != 0) in raw units through Wide's division.
int64_t ref_div(int32_t a, int32_t b) { return Wide::from_i64(int64_t{a} * 65536).div_round(b); }

// r is the nearest integer to sqrt(n): r^2 - r < n <= r^2 + r (as Wide, so any n works);
// for r == 0 only the upper bound applies (sqrt is never negative).
bool nearest_sqrt(Wide n, int64_t r) {
    const Wide r2 = Wide::mul(r, r);
    return (r == 0 || r2 - Wide::from_i64(r) < n) && n <= r2 + Wide::from_i64(r);
}

uint64_t fnv1a_raw(uint64_t h, int32_t v) {
    const uint32_t u = static_cast<uint32_t>(v);
    for (int i = 0; i < 4; ++i) {  // little-endian bytes, whatever the host
        h ^= (u >> (8 * i)) & 0xFF;
        h *= 0x100000001B3u;
    }
    return h;
}
uint64_t fnv1a_bytes(uint64_t h, const std::string& s) {
    for (unsigned char c : s) { h ^= c; h *= 0x100000001B3u; }
    return h;
}
constexpr uint64_t fnv_offset = 0xCBF29CE484222325u;

// The golden domain: every 4099th raw value from INT32_MIN, and a scrambled partner for
// binary operations.
template <class F>
void for_golden_domain(F f) {
    uint32_t i = 0;
    for (int64_t r = INT32_MIN; r <= INT32_MAX; r += 4099, ++i)
        f(static_cast<int32_t>(r), static_cast<int32_t>(i * 0x9E3779B9u));
}

}  // namespace

TEST_CASE("constants are the correctly rounded raw values of pi, pi/2, 2pi and e") {
    const long double pi = 3.141592653589793238462643383279502884L;
    const long double e = 2.718281828459045235360287471352662498L;
    auto off = [](Fx c, long double v) { return std::fabs(static_cast<long double>(c.raw()) - v * 65536.0L); };
    CHECK(off(tandem::fx::pi, pi) < 0.5L);
    CHECK(off(tandem::fx::half_pi, pi / 2) < 0.5L);
    CHECK(off(tandem::fx::two_pi, 2 * pi) < 0.5L);
    CHECK(off(tandem::fx::e, e) < 0.5L);
}

TEST_CASE("boundary raw values add, subtract and negate with saturation") {
    CHECK(Fx::max() + Fx::epsilon() == Fx::max());
    CHECK(Fx::min() - Fx::epsilon() == Fx::min());
    CHECK(Fx::min() + Fx::min() == Fx::min());
    CHECK(Fx::max() - Fx::min() == Fx::max());
    CHECK(-Fx::min() == Fx::max());
    CHECK(-Fx::max() == raw(-INT32_MAX));
    CHECK(raw(1) + raw(-1) == Fx::zero());
    CHECK(-Fx::zero() == Fx::zero());
    Fx a = Fx::one();
    a += Fx::one();
    a -= raw(1);
    CHECK(a.raw() == 2 * 65536 - 1);
}

TEST_CASE("multiplication rounds ties to even") {
    // 0.5 LSB ties to 0, 1.5 LSB to 2, 2.5 LSB to 2, and the same negated
    CHECK((raw(1) * raw(32768)).raw() == 0);
    CHECK((raw(3) * raw(32768)).raw() == 2);
    CHECK((raw(5) * raw(32768)).raw() == 2);
    CHECK((raw(-1) * raw(32768)).raw() == 0);
    CHECK((raw(-3) * raw(32768)).raw() == -2);
    CHECK((raw(-5) * raw(32768)).raw() == -2);
    CHECK((raw(3) * raw(-32769)).raw() == -2);  // -1.50002 -> -2
    CHECK((raw(1) * raw(32769)).raw() == 1);    // 0.50002 -> 1
}

TEST_CASE("multiplication saturates at the range ends") {
    CHECK(Fx::max() * Fx::max() == Fx::max());
    CHECK(Fx::min() * Fx::min() == Fx::max());
    CHECK(Fx::min() * Fx::max() == Fx::min());
    CHECK(Fx::min() * -Fx::one() == Fx::max());
    CHECK(Fx::min() * Fx::one() == Fx::min());
    CHECK(Fx::max() * Fx::one() == Fx::max());
    CHECK(Fx::from_int(200) * Fx::from_int(200) == Fx::max());
    CHECK(Fx::from_int(-200) * Fx::from_int(200) == Fx::min());
}

TEST_CASE("division rounds ties to even") {
    const Fx two = Fx::from_int(2);
    CHECK((raw(1) / two).raw() == 0);
    CHECK((raw(3) / two).raw() == 2);
    CHECK((raw(5) / two).raw() == 2);
    CHECK((raw(-3) / two).raw() == -2);
    CHECK((raw(3) / -two).raw() == -2);
    CHECK((raw(-5) / -two).raw() == 2);
    CHECK((Fx::one() / Fx::from_int(3)).raw() == 21845);  // 21845.33
    CHECK((Fx::from_int(2) / Fx::from_int(3)).raw() == 43691);  // 43690.67
}

TEST_CASE("division saturates when the quotient is out of range") {
    CHECK(Fx::min() / -Fx::one() == Fx::max());
    CHECK(Fx::max() / Fx::epsilon() == Fx::max());
    CHECK(Fx::min() / Fx::epsilon() == Fx::min());
    CHECK(Fx::max() / raw(-1) == Fx::min());
    CHECK(Fx::min() / Fx::one() == Fx::min());
}

TEST_CASE("division by zero saturates toward the sign of the dividend") {
    CHECK(Fx::one() / Fx::zero() == Fx::max());
    CHECK(raw(1) / Fx::zero() == Fx::max());
    CHECK(-Fx::one() / Fx::zero() == Fx::min());
    CHECK(Fx::min() / Fx::zero() == Fx::min());
    CHECK(Fx::zero() / Fx::zero() == Fx::zero());
    CHECK(tandem::ratio(5, 0) == Fx::max());
    CHECK(tandem::ratio(-5, 0) == Fx::min());
    CHECK(tandem::ratio(0, 0) == Fx::zero());
    CHECK(tandem::wrapping_div(Fx::one(), Fx::zero()) == Fx::zero());
    CHECK_FALSE(tandem::checked_div(Fx::one(), Fx::zero()).has_value());
    CHECK_FALSE(tandem::checked_div(Fx::zero(), Fx::zero()).has_value());
    Fx a = Fx::one();
    a /= Fx::zero();
    CHECK(a == Fx::max());
}

TEST_CASE("ratio of integers is correctly rounded with ties to even and saturates") {
    CHECK(tandem::ratio(1, 3).raw() == 21845);
    CHECK(tandem::ratio(2, 3).raw() == 43691);
    CHECK(tandem::ratio(-2, 3).raw() == -43691);
    CHECK(tandem::ratio(1, 131072).raw() == 0);   // 0.5 LSB -> 0
    CHECK(tandem::ratio(3, 131072).raw() == 2);   // 1.5 LSB -> 2
    CHECK(tandem::ratio(-3, 131072).raw() == -2);
    CHECK(tandem::ratio(5, -131072).raw() == -2);
    CHECK(tandem::ratio(32768, 1) == Fx::max());
    CHECK(tandem::ratio(-32768, 1) == Fx::min());
    CHECK(tandem::ratio(INT32_MIN, -1) == Fx::max());
    CHECK(tandem::ratio(INT32_MIN, INT32_MIN) == Fx::one());
    CHECK(tandem::ratio(1, INT32_MIN).raw() == 0);  // -2^-15 LSB
    CHECK(tandem::ratio(7, 2) == Fx::from_raw(7 * 32768));
    Rng rng{11};
    for (int i = 0; i < 100000; ++i) {
        const int32_t a = rng.raw(), b = rng.raw();
        if (b == 0) continue;
        REQUIRE(tandem::ratio(a, b).raw() == clamp32(Wide::from_i64(int64_t{a} * 65536).div_round(b)));
    }
}

TEST_CASE("random products and quotients equal the exact integer reference") {
    Rng rng{12};
    for (int i = 0; i < 400000; ++i) {
        const int32_t a = rng.raw(), b = rng.raw();
        const int64_t m = ref_mul(a, b);
        REQUIRE((raw(a) * raw(b)).raw() == clamp32(m));
        REQUIRE(tandem::wrapping_mul(raw(a), raw(b)).raw() == static_cast<int32_t>(static_cast<uint32_t>(m)));
        REQUIRE(tandem::checked_mul(raw(a), raw(b)).has_value() == (m == clamp32(m)));
        if (b == 0) continue;
        const int64_t d = ref_div(a, b);
        REQUIRE((raw(a) / raw(b)).raw() == clamp32(d));
        REQUIRE(tandem::wrapping_div(raw(a), raw(b)).raw() == static_cast<int32_t>(static_cast<uint32_t>(d)));
        const auto c = tandem::checked_div(raw(a), raw(b));
        REQUIRE(c.has_value() == (d == clamp32(d)));
        if (c) REQUIRE(c->raw() == d);
    }
}

TEST_CASE("wrapping variants reduce the exact result modulo 2^32") {
    CHECK(tandem::wrapping_add(Fx::max(), Fx::epsilon()) == Fx::min());
    CHECK(tandem::wrapping_sub(Fx::min(), Fx::epsilon()) == Fx::max());
    CHECK(tandem::wrapping_neg(Fx::min()) == Fx::min());
    CHECK(tandem::wrapping_neg(Fx::one()) == -Fx::one());
    // 32768 * 2 = 65536 -> raw 2^32 -> 0; 200 * 200 = 40000 -> 40000 - 65536
    CHECK(tandem::wrapping_mul(Fx::from_int(-32768), Fx::from_int(2)) == Fx::zero());
    CHECK(tandem::wrapping_mul(Fx::from_int(200), Fx::from_int(200)) == Fx::from_int(40000 - 65536));
    CHECK(tandem::wrapping_div(Fx::min(), -Fx::one()) == Fx::min());
    CHECK(tandem::wrapping_add(Fx::one(), Fx::one()) == Fx::from_int(2));
}

TEST_CASE("checked variants return nullopt exactly when the result is unrepresentable") {
    CHECK(tandem::checked_add(Fx::max(), Fx::zero()) == Fx::max());
    CHECK_FALSE(tandem::checked_add(Fx::max(), Fx::epsilon()).has_value());
    CHECK_FALSE(tandem::checked_sub(Fx::min(), Fx::epsilon()).has_value());
    CHECK(tandem::checked_sub(Fx::zero(), Fx::max()) == -Fx::max());
    CHECK_FALSE(tandem::checked_neg(Fx::min()).has_value());
    CHECK(tandem::checked_neg(Fx::max()) == raw(-INT32_MAX));
    CHECK_FALSE(tandem::checked_mul(Fx::from_int(256), Fx::from_int(128)).has_value());  // 32768
    CHECK(tandem::checked_mul(Fx::from_int(-256), Fx::from_int(128)) == Fx::min());      // -32768 fits
    CHECK_FALSE(tandem::checked_div(Fx::min(), -Fx::one()).has_value());
    CHECK(tandem::checked_div(Fx::min(), Fx::one()) == Fx::min());
    Rng rng{13};
    for (int i = 0; i < 100000; ++i) {
        const int32_t a = rng.raw(), b = rng.raw();
        const int64_t s = int64_t{a} + b, d = int64_t{a} - b;
        REQUIRE(tandem::checked_add(raw(a), raw(b)).has_value() == (s == clamp32(s)));
        REQUIRE(tandem::checked_sub(raw(a), raw(b)).has_value() == (d == clamp32(d)));
        REQUIRE((raw(a) + raw(b)).raw() == clamp32(s));
        REQUIRE((raw(a) - raw(b)).raw() == clamp32(d));
        REQUIRE(tandem::wrapping_add(raw(a), raw(b)).raw() == static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b)));
        REQUIRE(tandem::wrapping_sub(raw(a), raw(b)).raw() == static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b)));
    }
}

TEST_CASE("abs, min, max and clamp are exact and total") {
    CHECK(tandem::abs(Fx::min()) == Fx::max());
    CHECK(tandem::abs(-Fx::one()) == Fx::one());
    CHECK(tandem::abs(Fx::zero()) == Fx::zero());
    CHECK(tandem::min(Fx::one(), -Fx::one()) == -Fx::one());
    CHECK(tandem::max(Fx::one(), -Fx::one()) == Fx::one());
    CHECK(tandem::min(Fx::min(), Fx::max()) == Fx::min());
    CHECK(tandem::clamp(Fx::from_int(5), Fx::zero(), Fx::one()) == Fx::one());
    CHECK(tandem::clamp(Fx::from_int(-5), Fx::zero(), Fx::one()) == Fx::zero());
    CHECK(tandem::clamp(Fx::epsilon(), Fx::zero(), Fx::one()) == Fx::epsilon());
    // lo > hi: always lo
    for (Fx v : {Fx::min(), Fx::zero(), Fx::one(), Fx::from_int(3), Fx::max()})
        CHECK(tandem::clamp(v, Fx::from_int(2), Fx::one()) == Fx::from_int(2));
}

TEST_CASE("floor_int, ceil_int and round_int round as named, ties to even, at every boundary") {
    const Fx half = raw(32768);
    CHECK(tandem::floor_int(-half) == -1);
    CHECK(tandem::ceil_int(-half) == 0);
    CHECK(tandem::floor_int(Fx::min()) == -32768);
    CHECK(tandem::ceil_int(Fx::min()) == -32768);
    CHECK(tandem::floor_int(Fx::max()) == 32767);
    CHECK(tandem::ceil_int(Fx::max()) == 32768);
    CHECK(tandem::round_int(Fx::max()) == 32768);
    CHECK(tandem::round_int(Fx::min()) == -32768);
    CHECK(tandem::round_int(half) == 0);
    CHECK(tandem::round_int(Fx::one() + half) == 2);
    CHECK(tandem::round_int(Fx::from_int(2) + half) == 2);
    CHECK(tandem::round_int(-half) == 0);
    CHECK(tandem::round_int(-(Fx::one() + half)) == -2);
    CHECK(tandem::round_int(-(Fx::from_int(2) + half)) == -2);
    CHECK(tandem::round_int(raw(32769)) == 1);
    CHECK(tandem::round_int(raw(-32769)) == -1);
    CHECK(tandem::floor_int(raw(-1)) == -1);
    CHECK(tandem::ceil_int(raw(1)) == 1);
    CHECK(tandem::ceil_int(Fx::zero()) == 0);
    Rng rng{14};
    for (int i = 0; i < 100000; ++i) {
        const int32_t r = rng.raw();
        const int64_t f = tandem::floor_int(raw(r)), c = tandem::ceil_int(raw(r)), n = tandem::round_int(raw(r));
        REQUIRE(f * 65536 <= r);
        REQUIRE(r < (f + 1) * 65536);
        REQUIRE(c * 65536 >= r);
        REQUIRE(r > (c - 1) * 65536);
        const int64_t twice = 2 * (int64_t{r} - n * 65536);  // 2 * (value - n) in raw units
        REQUIRE(twice <= 65536);
        REQUIRE(twice >= -65536);
        if (twice == 65536 || twice == -65536) REQUIRE((n & 1) == 0);
    }
}

TEST_CASE("from_int saturates outside the representable integers") {
    CHECK(Fx::from_int(32767).raw() == 32767 * 65536);
    CHECK(Fx::from_int(-32768) == Fx::min());
    CHECK(Fx::from_int(32768) == Fx::max());
    CHECK(Fx::from_int(-32769) == Fx::min());
    CHECK(Fx::from_int(INT32_MAX) == Fx::max());
    CHECK(Fx::from_int(INT32_MIN) == Fx::min());
    CHECK(Fx::from_int(-1).raw() == -65536);
}

TEST_CASE("sqrt is correctly rounded for dense and random inputs and 0 for negative ones") {
    CHECK(tandem::sqrt(Fx::zero()) == Fx::zero());
    CHECK(tandem::sqrt(Fx::one()) == Fx::one());
    CHECK(tandem::sqrt(Fx::from_int(4)) == Fx::from_int(2));
    CHECK(tandem::sqrt(Fx::from_int(-4)) == Fx::zero());
    CHECK(tandem::sqrt(Fx::min()) == Fx::zero());
    CHECK(tandem::sqrt(Fx::max()).raw() == 11863283);  // sqrt(2^47 - 2^16) = 11863282.9999
    CHECK(tandem::sqrt(Fx::epsilon()).raw() == 256);
    CHECK(tandem::sqrt(Fx::from_int(2)).raw() == 92682);  // 1.41421356 * 65536 = 92681.9
    for (int32_t r = 0; r < (1 << 18); ++r) {
        const int64_t s = tandem::sqrt(raw(r)).raw();
        REQUIRE(nearest_sqrt(Wide::from_i64(int64_t{r} << 16), s));
    }
    Rng rng{15};
    for (int i = 0; i < 300000; ++i) {
        const int32_t r = rng.raw() & INT32_MAX;
        REQUIRE(nearest_sqrt(Wide::from_i64(int64_t{r} << 16), tandem::sqrt(raw(r)).raw()));
        // around perfect squares of the output scale: n = k^2 and k^2 + k straddle a rounding edge
        const int64_t k = static_cast<int64_t>(rng.next() % 11863283);
        for (int64_t n : {k * k, k * k + k, k * k + k + 1}) {
            const int64_t r2 = n >> 16;  // nearest representable inputs
            for (int64_t in : {r2, r2 + 1}) {
                if (in > INT32_MAX) continue;
                REQUIRE(nearest_sqrt(Wide::from_i64(in << 16), tandem::sqrt(raw(static_cast<int32_t>(in))).raw()));
            }
        }
    }
}

TEST_CASE("length and distance are correctly rounded and saturate") {
    CHECK(tandem::length({Fx::from_int(3), Fx::from_int(4)}) == Fx::from_int(5));
    CHECK(tandem::length({Fx::zero(), Fx::zero()}) == Fx::zero());
    CHECK(tandem::length({Fx::min(), Fx::zero()}) == Fx::max());
    CHECK(tandem::length({Fx::min(), Fx::min()}) == Fx::max());
    CHECK(tandem::length({Fx::from_int(-3), Fx::from_int(-4)}) == Fx::from_int(5));
    CHECK(tandem::distance({Fx::min(), Fx::min()}, {Fx::max(), Fx::max()}) == Fx::max());
    CHECK(tandem::distance({Fx::from_int(1), Fx::from_int(1)}, {Fx::from_int(4), Fx::from_int(5)}) == Fx::from_int(5));
    CHECK(tandem::distance({Fx::from_int(-10000), Fx::zero()}, {Fx::from_int(10000), Fx::zero()}) == Fx::from_int(20000));
    Rng rng{16};
    for (int i = 0; i < 100000; ++i) {
        const Vec2 a{raw(rng.raw()), raw(rng.raw())}, b{raw(rng.raw()), raw(rng.raw())};
        const Wide l2 = tandem::length_squared(a);
        const Fx l = tandem::length(a);
        if (l == Fx::max()) REQUIRE(l2 > Wide::mul(INT32_MAX, INT32_MAX));
        else REQUIRE(nearest_sqrt(l2, l.raw()));
        const Wide d2 = tandem::distance_squared(a, b);
        const Fx d = tandem::distance(a, b);
        if (d == Fx::max()) REQUIRE(d2 > Wide::mul(INT32_MAX, INT32_MAX));
        else REQUIRE(nearest_sqrt(d2, d.raw()));
        REQUIRE(tandem::distance(a, b) == tandem::distance(b, a));
    }
}

TEST_CASE("dot, length_squared and distance_squared are exact in raw^2 units for any points") {
    const Vec2 lo{Fx::min(), Fx::min()}, hi{Fx::max(), Fx::max()};
    CHECK(tandem::dot(lo, lo) == Wide::from_parts(0, uint64_t{1} << 63));  // 2 * 2^62, past int64
    CHECK(tandem::length_squared(lo) == tandem::dot(lo, lo));
    CHECK(tandem::dot(lo, hi) == Wide::mul(INT32_MIN, INT32_MAX) + Wide::mul(INT32_MIN, INT32_MAX));
    // (2^32 - 1)^2 * 2 = 2^65 - 2^34 + 2
    CHECK(tandem::distance_squared(lo, hi) == Wide::from_parts(1, 0) + Wide::from_parts(0, UINT64_MAX) -
                                                  Wide::from_i64(int64_t{1} << 34) + Wide::from_i64(3));
    CHECK(tandem::dot({Fx::one(), Fx::from_int(2)}, {Fx::from_int(3), -Fx::one()}) == Wide::from_i64(int64_t{1} << 32));
    Rng rng{17};
    for (int i = 0; i < 50000; ++i) {
        const Vec2 a{raw(rng.raw()), raw(rng.raw())}, b{raw(rng.raw()), raw(rng.raw())};
        const int64_t dx = int64_t{b.x.raw()} - a.x.raw(), dy = int64_t{b.y.raw()} - a.y.raw();
        REQUIRE(tandem::distance_squared(a, b) == Wide::mul(dx, dx) + Wide::mul(dy, dy));
        REQUIRE(tandem::length_squared(a) == Wide::mul(a.x.raw(), a.x.raw()) + Wide::mul(a.y.raw(), a.y.raw()));
        REQUIRE(tandem::dot(a, b) == tandem::dot(b, a));
    }
}

TEST_CASE("normalize rounds each component of the unit direction correctly") {
    CHECK(tandem::normalize({}) == Vec2{});
    CHECK(tandem::normalize({Fx::from_int(5), Fx::zero()}) == Vec2{Fx::one(), Fx::zero()});
    CHECK(tandem::normalize({Fx::zero(), Fx::min()}) == Vec2{Fx::zero(), -Fx::one()});
    CHECK(tandem::normalize({raw(1), Fx::zero()}) == Vec2{Fx::one(), Fx::zero()});
    // (3, 4) -> (0.6, 0.8): 39321.6 -> 39322, 52428.8 -> 52429
    CHECK(tandem::normalize({Fx::from_int(-3), Fx::from_int(4)}) == Vec2{raw(-39322), raw(52429)});
    CHECK(tandem::normalize({raw(3), raw(4)}) == Vec2{raw(39322), raw(52429)});
    // 45 degrees: 46340.95 -> 46341, at both ends of the range
    CHECK(tandem::normalize({Fx::min(), Fx::min()}) == Vec2{raw(-46341), raw(-46341)});
    CHECK(tandem::normalize({raw(1), raw(1)}) == Vec2{raw(46341), raw(46341)});
    // Directions where the one-division estimate comes out one too high and the exact
    // settling step must lower it (found by an exhaustive-precision search in Python; the
    // expected components are round(2^16 m / sqrt(x^2 + y^2)) computed there exactly).
    CHECK(tandem::normalize({raw(16), raw(195)}) == Vec2{raw(5359), raw(65316)});
    CHECK(tandem::normalize({raw(1028), raw(103)}) == Vec2{raw(65209), raw(6534)});
    CHECK(tandem::normalize({raw(-754), raw(37272)}) == Vec2{raw(-1325), raw(65523)});
    Rng rng{18};
    for (int i = 0; i < 50000; ++i) {
        const Vec2 a{raw(rng.raw()), raw(rng.raw())};
        const Vec2 n = tandem::normalize(a);
        const Wide l2 = tandem::length_squared(a);
        if (l2.sign() == 0) continue;
        // Component c of m / |a| is nearest iff (2|c| - 1)^2 l2 < 2^34 m^2 < (2|c| + 1)^2 l2,
        // checked through l2 / 4 and m^2 * 2^32 to stay in Wide's range.
        // Component c of m / |a| is the nearest raw value iff
        // (2|c| - 1)^2 l2 < 2^34 m^2 < (2|c| + 1)^2 l2 (l2 <= 2^63, so split it in 32-bit halves).
        auto times_l2 = [&](int64_t k) {  // l2 * k for 0 <= k < 2^36
            Wide hi = Wide::mul(static_cast<int64_t>(l2.lo() >> 32), k);
            for (int s = 0; s < 32; ++s) hi += hi;
            return hi + Wide::mul(static_cast<int64_t>(l2.lo() & 0xFFFFFFFFu), k);
        };
        auto ok = [&](int32_t m, int32_t c) {
            if ((m < 0 && c > 0) || (m > 0 && c < 0)) return false;
            const int64_t am = m < 0 ? -int64_t{m} : m, ac = c < 0 ? -int64_t{c} : c;
            const Wide full = Wide::mul(am * am, int64_t{1} << 34);
            const bool above = ac == 0 || times_l2((2 * ac - 1) * (2 * ac - 1)) < full;
            const bool below = full < times_l2((2 * ac + 1) * (2 * ac + 1));
            return above && below;
        };
        REQUIRE(ok(a.x.raw(), n.x.raw()));
        REQUIRE(ok(a.y.raw(), n.y.raw()));
        const Fx len = tandem::length(n);
        REQUIRE(tandem::abs(len - Fx::one()) <= Fx::epsilon());
    }
}

TEST_CASE("normalize settles a component estimated at 1 raw down to 0 when its exact value is under one half") {
    // (1 raw, 2 units): l = 1 + (2^17)^2 = 2^34 + 1 raw^2. Exactly,
    //   x = 2^16 * 1 / sqrt(2^34 + 1) = 2^16 / (2^17 sqrt(1 + 2^-34)) < 1/2      -> 0 raw
    //   y = 2^16 * 2^17 / sqrt(2^34 + 1) = 2^16 / sqrt(1 + 2^-34)
    //     > 2^16 (1 - 2^-35) = 2^16 - 2^-19                                        -> 65536 raw
    // The one-division estimate of x divides by floor(sqrt((2^34 + 1) * 2^28)) = 2^31 and lands
    // exactly on 1/2, rounding to 1; only the exact settling step (its floor at 0 included)
    // brings it to 0.
    CHECK(tandem::normalize({raw(1), Fx::from_int(2)}) == Vec2{Fx::zero(), Fx::one()});
    CHECK(tandem::normalize({Fx::from_int(2), raw(-1)}) == Vec2{Fx::one(), Fx::zero()});
    CHECK(tandem::normalize({raw(-1), Fx::from_int(-2)}) == Vec2{Fx::zero(), -Fx::one()});
}

TEST_CASE("parse reads an optional sign, digits and optional .digits exactly and rounds ties to even") {
    auto p = [](const char* s) { return tandem::parse(s); };
    CHECK(p("0") == Fx::zero());
    CHECK(p("-0") == Fx::zero());
    CHECK(p("+1") == Fx::one());
    CHECK(p("1.5") == raw(98304));
    CHECK(p("-1.5") == raw(-98304));
    CHECK(p("007.250") == raw(7 * 65536 + 16384));
    CHECK(p("0.0001") == raw(7));  // 6.5536 -> 7
    CHECK(p("3.14159265358979323846") == tandem::fx::pi);
    // 2^-17 = half an LSB exactly: ties to even (0); 3 * 2^-17 ties to 2
    CHECK(p("0.00000762939453125") == raw(0));
    CHECK(p("0.000007629394531250000000000000000001") == raw(1));
    CHECK(p("0.00000762939453124999999999999999999") == raw(0));
    CHECK(p("0.00002288818359375") == raw(2));
    CHECK(p("0.0000228881835937499999999999") == raw(1));
    CHECK(p("-0.00002288818359375") == raw(-2));
    CHECK(p("1.00000762939453125") == raw(65536));
    CHECK(p("1.00002288818359375") == raw(65538));
    CHECK(p("00000000000000000000000000000000000000001") == Fx::one());
    CHECK(p("0.5000000000000000000000000000000000000000000000000000001") == raw(32768));
}

TEST_CASE("parse rejects malformed text and values that round outside the range") {
    for (const char* s : {"", "+", "-", ".", "1.", ".5", "1.2.3", " 1", "1 ", "1e3", "0x10", "--1", "+-1", "1,5",
                          "nan", "inf", "1.-5", "1.+5", "٣", "1\n"})
        CHECK_FALSE(tandem::parse(s).has_value());
    CHECK_FALSE(tandem::parse(std::string_view("1\0", 2)).has_value());
    // A character just past '9' after the fraction's digits (':' - '0' is 10, a plausible
    // "digit" to code that reads too far).
    CHECK_FALSE(tandem::parse("1.5:").has_value());
    CHECK_FALSE(tandem::parse("0.25:").has_value());
    CHECK(tandem::parse("32767.99998") == Fx::max());             // 2147483647.34
    CHECK_FALSE(tandem::parse("32767.999993").has_value());        // rounds to 2^31
    CHECK_FALSE(tandem::parse("32768").has_value());
    CHECK_FALSE(tandem::parse("99999999999999999999999").has_value());
    CHECK(tandem::parse("-32768") == Fx::min());
    CHECK(tandem::parse("-32768.000007") == Fx::min());           // -2^31 - 0.46 rounds in range
    CHECK_FALSE(tandem::parse("-32768.00001").has_value());        // -2^31 - 0.66
    CHECK_FALSE(tandem::parse("-32769").has_value());
}

TEST_CASE("parse reads only its view, never the characters after it") {
    // Views into longer text, the next character a digit each time: a parser that looked one
    // past its end would read it as part of the number.
    const std::string_view text = "12345.6789";
    CHECK(tandem::parse(text.substr(0, 2)) == Fx::from_int(12));
    CHECK(tandem::parse(text.substr(0, 7)) == tandem::parse("12345.6"));
    CHECK(tandem::parse(text.substr(1, 1)) == Fx::from_int(2));
    const std::string_view signed_text = "-75";
    CHECK(tandem::parse(signed_text.substr(0, 2)) == Fx::from_int(-7));
    CHECK_FALSE(tandem::parse(signed_text.substr(0, 1)).has_value());
    CHECK_FALSE(tandem::parse(text.substr(0, 6)).has_value());  // "12345." has no fraction digit
}

TEST_CASE("parse of random decimals equals an exact Wide reference") {
    Rng rng{19};
    for (int i = 0; i < 100000; ++i) {
        const uint64_t whole = rng.next() % 32768;
        const int n = static_cast<int>(rng.next() % 19);  // up to 18 fractional digits
        uint64_t p10 = 1;
        for (int k = 0; k < n; ++k) p10 *= 10;
        const uint64_t frac = n == 0 ? 0 : rng.next() % p10;
        const bool neg = rng.next() & 1;
        // Built piece by piece: "literal" + std::string trips GCC 12's false -Wrestrict
        // (bug 105329) in a -O2 build.
        std::string s = neg ? "-" : "";
        s += std::to_string(whole);
        if (n > 0) {
            std::string f = std::to_string(frac);
            s += '.';
            s.append(static_cast<std::size_t>(n) - f.size(), '0');
            s += f;
        }
        const int64_t fr = n == 0 ? 0 : Wide::mul(static_cast<int64_t>(frac), 65536).div_round(static_cast<int64_t>(p10));
        const int64_t mag = static_cast<int64_t>(whole) * 65536 + fr;
        const auto got = tandem::parse(s);
        if (!neg && mag > INT32_MAX) {
            REQUIRE_FALSE(got.has_value());
            continue;
        }
        REQUIRE(got.has_value());
        REQUIRE(got->raw() == (neg ? -mag : mag));
    }
}

TEST_CASE("to_string prints the shortest decimal that parses back to the same value") {
    CHECK(tandem::to_string(Fx::zero()) == "0");
    CHECK(tandem::to_string(Fx::from_int(3)) == "3");
    CHECK(tandem::to_string(raw(-98304)) == "-1.5");
    CHECK(tandem::to_string(raw(7)) == "0.0001");
    CHECK(tandem::to_string(Fx::epsilon()) == "0.00002");
    CHECK(tandem::to_string(-Fx::epsilon()) == "-0.00002");
    CHECK(tandem::to_string(Fx::max()) == "32767.99998");
    CHECK(tandem::to_string(Fx::min()) == "-32768");
    CHECK(tandem::to_string(tandem::fx::pi) == "3.14159");
    CHECK(tandem::to_string(raw(32768)) == "0.5");
    // Two shortest decimals parse back alike when the value lies exactly between them: the
    // nearest one is printed and a tie goes to the even last digit. 1024 / 2^16 = 0.015625
    // (0.01562 and 0.01563 both parse to 1024), 3072 / 2^16 = 0.046875.
    CHECK(tandem::to_string(raw(1024)) == "0.01562");
    CHECK(tandem::to_string(raw(3072)) == "0.04688");
    CHECK(tandem::to_string(raw(-3072)) == "-0.04688");
    auto check = [](int32_t r) {
        const std::string s = tandem::to_string(raw(r));
        const auto back = tandem::parse(s);
        REQUIRE(back.has_value());
        REQUIRE(back->raw() == r);
        // shortest: dropping the last digit (rounding the shorter decimal either way) fails
        const auto dot = s.find('.');
        if (dot == std::string::npos) return;
        const std::string prefix = s.substr(0, s.size() - 1);  // truncated (toward zero)
        const std::string shorter = prefix.back() == '.' ? prefix.substr(0, prefix.size() - 1) : prefix;
        const auto t = tandem::parse(shorter);
        REQUIRE((!t.has_value() || t->raw() != r));
        // and the shorter decimal one unit further from zero
        std::string up = shorter;
        int k = static_cast<int>(up.size()) - 1;
        while (k >= 0 && (up[static_cast<std::size_t>(k)] == '9' || up[static_cast<std::size_t>(k)] == '.')) {
            if (up[static_cast<std::size_t>(k)] == '9') up[static_cast<std::size_t>(k)] = '0';
            --k;
        }
        if (k >= 0 && up[static_cast<std::size_t>(k)] != '-') ++up[static_cast<std::size_t>(k)];
        else up.insert(static_cast<std::size_t>(k + 1), 1, '1');  // not insert(pos, "1"): GCC 12 bug 105329
        const auto u = tandem::parse(up);
        REQUIRE((!u.has_value() || u->raw() != r));
    };
    for (int32_t r = -70000; r <= 70000; ++r) check(r);
    Rng rng{20};
    for (int i = 0; i < 100000; ++i) check(rng.raw());
    check(INT32_MAX);
    check(INT32_MIN);
}

TEST_CASE("to_f64 is exact and to_f32 rounds once") {
    CHECK(tandem::to_f64(Fx::max()) == 2147483647.0 / 65536.0);
    CHECK(tandem::to_f64(Fx::min()) == -32768.0);
    CHECK(tandem::to_f64(Fx::epsilon()) == 1.0 / 65536.0);
    CHECK(tandem::to_f32(Fx::from_int(-3)) == -3.0f);
    CHECK(tandem::to_f32(raw(98304)) == 1.5f);
    CHECK(tandem::to_f32(Fx::max()) == 32768.0f);  // 2^31 - 1 rounds to 2^31 in float
    CHECK(tandem::to_f32(Fx::min()) == -32768.0f);
    CHECK(tandem::to_f32(raw(-1)) == -1.0f / 65536.0f);
    // 2^24 + 1 and 2^24 + 3 (raw) are ties: to even, i.e. 2^24 and 2^24 + 4
    CHECK(tandem::to_f32(raw((1 << 24) + 1)) == 256.0f);
    CHECK(tandem::to_f32(raw((1 << 24) + 3)) == static_cast<float>((1 << 24) + 4) / 65536.0f);
    Rng rng{22};
    for (int i = 0; i < 100000; ++i) {  // the float nearest the exact double value
        const int32_t r = rng.raw();
        const double exact = tandem::to_f64(raw(r));
        const float f = tandem::to_f32(raw(r));
        volatile float vf = f;  // a store rounds away any x87 excess precision
        REQUIRE(static_cast<double>(vf) == static_cast<double>(static_cast<float>(exact)));
    }
}

TEST_CASE("golden hashes of sqrt, mul, div and text pin the exact outputs on every build") {
    uint64_t h_sqrt = fnv_offset, h_mul = fnv_offset, h_div = fnv_offset, h_text = fnv_offset;
    for_golden_domain([&](int32_t a, int32_t b) {
        h_sqrt = fnv1a_raw(h_sqrt, tandem::sqrt(raw(a)).raw());
        h_mul = fnv1a_raw(h_mul, (raw(a) * raw(b)).raw());
        h_div = fnv1a_raw(h_div, (raw(a) / raw(b)).raw());
        const std::string s = tandem::to_string(raw(a));
        h_text = fnv1a_bytes(h_text, s);
        h_text = fnv1a_raw(h_text, tandem::parse(s).value_or(Fx::zero()).raw());
    });
    INFO("sqrt " << std::hex << h_sqrt << " mul " << h_mul << " div " << h_div << " text " << h_text);
    CHECK(h_sqrt == 0x3fe818d1b0a6929au);
    CHECK(h_mul == 0x8a1df84261b51441u);
    CHECK(h_div == 0x3b12ad4be2dae004u);
    CHECK(h_text == 0xd6c695bfc6392acau);
}

TEST_CASE("rotate turns a vector by sin/cos with one rounding per component") {
    CHECK(tandem::rotate({Fx::one(), Fx::zero()}, Fx::zero()) == Vec2{Fx::one(), Fx::zero()});
    const Vec2 q = tandem::rotate({Fx::from_int(2), Fx::zero()}, tandem::fx::half_pi);
    CHECK(tandem::abs(q.x) <= raw(2));
    CHECK(tandem::abs(q.y - Fx::from_int(2)) <= raw(2));
    const Vec2 h = tandem::rotate({Fx::from_int(3), Fx::from_int(4)}, tandem::fx::pi);
    CHECK(tandem::abs(h.x + Fx::from_int(3)) <= raw(8));
    CHECK(tandem::abs(h.y + Fx::from_int(4)) <= raw(8));
    // exactly x*cos - y*sin and x*sin + y*cos, rounded once
    Rng rng{21};
    for (int i = 0; i < 10000; ++i) {
        const Vec2 a{raw(rng.raw() >> 4), raw(rng.raw() >> 4)};
        const Fx ang = raw(rng.raw() >> 10);
        const int64_t c = tandem::cos(ang).raw(), s = tandem::sin(ang).raw();
        const Vec2 r = tandem::rotate(a, ang);
        REQUIRE(r.x.raw() == clamp32(Wide::from_i64(a.x.raw() * c - a.y.raw() * s).div_round(65536)));
        REQUIRE(r.y.raw() == clamp32(Wide::from_i64(a.x.raw() * s + a.y.raw() * c).div_round(65536)));
    }
}
