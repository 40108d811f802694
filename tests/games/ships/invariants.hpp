// What must hold of every ships state a step produces, checked independently of the step and of
// the visitor's requires (shared by the random-world tests and the random-world fuzzer): the
// first broken invariant as a sentence, or "" when all hold.
#pragma once

#include <array>
#include <string>

#include "ships/sim.hpp"

namespace ships::testing {

inline bool on_torus(Vec2 p, Fx size) { return p.x >= Fx::zero() && p.x < size && p.y >= Fx::zero() && p.y < size; }

inline std::string broken_invariant(const State& s, bool round_trip = true) {
    const Config& c = s.config;
    if (!validate(c).ok()) return "the config no longer validates";
    if (s.ships.size() > c.max_players) return "more ships than max_players";
    std::array<uint32_t, max_player_limit> owned{};
    for (size_t i = 0; i < s.ships.size(); ++i) {
        const Ship& ship = s.ships[i];
        if (i > 0 && !(s.ships[i - 1].player < ship.player)) return "ships not strictly sorted by player";
        if (!on_torus(ship.pos, c.arena_size)) return "a ship off the torus";
        if (ship.heading < Fx::zero() || ship.heading >= tandem::fx::two_pi) return "a heading outside [0, 2pi)";
        if ((ship.buttons & ~all_buttons) != 0) return "reserved buttons held";
        if (ship.alive && ship.respawn_in != 0) return "a live ship waiting to respawn";
        if (!ship.alive && !(ship.vel == Vec2{})) return "a dead ship moving";
        if (ship.respawn_in > c.respawn_delay) return "respawn_in beyond respawn_delay";
        if (ship.cooldown > c.fire_cooldown) return "a cooldown beyond fire_cooldown";
        if (ship.vel.x > c.max_speed || ship.vel.x < -c.max_speed || ship.vel.y > c.max_speed || ship.vel.y < -c.max_speed) {
            return "a ship faster than max_speed on an axis";
        }
    }
    for (size_t i = 0; i < s.bullets.size(); ++i) {
        const Bullet& b = s.bullets[i];
        if (i > 0 && !(s.bullets[i - 1].key.index < b.key.index)) return "bullets not strictly sorted by slot";
        if (b.key.index >= bullet_capacity(c)) return "a bullet slot past the capacity";
        if (b.key.generation >= s.bullet_keys.next_generation) return "a bullet key the allocator never handed out";
        if (b.ttl < 1 || b.ttl > c.bullet_lifetime) return "a bullet ttl outside 1..bullet_lifetime";
        if (!on_torus(b.pos, c.arena_size)) return "a bullet off the torus";
        size_t k = 0;
        while (k < s.ships.size() && s.ships[k].player != b.owner) ++k;
        if (k == s.ships.size()) return "a bullet whose owner is absent";
        if (++owned[k] > c.bullets_per_ship) return "a ship owning more than bullets_per_ship bullets";
    }
    for (size_t i = 0; i < s.rocks.size(); ++i) {
        const Rock& r = s.rocks[i];
        if (i > 0 && !(s.rocks[i - 1].key.index < r.key.index)) return "rocks not strictly sorted by slot";
        if (r.key.index >= c.max_rocks) return "a rock slot past max_rocks";
        if (r.key.generation >= s.rock_keys.next_generation) return "a rock key the allocator never handed out";
        if (r.size < small || r.size > big) return "a rock size outside 1..3";
        if (!on_torus(r.pos, c.arena_size)) return "a rock off the torus";
    }
    if (round_trip) {
        const auto back = decode(encode(s));
        if (!back.ok()) return "the snapshot does not decode: " + std::string(back.code());
        if (!(*back == s)) return "the snapshot round trip changed the state";
        if (digest(*back) != digest(s)) return "the snapshot round trip changed the digest";
    }
    return "";
}

}  // namespace ships::testing
