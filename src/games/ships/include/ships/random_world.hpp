// Random ships worlds for differential testing: a config and an input stream drawn from one
// 64-bit seed, addressed by a spec ("random:SEED[:MODIFIER...]") that every target accepts
// wherever it accepts a scenario name. Integer arithmetic only, so every build draws the same.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ships/world.hpp"
#include "tandem/core/result.hpp"
#include "tandem/sim/random_spec.hpp"

namespace ships {

// The classes of input the stream draws; `without=` drops some. Bits of RandomInputs::classes.
enum InputClass : uint32_t {
    input_join = 1u << 0,      // an absent player joins (refused past max_players)
    input_leave = 1u << 1,     // a member leaves
    input_buttons = 1u << 2,   // random held buttons
    input_bot = 1u << 3,       // the scenarios' pilot's buttons instead (pilot(), reading the state)
    input_churn = 1u << 4,     // one player joins, leaves and sends buttons in one tick
    input_repeat = 1u << 5,    // an input sent twice in one tick
    input_odd_ids = 1u << 6,   // players 0 and 4294967295 besides 1..players
    input_reserved = 1u << 7,  // buttons with reserved bits set (step ignores them)
};
inline constexpr uint32_t all_input_classes = (1u << 8) - 1;

// Rates per 1,024 per player per tick.
struct RandomInputs {
    uint64_t seed = 0;
    uint32_t players = 0;          // ids 1..players
    uint32_t classes = all_input_classes;
    uint32_t join_rate = 0;
    uint32_t leave_rate = 0;
    uint32_t buttons_rate = 0;
    uint32_t bot_rate = 0;         // of the button inputs, how many come from the bot
    uint32_t churn_rate = 0;       // per tick, not per player
    uint32_t repeat_rate = 0;
    uint32_t reserved_rate = 0;
    friend bool operator==(const RandomInputs&, const RandomInputs&) = default;
};

struct RandomSpec {
    uint64_t seed = 0;
    int64_t rocks = -1;     // rocks=N: rock_count N (max_rocks and rock_floor follow)
    int64_t players = -1;   // players=N: at most N player ids in the stream
    uint32_t without = 0;   // without=CLASS+CLASS
    friend bool operator==(const RandomSpec&, const RandomSpec&) = default;
};

struct RandomWorld {
    Config config;
    RandomInputs inputs;
};

using SpecError = tandem::sim::SpecError;   // error_name, describe: tandem/sim/random_spec.hpp
using tandem::sim::random_prefix;
std::string_view random_spec_syntax();   // "random:SEED[:rocks=N][:players=N][:without=CLASS+...]"
std::string_view input_class_name(uint32_t bit_index);

Result<RandomSpec, SpecError> parse_random_spec(std::string_view spec);
std::string format_random_spec(const RandomSpec& spec);   // canonical: parse(format(s)) == s

// Every knob across its validated range, its ends weighted up; every config validates.
RandomWorld generate_random_world(const RandomSpec& spec);

// The next tick's inputs (the tick step numbers state.tick + 1): a pure function of the
// parameters and the state, scrambled in order on purpose.
std::vector<Input> random_world_inputs(const RandomInputs& inputs, const State& state);

}  // namespace ships
