// libFuzzer target: steps random ships worlds ("random:SEED" with a fuzzer-chosen seed, rock
// count, player cap and dropped input classes) under ASan+UBSan and checks the invariants of
// tests/games/ships/invariants.hpp after every step; a broken one aborts.
// Input bytes: u64 seed | u8 rocks | u8 ticks (x4, mod 256) | u8 players | u8 without.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "games/ships/invariants.hpp"
#include "ships/random_world.hpp"
#include "ships/scenario.hpp"
#include "ships/sim.hpp"

using namespace ships;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    uint8_t raw[12] = {};
    std::memcpy(raw, data, size < sizeof raw ? size : sizeof raw);
    RandomSpec spec;
    for (int i = 0; i < 8; ++i) spec.seed |= uint64_t{raw[i]} << (8 * i);
    if (raw[8] != 0xFF) spec.rocks = raw[8] % 65;
    const uint32_t ticks = (raw[9] % 64) * 4;
    if (raw[10] != 0xFF) spec.players = raw[10] % 12;
    spec.without = raw[11] & all_input_classes;
    const std::string name = format_random_spec(spec);
    const auto found = find_scenario(name);
    if (!found) std::abort();
    State s = start(*found);
    Stepper stepper;
    for (uint32_t t = 0; t <= ticks; ++t) {
        const std::string broken = testing::broken_invariant(s, t % 8 == 0);
        if (!broken.empty()) {
            std::fprintf(stderr, "ships_random_world_fuzz: %s (%s, tick %llu)\n", broken.c_str(), name.c_str(),
                         static_cast<unsigned long long>(s.tick));
            std::abort();
        }
        stepper.step(s, scenario_inputs(*found, s));
    }
    return 0;
}
