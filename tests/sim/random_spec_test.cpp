// Properties of the shared random-world name grammar (tandem/sim/random_spec.hpp) over a
// made-up game's modifiers: what parses, the canonical spelling, and each refusal's code and
// text, spelled out by hand.
#include <catch2/catch.hpp>

#include <array>
#include <string>
#include <string_view>

#include "tandem/sim/random_spec.hpp"

using namespace tandem::sim;

namespace {
constexpr std::array<CountModifier, 2> counts = {{{"coins", 100}, {"players", 11}}};
constexpr std::array<std::string_view, 3> classes = {"join", "jump", "leave"};
constexpr RandomSpecGrammar grammar{counts, classes};
const std::string accepted = " (accepted: random:SEED[:coins=N][:players=N][:without=CLASS+...]; CLASS one of join, jump, leave)";
}  // namespace

TEST_CASE("the syntax lists the game's count keys in order, then without=") {
    CHECK(random_spec_syntax(grammar) == "random:SEED[:coins=N][:players=N][:without=CLASS+...]");
    constexpr RandomSpecGrammar seed_only{};
    CHECK(random_spec_syntax(seed_only) == "random:SEED");
}

TEST_CASE("a spec's modifiers parse in any order, absent counts are -1, and without= sets class bits") {
    auto v = parse_random_spec("random:18446744073709551615:without=leave+join:players=0:coins=100", grammar);
    REQUIRE(v);
    CHECK(v->seed == UINT64_MAX);
    CHECK(v->counts == std::vector<int64_t>{100, 0});
    CHECK(v->without == 0b101u);
    auto bare = parse_random_spec("random:7", grammar);
    REQUIRE(bare);
    CHECK(bare->seed == 7);
    CHECK(bare->counts == std::vector<int64_t>{-1, -1});
    CHECK(bare->without == 0);
}

TEST_CASE("the canonical spelling puts the modifiers in the grammar's order and parses back to the same values") {
    const RandomSpecValues v{42, {-1, 3}, 0b110u};
    const std::string text = format_random_spec(v, grammar);
    CHECK(text == "random:42:players=3:without=jump+leave");
    auto back = parse_random_spec(text, grammar);
    REQUIRE(back);
    CHECK(back->seed == 42);
    CHECK(back->counts == v.counts);
    CHECK(back->without == v.without);
}

TEST_CASE("each malformed spec is refused with its code and a message naming the spec, the fault and the syntax") {
    struct Case {
        std::string_view spec;
        SpecError::Code code;
        std::string what;
    };
    for (const Case& c : {
             Case{"orbits", SpecError::bad_seed, "it does not start with 'random:'"},
             Case{"random:", SpecError::bad_seed, "the seed '' is not a decimal 64-bit number"},
             Case{"random:18446744073709551616", SpecError::bad_seed, "the seed '18446744073709551616' is not a decimal 64-bit number"},
             Case{"random:-1", SpecError::bad_seed, "the seed '-1' is not a decimal 64-bit number"},
             Case{"random:1:coins=101", SpecError::bad_value, "coins='101' is not a count 0..100"},
             Case{"random:1:players=", SpecError::bad_value, "players='' is not a count 0..11"},
             Case{"random:1:coins=1:coins=2", SpecError::unknown_modifier, "unknown or repeated modifier 'coins=2'"},
             Case{"random:1:rocks=3", SpecError::unknown_modifier, "unknown or repeated modifier 'rocks=3'"},
             Case{"random:1:", SpecError::unknown_modifier, "unknown or repeated modifier ''"},
             Case{"random:1:without=", SpecError::bad_value, "without= names no class"},
             Case{"random:1:without=join+fly", SpecError::bad_value, "unknown input class 'fly'"},
             Case{"random:1:without=join:without=jump", SpecError::unknown_modifier, "unknown or repeated modifier 'without=jump'"},
         }) {
        INFO(c.spec);
        auto v = parse_random_spec(c.spec, grammar);
        REQUIRE_FALSE(v);
        CHECK(v.error().code == c.code);
        CHECK(v.message() == "random world '" + std::string(c.spec) + "': " + c.what + accepted);
    }
    CHECK(error_name(SpecError{SpecError::unknown_modifier, ""}) == "unknown_modifier");
}

TEST_CASE("a grammar without classes refuses without= as an unknown modifier") {
    constexpr RandomSpecGrammar no_classes{counts, {}};
    auto v = parse_random_spec("random:1:without=join", no_classes);
    REQUIRE_FALSE(v);
    CHECK(v.error().code == SpecError::unknown_modifier);
}
