// ships' flags and routes for `tandem serve` (see ships/serve.hpp), reached only through
// tandem/server's headers, as a game outside the repository would be.
#include "ships/serve.hpp"

#include <limits>
#include <string>

#include "tandem/server/scenario_stream.hpp"

namespace ships {

tandem::server::GameServe<Sim> serve_hooks() {
    using namespace tandem::server;
    GameServe<Sim> hooks;
    // ships' rates are per tick, so the pace changes how fast the game runs, never its rules.
    hooks.options.push_back({{"--tick-hz", "HZ",
                              "simulation ticks per second, 1.." + std::to_string(largest_tick_hz) + " (default: the game's, " +
                                  std::to_string(Config{}.tick_hz) + ")",
                              ""},
                             [](Config& c, std::string_view value) -> std::optional<std::string> {
                                 const auto v = parse_flag_count("--tick-hz", value, 1, largest_tick_hz);
                                 if (!v) return std::string(v.message());
                                 c.tick_hz = *v;
                                 return std::nullopt;
                             }});
    hooks.options.push_back({{"--seed", "N",
                              "the default field's seed (where its rocks start), 0.." +
                                  std::to_string(std::numeric_limits<uint32_t>::max()) + " (default " +
                                  std::to_string(Config{}.seed) + ")",
                              "a scenario fixes its own seed"},
                             [](Config& c, std::string_view value) -> std::optional<std::string> {
                                 const auto v = parse_flag_count("--seed", value, 0, std::numeric_limits<uint32_t>::max());
                                 if (!v) return std::string(v.message());
                                 c.seed = *v;
                                 return std::nullopt;
                             }});
    // The seats are the room's to offer; the state holds a ship per seat, up to the game's
    // limit. Past that limit the config is left alone and the room refuses the seats by name.
    hooks.make_seats = [](Config& c, uint32_t seats) {
        if (c.max_players < seats && seats <= max_player_limit) c.max_players = seats;
    };
    hooks.routes.push_back(scenario_stream_route<Sim>());
    return hooks;
}

}  // namespace ships
