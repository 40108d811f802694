// The segment table of the integer square root shared by sqrt (fixed.cpp) and asin/acos
// (fixed_trig.cpp). Private to src/core: a constexpr table built by integers only at compile
// time, so every build holds the same bits and each caller can inline its own lookup.
#pragma once

#include <cstdint>

#include "tandem/core/wide.hpp"  // isqrt_floor_bitwise

namespace tandem::detail {

// sqrt(w) for w in [1, 4) in 192 segments [i/64, (i+1)/64), i = 64..255: in segment i,
// sqrt(w) = c0 + c1 t + c2 t^2 in Q31 with t in [-1, 1] across the segment, the quadratic
// through the segment's two ends and its midpoint (error below 2^-26.4 relative, at w = 1).
// Entries 0..63 are 0, so that an operand of 0 (index 0) comes out as 0. Computed at compile
// time by integers only: 2^31 sqrt(j / 128) = sqrt(j * 2^55) for j = 2i, 2i + 1, 2i + 2.
struct SqrtSegments {
    uint32_t c0[256];
    int32_t c1[256];
    int32_t c2[256];
    static constexpr int64_t root_q31(uint64_t j) {  // j <= 512; 512 * 2^55 is 2^64
        return j == 512 ? int64_t{1} << 32 : static_cast<int64_t>(isqrt_floor_bitwise(j << 55));
    }
    constexpr SqrtSegments() : c0(), c1(), c2() {
        for (uint64_t i = 64; i < 256; ++i) {
            const int64_t lo = root_q31(2 * i), mid = root_q31(2 * i + 1), hi = root_q31(2 * i + 2);
            c0[i] = static_cast<uint32_t>(mid);
            c1[i] = static_cast<int32_t>((hi - lo) / 2);
            c2[i] = static_cast<int32_t>((hi + lo) / 2 - mid);
        }
    }
};
inline constexpr SqrtSegments sqrt_segments{};

}  // namespace tandem::detail
