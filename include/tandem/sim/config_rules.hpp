// A game's config validation as one table: a rule per knob, each naming the typed error it
// raises, its stable code, the member it bounds and the sentence a person reads. The kit's
// refusals (a hello's config, a world file, a replay header) then read alike for every game.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "tandem/core/result.hpp"

namespace tandem::sim {

template <class Config, class Error>
struct ConfigRule {
    Error error;
    std::string_view code;   // "drag_out_of_range": stable, for tests and logs
    std::string_view field;  // "drag": the member the rule bounds
    std::string_view rule;   // "drag must be between 0 and 1"
    bool (*holds)(const Config&);
};

// The rules in the error enum's order (rule i raises Error(i)), so a lookup is an index;
// follows_enum() lets the game static_assert that order. validate() reports the first rule
// that fails, in the table's order, which a game keeps equal to its config visitor's.
template <class Config, class Error>
struct ConfigRules {
    std::span<const ConfigRule<Config, Error>> rules;

    constexpr bool follows_enum() const {
        for (std::size_t i = 0; i < rules.size(); ++i) {
            if (static_cast<std::size_t>(rules[i].error) != i) return false;
        }
        return true;
    }
    constexpr const ConfigRule<Config, Error>* of(Error error) const {
        const auto i = static_cast<std::size_t>(error);
        return i < rules.size() ? &rules[i] : nullptr;
    }
    constexpr std::string_view code(Error error) const {
        const auto* r = of(error);
        return r ? r->code : "unknown";
    }
    constexpr std::string_view describe(Error error) const {
        const auto* r = of(error);
        return r ? r->rule : "unknown config error";
    }
    constexpr std::string_view field(Error error) const {
        const auto* r = of(error);
        return r ? r->field : "unknown";
    }
    Result<void, Error> validate(const Config& config) const {
        for (const auto& r : rules) {
            if (!r.holds(config)) return r.error;
        }
        return {};
    }
};

}  // namespace tandem::sim
