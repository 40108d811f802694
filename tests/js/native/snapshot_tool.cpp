// A native stand-in for the CLI's missing snapshot commands, for the cross-build snapshot
// test only (tests/js/snapshot_cross_build.test.mjs): writes a scenario's snapshot at a tick,
// or resumes a scenario from snapshot bytes and prints its digest stream. It decides nothing:
// every byte and digest comes from src/world. Retire it when `tandem` can do both.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "world/scenario.hpp"
#include "world/world.hpp"

namespace w = tandem::world;

namespace {

void print(const w::World& world) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(w::digest(world)));
    std::cout << world.tick << ' ' << hex << '\n';
}

int usage() {
    std::cerr << "usage: snapshot_tool save SCENARIO TICKS OUT | resume SCENARIO IN TICKS\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) return usage();
    const std::string command = argv[1];
    const w::Scenario* scenario = w::find_scenario(argv[2]);
    if (scenario == nullptr) {
        std::cerr << "unknown scenario " << argv[2] << '\n';
        return 2;
    }
    if (command == "save") {
        w::World world = w::start(*scenario);
        w::advance(*scenario, world, std::stoull(argv[3]));
        const std::vector<uint8_t> bytes = w::encode(world);
        std::ofstream(argv[4], std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                      static_cast<std::streamsize>(bytes.size()));
        print(world);
        return 0;
    }
    if (command == "resume") {
        std::ifstream in(argv[3], std::ios::binary);
        const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        w::DecodeResult decoded = w::decode(bytes);
        if (!decoded.ok()) {
            std::cout << "error " << w::error_name(decoded.error) << '\n';
            return 3;
        }
        w::World world = std::move(*decoded.world);
        print(world);
        const uint64_t ticks = std::stoull(argv[4]);
        for (uint64_t i = 0; i < ticks; ++i) {
            w::advance(*scenario, world, 1);
            print(world);
        }
        return 0;
    }
    return usage();
}
