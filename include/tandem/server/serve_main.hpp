// `tandem serve` for a game: serve_main<G> reads the kit's flags, the game's own (GameOption),
// --scenario for a game with scenarios, builds a GameRoom<G> and serves it with the game's
// routes. A new game's server is a main of a few lines:
//   int main(int argc, char** argv) { return tandem::server::serve_main<mygame::Sim>(argc, argv, mygame::serve_hooks()); }
#pragma once

#include <functional>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/server/game_room.hpp"
#include "tandem/server/serve.hpp"
#include "tandem/server/tickets.hpp"
#include "tandem/sim/scenario.hpp"

namespace tandem::server {

// One flag of a game: what --help says, and how its value changes the game's config (the
// message of a refusal, nullopt when applied). Applied in command-line order, after --scenario.
template <class Config>
struct GameOption {
    FlagSpec spec;
    std::function<std::optional<std::string>(Config& config, std::string_view value)> apply;
};

// What a game adds to `tandem serve`.
template <sim::Simulation G>
struct GameServe {
    std::string command = "tandem serve";   // for --help's usage line
    std::string program = "tandem serve";   // what its messages start with (a main of its own: its name)
    std::vector<GameOption<typename G::Config>> options;
    std::vector<HttpRoute> routes;
    // --max-players N: the room offers N seats, and a game whose config bounds its players
    // may make room for them here (a seat for each in its state). Empty: the config is left as it is.
    std::function<void(typename G::Config& config, uint32_t seats)> make_seats;
};

// The room config the command line asks for: --scenario and the game's own flags (for the
// server's own game only: the flags are that game's), then the kit's room flags.
template <sim::Simulation G>
Result<net::RoomConfig<G>, ServeUsageError> room_config_from(const GameServe<G>& game, const ServeOptions& options, bool game_flags) {
    net::RoomConfig<G> config;
    if (game_flags) {
        if constexpr (sim::Scripted<G>) {
            if (!options.scenario.empty()) {
                auto found = G::find_scenario(options.scenario);
                if (!found) return ServeUsageError{std::string(found.message())};
                config.game = G::config_of(G::start(*found));
            }
        }
        for (const auto& [flag, value] : options.game_values) {
            for (const auto& option : game.options) {
                if (option.spec.flag != flag) continue;
                if (auto problem = option.apply(config.game, value)) return ServeUsageError{*problem};
            }
        }
    }
    if (options.input_delay_ticks) config.input_delay_ticks = *options.input_delay_ticks;
    if (options.max_players) {
        config.max_players = *options.max_players;
        if (game.make_seats) game.make_seats(config.game, *options.max_players);
    }
    if (options.max_watchers) config.max_watchers = *options.max_watchers;
    if (options.resume_grace_seconds) config.resume_grace_ns = int64_t{*options.resume_grace_seconds} * 1'000'000'000;
    config.seats_per_source = options.seats_per_address;
    config.watchers_per_source = options.watchers_per_address;
    return config;
}

// G as a game POST /rooms may create rooms of, and failover may restore rooms of. A created
// room never records (--record is the default room's); with --store it writes its checkpoint
// there under its id. The request's seats and places replace the command line's. own_game: the
// server's own game, whose flags apply to its rooms.
template <sim::Simulation G>
RoomKind room_kind(const GameServe<G>& game, bool own_game) {
    RoomKind kind;
    kind.game = std::string(G::name);
    kind.make = [game, own_game](const ServeOptions& options, const RoomSettings& settings)
        -> Result<std::unique_ptr<RoomPort>, ServeUsageError> {
        auto config = room_config_from<G>(game, options, own_game);
        if (!config.ok()) return config.error();
        net::RoomConfig<G>& c = config.value();
        if (settings.max_players) {
            c.max_players = *settings.max_players;
            if (game.make_seats) game.make_seats(c.game, *settings.max_players);
        }
        if (settings.max_watchers) c.max_watchers = *settings.max_watchers;
        const std::string record = record_path_in(options.record_dir, settings.id);
        if (options.store_address.empty()) return GameRoom<G>::create(c, record, nullptr, nullptr, settings.judge);
        // A new id (random, or a ticket's room that no process serves): its lease is free, so
        // this takes the store's round trips and no wait.
        auto checkpointing = RoomCheckpointing::open(options.store_address, settings.id, options.store_owner);
        if (!checkpointing.ok()) return checkpointing.error();
        if (!checkpointing.value()->segments().empty()) {
            // An old room of that id (a ticket replayed after its room closed and was kept):
            // a new room starts over it rather than bringing the old one back unasked.
            checkpointing.value()->forget_segments();
        }
        return GameRoom<G>::create(c, record, std::move(checkpointing).value(), nullptr, settings.judge);
    };
    kind.restore = [game, own_game](const ServeOptions& options, const RoomSettings& settings,
                                    std::unique_ptr<RoomCheckpointing> checkpointing, std::string* restored)
        -> Result<std::unique_ptr<RoomPort>, ServeUsageError> {
        auto config = room_config_from<G>(game, options, own_game);
        if (!config.ok()) return config.error();
        return GameRoom<G>::create(config.value(), record_path_in(options.record_dir, settings.id), std::move(checkpointing), restored,
                                   settings.judge, /*must_restore=*/true);
    };
    return kind;
}

template <sim::Simulation G>
ServeGame serve_game(const GameServe<G>& game) {
    ServeGame out;
    out.command = game.command;
    out.program = game.program;
    out.name = std::string(G::name);
    for (const auto& option : game.options) out.flags.push_back(option.spec);
    if constexpr (sim::Scripted<G>) {
        out.scenario_names = G::scenario_names_accepted();
        out.scenario_problem = [](std::string_view name) -> std::optional<std::string> {
            auto found = G::find_scenario(name);
            if (found) return std::nullopt;
            return std::string(found.message());
        };
    }
    out.routes = game.routes;
    for (const HttpRoute& route : game.routes) out.flags.insert(out.flags.end(), route.flags.begin(), route.flags.end());
    out.make_room = [game](const ServeOptions& options) -> Result<std::unique_ptr<RoomPort>, ServeUsageError> {
        // The routes read their own flags (and the directories) here, before anything is served.
        for (const HttpRoute& route : game.routes) {
            if (!route.configure) continue;
            if (auto problem = route.configure(options)) return ServeUsageError{*problem};
        }
        auto config = room_config_from<G>(game, options, /*game_flags=*/true);
        if (!config.ok()) return config.error();
        std::shared_ptr<net::TicketJudge> judge;
        if (!options.ticket_key_path.empty()) {
            auto key = read_ticket_key(options.ticket_key_path);
            if (!key.ok()) return key.error();
            judge = ticket_judge(std::move(key).value(), options.room_name);
        }
        if (options.store_address.empty()) return GameRoom<G>::create(config.value(), options.record_path, nullptr, nullptr, std::move(judge));
        auto checkpointing = RoomCheckpointing::open(options.store_address, options.room_name, options.store_owner);
        if (!checkpointing.ok()) return checkpointing.error();
        std::string restored;
        auto room = GameRoom<G>::create(config.value(), options.record_path, std::move(checkpointing).value(), &restored, std::move(judge));
        if (room.ok() && !restored.empty()) std::cerr << options.program << ": " << restored << "\n";
        return room;
    };
    out.room_kinds.push_back(room_kind<G>(game, /*own_game=*/true));
    return out;
}

// `tandem serve ARGS...` for G: the process exit status.
// `others`: the other games the binary has, whose rooms POST /rooms may create too.
template <sim::Simulation G>
int serve_main(std::span<const std::string_view> args, const GameServe<G>& game, std::ostream& out, std::ostream& err,
               const TransportLimits& limits = {}, std::vector<RoomKind> others = {}) {
    ServeGame served = serve_game<G>(game);
    for (RoomKind& kind : others) served.room_kinds.push_back(std::move(kind));
    return serve_command(args, served, limits, out, err);
}

template <sim::Simulation G>
int serve_main(int argc, char** argv, const GameServe<G>& game) {
    const std::vector<std::string_view> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    return serve_main<G>(args, game, std::cout, std::cerr);
}

}  // namespace tandem::server
