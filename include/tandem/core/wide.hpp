// tandem::Wide: a portable signed 128-bit integer (two's complement, uint64_t lo + int64_t hi)
// for intermediate results that overflow 64 bits (dot products, squared distances, Q32.32
// sums). No __int128: i686 GCC lacks it (x86-64 GCC, clang and em++ for wasm32 have it), and
// one portable path on every target is what makes every build compute the same bits.
#pragma once

#include <bit>
#include <compare>
#include <cstdint>

namespace tandem {

namespace detail {

// The library's one rounding rule, for a quotient q already floored and its remainder
// compared with half the divisor (both scaled alike, e.g. 2r against d): true when q must go
// up by one, i.e. the remainder is above half, or exactly half and q is odd (ties to even,
// so no direction is favoured). T is any integer type.
template <class T>
constexpr bool ties_to_even_up(T remainder, T half, T quotient) {
    return remainder > half || (remainder == half && (quotient & 1) != 0);
}

// Unsigned 64 x 64 -> 128 product from 32-bit limbs (portable to 32-bit targets).
struct U128 {
    uint64_t lo = 0;
    uint64_t hi = 0;
};
constexpr U128 mul_u64(uint64_t a, uint64_t b) {
    const uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32;
    const uint64_t b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    // Middle column: at most 3 * (2^32 - 1) values of 32 bits each, no 64-bit overflow.
    const uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    return {(mid << 32) | (p00 & 0xFFFFFFFFu), p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32)};
}

// (u1 * 2^64 + u0) / v for u1 < v (so the quotient fits 64 bits); the remainder goes to r.
// Knuth's algorithm D on 32-bit digits, after Hacker's Delight "divlu": two estimated digits,
// each corrected at most twice.
constexpr uint64_t div_u128_u64(uint64_t u1, uint64_t u0, uint64_t v, uint64_t& r) {
    constexpr uint64_t b = uint64_t{1} << 32;
    const int s = std::countl_zero(v);  // v != 0 because u1 < v
    v <<= s;
    const uint64_t vn1 = v >> 32, vn0 = v & 0xFFFFFFFFu;
    const uint64_t un32 = (u1 << s) | (s == 0 ? 0 : u0 >> (64 - s));
    const uint64_t un10 = u0 << s;
    const uint64_t un1 = un10 >> 32, un0 = un10 & 0xFFFFFFFFu;
    uint64_t q1 = un32 / vn1;
    uint64_t rhat = un32 - q1 * vn1;
    while (q1 >= b || q1 * vn0 > b * rhat + un1) {
        --q1;
        rhat += vn1;
        if (rhat >= b) break;
    }
    const uint64_t un21 = un32 * b + un1 - q1 * v;  // modulo 2^64: the true value is < v
    uint64_t q0 = un21 / vn1;
    rhat = un21 - q0 * vn1;
    while (q0 >= b || q0 * vn0 > b * rhat + un0) {
        --q0;
        rhat += vn1;
        if (rhat >= b) break;
    }
    r = (un21 * b + un0 - q0 * v) >> s;
    return q1 * b + q0;
}

// floor(sqrt(v)) one bit at a time, exact for every uint64_t: the integer square root the
// compile-time tables are built with (core's sqrt segments, the world's gravity table and the
// seed below). At run time isqrt_floor_u64 is the fast one.
constexpr uint64_t isqrt_floor_bitwise(uint64_t v) {
    uint64_t root = 0;
    for (uint64_t bit = uint64_t{1} << 62; bit != 0; bit >>= 2) {
        if (v >= root + bit) {
            v -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
    }
    return root;
}

// floor(sqrt(i * 2^56)) for i in [64, 256]: the seed of isqrt for a normalised argument.
struct SqrtSeed {
    uint64_t v[257] = {};
    constexpr SqrtSeed() {
        for (uint64_t i = 64; i < 256; ++i) v[i] = isqrt_floor_bitwise(i << 56);
        v[256] = uint64_t{1} << 32;  // sqrt(2^64): i * 2^56 itself would overflow
    }
};
inline constexpr SqrtSeed sqrt_seed{};

// floor(sqrt(n)) for every uint64_t. Normalise n by an even shift into [2^62, 2^64), seed
// from the table by linear interpolation (relative error < 2^-17), one Newton step (error
// < 1 unit at 2^32 scale), then an exact integer correction. One 64-bit division.
constexpr uint64_t isqrt_floor_u64(uint64_t n) {
    if (n == 0) return 0;
    const int shift = std::countl_zero(n) & ~1;
    const uint64_t m = n << shift;
    const uint64_t i = m >> 56;                         // 64..255
    const uint64_t f = (m >> 24) & 0xFFFFFFFFu;         // next 32 bits, the interpolation weight
    const uint64_t a = sqrt_seed.v[i], d = sqrt_seed.v[i + 1] - a;  // d < 2^24
    const uint64_t x0 = a + ((d * f) >> 32);            // in [2^31, 2^32]
    const uint64_t x1 = (x0 + m / x0) >> 1;             // ~ sqrt(m)
    uint64_t s = x1 >> (shift / 2);
    if (s > 0xFFFFFFFFu) s = 0xFFFFFFFFu;               // keeps s * s within 64 bits
    while (s * s > n) --s;
    while (s < 0xFFFFFFFFu && (s + 1) * (s + 1) <= n) ++s;
    return s;
}

// sqrt(n) rounded to the nearest integer (a square root of an integer is never a half-integer,
// so there are no ties): floor s rounds up exactly when n > s^2 + s.
constexpr uint64_t isqrt_round_u64(uint64_t n) {
    const uint64_t s = isqrt_floor_u64(n);
    return s + ((n - s * s) > s ? 1 : 0);
}

}  // namespace detail

class Wide {
public:
    constexpr Wide() = default;

