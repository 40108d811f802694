// The games this `tandem` command ships: the one place in the command line that names them.
// Adding a game is one line here (and its library in CMakeLists.txt).
#include "cli/games.hpp"

#include "arena/sim.hpp"
#include "cli/commands.hpp"
#include "ships/sim.hpp"
#ifdef TANDEM_HAVE_SERVER
#include "arena/serve.hpp"
#include "ships/serve.hpp"
#endif

namespace tandem::cli {

namespace {

#ifdef TANDEM_HAVE_SERVER
int serve_arena(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    auto hooks = arena::serve_hooks();
    hooks.command = "tandem serve --game arena";
    return tandem::server::serve_main<arena::Sim>(args, hooks, out, err);
}

int serve_ships(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    auto hooks = ships::serve_hooks();
    hooks.command = "tandem serve --game ships";
    return tandem::server::serve_main<ships::Sim>(args, hooks, out, err);
}

GameEntry served(GameEntry entry, int (*serve)(std::span<const std::string_view>, std::ostream&, std::ostream&)) {
    entry.serve = serve;
    return entry;
}
#endif

const std::vector<GameEntry>& registry() {
    static const std::vector<GameEntry> list = {
#ifdef TANDEM_HAVE_SERVER
        served(make_game_entry<arena::Sim>("gravity wells steered toward a point; pellets fall in and score"), &serve_arena),
#else
        make_game_entry<arena::Sim>("gravity wells steered toward a point; pellets fall in and score"),
#endif
#ifdef TANDEM_HAVE_SERVER
        served(make_game_entry<ships::Sim>("ships on a wrap-around field shooting rocks that split, and each other"), &serve_ships),
#else
        make_game_entry<ships::Sim>("ships on a wrap-around field shooting rocks that split, and each other"),
#endif
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
