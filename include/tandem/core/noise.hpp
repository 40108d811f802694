// ValueNoise: one octave of smoothed 2-D value noise from a seed, in two forms that sample
// the same lattice: an Fx form for the simulation (integer-only) and an f32 form for the
// renderer (integer conversion, floor and basic IEEE operations only). The simulation must
// never read the f32 form: derive walkable ground from octave_fx and draw from octave.
#pragma once

#include <cstdint>

#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"

namespace tandem {

class ValueNoise {
public:
    constexpr explicit ValueNoise(uint64_t seed) : seed_(seed) {}

    constexpr uint64_t seed() const { return seed_; }

    // The raw lattice value at integer cell (xi, zi) of an octave, in [0, 1). The two forms
    // come from the same 64-bit hash: corner_fx is corner truncated to 16 fractional bits,
    // so corner_fx(...).raw() == floor(corner(...) * 65536) exactly.
    float corner(int32_t xi, int32_t zi, uint32_t octave) const;
    Fx corner_fx(int32_t xi, int32_t zi, uint32_t octave) const;

    // Smoothstep-interpolated value at (x, z), lattice points `lattice` units apart, in
    // [0, 1); equal to corner() exactly on a lattice point. A lattice that is not positive
    // (or NaN) is treated as 1. Octaves are independent layers: weights and scales are yours.
    // f32 form: |x / lattice| is clamped to 2^30 and NaN coordinates read as 0.
    float octave(float x, float z, float lattice, uint32_t octave) const;
    // Fx form: exact integer cell and fraction (no rounding in locating the cell), 16-bit
    // smoothstep, truncating interpolation that never leaves the two corners' range.
    Fx octave_fx(Fx x, Fx z, Fx lattice, uint32_t octave) const;

    friend constexpr bool operator==(ValueNoise, ValueNoise) = default;

private:
    uint64_t corner_hash(int64_t xi, int64_t zi, uint32_t octave) const;

    uint64_t seed_;
};

}  // namespace tandem
