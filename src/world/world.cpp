// World construction, the tick (step), digests and the text dump. Every loop here runs in an
// order this file defines (pellet index, well player id, canonical input order); none may
// iterate an unordered container, compare pointers or let a library pick an order of ties.
#include "tandem/world/world.hpp"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "tandem/core/integrate.hpp"
#include "world/gravity.hpp"
#include "world/pellet_field.hpp"

namespace tandem::world {

WorldConfig default_config() { return WorldConfig{}; }

std::optional<std::string_view> validate(const WorldConfig& c) {
    // Each bound keeps an integer in gravity.hpp or the integrator within range, so a world
    // that passes can be stepped forever without overflow (saturation aside).
    if (c.tick_hz < 1 || c.tick_hz > 1000) return "tick_hz";
    if (c.arena_size < Fx::from_int(16) || c.arena_size > Fx::from_int(max_arena_units)) return "arena_size";
    if (c.pellet_count > max_pellet_count) return "pellet_count";
    if (c.max_players > max_player_limit) return "max_players";
    if (c.well_strength < Fx::zero()) return "well_strength";
    if (c.pellet_strength < Fx::zero()) return "pellet_strength";
    if (c.softening < Fx::one() || c.softening > Fx::from_int(64)) return "softening";
    if (c.capture_radius < Fx::zero() || c.capture_radius > Fx::from_int(256)) return "capture_radius";
    if (c.steer_gain < Fx::zero()) return "steer_gain";
    if (c.steer_damping < Fx::zero()) return "steer_damping";
    if (c.max_well_accel < Fx::zero()) return "max_well_accel";
    if (c.max_pellet_speed < Fx::zero()) return "max_pellet_speed";
    if (c.wall_restitution < Fx::zero() || c.wall_restitution > Fx::one()) return "wall_restitution";
    if (c.theta < Fx::zero() || c.theta > Fx::from_int(4)) return "theta";
    if (c.tree_max_depth < 1 || c.tree_max_depth > 24) return "tree_max_depth";
    return std::nullopt;
}

namespace {

Fx random_coordinate(XorShift& rng, Fx arena) {
    // [0, arena): below() is unbiased, and arena's raw value is positive after validate().
    return Fx::from_raw(static_cast<int32_t>(rng.below(static_cast<uint32_t>(arena.raw()))));
}

Vec2 random_point(XorShift& rng, Fx arena) {
    const Fx x = random_coordinate(rng, arena);  // x drawn before y: sequenced statements
    const Fx y = random_coordinate(rng, arena);
    return {x, y};
}

Vec2 clamp_to_arena(Vec2 p, Fx arena) { return {clamp(p.x, Fx::zero(), arena), clamp(p.y, Fx::zero(), arena)}; }

Fx clamp_abs(Fx v, Fx limit) { return clamp(v, -limit, limit); }

// Reflects one axis off the walls at 0 and arena, keeping `restitution` of the speed, then
// clamps (a step longer than the arena would otherwise leave it outside).
void bounce_axis(Fx& p, Fx& v, Fx arena, Fx restitution) {
    if (p < Fx::zero()) {
        p = -p;
        v = -(v * restitution);
    } else if (p > arena) {
        p = arena - (p - arena);
        v = -(v * restitution);
    }
    p = clamp(p, Fx::zero(), arena);
}

int64_t squared_distance(Vec2 a, Vec2 b) {
    // Positions lie in [0, 4096] units (2^28 raw), so each square fits in 2^56.
    const int64_t dx = int64_t{a.x.raw()} - b.x.raw();
    const int64_t dy = int64_t{a.y.raw()} - b.y.raw();
    return dx * dx + dy * dy;
}

// Q32.32 acceleration to Fx, rounding half up, saturating.
Fx pull_to_fx(int64_t q32) {
    const int64_t r = (q32 + (int64_t{1} << 15)) >> 16;
    return Fx::from_raw(r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : static_cast<int32_t>(r));
}

// Applies this tick's inputs in canonical order. Unknown players' steers and leaves, repeated
// joins and joins past max_players are ignored: membership is a pure function of the inputs.
void apply_inputs(World& w, std::span<const Input> inputs) {
    std::vector<Input> sorted(inputs.begin(), inputs.end());
    // canonical_less is a total order over every field, so elements that tie are identical
    // and std::sort's choice among them cannot show.
    std::sort(sorted.begin(), sorted.end(), canonical_less);
    for (const Input& in : sorted) {
        auto it = std::lower_bound(w.wells.begin(), w.wells.end(), in.player,
                                   [](const Well& well, uint32_t player) { return well.player < player; });
        const bool present = it != w.wells.end() && it->player == in.player;
        switch (in.kind) {
        case InputKind::join:
            if (present || w.wells.size() >= w.config.max_players) break;
            {
                Well well;
                well.player = in.player;
                well.pos = random_point(w.rng, w.config.arena_size);
                well.target = clamp_to_arena(in.target, w.config.arena_size);
                w.wells.insert(it, well);
            }
            break;
        case InputKind::leave:
            if (present) w.wells.erase(it);
            break;
        case InputKind::steer:
            if (present) it->target = clamp_to_arena(in.target, w.config.arena_size);
            break;
        }
    }
}

void move_wells(World& w, Fx dt) {
    const WorldConfig& c = w.config;
    for (Well& well : w.wells) {
        // A damped spring toward the target, clamped per axis so no input can fling a well.
        const Vec2 to_target = well.target - well.pos;
        const Vec2 a{clamp_abs(c.steer_gain * to_target.x - c.steer_damping * well.vel.x, c.max_well_accel),
                     clamp_abs(c.steer_gain * to_target.y - c.steer_damping * well.vel.y, c.max_well_accel)};
        State2 s = step_semi_implicit_euler(State2{well.pos, well.vel}, ConstantAcceleration2{a}, dt);
        bounce_axis(s.position.x, s.velocity.x, c.arena_size, c.wall_restitution);
        bounce_axis(s.position.y, s.velocity.y, c.arena_size, c.wall_restitution);
        well.pos = s.position;
        well.vel = s.velocity;
    }
}

}  // namespace

World make_world(const WorldConfig& config) {
    if (const auto bad = validate(config)) throw std::invalid_argument("invalid world config: " + std::string(*bad));
    World w;
    w.config = config;
    w.rng = XorShift(config.seed);
    w.pellets.resize(config.pellet_count);
    for (uint32_t i = 0; i < config.pellet_count; ++i) {
        Pellet& p = w.pellets[i];
        p.key = SlotKey{i, 0};
        p.pos = random_point(w.rng, config.arena_size);
        w.live.insert(p.key.encode());
    }
    return w;
}

bool canonical_less(const Input& a, const Input& b) {
    if (a.player != b.player) return a.player < b.player;
    if (a.kind != b.kind) return static_cast<uint8_t>(a.kind) < static_cast<uint8_t>(b.kind);
    if (a.target.x != b.target.x) return a.target.x < b.target.x;
    return a.target.y < b.target.y;
}

void step(World& w, std::span<const Input> inputs) {
    const WorldConfig& c = w.config;
    const Fx dt = ratio(1, static_cast<int32_t>(c.tick_hz));
    apply_inputs(w, inputs);
    move_wells(w, dt);

    // Every pellet's pull is computed from the positions at the start of the tick (after the
    // wells moved), so the result cannot depend on the order pellets are visited in.
    // The field and the pulls are scratch kept between ticks (per thread, so two threads
    // stepping two worlds never share one): a tick then allocates nothing once they have
    // grown. Neither carries anything from one tick to the next that a result depends on.
    thread_local PelletField field;
    thread_local std::vector<detail::Pull> pulls;
    const uint32_t n = static_cast<uint32_t>(w.pellets.size());
    pulls.assign(n, detail::Pull{});
    // The heaviest body this tick: a well, or every pellet in one summary (saturated as the
    // kernel's strength is). When even that cannot reach the clamp, the kernel skips it.
    const uint32_t well_strength = static_cast<uint32_t>(c.well_strength.raw());
    const int64_t all_pellets = int64_t{c.pellet_strength.raw()} * n;
    const uint32_t crowd_strength = static_cast<uint32_t>(all_pellets < INT32_MAX ? all_pellets : INT32_MAX);
    const bool never_clamps =
        detail::pull_never_clamps(well_strength > crowd_strength ? well_strength : crowd_strength, c.softening.raw());
    field.build(w.pellets, c);
    field.add_pellet_pulls(w.pellets, c, never_clamps, pulls);

    const uint64_t soft2 = static_cast<uint64_t>(int64_t{c.softening.raw()} * c.softening.raw());
    for (const Well& well : w.wells) {
        for (uint32_t i = 0; i < n; ++i) {
            // Both inside the arena (|d| <= 2^28 raw): the raw difference cannot overflow.
            const int32_t dx = well.pos.x.raw() - w.pellets[i].pos.x.raw();
            const int32_t dy = well.pos.y.raw() - w.pellets[i].pos.y.raw();
            if (never_clamps) {
                detail::add_pull<false>(pulls[i], dx, dy, well_strength, soft2);
            } else {
                detail::add_pull<true>(pulls[i], dx, dy, well_strength, soft2);
            }
        }
    }

    const int64_t capture2 = int64_t{c.capture_radius.raw()} * c.capture_radius.raw();
    for (uint32_t i = 0; i < n; ++i) {
        Pellet& p = w.pellets[i];
        const Vec2 a{pull_to_fx(pulls[i].x), pull_to_fx(pulls[i].y)};
        State2 s = step_semi_implicit_euler(State2{p.pos, p.vel}, ConstantAcceleration2{a}, dt);
        bounce_axis(s.position.x, s.velocity.x, c.arena_size, c.wall_restitution);
        bounce_axis(s.position.y, s.velocity.y, c.arena_size, c.wall_restitution);
        p.pos = s.position;
        p.vel = {clamp_abs(s.velocity.x, c.max_pellet_speed), clamp_abs(s.velocity.y, c.max_pellet_speed)};

        // The nearest well within reach takes it; on equal distance the lower player id
        // (wells are in player order and only a strictly nearer well displaces the first).
        uint32_t taker = UINT32_MAX;
        int64_t best = capture2;
        for (uint32_t k = 0; k < static_cast<uint32_t>(w.wells.size()); ++k) {
            const int64_t d2 = squared_distance(w.wells[k].pos, p.pos);
            if (d2 < best || (d2 == best && taker == UINT32_MAX)) {
                best = d2;
                taker = k;
            }
        }
        if (taker != UINT32_MAX) {
            // The score is unsigned and wraps (defined) after 2^32 captures.
            w.wells[taker].score += 1;
            w.captures += 1;
            w.live.remove(p.key.encode());
            p.key.generation += 1;
            w.live.insert(p.key.encode());
            p.pos = random_point(w.rng, c.arena_size);
            p.vel = Vec2{};
        }
    }
    w.tick += 1;

#if defined(TANDEM_PERTURB_TICK)
    // Test-only: alter one field at one tick so the cross-build check can prove it notices.
    // TANDEM_PERTURB_FIELD: 0 pellet 0 x, 1 first well x, 2 rng state, 3 captures.
#ifndef TANDEM_PERTURB_FIELD
#define TANDEM_PERTURB_FIELD 0
#endif
    if (w.tick == static_cast<uint64_t>(TANDEM_PERTURB_TICK)) {
        switch (TANDEM_PERTURB_FIELD) {
        case 0: if (!w.pellets.empty()) w.pellets[0].pos.x = Fx::from_raw(w.pellets[0].pos.x.raw() ^ 1); break;
        case 1: if (!w.wells.empty()) w.wells[0].pos.x = Fx::from_raw(w.wells[0].pos.x.raw() ^ 1); break;
        case 2: w.rng = XorShift::from_state(w.rng.state() ^ 1); break;
        default: w.captures ^= 1; break;
        }
    }
#endif
}

// ---- Digests. The canonical order, which encode() and dump() follow too:
//   config:  seed u64, tick_hz u32, arena_size, pellet_count u32, max_players u32,
//            well_strength, pellet_strength, softening, capture_radius, steer_gain,
//            steer_damping, max_well_accel, max_pellet_speed, wall_restitution, theta,
//            tree_max_depth u32                       (Fx as its int32 raw)
//   wells:   count u32, then per well in player order: player u32, pos, vel, target
//   pellets: count u32, then per pellet in index order: index u32, generation u32, pos, vel;
//            then the live set's SetDigest value u64
//   scores:  count u32, then per well in player order: player u32, score u32; captures u64
//   rng:     XorShift state u64
//   world:   tick u64, then the five section digests above, in that order.
namespace {
void write_config(StateDigest& d, const WorldConfig& c) {
    for_each_config_field(c, [&d](std::string_view, auto field) {
        if constexpr (std::is_same_v<decltype(field), uint64_t>) d.write_u64(field);
        else if constexpr (std::is_same_v<decltype(field), uint32_t>) d.write_u32(field);
        else d.write_fx(field);
    });
}
}  // namespace

SectionDigests section_digests(const World& w) {
    SectionDigests s;
    {
        StateDigest d;
        write_config(d, w.config);
        s.config = d.finish();
    }
    {
        StateDigest d;
        d.write_u32(static_cast<uint32_t>(w.wells.size()));
        for (const Well& well : w.wells) {
            d.write_u32(well.player);
            d.write_vec2(well.pos);
            d.write_vec2(well.vel);
            d.write_vec2(well.target);
        }
        s.wells = d.finish();
    }
    {
        StateDigest d;
        d.write_u32(static_cast<uint32_t>(w.pellets.size()));
        for (const Pellet& p : w.pellets) {
            d.write_u32(p.key.index);
            d.write_u32(p.key.generation);
            d.write_vec2(p.pos);
            d.write_vec2(p.vel);
        }
        d.write_u64(w.live.digest());
        s.pellets = d.finish();
    }
    {
        StateDigest d;
        d.write_u32(static_cast<uint32_t>(w.wells.size()));
        for (const Well& well : w.wells) {
            d.write_u32(well.player);
            d.write_u32(well.score);
        }
        d.write_u64(w.captures);
        s.scores = d.finish();
    }
    {
        StateDigest d;
        d.write_u64(w.rng.state());
        s.rng = d.finish();
    }
    return s;
}

uint64_t digest(const World& w) {
    const SectionDigests s = section_digests(w);
    StateDigest d;
    d.write_u64(w.tick);
    d.write_u64(s.config);
    d.write_u64(s.wells);
    d.write_u64(s.pellets);
    d.write_u64(s.scores);
    d.write_u64(s.rng);
    return d.finish();
}

std::string dump(const World& w) {
    std::string out;
    auto line = [&out](const std::string& name, const std::string& value) {
        out += name;
        out += ' ';
        out += value;
        out += '\n';
    };
    auto fx = [](Fx v) { return std::to_string(v.raw()); };
    const WorldConfig& c = w.config;
    line("tick", std::to_string(w.tick));
    for_each_config_field(c, [&](std::string_view name, auto field) {
        std::string value;
        if constexpr (std::is_same_v<decltype(field), Fx>) value = fx(field);
        else value = std::to_string(field);
        line("config." + std::string(name), value);
    });
    line("wells.count", std::to_string(w.wells.size()));
    for (const Well& well : w.wells) {
        const std::string k = "well[" + std::to_string(well.player) + "].";
        line(k + "pos.x", fx(well.pos.x));
        line(k + "pos.y", fx(well.pos.y));
        line(k + "vel.x", fx(well.vel.x));
        line(k + "vel.y", fx(well.vel.y));
        line(k + "target.x", fx(well.target.x));
        line(k + "target.y", fx(well.target.y));
    }
    line("pellets.count", std::to_string(w.pellets.size()));
    for (const Pellet& p : w.pellets) {
        const std::string k = "pellet[" + std::to_string(p.key.index) + "].";
        line(k + "generation", std::to_string(p.key.generation));
        line(k + "pos.x", fx(p.pos.x));
        line(k + "pos.y", fx(p.pos.y));
        line(k + "vel.x", fx(p.vel.x));
        line(k + "vel.y", fx(p.vel.y));
    }
    line("pellets.live_set", std::to_string(w.live.digest()));
    for (const Well& well : w.wells) line("score[" + std::to_string(well.player) + "]", std::to_string(well.score));
    line("captures", std::to_string(w.captures));
    line("rng.state", std::to_string(w.rng.state()));
    // The digests last, so a divergence report can name the differing section without a
    // second run (16 lowercase hex digits, as `tandem run` prints them).
    const SectionDigests s = section_digests(w);
    line("section.config", hex64(s.config));
    line("section.wells", hex64(s.wells));
    line("section.pellets", hex64(s.pellets));
    line("section.scores", hex64(s.scores));
    line("section.rng", hex64(s.rng));
    line("digest", hex64(digest(w)));
    return out;
}

}  // namespace tandem::world
