// Properties of src/games/arena/random_world.*: every drawn config validates; the ends of every
// range are drawn (counted over 10,000 seeds against the documented weights); the spec parses,
// refuses and spells itself canonically; the stream holds every input class; and the same spec
// gives the same world and stream as the native Release build recorded in
// tests/games/arena/golden/random.txt (regenerate.sh's rule applies: rewrite only with a bump).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "arena/random_world.hpp"
#include "arena/scenario.hpp"
#include "arena/sim.hpp"

using namespace tandem;
using namespace arena;

namespace {

constexpr uint64_t many = 10'000;

RandomWorld world_of(uint64_t seed) { return generate_random_world(RandomSpec{.seed = seed}); }

}  // namespace

TEST_CASE("every random config validates, over 10,000 seeds and their shrunk forms") {
    for (uint64_t seed = 0; seed < many; ++seed) {
        const RandomWorld r = world_of(seed);
        INFO("random:" << seed);
        REQUIRE(validate(r.config).ok());
        REQUIRE(r.inputs.players <= r.config.max_players + 3);
        RandomSpec shrunk{.seed = seed, .pellets = 0, .players = 1, .without = all_input_classes};
        REQUIRE(validate(generate_random_world(shrunk).config).ok());
    }
}

TEST_CASE("the random draws reach the ends of every range") {
    std::map<std::string, uint64_t> hits;
    for (uint64_t seed = 0; seed < many; ++seed) {
        const RandomWorld r = world_of(seed);
        const WorldConfig& c = r.config;
        hits["arena 16"] += c.arena_size == Fx::from_int(16);
        hits["arena 4096"] += c.arena_size == Fx::from_int(4096);
        hits["arena not whole units"] += (c.arena_size.raw() & 0xFFFF) != 0;
        hits["pellets 0"] += c.pellet_count == 0;
        hits["pellets 131072"] += c.pellet_count == 131072;
        hits["pellets over 2048"] += c.pellet_count > 2048;
        hits["softening 1"] += c.softening == Fx::one();
        hits["softening 64"] += c.softening == Fx::from_int(64);
        hits["theta 0"] += c.theta == Fx::zero();
        hits["theta 4"] += c.theta == Fx::from_int(4);
        hits["depth 1"] += c.tree_max_depth == 1;
        hits["depth 24"] += c.tree_max_depth == 24;
        hits["restitution 0"] += c.wall_restitution == Fx::zero();
        hits["restitution 1"] += c.wall_restitution == Fx::one();
        hits["max_players 0"] += c.max_players == 0;
        hits["max_players 64"] += c.max_players == 64;
        hits["capture_radius 0"] += c.capture_radius == Fx::zero();
        hits["capture_radius 256"] += c.capture_radius == Fx::from_int(256);
        hits["tick_hz 1"] += c.tick_hz == 1;
        hits["tick_hz 1000"] += c.tick_hz == 1000;
        hits["well_strength max"] += c.well_strength == Fx::max();
        hits["max_pellet_speed 0"] += c.max_pellet_speed == Fx::zero();
        hits["players past max_players"] += r.inputs.players > c.max_players;
        hits["no players"] += r.inputs.players == 0;
        hits["join every tick"] += r.inputs.join_rate == 1024;
        hits["steer never"] += r.inputs.steer_rate == 0;
    }
    // Expected shares from the weights in random_world.cpp: an end of a bounded knob 1/8
    // (~1,250); pellets 0 26/256 (~1,000), over 2048 8/256 (~300), the maximum 1/256 times
    // the share of fast trees (~20); Fx::max of an unbounded knob 1/16 (~625). Demand a fifth
    // of those (a fifth of 20 for the maximum).
    for (const auto& [what, n] : hits) {
        INFO(what << ": " << n << " of " << many);
        CHECK(n >= (what == "pellets 131072" ? 4u : 60u));
    }
}

TEST_CASE("a random spec parses, spells itself canonically and names what it refuses") {
    const auto s = parse_random_spec("random:42:without=far+join:pellets=7:players=3");
    REQUIRE(s.ok());
    CHECK(s->seed == 42);
    CHECK(s->pellets == 7);
    CHECK(s->players == 3);
    CHECK(s->without == (input_far | input_join));
    CHECK(format_random_spec(*s) == "random:42:pellets=7:players=3:without=join+far");
    CHECK(parse_random_spec(format_random_spec(*s)).value() == *s);
    CHECK(parse_random_spec("random:18446744073709551615")->seed == UINT64_MAX);
    struct Bad {
        std::string_view spec;
        std::string_view code;
    };
    for (const Bad& b : {Bad{"random:", "bad_seed"}, Bad{"random:-1", "bad_seed"}, Bad{"random:18446744073709551616", "bad_seed"},
                         Bad{"random:1:pellets=131073", "bad_value"}, Bad{"random:1:players=68", "bad_value"},
                         Bad{"random:1:without=", "bad_value"}, Bad{"random:1:without=join+", "bad_value"},
                         Bad{"random:1:pellets=1:pellets=2", "unknown_modifier"}, Bad{"random:1:", "unknown_modifier"},
                         Bad{"random:1:size=3", "unknown_modifier"}}) {
        const auto r = parse_random_spec(b.spec);
        INFO(b.spec);
        REQUIRE_FALSE(r.ok());
        CHECK(error_name(r.error()) == b.code);
        CHECK(r.message().find("accepted: random:SEED") != std::string_view::npos);
    }
}

