// World construction and validation (the tick is step.cpp; digests, snapshots and the dump
// come from the kit, through Sim::visit_state in world.hpp). Every loop here runs in an order
// this file defines (pellet index); none may iterate an unordered container or compare pointers.
#include "arena/world.hpp"

#include <iterator>

#include "spawn.hpp"
#include "tandem/sim/config_rules.hpp"

namespace arena {

using namespace tandem;

WorldConfig default_config() { return WorldConfig{}; }

namespace {

// One rule per knob, in for_each_config_field order (which is also ConfigError's order):
// each bound keeps an integer in gravity.hpp or the integrator within range, so a world that
// passes can be stepped forever without overflow (saturation aside).
using ConfigRule = tandem::sim::ConfigRule<WorldConfig, ConfigError>;

constexpr ConfigRule rule_table[] = {
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

constexpr tandem::sim::ConfigRules<WorldConfig, ConfigError> config_rules{rule_table};
static_assert(config_rules.follows_enum(), "rule_table[i].error must be ConfigError(i): the lookups index by it");

}  // namespace

std::string_view error_name(ConfigError error) { return config_rules.code(error); }
std::string_view describe(ConfigError error) { return config_rules.describe(error); }
std::string_view config_field(ConfigError error) { return config_rules.field(error); }
Result<void, ConfigError> validate(const WorldConfig& c) { return config_rules.validate(c); }

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

}  // namespace arena
