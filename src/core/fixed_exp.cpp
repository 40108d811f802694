// exp and log of Q16.16 (declared in core/fixed.hpp). Integer-only and table driven: each
// result is computed to far finer than 1 LSB (exp ~2^-58 relative, log ~2^-44 absolute) and
// rounded once, so nearly every result is the correctly rounded one on every build.
#include <bit>
#include <cstdint>

#include "tandem/core/fixed.hpp"
#include "core/tables/exp_tables.hpp"

namespace tandem {
namespace {

// The tables come from core/tables/exp_tables.hpp, written by core/tables/generate.py
// (mpmath, every entry rounded to nearest once) and checked byte for byte by a unit test, so
// no build computes them with floats:
//
// kExpInt: exp(i) * 2^16 for the integer part i in [-12, 10], as a 64-bit mantissa m in
// [2^63, 2^64) and the right shift that turns the final Q.64-scaled product into raw units:
// the huge range of exp(i) lives in the shift, so every product keeps 61+ significant bits.
using ExpInt = detail::tables::ExpInt;
constexpr const auto& kExpInt = detail::tables::exp_int;
// kExpHi: exp(a / 256) for the next 8 fraction bits, Q2.62 (values in [1, e^(255/256)) < 2.71).
constexpr const auto& kExpHi = detail::tables::exp_hi;
// kExpLo: exp(b / 65536) - 1 for the last 8 fraction bits, Q0.64 (values < 2^-8): storing the
// difference from 1 keeps all 64 bits for the part that matters.
constexpr const auto& kExpLo = detail::tables::exp_lo;
// log: reciprocals R_j = ceil(2^16 / (1 + j/256)), small enough that mantissa * R_j is exact
// in 64 bits, and rounded up so that z = mantissa * R_j / 2^16 - 1 is never negative and the
// whole log1p evaluation stays in unsigned arithmetic.
constexpr const auto& kLogRecip = detail::tables::log_recip;
// ln(2^16 / R_j) in Q.58, added back for the reciprocal the mantissa was multiplied by.
constexpr const auto& kLogTab = detail::tables::log_tab;
constexpr int64_t kLn2Q58 = detail::tables::ln2_q58;

static_assert(kExpInt[12].mant == uint64_t{1} << 63 && kExpInt[12].shift == 45, "exp(0) must be exact");
static_assert(kExpHi[0] == uint64_t{1} << 62 && kExpLo[0] == 0, "exp(0) must be exact");
static_assert(kLogRecip[0] == 65536 && kLogTab[0] == 0, "log of a power of two must be k * ln2");

// High 64 bits of a * b without __int128 (i686 GCC has none). The low * low partial product
// and the carries between the two middle products are dropped, so the result is at most 2
// below the exact high half: every caller keeps >= 2^61 there, a relative error <= 2^-60.
// Plain integer arithmetic, hence the same on every build.
constexpr uint64_t mulhi(uint64_t a, uint64_t b) {
    const uint64_t ah = a >> 32, al = a & 0xFFFFFFFFu;
    const uint64_t bh = b >> 32, bl = b & 0xFFFFFFFFu;
    return ah * bh + ((ah * bl) >> 32) + ((al * bh) >> 32);
}

}  // namespace

// x = i + a/256 + b/65536 exactly (the bits of the raw value), so exp(x) is the product of
// three table entries: no argument reduction by an irrational ln2, hence no reduction error.
Fx exp(Fx x) {
    const int32_t r = x.raw();
    // exp(11) * 2^16 > 2^31: everything from 11.0 up saturates. Below that the computed value
    // is clamped, so the exact threshold (raw 681392, ln 32768) needs no separate constant.
    if (r >= (11 << Fx::frac_bits)) return Fx::max();
    // exp(-12) * 2^16 = 0.402 < 0.5: the correctly rounded result of anything below is 0.
    if (r < -(12 << Fx::frac_bits)) return Fx::zero();
    const int32_t i = r >> Fx::frac_bits;  // floor, in [-12, 10]
    const uint32_t f = static_cast<uint32_t>(r) & 0xFFFFu;
    const ExpInt& t = kExpInt[i + 12];
    const uint64_t p = mulhi(t.mant, kExpHi[f >> 8]);     // exp(i + a/256) * 2^(16 + shift), >= 2^61
    const uint64_t q = p + mulhi(p, kExpLo[f & 0xFFu]);   // * exp(b/65536); q < 1.37 * 2^63
    // Round half up: a tie would need exp(x) * 2^16 to be a half-integer, which it never is
    // (exp of a nonzero rational is transcendental), so no direction is favoured. q plus
    // half (<= 2^62) cannot wrap.
    const uint64_t raw = (q + (uint64_t{1} << (t.shift - 1))) >> t.shift;
    return Fx::from_raw(raw > uint64_t{INT32_MAX} ? INT32_MAX : static_cast<int32_t>(raw));
}

// x = m * 2^k with m in [1, 2); m = (1 + z) / R_j for a table reciprocal R_j, so
// log(x) = k ln2 + ln(2^16 / R_j) + log1p(z) with 0 <= z < 2^-7.99 and four series terms.
Fx log(Fx x) {
    const int32_t r = x.raw();
    if (r <= 0) return Fx::min();
    const uint32_t u = static_cast<uint32_t>(r);
    const int lz = std::countl_zero(u);  // 1..31
    const uint32_t m = u << lz;           // mantissa, Q1.31 in [2^31, 2^32)
    const int k = 15 - lz;                // x = (m / 2^31) * 2^(15 - lz), k in [-16, 14]
    const uint32_t j = (m >> 23) & 0xFFu;  // the 8 bits after the leading one
    // z in Q.47, exact: m * R_j < 2^48 and >= 2^47 (R_j was rounded up); z < 2^39.01.
    const uint64_t z = uint64_t{m} * kLogRecip[j] - (uint64_t{1} << 47);
    // log1p(z) = z - z^2 (1/2 - z/3 + z^2/4) + O(z^5 < 2^-42). The products are truncated
    // to what each term needs (total error ~2^-45 absolute, ~2^-29 LSB) and stay < 2^63.
    const uint64_t zs = z >> 8;                      // Q.39, < 2^31.01
    const uint64_t z2 = (zs * zs) >> 31;             // z^2, Q.47, < 2^31.02
    const uint64_t z32 = z >> 15;                    // Q.32, < 2^24.01
    const uint64_t c = (uint64_t{1} << 31) - ((z32 * 0x55555555u) >> 32) + (z2 >> 17);  // Q.32
    const uint64_t l1p = z - ((z2 * c) >> 32);       // Q.47, in [0, 2^39.01)
    // Everything in Q.58: |k ln2| <= 16 ln2 < 2^3.47, so the sum stays below 2^61.5.
    const int64_t sum = int64_t{k} * kLn2Q58 + kLogTab[j] + static_cast<int64_t>(l1p << 11);
    // Round half up (arithmetic shift floors): ties never occur (log of a rational other
    // than 1 is transcendental, and log(1) is exactly 0 here), so the rounding is unbiased.
    return Fx::from_raw(static_cast<int32_t>((sum + (int64_t{1} << 41)) >> 42));
}

}  // namespace tandem
