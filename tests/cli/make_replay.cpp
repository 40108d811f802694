// make_replay SCENARIO TICKS OUT: writes the replay a room would record of a scenario's match
// (welcome, the baseline at tick 0, then per tick the frame of the scenario's inputs and the
// section digests), for cli_process_test.py to feed `tandem replay`. The checks themselves are
// made against `tandem dump` and byte edits the Python test makes from the documented layout.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "tandem/net/protocol.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/world/scenario.hpp"

using namespace tandem;

int main(int argc, char** argv) {
    const auto found = argc == 4 ? world::find_scenario(argv[1]) : world::find_scenario("");
    const world::Scenario* s = found ? &*found : nullptr;
    if (s == nullptr) {
        std::fprintf(stderr, "usage: make_replay SCENARIO TICKS OUT\n");
        return 2;
    }
    const uint64_t ticks = std::strtoull(argv[2], nullptr, 10);
    std::vector<uint8_t> file, message;
    const auto add = [&](const auto& m) {
        message.clear();
        net::encode(message, m);
        net::append_replay_record(file, message);
    };
    net::append_replay_header(file);
    add(net::Welcome{net::Role::watch, net::watcher_id, 0, 0, s->config.max_players, s->config});
    world::World w = world::start(*s);
    add(net::Baseline{w.tick, world::encode(w)});
    world::Stepper stepper;
    for (uint64_t t = 0; t < ticks; ++t) {
        std::vector<world::Input> inputs = world::scenario_inputs(*s, w);
        std::sort(inputs.begin(), inputs.end(), world::canonical_less);
        inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
        stepper.step(w, inputs);
        net::Frame f{w.tick, world::digest(w), {}};
        for (const world::Input& in : inputs) f.inputs.push_back({in, 0});
        add(f);
        add(net::Sections{w.tick, true, world::section_digests(w)});
    }
    std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    return out ? 0 : 1;
}
