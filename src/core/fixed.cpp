// Out-of-line Fx functions: square root, vector length/distance/normalize, decimal
// text and the render-edge float conversions. Integer-only except to_f32/to_f64, so every
// build (native, i686, big-endian, wasm) computes identical bits.
#include "tandem/core/fixed.hpp"
#include "core/sqrt_segments.hpp"

#include "tandem/core/wide.hpp"

#include <bit>
#include <cstddef>
#include <cstring>

namespace tandem {

using detail::sqrt_segments;  // core/sqrt_segments.hpp

Fx sqrt(Fx a) {
    if (a.raw() <= 0) return Fx::zero();
    // sqrt(raw / 2^16) * 2^16 = sqrt(raw * 2^16): the nearest integer square root of n, a
    // 47-bit integer, at most 11863283, so the result always fits. No division: normalise n
    // by an even shift into [2^62, 2^64), evaluate the segment's quadratic (within 2^-26.3
    // relative, under 52 units of the 2^32 scale), scale back rounding to nearest (the shift
    // is at least 16, so the estimate is within 0.5 + 52/256 of sqrt(n), at most one away
    // from the answer), and settle it exactly.
    const uint64_t n = static_cast<uint64_t>(a.raw()) << Fx::frac_bits;
    const int shift = std::countl_zero(n) & ~1;
    const uint64_t nn = n << shift;
    const uint64_t i = nn >> 56;
    // Position within the segment scaled to [-1, 1) in Q31 (the low 24 bits dropped).
    const int64_t t = static_cast<int64_t>((nn >> 24) & 0xFFFFFFFFu) - (int64_t{1} << 31);
    int64_t s = sqrt_segments.c2[i];
    s = sqrt_segments.c1[i] + ((s * t) >> 31);
    s = int64_t{sqrt_segments.c0[i]} + ((s * t) >> 31);  // ~ sqrt(nn) = sqrt(n) * 2^(shift/2)
    const int half = shift / 2;
    const int64_t r = (s + (int64_t{1} << (half - 1))) >> half;
    // The nearest root r satisfies r^2 - r < n <= r^2 + r (no ties: a root of an integer is
    // never a half-integer). r^2 < 2^48, so the difference is exact.
    const int64_t e = static_cast<int64_t>(n) - r * r;
    return Fx::from_raw(static_cast<int32_t>(r + (e > r) - (e <= -r)));
}

namespace {
uint64_t magnitude(int32_t v) { return v < 0 ? uint64_t{0} - static_cast<uint64_t>(int64_t{v}) : static_cast<uint64_t>(v); }
Fx saturate_u64(uint64_t r) { return Fx::from_raw(r > static_cast<uint64_t>(INT32_MAX) ? INT32_MAX : static_cast<int32_t>(r)); }

// Unsigned 128-bit comparison a < b on (hi, lo) pairs.
bool less(detail::U128 a, detail::U128 b) { return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo; }

// round(2^16 * m / sqrt(l)) for 0 <= m <= sqrt(l), l = squared length in raw units (<= 2^63).
// The quotient is never a half-integer (that would need 2^34 = p^2 + q^2 with p odd), so the
// nearest value is unique. Estimate it from a 32-bit-accurate square root, then settle it
// exactly: t >= r + 1/2 <=> 2^34 m^2 >= (2r + 1)^2 l, and t < r - 1/2 likewise.
int32_t unit_component(uint64_t m, uint64_t l) {
    const int shift = std::countl_zero(l) & ~1;                // l << shift in [2^62, 2^64)
    const uint64_t s = detail::isqrt_floor_u64(l << shift);    // ~ sqrt(l) * 2^(shift/2)
    const uint64_t num = m << (shift / 2 + Fx::frac_bits);     // m * 2^(shift/2) <= s + 1 < 2^32
    uint64_t r = (num + s / 2) / s;
    const detail::U128 m2 = detail::mul_u64(m * m, uint64_t{1} << 34);  // m^2 <= 2^62, product < 2^96
    // Raise while (2r + 1)^2 l <= 2^34 m^2 (t >= r + 1/2; equality cannot happen).
    while (!less(m2, detail::mul_u64((2 * r + 1) * (2 * r + 1), l))) ++r;
    // Lower while (2r - 1)^2 l > 2^34 m^2 (t < r - 1/2).
    while (r > 0 && less(m2, detail::mul_u64((2 * r - 1) * (2 * r - 1), l))) --r;
    return static_cast<int32_t>(r);  // <= 2^16
}
}  // namespace

Fx length(Vec2 a) {
    const uint64_t mx = magnitude(a.x.raw()), my = magnitude(a.y.raw());
    // each square <= 2^62, so the sum <= 2^63 fits in uint64
    return saturate_u64(detail::isqrt_round_u64(mx * mx + my * my));
}

Fx distance(Vec2 a, Vec2 b) { return saturate_u64(distance_squared(a, b).isqrt_round()); }

Vec2 normalize(Vec2 a) {
    const uint64_t mx = magnitude(a.x.raw()), my = magnitude(a.y.raw());
    const uint64_t l = mx * mx + my * my;
    if (l == 0) return {};
    const int32_t ux = unit_component(mx, l), uy = unit_component(my, l);
    return {Fx::from_raw(a.x.raw() < 0 ? -ux : ux), Fx::from_raw(a.y.raw() < 0 ? -uy : uy)};
}

// The float nearest raw / 2^16 (ties to even), assembled from integer bits: i686 builds use
// x87 arithmetic, whose excess precision would otherwise leak an unrounded value out of a
// float-returning function (found by the i686 test run).
float to_f32(Fx a) {
    if (a.raw() == 0) return 0.0f;
    const uint32_t sign = a.raw() < 0 ? 0x80000000u : 0u;
    const uint64_t m = magnitude(a.raw());        // 1 .. 2^31
    int e = 63 - std::countl_zero(m);             // position of the leading bit
    uint64_t q = m;
    if (e > 23) {                                 // round the significand to 24 bits
        const int shift = e - 23;
        q = m >> shift;
        const uint64_t rem = m & ((uint64_t{1} << shift) - 1), half = uint64_t{1} << (shift - 1);
        if (detail::ties_to_even_up(rem, half, q)) ++q;
        if (q == (uint64_t{1} << 24)) { q >>= 1; ++e; }
    } else {
        q = m << (23 - e);
    }
    const uint32_t bits = sign | static_cast<uint32_t>(e - 16 + 127) << 23 | (static_cast<uint32_t>(q) & 0x7FFFFFu);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}
// Exact: every Q16.16 value is a double (int to double and the power-of-two scale are exact).

double to_f64(Fx a) { return static_cast<double>(a.raw()) * (1.0 / 65536.0); }

std::optional<Fx> parse(std::string_view text) {
    std::size_t i = 0;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    const std::size_t int_begin = i;
    uint64_t whole = 0;  // capped: anything above 32768 overflows whatever the fraction
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
        whole = whole > 40000 ? whole : whole * 10 + static_cast<uint64_t>(text[i] - '0');
    if (i == int_begin) return std::nullopt;
    std::string_view frac;
    if (i < text.size()) {
        if (text[i] != '.') return std::nullopt;
        const std::size_t frac_begin = ++i;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {}
        if (i == frac_begin || i != text.size()) return std::nullopt;
        frac = text.substr(frac_begin);
    }
    if (whole > 32768) return std::nullopt;
    // 0.d1d2...dn * 2^16, exactly, by long multiplication from the last digit: the carry out
    // of the first digit is the integer part; the new digits are the remainder, compared with
    // one half through its first digit and whether any later digit is non-zero.
    uint64_t carry = 0;
    bool sticky = false;     // a non-zero digit after the first remainder digit
    uint64_t first = 0;      // first remainder digit
    for (std::size_t k = frac.size(); k-- > 0;) {
        const uint64_t v = static_cast<uint64_t>(frac[k] - '0') * 65536 + carry;
        const uint64_t digit = v % 10;
        carry = v / 10;
        if (k == 0) first = digit; else sticky = sticky || digit != 0;
    }
    uint64_t mag = (whole << Fx::frac_bits) + carry;
    // The remainder against one half, in doubled tenths: 2 * first, plus 1 when a later digit
    // adds a little more, against 10 (exactly 10 only for a remainder of exactly one half).
    if (detail::ties_to_even_up(2 * first + (sticky ? 1u : 0u), uint64_t{10}, mag)) ++mag;
    if (mag > (negative ? uint64_t{1} << 31 : static_cast<uint64_t>(INT32_MAX))) return std::nullopt;
    const int64_t v = negative ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
    return Fx::from_raw(static_cast<int32_t>(v));
}

namespace {
constexpr uint64_t pow10[6] = {1, 10, 100, 1000, 10000, 100000};

// The raw magnitude that the decimal c / 10^k parses to (round to nearest, ties to even).
uint64_t parsed_raw(uint64_t c, int k) {
    const uint64_t p = c << Fx::frac_bits, d = pow10[k];
    uint64_t q = p / d;
    const uint64_t r = p % d;
    if (detail::ties_to_even_up(2 * r, d, q)) ++q;
    return q;
}
}  // namespace

std::string to_string(Fx a) {
    const uint64_t m = magnitude(a.raw());
    // With k fractional digits, the decimal nearest the exact value m / 2^16 is the only
    // candidate worth trying: if it does not parse back to m, no k-digit decimal does. Five
    // digits always suffice (10^-5 < 1 LSB), so the loop ends by k = 5.
    uint64_t c = 0;
    int k = 0;
    for (; k <= 5; ++k) {
        const uint64_t p = m * pow10[k];  // <= 2^31 * 10^5 < 2^48
        c = p >> Fx::frac_bits;
        const uint64_t r = p & 0xFFFF;
        if (detail::ties_to_even_up(r, uint64_t{0x8000}, c)) ++c;
        if (parsed_raw(c, k) == m) break;
    }
    // Assemble backwards: fraction digits (no trailing zeros: a shorter k would have matched),
    // the point, the integer digits, the sign.
    char buf[24];
    char* end = buf + sizeof buf;
    char* p = end;
    uint64_t whole = c / pow10[k], fraction = c % pow10[k];
    if (k > 0) {
        for (int j = 0; j < k; ++j) { *--p = static_cast<char>('0' + fraction % 10); fraction /= 10; }
        *--p = '.';
    }
    do { *--p = static_cast<char>('0' + whole % 10); whole /= 10; } while (whole != 0);
    if (a.raw() < 0) *--p = '-';
    return std::string(p, static_cast<std::size_t>(end - p));
}

}  // namespace tandem
