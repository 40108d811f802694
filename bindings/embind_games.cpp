// Every game the package ships, behind one game-agnostic surface: its name, fingerprint and
// scenarios, a scenario opened and stepped tick by tick (digest, section digests, the canonical
// dump) and a scenario's digest stream in one call. Written once over the seam
// (tandem::sim::Scripted); the list of games below is the only place that names them.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "arena/sim.hpp"
#include "ships/sim.hpp"
#include "tandem/core/digest.hpp"
#include "tandem/sim/scenario.hpp"
#include "tandem/sim/state.hpp"

namespace {

using emscripten::val;
namespace sim = tandem::sim;
using tandem::hex64;

// One scenario of one game being stepped, with the game erased.
class ScenarioRun {
public:
    virtual ~ScenarioRun() = default;
    virtual std::string name() const = 0;
    virtual double tick() const = 0;
    virtual void step(uint32_t ticks) = 0;
    virtual std::string digest() const = 0;
    virtual val section_digests() const = 0;  // {section name: hex digest}, in section order
    virtual std::string dump() const = 0;
};

template <sim::Scripted G>
class ScenarioRunOf final : public ScenarioRun {
public:
    explicit ScenarioRunOf(const typename G::Scenario& s) : scenario_(s), state_(G::start(s)) {}
    std::string name() const override { return std::string(scenario_.name); }
    double tick() const override { return static_cast<double>(G::tick(state_)); }
    void step(uint32_t ticks) override { sim::advance<G>(scenario_, state_, ticks, stepper_); }
    std::string digest() const override { return hex64(sim::digest<G>(state_)); }
    val section_digests() const override {
        const sim::Digests<G> d = sim::digests<G>(state_);
        val out = val::object();
        for (size_t i = 0; i < G::sections.size(); ++i) out.set(std::string(G::sections[i]), hex64(d.sections[i]));
        return out;
    }
    std::string dump() const override { return sim::dump<G>(state_); }

private:
    typename G::Scenario scenario_;
    typename G::State state_;
    typename G::Stepper stepper_;
};

// What JS holds: one open scenario of any game.
struct GameScenario {
    std::shared_ptr<ScenarioRun> run;
};

struct GameEntry {
    std::string_view name;
    std::string (*fingerprint)();
    uint32_t version;
    val (*sections)();
    val (*scenarios)();
    val (*open)(const std::string& scenario);
    val (*stream)(const std::string& scenario, uint32_t ticks, uint32_t every);
};

template <sim::Scripted G>
GameEntry entry_for() {
    GameEntry e;
    e.name = G::name;
    e.fingerprint = &sim::fingerprint<G>;
    e.version = G::version;
    e.sections = [] {
        val out = val::array();
        for (std::string_view s : G::sections) out.call<void>("push", std::string(s));
        return out;
    };
    e.scenarios = [] {
        val out = val::array();
        for (const typename G::Scenario& s : G::scenarios()) {
            val o = val::object();
            o.set("name", std::string(s.name));
            o.set("description", std::string(s.description));
            out.call<void>("push", o);
        }
        return out;
    };
    e.open = [](const std::string& scenario) {
        auto s = G::find_scenario(scenario);
        if (!s) return val(std::string(s.message()));
        return val(GameScenario{std::make_shared<ScenarioRunOf<G>>(*s)});
    };
    // The digest stream of `tandem run --game G --scenario NAME --ticks N --every K`.
    e.stream = [](const std::string& scenario, uint32_t ticks, uint32_t every) {
        auto s = G::find_scenario(scenario);
        if (!s) return val(std::string(s.message()));
        typename G::State state = G::start(*s);
        val out = val::array();
        sim::digest_stream<G>(*s, state, ticks, every, [&](const sim::StreamPoint& p) {
            val o = val::object();
            o.set("tick", static_cast<double>(p.tick));
            o.set("digest", hex64(p.digest));
            out.call<void>("push", o);
        });
        return out;
    };
    return e;
}

// The games of this package, the first being the default.
std::span<const GameEntry> games() {
    static const GameEntry list[] = {entry_for<arena::Sim>(), entry_for<ships::Sim>()};
    return list;
}

const GameEntry* find(const std::string& name) {
    for (const GameEntry& g : games()) {
        if (g.name == name) return &g;
    }
    return nullptr;
}

val game_list() {
    val out = val::array();
    for (const GameEntry& g : games()) {
        val o = val::object();
        o.set("name", std::string(g.name));
        o.set("fingerprint", g.fingerprint());
        o.set("version", g.version);
        o.set("sections", g.sections());
        out.call<void>("push", o);
    }
    return out;
}

// Each returns a string (the reason) for an unknown game or scenario; the JS layer turns it
// into a RangeError.
std::string unknown_game(const std::string& name) { return "unknown game '" + name + "'"; }
val game_scenarios(const std::string& game) {
    const GameEntry* g = find(game);
    return g ? g->scenarios() : val(unknown_game(game));
}
val game_scenario_open(const std::string& game, const std::string& scenario) {
    const GameEntry* g = find(game);
    return g ? g->open(scenario) : val(unknown_game(game));
}
val game_scenario_run(const std::string& game, const std::string& scenario, uint32_t ticks, uint32_t every) {
    const GameEntry* g = find(game);
    return g ? g->stream(scenario, ticks, every) : val(unknown_game(game));
}

std::string gs_name(const GameScenario& s) { return s.run->name(); }
double gs_tick(const GameScenario& s) { return s.run->tick(); }
void gs_step(GameScenario& s, uint32_t ticks) { s.run->step(ticks); }
std::string gs_digest(const GameScenario& s) { return s.run->digest(); }
val gs_sections(const GameScenario& s) { return s.run->section_digests(); }
std::string gs_dump(const GameScenario& s) { return s.run->dump(); }

}  // namespace

EMSCRIPTEN_BINDINGS(tandem_games) {
    using emscripten::class_;
    using emscripten::function;
    class_<GameScenario>("GameScenario")
        .function("name", &gs_name)
        .function("tick", &gs_tick)
        .function("step", &gs_step)
        .function("digest", &gs_digest)
        .function("sectionDigests", &gs_sections)
        .function("dump", &gs_dump);
    function("game_list", &game_list);
    function("game_scenarios", &game_scenarios);
    function("game_scenario_open", &game_scenario_open);
    function("game_scenario_run", &game_scenario_run);
}
