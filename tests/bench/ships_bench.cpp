// The cost of one ships tick (Stepper::step) in each scenario's busy middle, and of its digest
// and snapshot: what a room pays per tick for the second game. The state is copied back before
// every step (outside the timing), so each iteration steps the same tick with the same inputs.
#include <benchmark/benchmark.h>

#include "ships/scenario.hpp"
#include "ships/sim.hpp"

namespace {

void bm_ships_step(benchmark::State& st, const char* name) {
    const ships::Scenario s = ships::find_scenario(name).value();
    ships::State base = ships::start(s);
    ships::advance(s, base, 600);
    const std::vector<ships::Input> inputs = ships::scenario_inputs(s, base);
    ships::Stepper stepper;
    ships::State w = base;
    for (auto _ : st) {
        st.PauseTiming();
        w = base;
        st.ResumeTiming();
        stepper.step(w, inputs);
        benchmark::DoNotOptimize(w.tick);
    }
    st.counters["rocks"] = static_cast<double>(base.rocks.size());
    st.counters["bullets"] = static_cast<double>(base.bullets.size());
}
BENCHMARK_CAPTURE(bm_ships_step, duel, "duel");
BENCHMARK_CAPTURE(bm_ships_step, melee, "melee");
BENCHMARK_CAPTURE(bm_ships_step, rockfield, "rockfield");
BENCHMARK_CAPTURE(bm_ships_step, chaos, "chaos");

void bm_ships_digest(benchmark::State& st) {
    const ships::Scenario s = ships::find_scenario("rockfield").value();
    ships::State w = ships::start(s);
    ships::advance(s, w, 600);
    for (auto _ : st) benchmark::DoNotOptimize(ships::digest(w));
}
BENCHMARK(bm_ships_digest);

void bm_ships_snapshot(benchmark::State& st) {
    const ships::Scenario s = ships::find_scenario("rockfield").value();
    ships::State w = ships::start(s);
    ships::advance(s, w, 600);
    for (auto _ : st) benchmark::DoNotOptimize(ships::encode(w));
}
BENCHMARK(bm_ships_snapshot);

}  // namespace
