// The world's gravity kernel: the softened pull of one body (a well or a Barnes-Hut summary of
// pellets) on a point, in integer arithmetic only. Private to src/world. It must never use a
// float, a libm call or a division: it runs ~100 times per pellet per tick, and its cost is the
// cost of determinism the benchmark measures against a float twin.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "tandem/core/wide.hpp"  // isqrt_floor_bitwise

namespace arena::detail {

using namespace tandem;

// The pull is a = S * d / (|d|^2 + eps^2)^(3/2) (Plummer softening). The only hard part is
// x^(-3/2) for the 64-bit squared distance x. Normalising x by an even power of two into
// [2^30, 2^32) leaves a mantissa m whose x^(-3/2) is m^(-3/2) times a power of two, and
// m^(-3/2) comes from a 193-entry table with linear interpolation (relative error < 2^-13,
// far below what the Q16.16 positions resolve). Integer tables computed at compile time are
// the same bits on every build; a float rsqrt would not be.

// inv_pow32[i] = round(2^27 * i^(-3/2)) for i in [64, 256]: m^(-3/2) * 2^63 at m = i * 2^24.
// Computed as sqrt(2^58 / i^3) / 4 so that the one integer division and the one square root
// each lose less than one unit in the last of ~30 bits before the final rounding.
struct InvPow32Table {
    std::array<uint32_t, 257> v{};
    constexpr InvPow32Table() {
        // uint32_t indices: std::array's size_type is 32 bits on wasm32.
        for (uint32_t i = 64; i <= 256; ++i) {
            const uint64_t cube = uint64_t{i} * i * i;
            const uint64_t s = tandem::detail::isqrt_floor_bitwise((uint64_t{1} << 58) / cube);
            v[i] = static_cast<uint32_t>((s + 2) >> 2);
        }
    }
};
inline constexpr InvPow32Table inv_pow32{};
static_assert(inv_pow32.v[64] == (1u << 18) && inv_pow32.v[256] == (1u << 15));

// The kernel's per-entry working set in one place: value and step to the next entry
// (inv_pow32 is decreasing), so the interpolation is one lookup and no subtraction.
struct InvPow32Step {
    uint32_t value;  // inv_pow32.v[i]
    uint32_t drop;   // inv_pow32.v[i] - inv_pow32.v[i + 1]
};
struct InvPow32Steps {
    std::array<InvPow32Step, 256> v{};
    constexpr InvPow32Steps() {
        for (uint32_t i = 64; i < 256; ++i) v[i] = {inv_pow32.v[i], inv_pow32.v[i] - inv_pow32.v[i + 1u]};
    }
};
inline constexpr InvPow32Steps inv_pow32_steps{};

// By the index of x's top bit, bits - 1 (32..58 for bits 33..59, as in add_pull): the even
// normalising shift 2k and the final shift minus one, 3k - 2, so the kernel does no
// arithmetic on k.
struct KernelShifts {
    std::array<uint8_t, 64> two_k{};
    std::array<uint8_t, 64> shift_less_one{};
    constexpr KernelShifts() {
        for (uint32_t top = 32; top < 64; ++top) {
            const uint32_t k = (top + 1u - 31u) / 2u;
            two_k[top] = static_cast<uint8_t>(2u * k);
            shift_less_one[top] = static_cast<uint8_t>(3u * k - 2u);
        }
    }
};
inline constexpr KernelShifts kernel_shifts{};

// Per-axis acceleration in Q32.32 (value * 2^32), an int64 so that the sum of many weak pulls
// keeps bits a Q16.16 accumulator would round away before the one final rounding.
struct Pull {
    int64_t x = 0;
    int64_t y = 0;
};

// One contribution never exceeds this (4096 units/s^2); with at most 2^18 contributions per
// pellet the int64 sum stays below 2^62, so accumulation can never overflow.
inline constexpr int64_t max_pull_q32 = int64_t{1} << 44;

constexpr int64_t clamp_pull(int64_t v) {
    return v > max_pull_q32 ? max_pull_q32 : v < -max_pull_q32 ? -max_pull_q32 : v;
}

// True when no body of strength at most max_strength_raw (Q16.16 raw) can pull harder than
// max_pull_q32 on any axis at this softening (Q16.16 raw, >= 1 unit), so clamp_pull is provably
// the identity and add_pull<false> gives the same bits as add_pull<true>. The exact peak of
// S * d / (d^2 + eps^2)^(3/2) is S / eps^2 * 2 / (3 * sqrt(3)) < 0.385 * S / eps^2; the kernel
// overestimates by a relative 2^-12 at most, so the test asks for twice the margin:
// S * 0.77 / eps^2 <= 4096 units/s^2, in integers S_raw * 77 * 2^16 <= 409600 * eps_raw^2.
constexpr bool pull_never_clamps(uint32_t max_strength_raw, int32_t softening_raw) {
    if (softening_raw < (int32_t{1} << 16)) return false;
    // A wider softening only weakens the peak: capping it keeps the right side below 2^63.
    const uint64_t eps = softening_raw > (int32_t{1} << 22) ? (uint64_t{1} << 22) : static_cast<uint64_t>(softening_raw);
    return uint64_t{max_strength_raw} * (uint64_t{77} << 16) <= uint64_t{409600} * eps * eps;  // < 2^54, < 2^63
}

// Adds the pull of a body of strength S (G * M, Q16.16 raw, >= 0) sitting at offset (dx, dy)
// (Q16.16 raw, body minus point, |dx|, |dy| <= 2^28) with squared softening soft2 (Q32.32,
// >= 2^32, i.e. a softening length of at least one unit, so the shift below is at least 2).
// Clamp = false skips the per-contribution clamp: only for a caller that has checked
// pull_never_clamps for every strength it passes (then the result is the same).
template <bool Clamp = true>
constexpr void add_pull(Pull& acc, int32_t dx, int32_t dy, uint32_t strength_raw, uint64_t soft2) {
    const int64_t sx = dx, sy = dy;
    const uint64_t x = static_cast<uint64_t>(sx * sx) + static_cast<uint64_t>(sy * sy) + soft2;  // < 2^59
    // x >= soft2 >= 2^32, so x | 1 == x for the count: it only tells the compiler x != 0.
    // The top bit's index, bits - 1 where bits (33..59) is x's length: 63 - clz, written as
    // 63 ^ clz (the same for clz in [0, 63]) so the compiler emits one bit-scan.
    const uint32_t top = 63u ^ static_cast<uint32_t>(std::countl_zero(x | 1u));  // 32..58
    // k = (bits - 31) / 2: x = m * 4^k, m in [2^30, 2^32).
    const uint64_t m = x >> kernel_shifts.two_k[top];
    const uint32_t i = static_cast<uint32_t>(m >> 24);             // 64..255
    const uint64_t f = (m >> 8) & 0xFFFFu;           // interpolation weight, 16 bits
    const InvPow32Step e = inv_pow32_steps.v[i];
    // hi - ((hi - lo) * f >> 16), hi = inv_pow32.v[i], lo = inv_pow32.v[i + 1]
    const uint64_t t = uint64_t{e.value} - ((uint64_t{e.drop} * f) >> 16);  // m^(-3/2) * 2^63, in [2^15, 2^18]
    // a = S * d * x^(-3/2) with x^(-3/2) = t * 2^(-63 - 3k); in Q32.32 that is
    // S * d * t * 2^(-15 - 3k). S * t < 2^49; dropping 16 bits first keeps the product with
    // d (|d| <= 2^28) below 2^62.
    const int64_t q = static_cast<int64_t>((uint64_t{strength_raw} * t) >> 16);
    // Rounded shift by 3k - 1 (>= 2 because x >= 2^32 gives k >= 1): (v + 2^(s-1)) >> s equals
    // ((v >> (s - 1)) + 1) >> 1 for every v (floors of the same quotient), one add cheaper.
    const uint32_t s1 = kernel_shifts.shift_less_one[top];
    if constexpr (Clamp) {
        acc.x += clamp_pull(((q * sx >> s1) + 1) >> 1);
        acc.y += clamp_pull(((q * sy >> s1) + 1) >> 1);
    } else {
        acc.x += ((q * sx >> s1) + 1) >> 1;
        acc.y += ((q * sy >> s1) + 1) >> 1;
    }
}

}  // namespace arena::detail
