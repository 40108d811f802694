// make_replay SCENARIO TICKS OUT: writes the replay a room would record of a scenario's match
// (welcome, the baseline at tick 0, then per tick the frame of the scenario's inputs and the
// section digests), for cli_process_test.py to feed `tandem replay`. The checks themselves are
// made against `tandem dump` and byte edits the Python test makes from the documented layout.
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "net/recording.hpp"

using namespace tandem;

int main(int argc, char** argv) {
    const auto found = argc == 4 ? arena::find_scenario(argv[1]) : arena::find_scenario("");
    const arena::Scenario* s = found ? &*found : nullptr;
    if (s == nullptr) {
        std::fprintf(stderr, "usage: make_replay SCENARIO TICKS OUT\n");
        return 2;
    }
    const auto r = net::testing::record_match(*s, {.ticks = std::strtoull(argv[2], nullptr, 10)});
    std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(r.file.data()), static_cast<std::streamsize>(r.file.size()));
    return out ? 0 : 1;
}
