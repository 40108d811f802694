// ships: the config's rules, the state at tick 0 and the names of events (the tick is
// step.cpp; digests, snapshots and the dump come from the kit through Sim::visit_state).
// Every loop runs in an order this file defines.
#include "ships/world.hpp"

#include <iterator>

#include "spawn.hpp"
#include "tandem/sim/config_rules.hpp"

namespace ships {

using namespace tandem;

namespace {

// One rule per knob, in for_each_config_field order (ConfigError's order too). The bounds
// keep every product in step.cpp inside int64 and every position on the torus.
using ConfigRule = tandem::sim::ConfigRule<Config, ConfigError>;

constexpr Fx units(int32_t n) { return Fx::from_int(n); }

constexpr ConfigRule rule_table[] = {
    {ConfigError::tick_hz_out_of_range, "tick_hz_out_of_range", "tick_hz", "tick_hz must be between 1 and 1000",
     [](const Config& c) { return c.tick_hz >= 1 && c.tick_hz <= 1000; }},
    {ConfigError::max_players_out_of_range, "max_players_out_of_range", "max_players", "max_players must be between 2 and 8",
     [](const Config& c) { return c.max_players >= min_players && c.max_players <= max_player_limit; }},
    {ConfigError::arena_size_out_of_range, "arena_size_out_of_range", "arena_size", "arena_size must be between 128 and 4096 units",
     [](const Config& c) { return c.arena_size >= units(min_arena_units) && c.arena_size <= units(max_arena_units); }},
    {ConfigError::ship_radius_out_of_range, "ship_radius_out_of_range", "ship_radius", "ship_radius must be between 1 and 64 units",
     [](const Config& c) { return c.ship_radius >= units(1) && c.ship_radius <= units(64); }},
    {ConfigError::thrust_out_of_range, "thrust_out_of_range", "thrust", "thrust must be between 0 and 8 units per tick squared",
     [](const Config& c) { return c.thrust >= Fx::zero() && c.thrust <= units(8); }},
    {ConfigError::turn_rate_out_of_range, "turn_rate_out_of_range", "turn_rate", "turn_rate must be between 0 and pi radians per tick",
     [](const Config& c) { return c.turn_rate >= Fx::zero() && c.turn_rate <= fx::pi; }},
    {ConfigError::drag_out_of_range, "drag_out_of_range", "drag", "drag must be between 0 and 1",
     [](const Config& c) { return c.drag >= Fx::zero() && c.drag <= Fx::one(); }},
    {ConfigError::max_speed_out_of_range, "max_speed_out_of_range", "max_speed", "max_speed must be between 0 and 64 units per tick",
     [](const Config& c) { return c.max_speed >= Fx::zero() && c.max_speed <= units(64); }},
    {ConfigError::fire_cooldown_out_of_range, "fire_cooldown_out_of_range", "fire_cooldown", "fire_cooldown must be between 1 and 1000 ticks",
     [](const Config& c) { return c.fire_cooldown >= 1 && c.fire_cooldown <= 1000; }},
    {ConfigError::bullet_speed_out_of_range, "bullet_speed_out_of_range", "bullet_speed", "bullet_speed must be between 0 and 128 units per tick",
     [](const Config& c) { return c.bullet_speed >= Fx::zero() && c.bullet_speed <= units(128); }},
    {ConfigError::bullet_lifetime_out_of_range, "bullet_lifetime_out_of_range", "bullet_lifetime", "bullet_lifetime must be between 1 and 1000 ticks",
     [](const Config& c) { return c.bullet_lifetime >= 1 && c.bullet_lifetime <= 1000; }},
    {ConfigError::bullets_per_ship_out_of_range, "bullets_per_ship_out_of_range", "bullets_per_ship", "bullets_per_ship must be between 1 and 16",
     [](const Config& c) { return c.bullets_per_ship >= 1 && c.bullets_per_ship <= 16; }},
    {ConfigError::respawn_delay_out_of_range, "respawn_delay_out_of_range", "respawn_delay", "respawn_delay must be at most 10000 ticks",
     [](const Config& c) { return c.respawn_delay <= 10000; }},
    {ConfigError::rock_count_out_of_range, "rock_count_out_of_range", "rock_count", "rock_count must be at most 256",
     [](const Config& c) { return c.rock_count <= 256; }},
    {ConfigError::rock_floor_out_of_range, "rock_floor_out_of_range", "rock_floor", "rock_floor must be at most rock_count",
     [](const Config& c) { return c.rock_floor <= c.rock_count; }},
    {ConfigError::max_rocks_out_of_range, "max_rocks_out_of_range", "max_rocks", "max_rocks must be between rock_count and 1024",
     [](const Config& c) { return c.max_rocks >= c.rock_count && c.max_rocks <= max_rock_limit; }},
    {ConfigError::rock_radius_big_out_of_range, "rock_radius_big_out_of_range", "rock_radius_big", "rock_radius_big must be between 1 and 256 units",
     [](const Config& c) { return c.rock_radius_big >= units(1) && c.rock_radius_big <= units(256); }},
    {ConfigError::rock_radius_medium_out_of_range, "rock_radius_medium_out_of_range", "rock_radius_medium",
     "rock_radius_medium must be between 1 unit and rock_radius_big",
     [](const Config& c) { return c.rock_radius_medium >= units(1) && c.rock_radius_medium <= c.rock_radius_big; }},
    {ConfigError::rock_radius_small_out_of_range, "rock_radius_small_out_of_range", "rock_radius_small",
     "rock_radius_small must be between 1 unit and rock_radius_medium",
     [](const Config& c) { return c.rock_radius_small >= units(1) && c.rock_radius_small <= c.rock_radius_medium; }},
    {ConfigError::rock_speed_min_out_of_range, "rock_speed_min_out_of_range", "rock_speed_min", "rock_speed_min must be between 0 and 16 units per tick",
     [](const Config& c) { return c.rock_speed_min >= Fx::zero() && c.rock_speed_min <= units(16); }},
    {ConfigError::rock_speed_max_out_of_range, "rock_speed_max_out_of_range", "rock_speed_max",
     "rock_speed_max must be between rock_speed_min and 16 units per tick",
     [](const Config& c) { return c.rock_speed_max >= c.rock_speed_min && c.rock_speed_max <= units(16); }},
    {ConfigError::rock_points_out_of_range, "rock_points_out_of_range", "rock_points", "rock_points must be at most 1000000",
     [](const Config& c) { return c.rock_points <= 1'000'000; }},
    {ConfigError::ship_points_out_of_range, "ship_points_out_of_range", "ship_points", "ship_points must be at most 1000000",
     [](const Config& c) { return c.ship_points <= 1'000'000; }},
};

constexpr tandem::sim::ConfigRules<Config, ConfigError> config_rules{rule_table};
static_assert(config_rules.follows_enum(), "rule_table[i].error must be ConfigError(i): the lookups index by it");

}  // namespace

std::string_view error_name(ConfigError error) { return config_rules.code(error); }
std::string_view describe(ConfigError error) { return config_rules.describe(error); }
std::string_view config_field(ConfigError error) { return config_rules.field(error); }
Result<void, ConfigError> validate(const Config& c) { return config_rules.validate(c); }

Fx rock_radius(const Config& c, uint8_t size) {
    return size >= big ? c.rock_radius_big : size == medium ? c.rock_radius_medium : c.rock_radius_small;
}

Result<State, ConfigError> make_state(const Config& config) {
    if (const auto valid = validate(config); !valid) return valid.error();
    State s;
    s.config = config;
    s.rng = XorShift(config.seed);
    std::vector<Rock> fresh(config.rock_count);
    for (Rock& r : fresh) {
        r.size = big;
        r.pos = detail::random_point(s.rng, config.arena_size);
        r.vel = detail::random_drift(s.rng, config);
    }
    s.rock_keys.insert(s.rocks, config.max_rocks, std::span<Rock>(fresh));
    return s;
}

std::string_view event_name(EventKind kind) {
    switch (kind) {
    case EventKind::joined: return "joined";
    case EventKind::left: return "left";
    case EventKind::join_refused: return "join_refused";
    case EventKind::respawned: return "respawned";
    case EventKind::fired: return "fired";
    case EventKind::expired: return "expired";
    case EventKind::hit: return "hit";
    case EventKind::shot: return "shot";
    case EventKind::crashed: return "crashed";
    case EventKind::wave: return "wave";
    }
    return "unknown";
}

}  // namespace ships
