// Where new things appear and how they drift: the one way the game draws a point, a rock's
// drift and a wave rock's edge position from the state's rng. Private to src/games/ships. The
// draw order (x then y; angle then speed) is part of the simulation: changing it changes every
// digest.
#pragma once

#include "ships/world.hpp"
#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"

namespace ships::detail {

using namespace tandem;

// [0, size) on one axis, unbiased (size's raw value is positive after validate()).
inline Fx random_coordinate(XorShift& rng, Fx size) {
    return Fx::from_raw(static_cast<int32_t>(rng.below(static_cast<uint32_t>(size.raw()))));
}

inline Vec2 random_point(XorShift& rng, Fx size) {
    const Fx x = random_coordinate(rng, size);   // x before y: sequenced statements
    const Fx y = random_coordinate(rng, size);
    return {x, y};
}

// A new big rock's velocity: an angle in [0, 2pi) (raw, uniform), then a speed in
// [rock_speed_min, rock_speed_max] (raw, uniform), as (cos, sin)(angle) * speed.
inline Vec2 random_drift(XorShift& rng, const Config& c) {
    const Fx angle = Fx::from_raw(static_cast<int32_t>(rng.below(static_cast<uint32_t>(fx::two_pi.raw()))));
    const uint32_t span = static_cast<uint32_t>(c.rock_speed_max.raw() - c.rock_speed_min.raw()) + 1;
    const Fx speed = Fx::from_raw(c.rock_speed_min.raw() + static_cast<int32_t>(rng.below(span)));
    return {cos(angle) * speed, sin(angle) * speed};
}

// A wave rock's position: on the x = 0 edge (roll 0) or the y = 0 edge (roll 1), at a random
// point along it.
inline Vec2 random_edge_point(XorShift& rng, Fx size) {
    const uint32_t edge = rng.below(2);
    const Fx along = random_coordinate(rng, size);
    return edge == 0 ? Vec2{Fx::zero(), along} : Vec2{along, Fx::zero()};
}

}  // namespace ships::detail
