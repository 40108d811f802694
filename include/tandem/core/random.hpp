// Deterministic randomness: mix64 (a stateless 64-bit mixer for keyed draws) and XorShift
// (a seeded stream). Integer arithmetic only, so every build draws the same numbers; the
// one float, XorShift::unit, is an exact integer conversion for the renderer and must never
// feed simulation state (use unit_fx there). Nothing here may touch <random> or a clock.
#pragma once

#include <cstdint>

#include "tandem/core/fixed.hpp"

namespace tandem {

// The SplitMix64 finaliser (Stafford's "Mix13"): a bijection on 64 bits in which every input
// bit reaches every output bit. Keying a draw as mix64(seed ^ mix64(id) ^ mix64(tick)) gives
// each entity its own number without sharing a stream, so iteration order cannot matter.
// mix64(0) == 0: fold a constant in when 0 is a likely input (see XorShift).
constexpr uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

// A random stream: Marsaglia's xorshift state update (Vigna's 12/25/27 triple) with a
// multiplicative output (xorshift64*), whose high bits are the good ones; every method below
// draws from the high bits. A copy replays the same draws, which is what a rollback needs.
class XorShift {
public:
    // Substituted for a zero state: xorshift maps 0 to 0 forever, so a zero seed would
    // draw nothing but zeros. This is the 64-bit golden ratio, odd and dense in both halves.
    static constexpr uint64_t zero_seed_state = 0x9E3779B97F4A7C15u;

    // The seed is mixed first, so neighbouring seeds (1, 2, 3...) start unrelated streams.
    // mix64 is a bijection with mix64(0) == 0, so only seed 0 needs the substitution.
    constexpr explicit XorShift(uint64_t seed) : state_(nonzero(mix64(seed))) {}

    // Save and restore the exact stream position (snapshots, rollback). from_state(0)
    // substitutes like the constructor, so no stored value can stall the stream.
    static constexpr XorShift from_state(uint64_t state) {
        XorShift r(0);
        r.state_ = nonzero(state);
        return r;
    }
    constexpr uint64_t state() const { return state_; }

    constexpr uint64_t next() {
        uint64_t x = state_;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        state_ = x;
        return x * 0x2545F4914F6CDD1Du;
    }

    // Uniform in [0, n) with no modulo bias (Lemire's multiply-and-reject on the high 32
    // bits; 32x32->64 products only, so no 128-bit arithmetic). below(0) returns 0 without
    // drawing, so a caller with an empty range cannot divide by zero or spin.
    constexpr uint32_t below(uint32_t n) {
        if (n == 0) return 0;
        uint64_t m = uint64_t{next32()} * n;
        uint32_t low = static_cast<uint32_t>(m);
        if (low < n) {
            // 2^32 mod n: the number of 32-bit draws that would over-represent some
            // results. Rejecting exactly those leaves every result equally likely.
            const uint32_t threshold = static_cast<uint32_t>(0u - n) % n;
            while (low < threshold) {
                m = uint64_t{next32()} * n;
                low = static_cast<uint32_t>(m);
            }
        }
        return static_cast<uint32_t>(m >> 32);
    }

    // [0, 1) in steps of 2^-24, for the renderer only: a 24-bit integer converted to float
    // (exact) and scaled by a power of two (exact), so every build rounds alike.
    constexpr float unit() { return static_cast<float>(static_cast<uint32_t>(next() >> 40)) * 0x1p-24f; }

    // [0, 1) in steps of 2^-16 (every Fx value in the range equally likely), for the simulation.
    constexpr Fx unit_fx() { return Fx::from_raw(static_cast<int32_t>(next() >> 48)); }

    friend constexpr bool operator==(const XorShift&, const XorShift&) = default;

private:
    constexpr uint32_t next32() { return static_cast<uint32_t>(next() >> 32); }
    static constexpr uint64_t nonzero(uint64_t s) { return s == 0 ? zero_seed_state : s; }

    uint64_t state_;
};

}  // namespace tandem
