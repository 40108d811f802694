// Named, seeded, scripted runs of the world: the same name gives the same inputs, tick by
// tick, on every build, so any two builds can print and compare a digest stream. A script
// must never read anything but the scenario and the world it drives (no clock, no I/O).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"
#include "arena/random_world.hpp"
#include "arena/world.hpp"

namespace arena {

enum class Script : uint8_t { orbits, crowd, chaos, trig, random };

// A value that owns its name, so a scenario can be built from a spec as well as listed.
struct Scenario {
    std::string name;               // a listed name, or a random world's canonical spec
    std::string description;        // one line, for `tandem scenarios`
    Script script = Script::orbits;
    WorldConfig config;
    uint64_t script_seed = 0;       // seeds the input generator, separate from the world's
    RandomInputs random;            // Script::random: the stream's parameters
};

// Every listed scenario, in a fixed order (the order `tandem scenarios` lists them in).
std::span<const Scenario> scenarios();
// A listed scenario by name, or a random world by spec ("random:SEED[:MODIFIER...]",
// random_world.hpp; its name is the spec's canonical spelling). Every target resolves names
// through this one function, so a spec works wherever a name does.
Result<Scenario, SpecError> find_scenario(std::string_view name);
// What find_scenario accepts, for messages: "orbits, crowd, chaos, trig, random:SEED[...]".
std::string scenario_names_accepted();

// The inputs for the next tick (the one step() will number world.tick + 1): a pure function
// of the scenario and the world, emitted in a scrambled order on purpose, since step() must
// impose its own.
std::vector<Input> scenario_inputs(const Scenario& scenario, const World& world);

// The scenario's world at tick 0. Every scenario's config validates (a test checks each), so
// this cannot fail.
World start(const Scenario& scenario);
// Steps the world `ticks` times with the scenario's inputs; the second form keeps a Stepper
// for the call only, the first reuses the caller's from call to call.
void advance(const Scenario& scenario, World& world, uint64_t ticks, Stepper& stepper);
void advance(const Scenario& scenario, World& world, uint64_t ticks);

}  // namespace arena
