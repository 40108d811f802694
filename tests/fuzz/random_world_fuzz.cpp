// libFuzzer target: steps random worlds ("random:SEED" with fuzzer-chosen seed, pellet count,
// player cap and dropped input classes) under ASan+UBSan and checks the world's invariants
// after every step; a broken one aborts, so libFuzzer keeps the input as a crash.
// Input bytes: u64 seed | u16 pellets (mod 513) | u8 ticks (mod 33) | u8 players | u8 without.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "arena/random_world.hpp"
#include "arena/scenario.hpp"
#include "arena/sim.hpp"

using namespace tandem;
using namespace arena;

namespace {

[[noreturn]] void broken(const char* what, const std::string& spec, uint64_t tick) {
    std::fprintf(stderr, "random_world_fuzz: invariant broken: %s (%s, tick %llu)\n", what, spec.c_str(),
                 static_cast<unsigned long long>(tick));
    std::abort();
}

bool inside(Vec2 p, Fx arena) { return p.x >= Fx::zero() && p.x <= arena && p.y >= Fx::zero() && p.y <= arena; }

void check(const World& w, const std::string& spec) {
    const auto fail = [&](const char* what) { broken(what, spec, w.tick); };
    if (!validate(w.config).ok()) fail("config no longer validates");
    if (w.wells.size() > w.config.max_players) fail("more wells than max_players");
    for (size_t i = 0; i < w.wells.size(); ++i) {
        if (i > 0 && !(w.wells[i - 1].player < w.wells[i].player)) fail("wells not strictly sorted by player");
        if (!inside(w.wells[i].pos, w.config.arena_size)) fail("a well outside the arena");
        if (!inside(w.wells[i].target, w.config.arena_size)) fail("a well's target outside the arena");
    }
    if (w.pellets.size() != w.config.pellet_count) fail("pellet count differs from the config's");
    for (uint32_t i = 0; i < w.pellets.size(); ++i) {
        if (w.pellets[i].key.index != i) fail("a pellet key's index is not its slot");
        if (!inside(w.pellets[i].pos, w.config.arena_size)) fail("a pellet outside the arena");
    }
    const std::vector<uint8_t> bytes = encode(w);
    const auto back = decode(bytes);
    if (!back.ok()) fail("the snapshot of the world does not decode");
    if (!(*back == w)) fail("the snapshot round trip changed the world");
    if (digest(*back) != digest(w)) fail("the snapshot round trip changed the digest");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    uint8_t raw[13] = {};
    std::memcpy(raw, data, size < sizeof raw ? size : sizeof raw);
    RandomSpec spec;
    for (int i = 0; i < 8; ++i) spec.seed |= uint64_t{raw[i]} << (8 * i);
    // Small worlds and short runs keep an execution to milliseconds under the sanitizers.
    spec.pellets = (raw[8] | (raw[9] << 8)) % 513;
    const uint32_t ticks = raw[10] % 33;
    if (raw[11] != 0xFF) spec.players = raw[11] % 68;
    spec.without = raw[12] & all_input_classes;
    const std::string name = format_random_spec(spec);
    const auto found = find_scenario(name);
    if (!found) broken("the generator's own spec does not resolve", name, 0);
    const Scenario& s = *found;
    World w = start(s);
    check(w, name);
    Stepper stepper;
    for (uint32_t t = 0; t < ticks; ++t) {
        stepper.step(w, scenario_inputs(s, w));
        check(w, name);
    }
    return 0;
}