    static constexpr Wide from_parts(int64_t hi, uint64_t lo) { Wide w; w.hi_ = hi; w.lo_ = lo; return w; }
    static constexpr Wide from_i64(int64_t v) { return from_parts(v < 0 ? -1 : 0, static_cast<uint64_t>(v)); }
    static constexpr Wide max() { return from_parts(INT64_MAX, UINT64_MAX); }
    static constexpr Wide min() { return from_parts(INT64_MIN, 0); }

    // The full 128-bit product; exact for every pair (|a * b| <= 2^126).
    static constexpr Wide mul(int64_t a, int64_t b) {
        const uint64_t ma = a < 0 ? uint64_t{0} - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
        const uint64_t mb = b < 0 ? uint64_t{0} - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
        const detail::U128 p = detail::mul_u64(ma, mb);
        const Wide w = from_parts(static_cast<int64_t>(p.hi), p.lo);  // p.hi < 2^62
        return (a < 0) != (b < 0) ? -w : w;
    }

    constexpr int64_t hi() const { return hi_; }
    constexpr uint64_t lo() const { return lo_; }

    // + - and negation wrap modulo 2^128 (two's complement), so they are defined for every
    // input; sums of a few 64-bit products never come near the wrap.
    friend constexpr Wide operator+(Wide a, Wide b) {
        const uint64_t lo = a.lo_ + b.lo_;
        const uint64_t carry = lo < a.lo_ ? 1 : 0;
        return from_parts(static_cast<int64_t>(static_cast<uint64_t>(a.hi_) + static_cast<uint64_t>(b.hi_) + carry), lo);
    }
    friend constexpr Wide operator-(Wide a, Wide b) {
        const uint64_t lo = a.lo_ - b.lo_;
        const uint64_t borrow = a.lo_ < b.lo_ ? 1 : 0;
        return from_parts(static_cast<int64_t>(static_cast<uint64_t>(a.hi_) - static_cast<uint64_t>(b.hi_) - borrow), lo);
    }
    friend constexpr Wide operator-(Wide a) { return Wide{} - a; }
    friend constexpr Wide& operator+=(Wide& a, Wide b) { return a = a + b; }
    friend constexpr Wide& operator-=(Wide& a, Wide b) { return a = a - b; }

    friend constexpr bool operator==(Wide a, Wide b) = default;
    friend constexpr std::strong_ordering operator<=>(Wide a, Wide b) {
        if (a.hi_ != b.hi_) return a.hi_ <=> b.hi_;
        return a.lo_ <=> b.lo_;
    }

    constexpr int sign() const { return hi_ < 0 ? -1 : (hi_ == 0 && lo_ == 0) ? 0 : 1; }

