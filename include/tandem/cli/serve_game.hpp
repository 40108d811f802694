// `G::name serve`: the kit's server (tandem/server/serve_main.hpp) for a game that adds no flags
// of its own, as a game's own command serves it (game_main.hpp): the room, the page, and the
// scenario stream the page's "Check against native" asks for (/native/stream); and
// `G::name ticket`, which mints the join tickets a server started with --ticket-key asks for. Including this
// header needs tandem::server linked, which only the native g++ builds have. A game with flags
// of its own writes a GameServe<G> and a main around serve_main<G> instead.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "tandem/server/scenario_stream.hpp"
#include "tandem/server/serve_main.hpp"
#include "tandem/server/tickets.hpp"
#include "tandem/sim/scenario.hpp"

namespace tandem::cli {

template <sim::Scripted G>
int serve_game(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    server::GameServe<G> hooks;
    hooks.command = std::string(G::name) + " serve";
    hooks.program = hooks.command;
    hooks.routes.push_back(server::scenario_stream_route<G>());
    return server::serve_main<G>(args, hooks, out, err);
}

// `G::name ticket`: the kit's (tandem/server/tickets.hpp), its messages under the game's command.
template <sim::Scripted G>
int ticket_game(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    return server::ticket_command(args, out, err, std::string(G::name) + " ticket");
}

}  // namespace tandem::cli
