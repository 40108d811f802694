// libFuzzer target for ships' commands on the wire: the bytes are a run of 6-byte inputs as a
// frame carries them (u32 player | u8 kind | u8 buttons), split into ticks by a leading count
// byte per tick. Every input either decodes with a named refusal or re-encodes to its bytes and
// carries no reserved bits; the decoded ones step a small world, whose invariants
// (tests/games/ships/invariants.hpp) and snapshot round trip hold after every tick. The config
// decoder is fed the same bytes too.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "games/ships/invariants.hpp"
#include "ships/sim.hpp"
#include "tandem/sim/codec.hpp"

using namespace ships;

namespace {
const State& small_world() {
    static const State s = [] {
        Config c;
        c.max_players = 4;
        c.arena_size = tandem::Fx::from_int(256);
        c.rock_count = 3;
        c.rock_floor = 2;
        c.respawn_delay = 2;
        return make_state(c).value();
    }();
    return s;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const uint8_t> bytes(data, size);
    const auto config = tandem::sim::decode_config<Sim>(bytes);
    if (config.ok() && tandem::sim::encode_config<Sim>(*config) != std::vector<uint8_t>(bytes.begin(), bytes.end())) std::abort();
    if (!config.ok() && tandem::sim::error_name(config.error()).empty()) std::abort();

    State s = small_world();
    Stepper stepper;
    std::vector<Input> tick;
    size_t at = 0;
    const uint32_t width = tandem::sim::input_bytes<Sim>();
    while (at < size && s.tick < 64) {
        const uint32_t n = data[at++] % 9;
        tick.clear();
        for (uint32_t i = 0; i < n && at < size; ++i) {
            const size_t len = size - at < width ? size - at : width;
            const auto in = tandem::sim::decode_input<Sim>(bytes.subspan(at, len));
            at += len;
            if (!in.ok()) {
                if (tandem::sim::error_name(in.error()).empty()) std::abort();
                continue;
            }
            if ((in->command.buttons & ~all_buttons) != 0) std::abort();
            std::vector<uint8_t> again;
            tandem::sim::append_input<Sim>(again, *in);
            if (again != std::vector<uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(at - len), bytes.begin() + static_cast<std::ptrdiff_t>(at))) std::abort();
            Input mapped = *in;
            mapped.player %= 6;   // a few ids, so joins, leaves and commands meet
            tick.push_back(mapped);
        }
        stepper.step(s, tick);
        const std::string broken = testing::broken_invariant(s);
        if (!broken.empty()) {
            std::fprintf(stderr, "ships_input_fuzz: %s at tick %llu\n", broken.c_str(), static_cast<unsigned long long>(s.tick));
            std::abort();
        }
    }
    return 0;
}
