// The grammar of a random world's name, "random:SEED[:KEY=N]...[:without=CLASS+...]", that every
// target accepts wherever it accepts a scenario name. A game lists its count modifiers and its
// input classes; parsing, the canonical spelling and the refusals' texts are shared here, so
// every game's random worlds are named and refused alike.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"

namespace tandem::sim {

// A scenario name or random spec that does not resolve: which part and why, what is accepted.
struct SpecError {
    enum Code : uint8_t { unknown_scenario, bad_seed, unknown_modifier, bad_value } code = unknown_scenario;
    std::string message;
};
std::string_view error_name(const SpecError& error);   // "unknown_scenario", "bad_seed", ...
std::string_view describe(const SpecError& error);

inline constexpr std::string_view random_prefix = "random:";

// KEY=N with N a decimal count in 0..max.
struct CountModifier {
    std::string_view key;
    uint64_t max = 0;
};

// A game's modifiers: counts in their canonical order, then without= over the classes named
// in bit order (bit i of the parsed `without` drops classes[i]).
struct RandomSpecGrammar {
    std::span<const CountModifier> counts;
    std::span<const std::string_view> classes;
};

// What a spec says besides the seed; counts[i] is -1 where counts[i]'s key is absent.
struct RandomSpecValues {
    uint64_t seed = 0;
    std::vector<int64_t> counts;
    uint32_t without = 0;
};

// "random:SEED[:KEY=N]...[:without=C+...]" for the grammar's keys, as messages show it.
std::string random_spec_syntax(const RandomSpecGrammar& grammar);
// SEED a decimal u64; each modifier at most once, in any order; every refusal names the
// spec, what is wrong and what is accepted.
Result<RandomSpecValues, SpecError> parse_random_spec(std::string_view spec, const RandomSpecGrammar& grammar);
// The canonical spelling (modifiers in the grammar's order, only those set):
// parse(format(v)) == v.
std::string format_random_spec(const RandomSpecValues& values, const RandomSpecGrammar& grammar);

}  // namespace tandem::sim
