// Random worlds for differential testing: a config and an input stream drawn from one 64-bit
// seed, addressed by a spec string ("random:SEED[:MODIFIER...]") that every target accepts
// wherever it accepts a scenario name. Integer arithmetic only, so every build draws the same.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"
#include "tandem/sim/random_spec.hpp"
#include "arena/world.hpp"

namespace arena {

// The classes of input the stream draws; a spec's `without=` modifier drops some (the
// shrinker's "simpler stream"). Bits of RandomInputs::classes.
enum InputClass : uint32_t {
    input_join = 1u << 0,     // an absent player joins (refused past max_players)
    input_leave = 1u << 1,    // a member leaves
    input_steer = 1u << 2,    // a target inside the arena (or exactly on its edge)
    input_far = 1u << 3,      // a target far outside the arena (up to the int32 extremes)
    input_churn = 1u << 4,    // one player joins, leaves and joins again in one tick
    input_repeat = 1u << 5,   // an input sent twice in one tick
    input_odd_ids = 1u << 6,  // players 0 and 4294967295 besides 1..players
};
inline constexpr uint32_t all_input_classes = (1u << 7) - 1;

// The stream's parameters, drawn with the config from the spec's seed. Rates are per 1,024
// per player per tick.
struct RandomInputs {
    uint64_t seed = 0;            // keys each tick's draws: XorShift(mix64(seed ^ mix64(tick)))
    uint32_t players = 0;         // ids 1..players (0: an empty stream)
    uint32_t classes = all_input_classes;
    uint32_t join_rate = 0;
    uint32_t leave_rate = 0;
    uint32_t steer_rate = 0;
    uint32_t far_rate = 0;        // of the steers and joins, how many aim far outside
    uint32_t churn_rate = 0;      // per tick, not per player
    uint32_t repeat_rate = 0;
    friend bool operator==(const RandomInputs&, const RandomInputs&) = default;
};

// What the spec says besides the seed: each default leaves the drawn value alone.
struct RandomSpec {
    uint64_t seed = 0;
    int64_t pellets = -1;            // pellets=N: the pellet count instead of the drawn one
    int64_t players = -1;            // players=N: at most N player ids in the stream
    uint32_t without = 0;            // without=CLASS+CLASS: InputClass bits dropped
    friend bool operator==(const RandomSpec&, const RandomSpec&) = default;
};

struct RandomWorld {
    WorldConfig config;
    RandomInputs inputs;
};

// A scenario name or random spec that does not resolve: which part and why, what is accepted.
using SpecError = tandem::sim::SpecError;   // error_name, describe: tandem/sim/random_spec.hpp
using tandem::sim::random_prefix;
// The accepted form, for messages and help: "random:SEED[:pellets=N][:players=N][:without=C+C]".
std::string_view random_spec_syntax();
// The names `without=` accepts, in bit order: join, leave, steer, far, churn, repeat, odd_ids.
std::string_view input_class_name(uint32_t bit_index);

// "random:SEED[:pellets=N][:players=N][:without=C+...]": SEED a decimal u64; N decimal,
// pellets at most max_pellet_count, players at most max_player_limit + 3.
Result<RandomSpec, SpecError> parse_random_spec(std::string_view spec);
// The canonical spelling (modifiers in the order above, only those set): parse(format(s)) == s.
std::string format_random_spec(const RandomSpec& spec);

// The default draw of the config (every validated range, its ends weighted up; pellet counts
// mostly small, so that a few hundred ticks of a world cost a second or less natively: 0 10%,
// 1..64 40%, 65..512 35%, 513..2048 11%, 2049..8192 3%, and the maximum 131,072 1/256 of the
// time; an exact or shallow tree (theta < 1/2 or depth < 8), which costs pellets squared,
// keeps at most 256) and of the stream, then the spec's modifiers applied. Every config
// validates.
RandomWorld generate_random_world(const RandomSpec& spec);

// The next tick's inputs (the tick step() will number world.tick + 1): a pure function of the
// parameters and the world, scrambled in order on purpose.
std::vector<Input> random_world_inputs(const RandomInputs& inputs, const World& world);

}  // namespace arena