TEST_CASE("find_scenario resolves a spec to a random world named by its canonical spelling") {
    const auto s = find_scenario("random:9:players=2:pellets=11");
    REQUIRE(s.ok());
    CHECK(s->name == "random:9:pellets=11:players=2");
    CHECK(s->script == Script::random);
    CHECK(s->config.pellet_count == 11);
    CHECK(s->random.players <= 2);
    CHECK(s->config == generate_random_world(RandomSpec{.seed = 9, .pellets = 11, .players = 2}).config);
    CHECK(error_name(find_scenario("random:zz").error()) == "bad_seed");
}

TEST_CASE("the random streams hold every input class, and the modifiers remove them") {
    std::map<std::string, uint64_t> seen;
    auto classify = [&](const World& w, const std::vector<Input>& in, const std::string& prefix) {
        std::map<std::tuple<uint32_t, int, int32_t, int32_t>, int> count;
        std::map<uint32_t, int> kinds;
        for (const Input& i : in) {
            const Fx a = w.config.arena_size;
            const bool outside = i.command.target.x < Fx::zero() || i.command.target.x > a || i.command.target.y < Fx::zero() || i.command.target.y > a;
            if (i.kind == InputKind::join) seen[prefix + "join"] += 1;
            if (i.kind == InputKind::leave) seen[prefix + "leave"] += 1;
            if (i.kind == InputKind::command) seen[prefix + (outside ? "far" : "steer")] += 1;
            if (i.player == 0 || i.player == UINT32_MAX) seen[prefix + "odd_ids"] += 1;
            if (++count[{i.player, static_cast<int>(i.kind), i.command.target.x.raw(), i.command.target.y.raw()}] == 2) seen[prefix + "repeat"] += 1;
            kinds[i.player] |= 1 << static_cast<int>(i.kind);
        }
        for (const auto& [player, mask] : kinds) {
            if ((mask & 3) == 3) seen[prefix + "churn"] += 1;   // a join and a leave in one tick
        }
    };
    for (uint64_t seed = 0; seed < 200; ++seed) {
        for (const bool without : {false, true}) {
            RandomSpec spec{.seed = seed, .pellets = 8};
            if (without) spec.without = all_input_classes & ~input_steer;
            const Scenario s = find_scenario(format_random_spec(spec)).value();
            World w = start(s);
            Stepper stepper;
            for (int t = 0; t < 60; ++t) {
                const std::vector<Input> in = scenario_inputs(s, w);
                classify(w, in, without ? "only steer: " : "");
                stepper.step(w, in);
                for (const Event& e : stepper.events()) {
                    if (e.kind == EventKind::join_refused) seen[without ? "only steer: refused" : "refused"] += 1;
                }
            }
        }
    }
    for (const char* c : {"join", "leave", "steer", "far", "odd_ids", "repeat", "churn", "refused"}) {
        INFO(c << ": " << seen[c]);
        CHECK(seen[c] > 0);
    }
    // Steers only: no member ever joins, so nothing but ignored steers of absent players.
    CHECK(seen["only steer: steer"] > 0);
    for (const char* c : {"join", "leave", "far", "odd_ids", "repeat", "churn", "refused"}) {
        INFO(c);
        CHECK(seen[std::string("only steer: ") + c] == 0);
    }
}

TEST_CASE("the same spec gives the same world and stream as the recorded native build (golden random.txt)") {
    std::ifstream in("tests/games/arena/golden/random.txt");
    INFO("tests/games/arena/golden/random.txt (working directory: the source root)");
    REQUIRE(in);
    std::string line;
    uint32_t recorded_version = 0, points = 0;
    std::string current;
    Scenario s;
    World w;
    Stepper stepper;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        if (line.starts_with("simulation_version ")) {
            std::string word;
            fields >> word >> recorded_version;
            continue;
        }
        std::string spec, hex;
        uint64_t tick = 0;
        fields >> spec >> tick >> hex;
        if (spec != current) {
            current = spec;
            s = find_scenario(spec).value();
            w = start(s);
        }
        REQUIRE(tick >= w.tick);
        advance(s, w, tick - w.tick, stepper);
        INFO(spec << " tick " << tick);
        REQUIRE(hex64(digest(w)) == hex);
        ++points;
    }
    CHECK(recorded_version == simulation_version);
    CHECK(points >= 60);
}
