// Properties of src/games/ships/scenario.*: every scenario reproduces its golden digest stream
// (tests/games/ships/golden/*.txt, from `run --game ships --scenario NAME --ticks 2000 --every
// 100`) bit for bit, the files record this build's simulation_version, every scenario's config
// validates and its script is a pure function of the state, each passes a SyncTest (save,
// step, restore, step again), and the scenarios really play: ships fire, rocks split, ships
// die and respawn, waves come.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ships/scenario.hpp"
#include "ships/sim.hpp"
#include "tandem/core/digest.hpp"

using namespace tandem;
using namespace ships;

namespace {

struct Golden {
    uint32_t simulation_version = 0;
    std::vector<tandem::sim::StreamPoint> stream;
};

// '#' comments, one "simulation_version N" line, "TICK DIGEST" lines, a "summary ..." line;
// parsed here independently of the tool that wrote them.
Golden read_golden(const std::string& name) {
    std::ifstream in("tests/games/ships/golden/" + name + ".txt");
    Golden g;
    std::string text;
    while (std::getline(in, text)) {
        if (text.empty() || text[0] == '#' || text.starts_with("summary")) continue;
        std::istringstream fields(text);
        if (text.starts_with("simulation_version ")) {
            std::string word;
            fields >> word >> g.simulation_version;
            continue;
        }
        tandem::sim::StreamPoint p;
        std::string hex;
        fields >> p.tick >> hex;
        const auto d = parse_hex64(hex);
        REQUIRE(d.has_value());
        p.digest = *d;
        g.stream.push_back(p);
    }
    return g;
}

void check_stream(const std::string& name) {
    const Golden golden = read_golden(name);
    INFO("golden file tests/games/ships/golden/" << name << ".txt (working directory: the source root)");
    REQUIRE(golden.stream.size() == 21);
    const Scenario s = find_scenario(name).value();
    State w = start(s);
    Stepper stepper;
    for (const tandem::sim::StreamPoint& point : golden.stream) {
        advance(s, w, point.tick - w.tick, stepper);
        INFO(name << " tick " << point.tick << ": expected " << hex64(point.digest) << ", actual " << hex64(digest(w)));
        REQUIRE(digest(w) == point.digest);
    }
}

}  // namespace

TEST_CASE("duel reproduces its golden digest stream") { check_stream("duel"); }
TEST_CASE("melee reproduces its golden digest stream") { check_stream("melee"); }
TEST_CASE("rockfield reproduces its golden digest stream") { check_stream("rockfield"); }
TEST_CASE("chaos reproduces its golden digest stream") { check_stream("chaos"); }

TEST_CASE("every golden stream records the simulation_version this build simulates") {
    for (const Scenario& s : scenarios()) {
        INFO(s.name);
        CHECK(read_golden(s.name).simulation_version == simulation_version);
    }
    std::ifstream random("tests/games/ships/golden/random.txt");
    std::string line;
    uint32_t recorded = 0;
    while (std::getline(random, line)) {
        if (line.starts_with("simulation_version ")) recorded = static_cast<uint32_t>(std::stoul(line.substr(19)));
    }
    CHECK(recorded == simulation_version);
}

TEST_CASE("the scenarios are duel, melee, rockfield and chaos, each config validating") {
    std::vector<std::string> names;
    for (const Scenario& s : scenarios()) {
        names.push_back(s.name);
        INFO(s.name);
        CHECK(validate(s.config).ok());
        const auto found = find_scenario(s.name);
        REQUIRE(found.ok());
        CHECK(found->config == s.config);
    }
    CHECK(names == std::vector<std::string>{"duel", "melee", "rockfield", "chaos"});
    const auto nope = find_scenario("orbits");   // an arena scenario is not a ships one
    REQUIRE_FALSE(nope.ok());
    CHECK(error_name(nope.error()) == "unknown_scenario");
    CHECK(nope.message().find("accepted: duel, melee, rockfield, chaos, random:SEED") != std::string_view::npos);
}

TEST_CASE("every scenario passes a SyncTest: save, step, restore from a copy or a snapshot, step again") {
    for (const Scenario& s : scenarios()) {
        State w = start(s);
        Stepper stepper;
        for (uint64_t t = 0; t < 400; ++t) {
            const State saved = w;
            const std::vector<uint8_t> snapshot = encode(w);
            stepper.step(w, scenario_inputs(s, w));
            const State first = w;
            const std::vector<Event> first_events(stepper.events().begin(), stepper.events().end());
            if (t % 2 == 0) {
                w = saved;
            } else {
                w = decode(snapshot).value();
            }
            stepper.step(w, scenario_inputs(s, w));
            INFO(s.name << " tick " << w.tick);
            REQUIRE(w == first);
            REQUIRE(std::vector<Event>(stepper.events().begin(), stepper.events().end()) == first_events);
        }
    }
}

TEST_CASE("scenario inputs are a pure function of the scenario and the state") {
    for (const Scenario& s : scenarios()) {
        State a = start(s);
        Stepper stepper;
        for (int t = 0; t < 100; ++t) {
            const State before = a;
            const auto first = scenario_inputs(s, a);
            CHECK(scenario_inputs(s, before) == first);
            stepper.step(a, first);
        }
    }
}

TEST_CASE("every scenario plays: shots, splits, crashes or kills, respawns and waves over 2,000 ticks") {
    for (const Scenario& s : scenarios()) {
        State w = start(s);
        Stepper stepper;
        std::map<EventKind, uint64_t> seen;
        for (int t = 0; t < 2000; ++t) {
            stepper.step(w, scenario_inputs(s, w));
            for (const Event& e : stepper.events()) seen[e.kind] += 1;
        }
        INFO(s.name << ": fired " << seen[EventKind::fired] << ", hit " << seen[EventKind::hit] << ", expired "
                    << seen[EventKind::expired] << ", crashed " << seen[EventKind::crashed] << ", shot "
                    << seen[EventKind::shot] << ", respawned " << seen[EventKind::respawned] << ", wave "
                    << seen[EventKind::wave]);
        CHECK(seen[EventKind::fired] > 50);
        CHECK(seen[EventKind::hit] > 20);
        CHECK(seen[EventKind::expired] > 0);
        CHECK(seen[EventKind::crashed] + seen[EventKind::shot] > 0);
        CHECK(seen[EventKind::respawned] > seen[EventKind::joined]);
        CHECK(seen[EventKind::wave] > 0);
        uint64_t score = 0;
        for (const Ship& ship : w.ships) score += ship.score;
        CHECK(score > 0);
    }
}
