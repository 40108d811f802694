// tandem_ships_stream: prints ships' digest streams in the form `tandem run --game ships`
// prints them, for tests/games/ships/golden/regenerate.sh in builds without the CLI (the server
// and the CLI need Boost). It takes the CLI's own spellings, so the script drives either:
//   version [--game ships]                 "simulation_version N" among its lines
//   scenarios [--game ships]               "NAME  DESCRIPTION" per listed scenario
//   run [--game ships] --scenario NAME --ticks N --every K   "TICK DIGEST" lines, a summary
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

#include "ships/sim.hpp"
#include "tandem/core/digest.hpp"
#include "tandem/sim/scenario.hpp"

namespace {
int usage() {
    std::cerr << "usage: tandem_ships_stream version | scenarios | run --scenario NAME --ticks N --every K [--game ships]\n";
    return 2;
}
bool number(const std::string& text, uint64_t& out) {
    if (text.empty() || text.size() > 19) return false;
    out = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
        out = out * 10 + static_cast<uint64_t>(c - '0');
    }
    return true;
}
}  // namespace

int main(int argc, char** argv) {
    using ships::Sim;
    if (argc < 2) return usage();
    const std::string command = argv[1];
    std::string scenario;
    uint64_t ticks = 0, every = 0;
    for (int i = 2; i < argc; ++i) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) return usage();
        const std::string value = argv[++i];
        if (flag == "--game") {
            if (value != "ships") return usage();
        } else if (flag == "--scenario") {
            scenario = value;
        } else if (flag == "--ticks") {
            if (!number(value, ticks)) return usage();
        } else if (flag == "--every") {
            if (!number(value, every)) return usage();
        } else {
            return usage();
        }
    }
    if (command == "version") {
        std::cout << "fingerprint " << ships::fingerprint() << "\nsimulation_version " << Sim::version << '\n';
        return 0;
    }
    if (command == "scenarios") {
        for (const auto& s : Sim::scenarios()) std::cout << s.name << "  " << s.description << '\n';
        return 0;
    }
    if (command != "run" || scenario.empty()) return usage();
    const auto found = Sim::find_scenario(scenario);
    if (!found) {
        std::cerr << "tandem_ships_stream: " << found.message() << '\n';
        return 2;
    }
    Sim::State state = Sim::start(*found);
    tandem::sim::digest_stream<Sim>(*found, state, ticks, every, [](const tandem::sim::StreamPoint& p) {
        std::cout << p.tick << ' ' << tandem::hex64(p.digest) << '\n';
    });
    std::cout << "summary scenario=" << found->name << " ticks=" << state.tick << " digest=" << tandem::hex64(ships::digest(state));
    for (const auto& [name, value] : Sim::summary(state)) std::cout << ' ' << name << '=' << value;
    std::cout << " fingerprint=\"" << ships::fingerprint() << "\"\n";
    return 0;
}
