// Writes the decode fuzzer's seed corpus: valid snapshots of small worlds at several ticks
// (and a few damaged ones), so the fuzzer starts from deep inside the format rather than
// from the magic. Deterministic: the same files every run.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "arena/scenario.hpp"
#include "arena/sim.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_seed_corpus DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    int n = 0;
    auto save = [&](const std::vector<uint8_t>& bytes) {
        std::ofstream out(dir + "/seed-" + std::to_string(n++), std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    };
    for (const auto& s : arena::scenarios()) {
        arena::Scenario small = s;
        small.config.pellet_count = 8;
        arena::World w = arena::start(small);
        for (uint64_t t : {0u, 5u, 60u}) {
            arena::advance(small, w, t - w.tick);
            std::vector<uint8_t> bytes = arena::encode(w);
            save(bytes);
            bytes.pop_back();
            save(bytes);
        }
    }
    return 0;
}
