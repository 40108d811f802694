// The tick: Stepper::step and its seven phases, as world.hpp documents them. Every loop runs
// in an order this file defines (canonical input order, ships by player, bullets and rocks by
// key); none iterates an unordered container, compares pointers or keeps scratch anywhere
// but in the Stepper. Positions live on the torus [0, arena_size)^2.
#include <algorithm>
#include <array>

#include "ships/sim.hpp"
#include "spawn.hpp"
#include "tandem/sim/codec.hpp"

namespace ships {

using namespace tandem;

namespace {

// v mod size into [0, size): any raw value, int64 arithmetic, so no move can leave the torus.
Fx wrap(Fx v, Fx size) {
    const int64_t s = size.raw();
    int64_t r = int64_t{v.raw()} % s;
    if (r < 0) r += s;
    return Fx::from_raw(static_cast<int32_t>(r));
}
Vec2 wrap(Vec2 p, Fx size) { return {wrap(p.x, size), wrap(p.y, size)}; }

// The shortest signed difference b - a on a circle of the given size, in (-size/2, size/2].
int64_t torus_delta(Fx a, Fx b, Fx size) {
    const int64_t s = size.raw();
    int64_t d = (int64_t{b.raw()} - a.raw()) % s;
    if (d < 0) d += s;
    if (2 * d > s) d -= s;
    return d;
}
// Squared torus distance in raw^2: each delta is at most 2^27 (arena <= 4096 units), so the sum
// is below 2^55.
int64_t torus_distance2(Vec2 a, Vec2 b, Fx size) {
    const int64_t dx = torus_delta(a.x, b.x, size), dy = torus_delta(a.y, b.y, size);
    return dx * dx + dy * dy;
}
bool touching(Vec2 a, Vec2 b, Fx reach, Fx size) {
    return torus_distance2(a, b, size) <= int64_t{reach.raw()} * reach.raw();
}

Fx clamp_abs(Fx v, Fx limit) { return clamp(v, -limit, limit); }

Fx wrap_angle(Fx h) {
    const int64_t t = fx::two_pi.raw();
    int64_t r = int64_t{h.raw()} % t;
    if (r < 0) r += t;
    return Fx::from_raw(static_cast<int32_t>(r));
}

Vec2 direction(Fx heading) { return {cos(heading), sin(heading)}; }

uint32_t rock_multiplier(uint8_t size) { return size >= big ? 1u : size == medium ? 2u : 4u; }

// Position of a player's ship, or ships.size().
uint32_t ship_of(const State& s, uint32_t player) {
    auto it = std::lower_bound(s.ships.begin(), s.ships.end(), player,
                               [](const Ship& ship, uint32_t p) { return ship.player < p; });
    if (it == s.ships.end() || it->player != player) return static_cast<uint32_t>(s.ships.size());
    return static_cast<uint32_t>(it - s.ships.begin());
}

// Phase 1.
void apply_inputs(State& s, std::span<const Input> inputs, std::vector<Input>& sorted, std::vector<Event>& events) {
    sorted.assign(inputs.begin(), inputs.end());
    // A total order over every field: ties are identical inputs, so std::sort's choice cannot show.
    tandem::sim::sort_canonical<Sim>(sorted);
    for (const Input& in : sorted) {
        auto it = std::lower_bound(s.ships.begin(), s.ships.end(), in.player,
                                   [](const Ship& ship, uint32_t p) { return ship.player < p; });
        const bool present = it != s.ships.end() && it->player == in.player;
        switch (in.kind) {
        case InputKind::join:
            if (present) break;
            if (s.ships.size() >= s.config.max_players) {
                events.push_back({EventKind::join_refused, in.player, {}, 0});
                break;
            }
            {
                Ship ship;
                ship.player = in.player;
                ship.buttons = static_cast<uint8_t>(in.command.buttons & all_buttons);
                s.ships.insert(it, ship);
            }
            events.push_back({EventKind::joined, in.player, {}, 0});
            break;
        case InputKind::leave:
            if (!present) break;
            s.ships.erase(it);
            std::erase_if(s.bullets, [&](const Bullet& b) { return b.owner == in.player; });
            events.push_back({EventKind::left, in.player, {}, 0});
            break;
        case InputKind::command:
            if (present) it->buttons = static_cast<uint8_t>(in.command.buttons & all_buttons);
            break;
        }
    }
}

// A placement is clear when every rock's edge is more than two ship radii from the ship's.
bool clear_of_rocks(const State& s, Vec2 p) {
    const Config& c = s.config;
    for (const Rock& r : s.rocks) {
        const Fx reach = rock_radius(c, r.size) + c.ship_radius + c.ship_radius + c.ship_radius;
        if (touching(p, r.pos, reach, c.arena_size)) return false;
    }
    return true;
}

// Phase 2.
void move_ships(State& s, std::vector<Event>& events) {
    const Config& c = s.config;
    for (Ship& ship : s.ships) {
        if (!ship.alive) {
            if (ship.respawn_in > 0) ship.respawn_in -= 1;
            if (ship.respawn_in > 0) continue;
            const Vec2 p = detail::random_point(s.rng, c.arena_size);
            if (!clear_of_rocks(s, p)) continue;   // tried again next tick, with new draws
            ship.alive = true;
            ship.pos = p;
            ship.vel = Vec2{};
            ship.heading = Fx::zero();
            ship.cooldown = 0;
            events.push_back({EventKind::respawned, ship.player, {}, 0});
            continue;
        }
        const bool left = (ship.buttons & turn_left) != 0, right = (ship.buttons & turn_right) != 0;
        if (left && !right) ship.heading = wrap_angle(ship.heading + c.turn_rate);
        if (right && !left) ship.heading = wrap_angle(ship.heading - c.turn_rate);
        Vec2 v = ship.vel;
        if ((ship.buttons & thrust) != 0) v += direction(ship.heading) * c.thrust;
        v = Vec2{v.x - v.x * c.drag, v.y - v.y * c.drag};
        ship.vel = {clamp_abs(v.x, c.max_speed), clamp_abs(v.y, c.max_speed)};
        ship.pos = wrap(ship.pos + ship.vel, c.arena_size);
        if (ship.cooldown > 0) ship.cooldown -= 1;
    }
}

// Phase 3.
void move_bullets(State& s, std::vector<Event>& events) {
    const Fx size = s.config.arena_size;
    uint32_t w = 0;
    for (uint32_t i = 0; i < s.bullets.size(); ++i) {
        Bullet b = s.bullets[i];
        b.ttl = b.ttl > 0 ? b.ttl - 1 : 0;
        if (b.ttl == 0) {
            events.push_back({EventKind::expired, b.owner, b.key, 0});
            continue;
        }
        b.pos = wrap(b.pos + b.vel, size);
        s.bullets[w++] = b;
    }
    s.bullets.resize(w);
}

// Phase 4.
void move_rocks(State& s) {
    for (Rock& r : s.rocks) r.pos = wrap(r.pos + r.vel, s.config.arena_size);
}

// Phase 5.
void fire_bullets(State& s, std::vector<Bullet>& fresh, std::vector<Event>& events) {
    const Config& c = s.config;
    std::array<uint32_t, max_player_limit> owned{};
    for (const Bullet& b : s.bullets) {
        const uint32_t i = ship_of(s, b.owner);
        if (i < owned.size()) owned[i] += 1;
    }
    fresh.clear();
    for (uint32_t i = 0; i < s.ships.size() && i < owned.size(); ++i) {
        const Ship& ship = s.ships[i];
        if (!ship.alive || (ship.buttons & Button::fire) == 0 || ship.cooldown > 0 || owned[i] >= c.bullets_per_ship) continue;
        const Vec2 dir = direction(ship.heading);
        Bullet b;
        b.owner = ship.player;
        b.pos = wrap(ship.pos + dir * c.ship_radius, c.arena_size);
        b.vel = ship.vel + dir * c.bullet_speed;
        b.ttl = c.bullet_lifetime;
        fresh.push_back(b);
    }
    const uint32_t m = s.bullet_keys.insert(s.bullets, bullet_capacity(c), std::span<Bullet>(fresh));
    for (uint32_t i = 0; i < m; ++i) {
        s.ships[ship_of(s, fresh[i].owner)].cooldown = c.fire_cooldown;
        events.push_back({EventKind::fired, fresh[i].owner, fresh[i].key, 0});
    }
}

// The broad phase: rocks bucketed into a g x g grid whose cells are at least as wide as the
// longest reach a query asks about (a big rock's radius plus a ship's), so whatever touches a
// point lies in its cell or the eight around it (on the torus). Within the cells, the lowest
// rock position (= key order) wins, so the grid changes no result, only its cost.
class RockGrid {
public:
    RockGrid(const State& s, std::vector<uint32_t>& start, std::vector<uint32_t>& items, std::vector<uint32_t>& cursor)
        : s_(s), start_(start), items_(items) {
        const Config& c = s.config;
        const int64_t reach = int64_t{c.rock_radius_big.raw()} + c.ship_radius.raw();
        const int64_t g = c.arena_size.raw() / reach;
        g_ = static_cast<uint32_t>(g < 1 ? 1 : g > 32 ? 32 : g);
        const uint32_t cells = g_ * g_;
        start_.assign(cells + 1, 0);
        const auto n = static_cast<uint32_t>(s.rocks.size());
        for (uint32_t r = 0; r < n; ++r) start_[cell_of(s.rocks[r].pos) + 1] += 1;
        for (uint32_t i = 0; i < cells; ++i) start_[i + 1] += start_[i];
        cursor.assign(start_.begin(), start_.end() - 1);
        items_.resize(n);
        for (uint32_t r = 0; r < n; ++r) items_[cursor[cell_of(s.rocks[r].pos)]++] = r;
    }

