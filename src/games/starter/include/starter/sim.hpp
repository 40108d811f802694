// starter as the kit sees it: the traits (tandem/sim/simulation.hpp, scenario.hpp) that the room,
// the client session, replays, the server and the determinism check are instantiated with.
// visit_state is the only description of the state the kit has: a member it does not visit is
// neither digested, nor sent, nor compared. Its scenarios and the bot the offline page plays.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "starter/world.hpp"
#include "tandem/sim/random_spec.hpp"
#include "tandem/sim/scenario.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace starter {

// ---- Scenarios: named, seeded, scripted runs every build replays (scenario.cpp) -----------
struct Scenario {
    std::string name;
    std::string description;
    Config config;
    uint32_t players = 2;       // bot ids 1..players (more than max_players: some are refused)
    bool wander = false;        // false: each bot heads for the nearest coin; true: random moves, joins, leaves
    uint64_t script_seed = 0;   // a tick's draws: XorShift(mix64(script_seed ^ mix64(tick)))
};
using ScenarioError = tandem::sim::SpecError;
std::span<const Scenario> scenarios();
Result<Scenario, ScenarioError> find_scenario(std::string_view name);   // a name or "random:SEED"
std::string scenario_names_accepted();
std::vector<Input> scenario_inputs(const Scenario& scenario, const State& state);

// The bot tandem's ScriptedBot plays with (the page's offline mode): a new direction every
// 10 to 40 ticks from its own XorShift. It sees only the config, its player and the tick.
class Bot {
public:
    Bot(const Config&, uint32_t) {}
    std::optional<Command> next(uint64_t tick, XorShift& rng) {
        if (tick < change_at_) return std::nullopt;
        change_at_ = tick + 10 + rng.below(31);
        return Command{static_cast<uint8_t>(rng.below(16))};
    }

private:
    uint64_t change_at_ = 0;
};

struct Sim {
    static constexpr std::string_view name = "starter";   // on the wire and in the fingerprint
    static constexpr uint32_t version = simulation_version;
    using Config = starter::Config;
    using State = starter::State;
    using Command = starter::Command;
    using Event = starter::Event;
    using Stepper = starter::Stepper;
    using ConfigError = starter::ConfigError;
    using Bot = starter::Bot;

    // A desync report names one of these.
    enum Section : uint8_t { config, runners, coins, scores, rng };
    static constexpr std::array<std::string_view, 5> sections{"config", "runners", "coins", "scores", "rng"};

    static Result<void, ConfigError> validate(const Config& c) { return starter::validate(c); }
    static Result<State, ConfigError> make(const Config& c) { return make_state(c); }
    static uint64_t tick(const State& s) { return s.tick; }
    static const Config& config_of(const State& s) { return s.config; }
    static uint32_t tick_hz(const Config& c) { return c.tick_hz; }
    static uint32_t max_players(const Config& c) { return c.max_players; }
    static Command join_command(const Config&) { return Command{}; }
    // A player whose connection dropped stops while the room keeps its seat.
    static Command idle_command(const Config&) { return Command{}; }

    using Scenario = starter::Scenario;
    using ScenarioError = starter::ScenarioError;
    static std::span<const Scenario> scenarios() { return starter::scenarios(); }
    static Result<Scenario, ScenarioError> find_scenario(std::string_view n) { return starter::find_scenario(n); }
    static std::string scenario_names_accepted() { return starter::scenario_names_accepted(); }
    static State start(const Scenario& s) { return make_state(s.config).value(); }   // every scenario's config is valid
    static std::vector<Input> scenario_inputs(const Scenario& s, const State& w) { return starter::scenario_inputs(s, w); }

    template <class V, class C>
    static void visit_config(V& v, C& c) {
        for_each_config_field(c, [&v](std::string_view field, auto& value) { v.field(field, value); });
    }
    template <class V, class C>
    static void visit_command(V& v, C& c) {
        v.field("held", c.held);
        v.require([&] { return (c.held & ~all_directions) == 0; });
    }
    // One walk, in one fixed order: the tick, then each section. The requires are what step
    // relies on; a snapshot that breaks one is refused.
    template <class V, class S>
    static void visit_state(V& v, S& s) {
        const Config& c = s.config;
        const auto on_field = [&](Vec2 p) { return p.x >= Fx::zero() && p.x <= c.field_size && p.y >= Fx::zero() && p.y <= c.field_size; };
        v.field("tick", s.tick);
        v.section(config);
        v.config("config", s.config);
        v.section(runners);
        v.list("runners", s.runners, tandem::sim::at_most(c.max_players), tandem::sim::also(scores), [&](auto& r) {
            v.key("player", r.player);
            v.field("pos", r.pos);
            v.field("held", r.held);
            v.field("score", r.score, scores);
            v.require([&] { return on_field(r.pos) && (r.held & ~all_directions) == 0; });
        });
        v.section(coins);
        v.list("coins", s.coins, tandem::sim::exactly(c.coin_count), [&](auto& coin) {
            v.key("index", coin.index);
            v.field("pos", coin.pos);
            v.require([&] { return coin.index < c.coin_count && on_field(coin.pos); });
        });
        v.section(rng);
        v.field("rng", s.rng);
    }
};
static_assert(tandem::sim::Scripted<Sim>);

}  // namespace starter
