// make_replay [--game GAME] SCENARIO TICKS OUT [--damage-at T] [--baseline-at B]: writes the
// replay a room would record of a scenario's match of GAME (arena by default: welcome, the
// baseline at tick 0, then per tick the frame of the scenario's inputs and the section digests),
// for cli_process_test.py to feed `tandem replay`. --damage-at T damages the recorded state right
// after tick T (the arena: the first well's x by one raw unit; ships: the first ship's deaths
// plus 1000), so every later frame carries the damaged state's digest; --baseline-at B adds a
// baseline of the recorded state after tick B's records, as a client's export holds one. The
// checks themselves are made against `tandem dump` and byte edits the Python test makes from
// the documented layout.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "net/recording.hpp"
#include "ships/sim.hpp"

using namespace tandem;

namespace {

template <class G>
int write_replay(std::string_view scenario, const net::testing::GameRecordOptions<G>& options, const char* path) {
    const auto found = G::find_scenario(scenario);
    if (!found) {
        std::fprintf(stderr, "make_replay: %s\n", std::string(found.message()).c_str());
        return 2;
    }
    const auto r = net::testing::record_game_match<G>(*found, options);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(r.file.data()), static_cast<std::streamsize>(r.file.size()));
    return out ? 0 : 1;
}

template <class G>
net::testing::GameRecordOptions<G> options_of(uint64_t ticks, std::optional<uint64_t> damage_at, std::optional<uint64_t> baseline_at) {
    net::testing::GameRecordOptions<G> o;
    o.ticks = ticks;
    o.damage_at = damage_at;
    if (baseline_at) o.baselines_at.push_back(*baseline_at);
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    std::string_view game = "arena";
    std::optional<uint64_t> damage_at, baseline_at;
    std::vector<std::string_view> positional;
    bool usage = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const bool has_value = i + 1 < argc;
        if (a == "--game" && has_value) game = argv[++i];
        else if (a == "--damage-at" && has_value) damage_at = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--baseline-at" && has_value) baseline_at = std::strtoull(argv[++i], nullptr, 10);
        else if (a.starts_with("--")) usage = true;
        else positional.push_back(a);
    }
    if (usage || positional.size() != 3 || (game != "arena" && game != "ships")) {
        std::fprintf(stderr, "usage: make_replay [--game arena|ships] SCENARIO TICKS OUT [--damage-at T] [--baseline-at B]\n");
        return 2;
    }
    const uint64_t ticks = std::strtoull(std::string(positional[1]).c_str(), nullptr, 10);
    const std::string out(positional[2]);
    if (game == "ships") {
        auto o = options_of<ships::Sim>(ticks, damage_at, baseline_at);
        o.damage = [](ships::State& s) {
            if (!s.ships.empty()) s.ships.front().deaths += 1000;
        };
        return write_replay<ships::Sim>(positional[0], o, out.c_str());
    }
    auto o = options_of<arena::Sim>(ticks, damage_at, baseline_at);
    o.damage = [](arena::World& w) {
        if (!w.wells.empty()) w.wells[0].pos.x = w.wells[0].pos.x + Fx::from_raw(1);
    };
    return write_replay<arena::Sim>(positional[0], o, out.c_str());
}
