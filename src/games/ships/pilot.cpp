// The scenarios' pilot (scenario.hpp): a pure function of the state, the pilot's player id
// and its own stream. Fixed point only; every search runs in key order
// and keeps the first of equal distances.
#include "ships/scenario.hpp"

namespace ships {

using namespace tandem;

namespace {

int64_t torus_delta(Fx a, Fx b, Fx size) {
    const int64_t s = size.raw();
    int64_t d = (int64_t{b.raw()} - a.raw()) % s;
    if (d < 0) d += s;
    if (2 * d > s) d -= s;
    return d;
}

// An angle difference into [-pi, pi).
Fx signed_angle(Fx a) {
    const int64_t t = fx::two_pi.raw();
    int64_t r = (int64_t{a.raw()} + fx::pi.raw()) % t;
    if (r < 0) r += t;
    return Fx::from_raw(static_cast<int32_t>(r - fx::pi.raw()));
}

}  // namespace

Command pilot(const State& s, uint32_t player, XorShift& rng) {
    const Config& c = s.config;
    const Ship* me = nullptr;
    for (const Ship& ship : s.ships) {
        if (ship.player == player) me = &ship;
    }
    // Draws happen whatever the state, so one bot's stream does not depend on its fortunes.
    const uint32_t noise = rng.below(16);
    const uint32_t thrust_roll = rng.below(4);
    if (me == nullptr || !me->alive) return Command{};
    // The nearest target on the torus: a rock, or else another live ship.
    int64_t best = INT64_MAX, bx = 0, by = 0;
    auto consider = [&](Vec2 p) {
        const int64_t dx = torus_delta(me->pos.x, p.x, c.arena_size), dy = torus_delta(me->pos.y, p.y, c.arena_size);
        const int64_t d2 = (dx >> 8) * (dx >> 8) + (dy >> 8) * (dy >> 8);   // 2^-8 unit steps: fits easily
        if (d2 < best) {
            best = d2;
            bx = dx;
            by = dy;
        }
    };
    for (const Rock& r : s.rocks) consider(r.pos);
    if (best == INT64_MAX) {
        for (const Ship& other : s.ships) {
            if (other.alive && other.player != player) consider(other.pos);
        }
    }
    uint8_t buttons = 0;
    if (best == INT64_MAX) return Command{static_cast<uint8_t>(noise < 8 ? turn_left : thrust)};
    // |dx|, |dy| <= half the arena (2^27 raw): valid Fx raw values.
    const Fx want = atan2(Fx::from_raw(static_cast<int32_t>(by)), Fx::from_raw(static_cast<int32_t>(bx)));
    const Fx diff = signed_angle(want - me->heading);
    const Fx dead_zone = Fx::from_raw(c.turn_rate.raw() / 2);
    if (diff > dead_zone) buttons |= turn_left;
    if (diff < -dead_zone) buttons |= turn_right;
    if (abs(diff) < Fx::from_raw(1 << 14)) buttons |= fire;   // within a quarter radian
    // Far (beyond 256 units, in the 2^-8 steps above): close in now and then.
    const int64_t far = int64_t{256 * 256} * 256 * 256;
    if (best > far && thrust_roll == 0) buttons |= thrust;
    if (noise == 0) buttons ^= turn_left;   // a little wandering
    return Command{buttons};
}

}  // namespace ships
