// ships as the kit sees it: the traits (tandem/sim/simulation.hpp, scenario.hpp) the room,
// the client session, replays, the server and the determinism check are instantiated with,
// including the one visitor from which the kit derives digests, snapshots, the dump and the
// field diff; and the bot policy ScriptedBot plays with (Sim::Bot).
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ships/bot.hpp"
#include "ships/scenario.hpp"
#include "ships/world.hpp"
#include "tandem/sim/scenario.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace ships {

namespace detail {
inline bool on_torus(Vec2 p, Fx size) { return p.x >= Fx::zero() && p.x < size && p.y >= Fx::zero() && p.y < size; }
}  // namespace detail

struct Sim {
    static constexpr std::string_view name = "ships";
    static constexpr uint32_t version = simulation_version;
    using Config = ships::Config;
    using State = ships::State;
    using Command = ships::Command;
    using Event = ships::Event;
    using Stepper = ships::Stepper;
    using ConfigError = ships::ConfigError;

    // A desync names one: the config, the ships' motion, the bullets, the rocks, the scores, the rng.
    enum Section : uint8_t { config, ships, bullets, rocks, scores, rng };
    static constexpr std::array<std::string_view, 6> sections{"config", "ships", "bullets", "rocks", "scores", "rng"};

    static Result<void, ConfigError> validate(const Config& c) { return ships::validate(c); }
    static Result<State, ConfigError> make(const Config& c) { return make_state(c); }
    static uint64_t tick(const State& s) { return s.tick; }
    static const Config& config_of(const State& s) { return s.config; }
    static uint32_t tick_hz(const Config& c) { return c.tick_hz; }
    static uint32_t max_players(const Config& c) { return c.max_players; }
    // A new ship holds nothing until its player's first command.
    static Command join_command(const Config&) { return Command{}; }
    // A dropped player's ship lets go of every button while its seat waits for a resume
    // (tandem/net/room.hpp): a ship left thrusting and firing for the grace would play on.
    static Command idle_command(const Config&) { return Command{}; }

    static std::vector<std::pair<std::string_view, uint64_t>> summary(const State& s) {
        return {{"ships", s.ships.size()}, {"bullets", s.bullets.size()}, {"rocks", s.rocks.size()},
                {"rocks_destroyed", s.rocks_destroyed}};
    }

    // The policy tandem's ScriptedBot plays ships with (ships/bot.hpp).
    using Bot = ships::Bot;

    using Scenario = ships::Scenario;
    using ScenarioError = ships::SpecError;
    static std::span<const Scenario> scenarios() { return ships::scenarios(); }
    static Result<Scenario, ScenarioError> find_scenario(std::string_view n) { return ships::find_scenario(n); }
    static std::string scenario_names_accepted() { return ships::scenario_names_accepted(); }
    static State start(const Scenario& s) { return ships::start(s); }
    static std::vector<Input> scenario_inputs(const Scenario& s, const State& w) { return ships::scenario_inputs(s, w); }

    template <class V, class C>
    static void visit_config(V& v, C& c) {
        for_each_config_field(c, [&v](std::string_view field_name, auto& field) { v.field(field_name, field); });
    }
    // One byte; the reserved bits must be clear on the wire.
    template <class V, class C>
    static void visit_command(V& v, C& c) {
        v.field("buttons", c.buttons);
        v.require([&] { return (c.buttons & ~all_buttons) == 0; });
    }
    // The canonical order of the whole state. Digests: the tick, then six sections:
    //   config:  every knob in for_each_config_field order
    //   ships:   count, then per ship by player: player, alive, respawn_in, pos, vel, heading,
    //            buttons, cooldown
    //   bullets: count, then per bullet by key: index, generation, owner, pos, vel, ttl; then the
    //            bullet allocator's next generation
    //   rocks:   count, then per rock by key: index, generation, size, pos, vel; then the rock
    //            allocator's next generation
    //   scores:  the ships' count, per ship: player, score, deaths; then rocks_destroyed
    //   rng:     the XorShift state
    // The requires are what step relies on and what it keeps: a decoder refuses anything else.
    template <class V, class S>
    static void visit_state(V& v, S& s) {
        const Config& c = s.config;
        v.field("tick", s.tick);
        v.section(config);
        v.config("config", s.config);
        v.section(ships);
        v.list("ships", s.ships, tandem::sim::at_most(c.max_players), tandem::sim::also(scores), [&](auto& ship) {
            v.key("player", ship.player);
            v.field("alive", ship.alive);
            v.field("respawn_in", ship.respawn_in);
            v.field("pos", ship.pos);
            v.field("vel", ship.vel);
            v.field("heading", ship.heading);
            v.field("buttons", ship.buttons);
            v.field("cooldown", ship.cooldown);
            v.field("score", ship.score, scores);
            v.field("deaths", ship.deaths, scores);
            v.require([&] {
                const bool placed = ship.alive ? ship.respawn_in == 0 : ship.vel == Vec2{} && ship.cooldown == 0;
                return placed && ship.respawn_in <= c.respawn_delay && detail::on_torus(ship.pos, c.arena_size) &&
                       ship.heading >= Fx::zero() && ship.heading < tandem::fx::two_pi &&
                       (ship.buttons & ~all_buttons) == 0 && ship.cooldown <= c.fire_cooldown;
            });
        });
        v.section(bullets);
        v.list("bullets", s.bullets, tandem::sim::at_most(bullet_capacity(c)), [&](auto& b) {
            v.key("key", b.key);
            v.field("owner", b.owner);
            v.field("pos", b.pos);
            v.field("vel", b.vel);
            v.field("ttl", b.ttl);
            v.require([&] {
                bool owned = false;
                for (const Ship& ship : s.ships) owned = owned || ship.player == b.owner;
                return owned && b.key.index < bullet_capacity(c) && b.ttl >= 1 && b.ttl <= c.bullet_lifetime &&
                       detail::on_torus(b.pos, c.arena_size);
            });
        });
        v.object("bullet_keys", [&] { v.field("next_generation", s.bullet_keys.next_generation); });
        v.section(rocks);
        v.list("rocks", s.rocks, tandem::sim::at_most(c.max_rocks), [&](auto& r) {
            v.key("key", r.key);
            v.field("size", r.size);
            v.field("pos", r.pos);
            v.field("vel", r.vel);
            v.require([&] {
                return r.key.index < c.max_rocks && r.size >= small && r.size <= big && detail::on_torus(r.pos, c.arena_size);
            });
        });
        v.object("rock_keys", [&] { v.field("next_generation", s.rock_keys.next_generation); });
        v.section(scores);
        v.field("rocks_destroyed", s.rocks_destroyed);
        v.section(rng);
        v.field("rng", s.rng);
    }
};
static_assert(tandem::sim::Scripted<Sim>);

inline uint64_t digest(const State& s) { return tandem::sim::digest<Sim>(s); }
inline std::vector<uint8_t> encode(const State& s) { return tandem::sim::encode_snapshot<Sim>(s); }
inline Result<State, tandem::sim::DecodeError> decode(std::span<const uint8_t> bytes) {
    return tandem::sim::decode_snapshot<Sim>(bytes);
}
inline std::string dump(const State& s) { return tandem::sim::dump<Sim>(s); }
inline std::string fingerprint() { return tandem::sim::fingerprint<Sim>(); }
using tandem::sim::DecodeError;

}  // namespace ships
