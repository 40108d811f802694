// World construction and validation, digests and the text dump (the tick is step.cpp, the
// bytes snapshot.cpp and input.cpp). Every loop here runs in an order this file defines
// (pellet index, well player id); none may iterate an unordered container or compare pointers.
#include "tandem/world/world.hpp"

#include <iterator>
#include <type_traits>

#include "world/spawn.hpp"

namespace tandem::world {

WorldConfig default_config() { return WorldConfig{}; }

namespace {

// One rule per knob, in for_each_config_field order (which is also ConfigError's order):
// each bound keeps an integer in gravity.hpp or the integrator within range, so a world that
// passes can be stepped forever without overflow (saturation aside).
struct ConfigRule {
    ConfigError error;
    std::string_view code;
    std::string_view field;
    std::string_view rule;
    bool (*holds)(const WorldConfig&);
};

constexpr ConfigRule config_rules[] = {
    {ConfigError::tick_hz_out_of_range, "tick_hz_out_of_range", "tick_hz", "tick_hz must be between 1 and 1000",
     [](const WorldConfig& c) { return c.tick_hz >= 1 && c.tick_hz <= 1000; }},
    {ConfigError::arena_size_out_of_range, "arena_size_out_of_range", "arena_size",
     "arena_size must be between 16 and 4096 units",
     [](const WorldConfig& c) { return c.arena_size >= Fx::from_int(16) && c.arena_size <= Fx::from_int(max_arena_units); }},
    {ConfigError::pellet_count_out_of_range, "pellet_count_out_of_range", "pellet_count",
     "pellet_count must be at most 131072", [](const WorldConfig& c) { return c.pellet_count <= max_pellet_count; }},
    {ConfigError::max_players_out_of_range, "max_players_out_of_range", "max_players", "max_players must be at most 64",
     [](const WorldConfig& c) { return c.max_players <= max_player_limit; }},
    {ConfigError::well_strength_out_of_range, "well_strength_out_of_range", "well_strength",
     "well_strength must not be negative", [](const WorldConfig& c) { return c.well_strength >= Fx::zero(); }},
    {ConfigError::pellet_strength_out_of_range, "pellet_strength_out_of_range", "pellet_strength",
     "pellet_strength must not be negative", [](const WorldConfig& c) { return c.pellet_strength >= Fx::zero(); }},
    {ConfigError::softening_out_of_range, "softening_out_of_range", "softening",
     "softening must be between 1 and 64 units",
     [](const WorldConfig& c) { return c.softening >= Fx::one() && c.softening <= Fx::from_int(64); }},
    {ConfigError::capture_radius_out_of_range, "capture_radius_out_of_range", "capture_radius",
     "capture_radius must be between 0 and 256 units",
     [](const WorldConfig& c) { return c.capture_radius >= Fx::zero() && c.capture_radius <= Fx::from_int(256); }},
    {ConfigError::steer_gain_out_of_range, "steer_gain_out_of_range", "steer_gain", "steer_gain must not be negative",
     [](const WorldConfig& c) { return c.steer_gain >= Fx::zero(); }},
    {ConfigError::steer_damping_out_of_range, "steer_damping_out_of_range", "steer_damping",
     "steer_damping must not be negative", [](const WorldConfig& c) { return c.steer_damping >= Fx::zero(); }},
    {ConfigError::max_well_accel_out_of_range, "max_well_accel_out_of_range", "max_well_accel",
     "max_well_accel must not be negative", [](const WorldConfig& c) { return c.max_well_accel >= Fx::zero(); }},
    {ConfigError::max_pellet_speed_out_of_range, "max_pellet_speed_out_of_range", "max_pellet_speed",
     "max_pellet_speed must not be negative", [](const WorldConfig& c) { return c.max_pellet_speed >= Fx::zero(); }},
    {ConfigError::wall_restitution_out_of_range, "wall_restitution_out_of_range", "wall_restitution",
     "wall_restitution must be between 0 and 1",
     [](const WorldConfig& c) { return c.wall_restitution >= Fx::zero() && c.wall_restitution <= Fx::one(); }},
    {ConfigError::theta_out_of_range, "theta_out_of_range", "theta", "theta must be between 0 and 4",
     [](const WorldConfig& c) { return c.theta >= Fx::zero() && c.theta <= Fx::from_int(4); }},
    {ConfigError::tree_max_depth_out_of_range, "tree_max_depth_out_of_range", "tree_max_depth",
     "tree_max_depth must be between 1 and 24",
     [](const WorldConfig& c) { return c.tree_max_depth >= 1 && c.tree_max_depth <= 24; }},
};

constexpr bool rules_follow_the_enum() {
    for (uint32_t i = 0; i < std::size(config_rules); ++i) {
        if (static_cast<uint32_t>(config_rules[i].error) != i) return false;
    }
    return true;
}
static_assert(rules_follow_the_enum(), "config_rules[i].error must be ConfigError(i): the lookups below index by it");

const ConfigRule* rule_of(ConfigError error) {
    const uint32_t i = static_cast<uint32_t>(error);
    return i < std::size(config_rules) ? &config_rules[i] : nullptr;
}

}  // namespace

std::string_view error_name(ConfigError error) {
    const ConfigRule* r = rule_of(error);
    return r ? r->code : "unknown";
}
std::string_view describe(ConfigError error) {
    const ConfigRule* r = rule_of(error);
    return r ? r->rule : "unknown config error";
}
std::string_view config_field(ConfigError error) {
    const ConfigRule* r = rule_of(error);
    return r ? r->field : "unknown";
}

Result<void, ConfigError> validate(const WorldConfig& c) {
    for (const ConfigRule& r : config_rules) {
        if (!r.holds(c)) return r.error;
    }
    return {};
}

Result<World, ConfigError> make_world(const WorldConfig& config) {
    if (const auto valid = validate(config); !valid) return valid.error();
    World w;
    w.config = config;
    w.rng = XorShift(config.seed);
    w.pellets.resize(config.pellet_count);
    for (uint32_t i = 0; i < config.pellet_count; ++i) {
        Pellet& p = w.pellets[i];
        p.key = SlotKey{i, 0};
        p.pos = random_point(w.rng, config.arena_size);
    }
    return w;
}

// ---- Digests. The canonical order, which encode() and dump() follow too:
//   config:  seed u64, tick_hz u32, arena_size, pellet_count u32, max_players u32,
//            well_strength, pellet_strength, softening, capture_radius, steer_gain,
//            steer_damping, max_well_accel, max_pellet_speed, wall_restitution, theta,
//            tree_max_depth u32                       (Fx as its int32 raw)
//   wells:   count u32, then per well in player order: player u32, pos, vel, target
//   pellets: count u32, then per pellet in index order: index u32, generation u32, pos, vel;
//            then the SetDigest value u64 of the pellets' keys (SlotKey::encode), computed
//            here from the pellets: it is derived, never stored, so it cannot drift
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

// The set of live pellet keys: every slot is always occupied, by its current generation.
SetDigest live_set(const World& w) {
    SetDigest live;
    for (const Pellet& p : w.pellets) live.insert(p.key.encode());
    return live;
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
        d.write_u64(live_set(w).digest());
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

uint64_t digest(const World& w) { return digest(w.tick, section_digests(w)); }

uint64_t digest(uint64_t tick, const SectionDigests& s) {
    StateDigest d;
    d.write_u64(tick);
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
    line("pellets.live_set", std::to_string(live_set(w).digest()));
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
