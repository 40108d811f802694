// Properties of src/games/ships/world.cpp's config rules: each knob out of range is refused by
// its own code naming its own field, every documented bound is accepted, the first knob in
// field order is the one named, and a value past the enum is "unknown". The bounds below are
// the ones Config's comments and the rules' sentences state, written out by hand.
#include "ships/sim.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

using namespace tandem;
using namespace ships;

namespace {
Fx units(int32_t n) { return Fx::from_int(n); }
Fx above(Fx v) { return Fx::from_raw(v.raw() + 1); }
Fx below(Fx v) { return Fx::from_raw(v.raw() - 1); }
}  // namespace

TEST_CASE("ships: each knob out of range is refused with its own code naming its field, and its bounds are inclusive") {
    struct Case {
        void (*edit)(Config&);
        std::string_view field;
    };
    const std::vector<Case> refused{
        {[](Config& c) { c.tick_hz = 0; }, "tick_hz"},
        {[](Config& c) { c.tick_hz = 1001; }, "tick_hz"},
        {[](Config& c) { c.max_players = 1; }, "max_players"},
        {[](Config& c) { c.max_players = 9; }, "max_players"},
        {[](Config& c) { c.arena_size = below(units(128)); }, "arena_size"},
        {[](Config& c) { c.arena_size = above(units(4096)); }, "arena_size"},
        {[](Config& c) { c.ship_radius = below(units(1)); }, "ship_radius"},
        {[](Config& c) { c.ship_radius = above(units(64)); }, "ship_radius"},
        {[](Config& c) { c.thrust = Fx::from_raw(-1); }, "thrust"},
        {[](Config& c) { c.thrust = above(units(8)); }, "thrust"},
        {[](Config& c) { c.turn_rate = Fx::from_raw(-1); }, "turn_rate"},
        {[](Config& c) { c.turn_rate = units(4); }, "turn_rate"},
        {[](Config& c) { c.drag = Fx::from_raw(-1); }, "drag"},
        {[](Config& c) { c.drag = above(Fx::one()); }, "drag"},
        {[](Config& c) { c.max_speed = Fx::from_raw(-1); }, "max_speed"},
        {[](Config& c) { c.max_speed = above(units(64)); }, "max_speed"},
        {[](Config& c) { c.fire_cooldown = 0; }, "fire_cooldown"},
        {[](Config& c) { c.fire_cooldown = 1001; }, "fire_cooldown"},
        {[](Config& c) { c.bullet_speed = Fx::from_raw(-1); }, "bullet_speed"},
        {[](Config& c) { c.bullet_speed = above(units(128)); }, "bullet_speed"},
        {[](Config& c) { c.bullet_lifetime = 0; }, "bullet_lifetime"},
        {[](Config& c) { c.bullet_lifetime = 1001; }, "bullet_lifetime"},
        {[](Config& c) { c.bullets_per_ship = 0; }, "bullets_per_ship"},
        {[](Config& c) { c.bullets_per_ship = 17; }, "bullets_per_ship"},
        {[](Config& c) { c.respawn_delay = 10001; }, "respawn_delay"},
        {[](Config& c) { c.rock_count = 257; c.max_rocks = 1024; }, "rock_count"},
        {[](Config& c) { c.rock_floor = c.rock_count + 1; }, "rock_floor"},
        {[](Config& c) { c.max_rocks = c.rock_count - 1; }, "max_rocks"},
        {[](Config& c) { c.max_rocks = 1025; }, "max_rocks"},
        {[](Config& c) { c.rock_radius_big = below(units(1)); }, "rock_radius_big"},
        {[](Config& c) { c.rock_radius_big = above(units(256)); }, "rock_radius_big"},
        {[](Config& c) { c.rock_radius_medium = below(units(1)); }, "rock_radius_medium"},
        {[](Config& c) { c.rock_radius_medium = above(c.rock_radius_big); }, "rock_radius_medium"},
        {[](Config& c) { c.rock_radius_small = below(units(1)); }, "rock_radius_small"},
        {[](Config& c) { c.rock_radius_small = above(c.rock_radius_medium); }, "rock_radius_small"},
        {[](Config& c) { c.rock_speed_min = Fx::from_raw(-1); }, "rock_speed_min"},
        {[](Config& c) { c.rock_speed_min = above(units(16)); c.rock_speed_max = units(16); }, "rock_speed_min"},
        {[](Config& c) { c.rock_speed_max = below(c.rock_speed_min); }, "rock_speed_max"},
        {[](Config& c) { c.rock_speed_max = above(units(16)); }, "rock_speed_max"},
        {[](Config& c) { c.rock_points = 1'000'001; }, "rock_points"},
        {[](Config& c) { c.ship_points = 1'000'001; }, "ship_points"},
    };
    for (const Case& k : refused) {
        Config c;
        k.edit(c);
        const std::string code = std::string(k.field) + "_out_of_range";
        INFO("expected " << code);
        const auto v = validate(c);
        REQUIRE_FALSE(v.ok());
        CHECK(v.code() == code);
        CHECK(config_field(v.error()) == k.field);
        CHECK(describe(v.error()).find(k.field) != std::string_view::npos);
        const auto made = make_state(c);
        CHECK_FALSE(made.ok());
    }
    const std::vector<void (*)(Config&)> edges{
        [](Config& c) { c.tick_hz = 1; },               [](Config& c) { c.tick_hz = 1000; },
        [](Config& c) { c.max_players = 2; },           [](Config& c) { c.max_players = 8; },
        [](Config& c) { c.arena_size = units(128); },   [](Config& c) { c.arena_size = units(4096); },
        [](Config& c) { c.ship_radius = units(1); },    [](Config& c) { c.ship_radius = units(64); },
        [](Config& c) { c.thrust = Fx::zero(); },       [](Config& c) { c.thrust = units(8); },
        [](Config& c) { c.turn_rate = Fx::zero(); },    [](Config& c) { c.drag = Fx::zero(); },
        [](Config& c) { c.drag = Fx::one(); },          [](Config& c) { c.max_speed = units(64); },
        [](Config& c) { c.fire_cooldown = 1; },         [](Config& c) { c.fire_cooldown = 1000; },
        [](Config& c) { c.bullet_speed = units(128); }, [](Config& c) { c.bullet_lifetime = 1000; },
        [](Config& c) { c.bullets_per_ship = 1; },      [](Config& c) { c.bullets_per_ship = 16; },
        [](Config& c) { c.respawn_delay = 10000; },     [](Config& c) { c.respawn_delay = 0; },
        [](Config& c) { c.rock_floor = c.rock_count; }, [](Config& c) { c.max_rocks = c.rock_count; },
        [](Config& c) { c.max_rocks = 1024; },          [](Config& c) { c.rock_radius_big = units(256); },
        [](Config& c) { c.rock_radius_medium = c.rock_radius_big; },
        [](Config& c) { c.rock_radius_small = c.rock_radius_medium; },
        [](Config& c) { c.rock_speed_max = c.rock_speed_min; },
        [](Config& c) { c.rock_points = 1'000'000; },   [](Config& c) { c.ship_points = 1'000'000; },
    };
    for (size_t i = 0; i < edges.size(); ++i) {
        Config c;
        edges[i](c);
        INFO("edge " << i);
        CHECK(validate(c).ok());
    }
    CHECK(validate(Config{}).ok());
}

