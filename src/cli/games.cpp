// The games this `tandem` command ships: the one place in the command line that names them.
// Adding a game is one line here (and its library in CMakeLists.txt). A game outside this list
// gets a command of its own, the same command line over itself alone (tandem_add_game).
#include "arena/sim.hpp"
#include "cli/cli.hpp"
#include "ships/sim.hpp"
#include "tandem/cli/game_commands.hpp"
#ifdef TANDEM_HAVE_SERVER
#include "arena/serve.hpp"
#include "ships/serve.hpp"
#include "tandem/server/tickets.hpp"
#endif

namespace tandem::cli {

namespace {

#ifdef TANDEM_HAVE_SERVER
// A server of one game hosts rooms of every game here (POST /rooms); its flags are its own game's.
int serve_arena(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    auto hooks = arena::serve_hooks();
    hooks.command = "tandem serve --game arena";
    return tandem::server::serve_main<arena::Sim>(args, hooks, out, err, {},
                                                  {tandem::server::room_kind<ships::Sim>(ships::serve_hooks(), false)});
}

int serve_ships(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    auto hooks = ships::serve_hooks();
    hooks.command = "tandem serve --game ships";
    return tandem::server::serve_main<ships::Sim>(args, hooks, out, err, {},
                                                  {tandem::server::room_kind<arena::Sim>(arena::serve_hooks(), false)});
}

int ticket(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    return tandem::server::ticket_command(args, out, err);
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

const Catalog& tandem_command() {
#ifdef TANDEM_HAVE_SERVER
    static const Catalog catalog{"tandem", registry(), &ticket};
#else
    static const Catalog catalog{"tandem", registry()};
#endif
    return catalog;
}

}  // namespace tandem::cli