    // The lowest-keyed rock not yet hit whose edge is within `reach_extra` of p, or UINT32_MAX.
    uint32_t first_touching(Vec2 p, Fx reach_extra, const std::vector<uint8_t>& hit) const {
        uint32_t best = UINT32_MAX;
        const auto consider = [&](uint32_t cell) {
            for (uint32_t k = start_[cell]; k < start_[cell + 1]; ++k) {
                const uint32_t r = items_[k];
                if (r >= best || hit[r] != 0) continue;
                const Rock& rock = s_.rocks[r];
                if (touching(p, rock.pos, rock_radius(s_.config, rock.size) + reach_extra, s_.config.arena_size)) best = r;
            }
        };
        if (g_ < 3) {
            for (uint32_t cell = 0; cell < g_ * g_; ++cell) consider(cell);
            return best;
        }
        const uint32_t cx = axis_cell(p.x), cy = axis_cell(p.y);
        for (uint32_t dy = 0; dy < 3; ++dy) {
            for (uint32_t dx = 0; dx < 3; ++dx) {
                const uint32_t x = (cx + g_ - 1 + dx) % g_, y = (cy + g_ - 1 + dy) % g_;
                consider(y * g_ + x);
            }
        }
        return best;
    }

private:
    uint32_t axis_cell(Fx v) const {
        const int64_t c = int64_t{v.raw()} * g_ / s_.config.arena_size.raw();
        return static_cast<uint32_t>(c < 0 ? 0 : c >= g_ ? g_ - 1 : c);
    }
    uint32_t cell_of(Vec2 p) const { return axis_cell(p.y) * g_ + axis_cell(p.x); }

