// The arena as the kit sees it: the traits the room, the client session, replays, the server
// and the determinism check are instantiated with (tandem/sim/simulation.hpp), including the
// one visitor from which the kit derives the arena's digests, snapshots, dump and field diff,
// and its scenarios (tandem/sim/scenario.hpp).
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arena/bot.hpp"
#include "arena/scenario.hpp"
#include "arena/world.hpp"
#include "tandem/sim/scenario.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace arena {

namespace detail {
inline bool in_arena(Vec2 p, Fx arena) {
    return p.x >= Fx::zero() && p.x <= arena && p.y >= Fx::zero() && p.y <= arena;
}
// The set of live pellet keys: every slot is always occupied, by its current generation. It is
// derived, never stored, so it cannot drift from the pellets.
inline uint64_t live_set_digest(const World& w) {
    SetDigest live;
    for (const Pellet& p : w.pellets) live.insert(p.key.encode());
    return live.digest();
}
}  // namespace detail

// ---- The arena as the kit sees it ------------------------------------------------------
struct Sim {
    static constexpr std::string_view name = "arena";
    static constexpr uint32_t version = simulation_version;
    using Config = WorldConfig;
    using State = World;
    using Command = Steer;
    using Event = arena::Event;
    using Stepper = arena::Stepper;
    using ConfigError = arena::ConfigError;

    // A desync names one of these: config, the wells' motion, the pellets, the scores, the rng.
    enum Section : uint8_t { config, wells, pellets, scores, rng };
    static constexpr std::array<std::string_view, 5> sections{"config", "wells", "pellets", "scores", "rng"};

    static Result<void, ConfigError> validate(const Config& c) { return arena::validate(c); }
    static Result<State, ConfigError> make(const Config& c) { return make_world(c); }
    static uint64_t tick(const State& s) { return s.tick; }
    static const Config& config_of(const State& s) { return s.config; }
    static uint32_t tick_hz(const Config& c) { return c.tick_hz; }
    static uint32_t max_players(const Config& c) { return c.max_players; }
    // A new well starts aimed at the arena's centre.
    static Command join_command(const Config& c) {
        const Fx centre = Fx::from_raw(c.arena_size.raw() / 2);
        return Steer{{centre, centre}};
    }

    // The policy tandem's ScriptedBot plays the arena with (arena/bot.hpp).
    using Bot = arena::Bot;

    // What `tandem run` adds to its summary line.
    static std::vector<std::pair<std::string_view, uint64_t>> summary(const State& w) {
        return {{"captures", w.captures}, {"wells", w.wells.size()}, {"pellets", w.pellets.size()}};
    }

    // Scenarios (scenario.hpp).
    using Scenario = arena::Scenario;
    using ScenarioError = arena::SpecError;
    static std::span<const Scenario> scenarios() { return arena::scenarios(); }
    static Result<Scenario, ScenarioError> find_scenario(std::string_view name) { return arena::find_scenario(name); }
    static std::string scenario_names_accepted() { return arena::scenario_names_accepted(); }
    static State start(const Scenario& s) { return arena::start(s); }
    static std::vector<Input> scenario_inputs(const Scenario& s, const State& w) { return arena::scenario_inputs(s, w); }

    template <class V, class C>
    static void visit_config(V& v, C& c) {
        for_each_config_field(c, [&v](std::string_view field_name, auto& field) { v.field(field_name, field); });
    }
    template <class V, class C>
    static void visit_command(V& v, C& c) {
        v.field("target", c.target);
    }
    // The canonical order of the whole state. Digests: the tick, then five sections:
    //   config:  every knob in for_each_config_field order (Fx as its int32 raw)
    //   wells:   count, then per well in player order: player, pos, vel, target
    //   pellets: count, then per pellet in index order: index, generation, pos, vel; then the
    //            SetDigest of the pellets' keys
    //   scores:  count, then per well in player order: player, score; then captures
    //   rng:     the XorShift state
    // A snapshot holds the same fields in walk order, once each (the live set is derived).
    template <class V, class W>
    static void visit_state(V& v, W& w) {
        v.field("tick", w.tick);
        v.section(config);
        v.config("config", w.config);
        v.section(wells);
        v.list("wells", w.wells, tandem::sim::at_most(w.config.max_players), tandem::sim::also(scores), [&](auto& well) {
            v.key("player", well.player);
            v.field("pos", well.pos);
            v.field("vel", well.vel);
            v.field("target", well.target);
            v.field("score", well.score, scores);
            v.require([&] {
                return detail::in_arena(well.pos, w.config.arena_size) && detail::in_arena(well.target, w.config.arena_size);
            });
        });
        v.section(pellets);
        v.list("pellets", w.pellets, tandem::sim::exactly(w.config.pellet_count), [&](auto& p) {
            v.key("index", p.key.index);
            v.field("generation", p.key.generation);
            v.field("pos", p.pos);
            v.field("vel", p.vel);
            // Keys strictly increase and there are exactly pellet_count of them: index == slot.
            v.require([&] { return p.key.index < w.config.pellet_count && detail::in_arena(p.pos, w.config.arena_size); });
        });
        v.derived("live_set", [&] { return detail::live_set_digest(w); });
        v.section(scores);
        v.field("captures", w.captures);
        v.section(rng);
        v.field("rng", w.rng);
    }
};
static_assert(tandem::sim::Scripted<Sim>);

// The arena's own spellings of what the kit derives from Sim (one walk each, the visitor's).
inline tandem::sim::SectionDigests<Sim> section_digests(const World& w) { return tandem::sim::digests<Sim>(w).sections; }
inline uint64_t digest(const World& w) { return tandem::sim::digest<Sim>(w); }
inline std::vector<uint8_t> encode(const World& w) { return tandem::sim::encode_snapshot<Sim>(w); }
inline Result<World, tandem::sim::DecodeError> decode(std::span<const uint8_t> bytes) {
    return tandem::sim::decode_snapshot<Sim>(bytes);
}
inline std::string dump(const World& w) { return tandem::sim::dump<Sim>(w); }
inline std::string fingerprint() { return tandem::sim::fingerprint<Sim>(); }
inline uint64_t fingerprint_hash() { return tandem::sim::fingerprint_hash<Sim>(); }
using tandem::sim::DecodeError;

// Debug, for ClientSession<Sim>::corrupt_for_testing: flips the low bit of the capture count, so
// the next tick's digest (its scores section, and the field "captures") disagrees with a peer's.
inline void corrupt_captures_for_testing(World& w) { w.captures ^= 1; }

}  // namespace arena
