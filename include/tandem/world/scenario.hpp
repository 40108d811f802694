// Named, seeded, scripted runs of the world: the same name gives the same inputs, tick by
// tick, on every build, so any two builds can print and compare a digest stream. A script
// must never read anything but the scenario and the world it drives (no clock, no I/O).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tandem/world/world.hpp"

namespace tandem::world {

enum class Script : uint8_t { orbits, crowd, chaos, trig };

struct Scenario {
    std::string_view name;
    std::string_view description;   // one line, for `tandem scenarios`
    Script script;
    WorldConfig config;
    uint64_t script_seed;           // seeds the input generator, separate from the world's
};

// Every scenario, in a fixed order (the order `tandem scenarios` lists them in).
std::span<const Scenario> scenarios();
// nullptr when no scenario has that name.
const Scenario* find_scenario(std::string_view name);

// The inputs for the next tick (the one step() will number world.tick + 1): a pure function
// of the scenario and the world, emitted in a scrambled order on purpose, since step() must
// impose its own.
std::vector<Input> scenario_inputs(const Scenario& scenario, const World& world);

// Builds the scenario's world and steps it with its own inputs.
World start(const Scenario& scenario);
void advance(const Scenario& scenario, World& world, uint64_t ticks);

}  // namespace tandem::world