    const State& s_;
    std::vector<uint32_t>& start_;
    std::vector<uint32_t>& items_;
    uint32_t g_ = 1;
};

void destroy_ship(Ship& ship, const Config& c) {
    ship.alive = false;
    ship.respawn_in = c.respawn_delay;
    ship.vel = Vec2{};
    ship.cooldown = 0;
    ship.deaths += 1;
}

// Phase 6.
void resolve_hits(State& s, std::vector<Rock>& fresh, std::vector<uint8_t>& rock_hit,
                  std::vector<uint8_t>& spent, std::vector<uint32_t>& cell_start, std::vector<uint32_t>& cell_rocks,
                  std::vector<uint32_t>& cell_cursor, std::vector<Event>& events) {
    const Config& c = s.config;
    const auto nb = static_cast<uint32_t>(s.bullets.size()), nr = static_cast<uint32_t>(s.rocks.size());
    rock_hit.assign(nr, 0);
    spent.assign(nb, 0);
    const RockGrid grid(s, cell_start, cell_rocks, cell_cursor);
    // a. bullets against rocks.
    for (uint32_t i = 0; i < nb; ++i) {
        const Bullet& b = s.bullets[i];
        const uint32_t r = grid.first_touching(b.pos, Fx::zero(), rock_hit);
        if (r == UINT32_MAX) continue;
        rock_hit[r] = 1;
        spent[i] = 1;
        const Rock& rock = s.rocks[r];
        const uint32_t shooter = ship_of(s, b.owner);
        if (shooter < s.ships.size()) s.ships[shooter].score += c.rock_points * rock_multiplier(rock.size);   // wraps, defined
        s.rocks_destroyed += 1;
        events.push_back({EventKind::hit, b.owner, rock.key, rock.size});
    }
    // b. the other bullets against ships.
    for (uint32_t i = 0; i < nb; ++i) {
        if (spent[i] != 0) continue;
        const Bullet& b = s.bullets[i];
        for (Ship& ship : s.ships) {
            if (!ship.alive || ship.player == b.owner || !touching(b.pos, ship.pos, c.ship_radius, c.arena_size)) continue;
            destroy_ship(ship, c);
            spent[i] = 1;
            const uint32_t shooter = ship_of(s, b.owner);
            if (shooter < s.ships.size()) s.ships[shooter].score += c.ship_points;
            events.push_back({EventKind::shot, ship.player, b.key, b.owner});
            break;
        }
    }
    // c. ships against the remaining rocks.
    for (Ship& ship : s.ships) {
        if (!ship.alive) continue;
        const uint32_t r = grid.first_touching(ship.pos, c.ship_radius, rock_hit);
        if (r == UINT32_MAX) continue;
        rock_hit[r] = 1;
        destroy_ship(ship, c);
        s.rocks_destroyed += 1;
        events.push_back({EventKind::crashed, ship.player, s.rocks[r].key, 0});
    }
    // Spent bullets go; destroyed rocks go and split, children keyed in their parents' key order.
    uint32_t w = 0;
    for (uint32_t i = 0; i < nb; ++i) {
        if (spent[i] == 0) s.bullets[w++] = s.bullets[i];
    }
    s.bullets.resize(w);
    fresh.clear();
    w = 0;
    for (uint32_t r = 0; r < nr; ++r) {
        const Rock& rock = s.rocks[r];
        if (rock_hit[r] == 0) {
            s.rocks[w++] = rock;
            continue;
        }
        if (rock.size <= small) continue;
        const Fx vx = rock.vel.x, vy = rock.vel.y;
        Rock a, b;
        a.size = b.size = static_cast<uint8_t>(rock.size - 1);
        a.pos = b.pos = rock.pos;
        a.vel = {vx - vy, vy + vx};
        b.vel = {vx + vy, vy - vx};
        fresh.push_back(a);
        fresh.push_back(b);
    }
    s.rocks.resize(w);
    s.rock_keys.insert(s.rocks, c.max_rocks, std::span<Rock>(fresh));
}

// Phase 7.
void drift_in_wave(State& s, std::vector<Rock>& fresh, std::vector<Event>& events) {
    const Config& c = s.config;
    const auto live = static_cast<uint32_t>(s.rocks.size());
    if (live >= c.rock_floor) return;
    const uint32_t target = std::min(c.rock_count, c.max_rocks);
    if (live >= target) return;
    fresh.assign(target - live, Rock{});
    for (Rock& r : fresh) {
        r.size = big;
        r.pos = detail::random_edge_point(s.rng, c.arena_size);
        r.vel = detail::random_drift(s.rng, c);
    }
    const uint32_t m = s.rock_keys.insert(s.rocks, c.max_rocks, std::span<Rock>(fresh));
    events.push_back({EventKind::wave, 0, {}, m});
}

}  // namespace

std::span<const Event> Stepper::step(State& s, std::span<const Input> inputs) {
    events_.clear();
    apply_inputs(s, inputs, scratch_.sorted, events_);
    move_ships(s, events_);
    move_bullets(s, events_);
    move_rocks(s);
    fire_bullets(s, scratch_.fresh_bullets, events_);
    resolve_hits(s, scratch_.fresh_rocks, scratch_.rock_hit, scratch_.bullet_spent, scratch_.cell_start,
                 scratch_.cell_rocks, scratch_.cell_cursor, events_);
    drift_in_wave(s, scratch_.fresh_rocks, events_);
    s.tick += 1;
    return events_;
}

}  // namespace ships
