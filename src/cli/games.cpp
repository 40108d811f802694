// The games this `tandem` command ships: the one place in the command line that names them.
// Adding a game is one line here (and its library in CMakeLists.txt).
#include "cli/games.hpp"

#include "arena/sim.hpp"
#include "cli/commands.hpp"
#include "ships/sim.hpp"

namespace tandem::cli {

namespace {
const std::vector<GameEntry>& registry() {
    static const std::vector<GameEntry> list = {
        make_game_entry<arena::Sim>("gravity wells steered toward a point; pellets fall in and score"),
        make_game_entry<ships::Sim>("ships on a wrap-around field shooting rocks that split, and each other"),
    };
    return list;
}
}  // namespace

std::span<const GameEntry> games() { return registry(); }

const GameEntry* find_game(std::string_view name) {
    if (name.empty()) return &registry().front();
    for (const GameEntry& g : registry()) {
        if (g.name == name) return &g;
    }
    return nullptr;
}

const GameEntry* game_with_fingerprint(uint64_t fingerprint_hash) {
    for (const GameEntry& g : registry()) {
        if (g.fingerprint_hash() == fingerprint_hash) return &g;
    }
    return nullptr;
}

std::string game_names() {
    std::string out;
    for (const GameEntry& g : registry()) {
        if (!out.empty()) out += ", ";
        out += g.name;
    }
    return out;
}

}  // namespace tandem::cli