TEST_CASE("ships: the first knob out of range in field order is the one named") {
    Config c;
    c.ship_points = 1'000'001;
    c.drag = units(2);
    CHECK(validate(c).code() == "drag_out_of_range");
    c.tick_hz = 0;
    CHECK(validate(c).code() == "tick_hz_out_of_range");
}

TEST_CASE("ships: every rule names a field the config visitor visits, in the visitor's order") {
    // The independent order: for_each_config_field, which the digest and the wire follow. seed
    // has no rule; every other field has exactly one, so ConfigError(i) bounds field i + 1.
    std::vector<std::string> visited;
    Config c;
    for_each_config_field(c, [&](std::string_view name, auto&) { visited.emplace_back(name); });
    REQUIRE(visited.size() >= 2);
    REQUIRE(visited[0] == "seed");
    for (size_t i = 0; i + 1 < visited.size(); ++i) {
        const auto e = static_cast<ConfigError>(i);
        INFO("ConfigError " << i);
        CHECK(config_field(e) == visited[i + 1]);
        CHECK(error_name(e) == visited[i + 1] + "_out_of_range");
    }
    const auto past = static_cast<ConfigError>(visited.size() - 1);
    CHECK(error_name(past) == "unknown");
    CHECK(describe(past) == "unknown config error");
    CHECK(config_field(past) == "unknown");
}
