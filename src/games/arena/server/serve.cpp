// The arena's flags and routes for `tandem serve` (see arena/serve.hpp).
#include "arena/serve.hpp"

#include "tandem/server/scenario_stream.hpp"

namespace arena {

tandem::server::GameServe<Sim> serve_hooks() {
    using namespace tandem::server;
    GameServe<Sim> hooks;
    hooks.options.push_back({{"--pellets", "N", "the default world with N pellets, 1.." + std::to_string(max_pellet_count),
                              "a scenario fixes its own pellet count"},
                             [](WorldConfig& c, std::string_view value) -> std::optional<std::string> {
                                 const auto v = parse_flag_count("--pellets", value, 1, max_pellet_count);
                                 if (!v) return std::string(v.message());
                                 c.pellet_count = *v;
                                 return std::nullopt;
                             }});
    hooks.options.push_back({{"--tick-hz", "HZ",
                              "simulation ticks per second, 1.." + std::to_string(largest_tick_hz) + " (default: the world's, 60)", ""},
                             [](WorldConfig& c, std::string_view value) -> std::optional<std::string> {
                                 const auto v = parse_flag_count("--tick-hz", value, 1, largest_tick_hz);
                                 if (!v) return std::string(v.message());
                                 c.tick_hz = *v;
                                 return std::nullopt;
                             }});
    // The seats are the room's to offer; the world must have a well for each of them.
    hooks.make_seats = [](WorldConfig& c, uint32_t seats) {
        if (c.max_players < seats) c.max_players = seats;
    };
    hooks.routes.push_back(scenario_stream_route<Sim>());
    return hooks;
}

}  // namespace arena
