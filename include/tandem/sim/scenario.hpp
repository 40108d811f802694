// A game's named, seeded, scripted runs: the same name gives the same inputs, tick by tick, on
// every build, so any two builds can print and compare a digest stream (`tandem run`, the
// golden streams, the cross-build determinism check). A script must never read anything but
// the scenario and the state it drives: no clock, no I/O, no global.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::sim {

// What a game adds to Simulation for its scenarios, as static members of its traits G:
//   G::Scenario                 a value with `name` and `description` (std::string)
//   G::ScenarioError            an error code (error_name, describe)
//   G::scenarios()              the listed scenarios, in a fixed order (`tandem scenarios`)
//   G::find_scenario(name)      a listed one by name, or a random world by spec
//                               ("random:SEED[:MODIFIER...]"); every target resolves names
//                               through this one function, so a spec works wherever a name does
//   G::scenario_names_accepted()  what find_scenario accepts, for messages
//   G::start(scenario)          the state at tick 0 (every scenario's config validates)
//   G::scenario_inputs(scenario, state)  the inputs of the next tick (the one step numbers
//                               tick(state) + 1), a pure function of both; a script may emit
//                               them in any order, since step must impose its own
template <class G>
concept Scripted =
    Simulation<G> && ErrorCode<typename G::ScenarioError> &&
    requires(const typename G::Scenario& scenario, const typename G::State& state, std::string_view name) {
        { scenario.name } -> std::convertible_to<std::string>;
        { scenario.description } -> std::convertible_to<std::string>;
        { G::scenarios() } -> std::convertible_to<std::span<const typename G::Scenario>>;
        { G::find_scenario(name) } -> std::same_as<Result<typename G::Scenario, typename G::ScenarioError>>;
        { G::scenario_names_accepted() } -> std::convertible_to<std::string>;
        { G::start(scenario) } -> std::same_as<typename G::State>;
        { G::scenario_inputs(scenario, state) } -> std::same_as<std::vector<Input<G>>>;
    };

// Steps the state `ticks` times with the scenario's inputs, reusing the caller's Stepper, and
// calls after_step(state) after each step (a caller's check or instrumentation; it may change
// the state, as the determinism check's perturbed build does).
template <Scripted G, class AfterStep>
void advance(const typename G::Scenario& scenario, typename G::State& state, uint64_t ticks,
             typename G::Stepper& stepper, AfterStep&& after_step) {
    for (uint64_t i = 0; i < ticks; ++i) {
        const std::vector<Input<G>> inputs = G::scenario_inputs(scenario, state);
        stepper.step(state, inputs);
        after_step(state);
    }
}
template <Scripted G>
void advance(const typename G::Scenario& scenario, typename G::State& state, uint64_t ticks,
             typename G::Stepper& stepper) {
    advance<G>(scenario, state, ticks, stepper, [](const typename G::State&) {});
}

// One point of a digest stream.
struct StreamPoint {
    uint64_t tick = 0;
    uint64_t digest = 0;
    friend bool operator==(const StreamPoint&, const StreamPoint&) = default;
};

// The digest stream `tandem run` prints: emit(point) for the state as given (tick T), then
// after every step to a tick that is a multiple of `every`, and after the last step (tick
// T + ticks) if that is not one. every == 0 emits the first and the last only. The state is
// left at T + ticks, for a summary.
template <Scripted G, class Emit, class AfterStep>
void digest_stream(const typename G::Scenario& scenario, typename G::State& state, uint64_t ticks, uint64_t every,
                   Emit&& emit, AfterStep&& after_step) {
    typename G::Stepper stepper;
    const uint64_t last = G::tick(state) + ticks;
    emit(StreamPoint{G::tick(state), digest<G>(state)});
    while (G::tick(state) < last) {
        advance<G>(scenario, state, 1, stepper, after_step);
        const uint64_t t = G::tick(state);
        if ((every != 0 && t % every == 0) || t == last) emit(StreamPoint{t, digest<G>(state)});
    }
}
template <Scripted G, class Emit>
void digest_stream(const typename G::Scenario& scenario, typename G::State& state, uint64_t ticks, uint64_t every,
                   Emit&& emit) {
    digest_stream<G>(scenario, state, ticks, every, emit, [](const typename G::State&) {});
}

}  // namespace tandem::sim
