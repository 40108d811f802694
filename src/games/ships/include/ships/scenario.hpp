// Named, seeded, scripted runs of ships: the same name gives the same inputs, tick by tick, on
// every build, so any two builds can print and compare a digest stream. A script reads nothing
// but the scenario and the state it drives.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ships/random_world.hpp"
#include "ships/world.hpp"
#include "tandem/core/result.hpp"

namespace ships {

enum class Script : uint8_t { duel, melee, rockfield, chaos, random };

struct Scenario {
    std::string name;
    std::string description;
    Script script = Script::duel;
    Config config;
    uint64_t script_seed = 0;   // keys each tick's draws: XorShift(mix64(script_seed ^ mix64(tick)))
    RandomInputs random;        // Script::random only
};

std::span<const Scenario> scenarios();
Result<Scenario, SpecError> find_scenario(std::string_view name);
std::string scenario_names_accepted();   // "duel, melee, rockfield, chaos, random:SEED[...]"
std::vector<Input> scenario_inputs(const Scenario& scenario, const State& state);
State start(const Scenario& scenario);
void advance(const Scenario& scenario, State& state, uint64_t ticks, Stepper& stepper);
void advance(const Scenario& scenario, State& state, uint64_t ticks);

// The scenarios' pilot, which reads the state (unlike Sim::Bot, bot.hpp): turn toward the
// nearest rock on the torus (or the nearest other live ship when no rock is left), fire when
// roughly facing it, thrust when it is far, with a little noise from `rng` (the caller's
// stream, never the state's).
Command pilot(const State& state, uint32_t player, XorShift& rng);

}  // namespace ships
