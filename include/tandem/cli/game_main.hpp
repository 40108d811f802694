// A game's own command: the kit's command line (command_line.hpp) over that one game, so a game
// built outside this repository gets what `tandem` gives the games it ships (run, dump,
// snapshot, scenarios, version, replay, and serve and ticket where the server is built) under its own
// name. tandem_add_game generates the main that calls game_main; nothing here names a game.
#pragma once

#include <iostream>
#include <span>
#include <string_view>
#include <vector>

#include "tandem/cli/command_line.hpp"
#include "tandem/cli/game_commands.hpp"
#include "tandem/sim/scenario.hpp"

namespace tandem::cli {

// `serve` for one game (serve_game.hpp has the kit's default); null where there is no server.
using ServeFunction = int (*)(std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

// The process exit status of `G::name ARGS...` (argv[0] is not read: the command's name is the
// game's, as tandem_add_game names the executable).
// `ticket` (serve_game.hpp has the kit's), null where there is no server.
template <sim::Scripted G>
int game_main(int argc, char** argv, std::string_view description, ServeFunction serve = nullptr,
              ServeFunction ticket = nullptr) {
    GameEntry entry = make_game_entry<G>(description);
    entry.serve = serve;
    const Catalog catalog{G::name, std::span<const GameEntry>(&entry, 1), ticket};
    const std::vector<std::string_view> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    return run(catalog, args, std::cout, std::cerr);
}

}  // namespace tandem::cli
