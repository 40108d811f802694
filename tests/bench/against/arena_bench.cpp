// The arena's step, digest and snapshot codec, written once against the API before the seam
// (tandem::world) and after it (arena::Sim through the kit), so build-scripts/bench-against can
// time the same code on both trees in one sitting: the cost of generality as a ratio.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#if __has_include("arena/sim.hpp")
#include "arena/scenario.hpp"
#include "arena/sim.hpp"
namespace game = arena;
#else
#include "tandem/world/scenario.hpp"
#include "tandem/world/world.hpp"
namespace game = tandem::world;
#endif

namespace {

// A scenario's world after some play, so wells, captures and respawns are all in the state.
game::World world_of(const char* name, uint32_t pellets, uint64_t ticks) {
    game::Scenario s = game::find_scenario(name).value();
    s.config.pellet_count = pellets;
    game::World w = game::start(s);
    game::advance(s, w, ticks);
    return w;
}

void BM_arena_step(benchmark::State& state) {
    game::Scenario s = game::find_scenario("trig").value();
    s.config.pellet_count = static_cast<uint32_t>(state.range(0));
    game::World w = game::start(s);
    game::Stepper stepper;
    game::advance(s, w, 60, stepper);
    for (auto _ : state) {
        game::advance(s, w, 1, stepper);
        benchmark::DoNotOptimize(w.tick);
    }
}

void BM_arena_digest(benchmark::State& state) {
    const game::World w = world_of("trig", static_cast<uint32_t>(state.range(0)), 120);
    for (auto _ : state) benchmark::DoNotOptimize(game::digest(w));
}

void BM_arena_snapshot_encode(benchmark::State& state) {
    const game::World w = world_of("trig", static_cast<uint32_t>(state.range(0)), 120);
    for (auto _ : state) {
        std::vector<uint8_t> bytes = game::encode(w);
        benchmark::DoNotOptimize(bytes.data());
    }
}

void BM_arena_snapshot_decode(benchmark::State& state) {
    const std::vector<uint8_t> bytes = game::encode(world_of("trig", static_cast<uint32_t>(state.range(0)), 120));
    for (auto _ : state) {
        auto w = game::decode(bytes);
        benchmark::DoNotOptimize(w.ok());
    }
}

void BM_arena_dump(benchmark::State& state) {
    const game::World w = world_of("trig", static_cast<uint32_t>(state.range(0)), 120);
    for (auto _ : state) {
        std::string text = game::dump(w);
        benchmark::DoNotOptimize(text.data());
    }
}

}  // namespace

BENCHMARK(BM_arena_step)->Arg(1024)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_arena_digest)->Arg(1024)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_arena_snapshot_encode)->Arg(1024)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_arena_snapshot_decode)->Arg(1024)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_arena_dump)->Arg(1024)->Unit(benchmark::kMicrosecond);
