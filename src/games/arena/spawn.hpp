// Where new things appear: the one way the world draws a point from its rng, shared by
// make_world (pellets), joins (wells) and respawns (captured pellets). Private to src/world.
// The draw order (x, then y) is part of the simulation: changing it changes every digest.
#pragma once

#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"

namespace arena {

using namespace tandem;

// [0, arena) on one axis: below() is unbiased, and arena's raw value is positive after
// validate().
inline Fx random_coordinate(XorShift& rng, Fx arena) {
    return Fx::from_raw(static_cast<int32_t>(rng.below(static_cast<uint32_t>(arena.raw()))));
}

inline Vec2 random_point(XorShift& rng, Fx arena) {
    const Fx x = random_coordinate(rng, arena);  // x drawn before y: sequenced statements
    const Fx y = random_coordinate(rng, arena);
    return {x, y};
}

}  // namespace arena
