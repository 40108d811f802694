// tandem/sim/config_rules.hpp over a two-knob toy config: lookups by error index, the first
// failing rule in table order, "unknown" past the table, and follows_enum() telling a table
// in the enum's order from one that is not.
#include "tandem/sim/config_rules.hpp"

#include <catch2/catch.hpp>

namespace {
struct Toy {
    int a = 1;
    int b = 1;
};
enum class ToyError : uint8_t { a_bad, b_bad };
// Result<void, E> asks for error_name(E) and describe(E), found by argument-dependent lookup, as a game's is;
// it must be declared before the table's type is complete.
std::string_view error_name(ToyError e);
std::string_view describe(ToyError e);
using Rule = tandem::sim::ConfigRule<Toy, ToyError>;
constexpr Rule in_order[] = {
    {ToyError::a_bad, "a_bad", "a", "a must be positive", [](const Toy& t) { return t.a > 0; }},
    {ToyError::b_bad, "b_bad", "b", "b must be at most a", [](const Toy& t) { return t.b <= t.a; }},
};
constexpr Rule swapped[] = {in_order[1], in_order[0]};
constexpr tandem::sim::ConfigRules<Toy, ToyError> rules{in_order};
std::string_view error_name(ToyError e) { return rules.code(e); }
std::string_view describe(ToyError e) { return rules.describe(e); }
}  // namespace

TEST_CASE("config rules: each error looks up its own rule, and past the table everything is unknown") {
    STATIC_REQUIRE(rules.follows_enum());
    STATIC_REQUIRE_FALSE(tandem::sim::ConfigRules<Toy, ToyError>{swapped}.follows_enum());
    CHECK(rules.code(ToyError::b_bad) == "b_bad");
    CHECK(rules.field(ToyError::b_bad) == "b");
    CHECK(rules.describe(ToyError::a_bad) == "a must be positive");
    const auto past = static_cast<ToyError>(2);
    CHECK(rules.of(past) == nullptr);
    CHECK(rules.code(past) == "unknown");
    CHECK(rules.field(past) == "unknown");
    CHECK(rules.describe(past) == "unknown config error");
}

TEST_CASE("config rules: validate names the first failing rule in table order, and passes a config that keeps all") {
    CHECK(rules.validate(Toy{}).ok());
    CHECK(rules.validate(Toy{.a = 1, .b = 2}).error() == ToyError::b_bad);
    CHECK(rules.validate(Toy{.a = 0, .b = 2}).error() == ToyError::a_bad);
    CHECK(rules.validate(Toy{.a = 0, .b = 0}).error() == ToyError::a_bad);
}
