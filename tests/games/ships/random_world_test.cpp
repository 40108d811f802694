// Properties of src/games/ships/random_world.*: every drawn config validates and the ends of
// the ranges are drawn; the spec parses, refuses and spells itself canonically; the streams
// hold every input class and the modifiers remove them; random worlds keep every invariant
// (tests/games/ships/invariants.hpp) after every step; and the same spec gives the digests
// recorded in tests/games/ships/golden/random.txt.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "games/ships/invariants.hpp"
#include "ships/random_world.hpp"
#include "ships/scenario.hpp"
#include "ships/sim.hpp"
#include "tandem/core/digest.hpp"

using namespace tandem;
using namespace ships;

TEST_CASE("every random config validates, over 10,000 seeds and their shrunk forms") {
    for (uint64_t seed = 0; seed < 10'000; ++seed) {
        const RandomWorld r = generate_random_world(RandomSpec{.seed = seed});
        INFO("random:" << seed);
        REQUIRE(validate(r.config).ok());
        REQUIRE(r.inputs.players <= r.config.max_players + 3);
        const RandomSpec shrunk{.seed = seed, .rocks = 0, .players = 1, .without = all_input_classes};
        REQUIRE(validate(generate_random_world(shrunk).config).ok());
        REQUIRE(validate(generate_random_world(RandomSpec{.seed = seed, .rocks = 256}).config).ok());
    }
}

TEST_CASE("the random draws reach the ends of the ranges") {
    std::map<std::string, uint64_t> hits;
    for (uint64_t seed = 0; seed < 10'000; ++seed) {
        const Config c = generate_random_world(RandomSpec{.seed = seed}).config;
        hits["players 2"] += c.max_players == 2;
        hits["players 8"] += c.max_players == 8;
        hits["arena 128"] += c.arena_size == Fx::from_int(128);
        hits["arena 4096"] += c.arena_size == Fx::from_int(4096);
        hits["drag 0"] += c.drag == Fx::zero();
        hits["drag 1"] += c.drag == Fx::one();
        hits["turn pi"] += c.turn_rate == fx::pi;
        hits["cooldown 1"] += c.fire_cooldown == 1;
        hits["lifetime 1"] += c.bullet_lifetime == 1;
        hits["lifetime 1000"] += c.bullet_lifetime == 1000;
        hits["rocks 0"] += c.rock_count == 0;
        hits["rocks 256"] += c.rock_count == 256;
        hits["max_rocks 1024"] += c.max_rocks == 1024;
        hits["big radius 256"] += c.rock_radius_big == Fx::from_int(256);
        hits["respawn 0"] += c.respawn_delay == 0;
        hits["respawn 10000"] += c.respawn_delay == 10000;
        hits["speed max 16"] += c.rock_speed_max == Fx::from_int(16);
    }
    for (const auto& [what, n] : hits) {
        INFO(what << ": " << n << " of 10000");
        CHECK(n >= 20u);
    }
}

TEST_CASE("a random spec parses, spells itself canonically and names what it refuses") {
    const auto s = parse_random_spec("random:42:without=bot+join:rocks=7:players=3");
    REQUIRE(s.ok());
    CHECK(s->seed == 42);
    CHECK(s->rocks == 7);
    CHECK(s->players == 3);
    CHECK(s->without == (input_bot | input_join));
    CHECK(format_random_spec(*s) == "random:42:rocks=7:players=3:without=join+bot");
    CHECK(parse_random_spec(format_random_spec(*s)).value() == *s);
    for (const auto& [spec, code] : std::vector<std::pair<std::string, std::string>>{
             {"random:", "bad_seed"}, {"random:x", "bad_seed"}, {"random:18446744073709551616", "bad_seed"},
             {"random:1:rocks=257", "bad_value"}, {"random:1:players=12", "bad_value"}, {"random:1:without=", "bad_value"},
             {"random:1:without=far", "bad_value"}, {"random:1:rocks=1:rocks=2", "unknown_modifier"},
             {"random:1:pellets=3", "unknown_modifier"}}) {
        const auto r = parse_random_spec(spec);
        INFO(spec);
        REQUIRE_FALSE(r.ok());
        CHECK(error_name(r.error()) == code);
        CHECK(r.message().find("accepted: random:SEED") != std::string_view::npos);
    }
    const auto found = find_scenario("random:9:players=2:rocks=11");
    REQUIRE(found.ok());
    CHECK(found->name == "random:9:rocks=11:players=2");
    CHECK(found->config.rock_count == 11);
}

TEST_CASE("random worlds keep every invariant after every step, and their streams and events hold every class") {
    std::map<std::string, uint64_t> seen;
    // 120 worlds for 150 ticks, the first 40 of them for 1,000 (waves need a while), the
    // snapshot round trip checked at every step of the first 150 ticks and every 25th after.
    for (uint64_t seed = 0; seed < 120; ++seed) {
        const Scenario s = find_scenario("random:" + std::to_string(seed)).value();
        State w = start(s);
        REQUIRE(testing::broken_invariant(w).empty());
        Stepper stepper;
        const int ticks = seed < 40 ? 1000 : 150;
        for (int t = 0; t < ticks; ++t) {
            const std::vector<Input> in = scenario_inputs(s, w);
            for (const Input& i : in) {
                if (i.kind == InputKind::join) seen["join"] += 1;
                if (i.kind == InputKind::leave) seen["leave"] += 1;
                if (i.kind == InputKind::command) seen["buttons"] += 1;
                if ((i.command.buttons & ~all_buttons) != 0) seen["reserved"] += 1;
                if (i.player == 0 || i.player == UINT32_MAX) seen["odd_ids"] += 1;
            }
            stepper.step(w, in);
            for (const Event& e : stepper.events()) seen[std::string(event_name(e.kind))] += 1;
            const std::string broken = testing::broken_invariant(w, t < 150 || t % 25 == 0);
            INFO(s.name << " tick " << w.tick);
            REQUIRE(broken == "");
        }
    }
    for (const char* c : {"join", "leave", "buttons", "reserved", "odd_ids", "join_refused", "fired", "expired", "hit",
                          "crashed", "shot", "respawned", "wave"}) {
        INFO(c << ": " << seen[c]);
        CHECK(seen[c] > 0);
    }
}

TEST_CASE("without= removes its classes from the stream and leaves the rest as it was") {
    for (uint64_t seed = 0; seed < 40; ++seed) {
        const Scenario s = find_scenario("random:" + std::to_string(seed) + ":without=join+churn+odd_ids").value();
        State w = start(s);
        Stepper stepper;
        for (int t = 0; t < 40; ++t) {
            const auto in = scenario_inputs(s, w);
            for (const Input& i : in) REQUIRE(i.kind == InputKind::command);
            stepper.step(w, in);
            REQUIRE(w.ships.empty());
        }
    }
}

TEST_CASE("the same spec gives the digests the recorded build printed (golden random.txt)") {
    std::ifstream in("tests/games/ships/golden/random.txt");
    INFO("tests/games/ships/golden/random.txt (working directory: the source root)");
    REQUIRE(in);
    std::string line, current;
    uint32_t version = 0, points = 0;
    Scenario s;
    State w;
    Stepper stepper;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        if (line.starts_with("simulation_version ")) {
            std::string word;
            fields >> word >> version;
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
        advance(s, w, tick - w.tick, stepper);
        INFO(spec << " tick " << tick);
        REQUIRE(hex64(digest(w)) == hex);
        ++points;
    }
    CHECK(version == simulation_version);
    CHECK(points == 75);
}