    // Arithmetic shift right (floor division by 2^n). n <= 0 returns *this; n >= 127 gives
    // 0 or -1 by sign.
    constexpr Wide shr(int n) const {
        if (n <= 0) return *this;
        if (n >= 127) return from_i64(hi_ < 0 ? -1 : 0);
        if (n >= 64) return from_parts(hi_ < 0 ? -1 : 0, static_cast<uint64_t>(hi_ >> (n - 64)));
        return from_parts(hi_ >> n, (lo_ >> n) | (static_cast<uint64_t>(hi_) << (64 - n)));
    }

    // The value clamped to [INT64_MIN, INT64_MAX].
    constexpr int64_t to_i64_saturating() const {
        if (hi_ == 0 && lo_ <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(lo_);
        if (hi_ == -1 && lo_ >= (uint64_t{1} << 63)) return static_cast<int64_t>(lo_);
        return hi_ < 0 ? INT64_MIN : INT64_MAX;
    }

    // this / d rounded to nearest, ties to even, saturated to [INT64_MIN, INT64_MAX].
    // d == 0 follows Fx's division: saturates toward the sign of the dividend, 0 / 0 == 0.
    constexpr int64_t div_round(int64_t d) const {
        const int sg = sign();
        if (d == 0) return sg > 0 ? INT64_MAX : sg < 0 ? INT64_MIN : 0;
        const bool negative = (sg < 0) != (d < 0) && sg != 0;
        const Wide m = hi_ < 0 ? -*this : *this;  // magnitude; min() maps to 2^127, read unsigned
        const uint64_t mhi = static_cast<uint64_t>(m.hi_), mlo = m.lo_;
        const uint64_t md = d < 0 ? uint64_t{0} - static_cast<uint64_t>(d) : static_cast<uint64_t>(d);
        if (mhi >= md) return negative ? INT64_MIN : INT64_MAX;  // |quotient| >= 2^64
        uint64_t r = 0;
        uint64_t q = detail::div_u128_u64(mhi, mlo, md, r);
        const uint64_t rest = md - r;  // r < md; compare 2r with md without overflow
        if (detail::ties_to_even_up(r, rest, q)) {
            if (q == UINT64_MAX) return negative ? INT64_MIN : INT64_MAX;
            ++q;
        }
        if (negative) return q >= (uint64_t{1} << 63) ? INT64_MIN : -static_cast<int64_t>(q);
        return q > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(q);
    }

    // sqrt(this) rounded to the nearest integer (no ties exist). Negative values give 0 (the
    // nearest point of the domain). The result is at most 2^63.5 < 2^64, so it never saturates.
    constexpr uint64_t isqrt_round() const {
        if (hi_ < 0) return 0;
        if (hi_ == 0) return detail::isqrt_round_u64(lo_);
        const uint64_t nhi = static_cast<uint64_t>(hi_), nlo = lo_;  // n in [2^64, 2^127)
        // Seed from the top 64 bits: with t = n >> 2k < 2^64, x = (isqrt(t) + 1) << k >= sqrt(n).
        const int k = (64 - std::countl_zero(nhi) + 1) / 2;  // 2k >= bit length of nhi
        const int sh = 2 * k;
        const uint64_t t = sh == 64 ? nhi : (nhi << (64 - sh)) | (nlo >> sh);
        uint64_t x = (detail::isqrt_floor_u64(t) + 1) << k;  // <= 2^63.5 + 2^k, no overflow
        // Newton from above decreases monotonically to floor(sqrt(n)); n / x < 2^64 because
        // x >= floor(sqrt(n)) >= 2^32 and n < 2^127.
        for (;;) {
            uint64_t r = 0;
            const uint64_t q = detail::div_u128_u64(nhi, nlo, x, r);
            const uint64_t y = x / 2 + q / 2 + (x & q & 1);  // (x + q) / 2 without overflow
            if (y >= x) break;
            x = y;
        }
        // Round: up exactly when n - x^2 > x.
        const detail::U128 sq = detail::mul_u64(x, x);
        const uint64_t dlo = nlo - sq.lo;
        const uint64_t dhi = nhi - sq.hi - (nlo < sq.lo ? 1 : 0);
        return x + ((dhi != 0 || dlo > x) ? 1 : 0);
    }

private:
    uint64_t lo_ = 0;
    int64_t hi_ = 0;
};

}  // namespace tandem
