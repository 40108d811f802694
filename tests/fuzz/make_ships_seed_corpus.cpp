// Writes the ships snapshot fuzzers' seed corpus: valid snapshots of each scenario at a few
// ticks (and each cut short by a byte), so the fuzzers start deep inside the format.
// Deterministic: the same files every run.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "ships/scenario.hpp"
#include "ships/sim.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_ships_seed_corpus DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    int n = 0;
    auto save = [&](const std::vector<uint8_t>& bytes) {
        std::ofstream out(dir + "/ships-seed-" + std::to_string(n++), std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    };
    for (const auto& s : ships::scenarios()) {
        ships::State w = ships::start(s);
        for (uint64_t t : {0u, 5u, 90u}) {
            ships::advance(s, w, t - w.tick);
            std::vector<uint8_t> bytes = ships::encode(w);
            save(bytes);
            bytes.pop_back();
            save(bytes);
        }
    }
    return 0;
}
