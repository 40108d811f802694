// The games this `tandem` command ships, as the generic command line sees them: one entry per
// game, each command instantiated for the game's traits (commands.hpp). cli.cpp parses and
// dispatches through this table and names no game; games.cpp is the list.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli.hpp"

namespace tandem::cli {

struct GameEntry {
    std::string_view name;              // as --game takes it (the game's sim name)
    std::string_view description;       // one line, for `tandem games`
    std::string (*fingerprint)();       // "tandem snapshot/2 Q16.16 arena/2"
    uint64_t (*fingerprint_hash)();
    uint32_t simulation_version;
    std::string (*scenario_names)();    // what --scenario accepts, for messages
    // The reason a scenario name or spec does not resolve for this game (nullopt: it does).
    std::optional<std::string> (*scenario_problem)(std::string_view name);
    void (*list_scenarios)(std::ostream& out);
    int (*run)(const Command& cmd, const std::optional<WorldFile>& file, std::ostream& out, std::ostream& err);
    int (*dump)(const Command& cmd, std::ostream& out);
    int (*snapshot)(const Command& cmd, std::ostream& out, std::ostream& err);
    int (*replay)(const Command& cmd, std::span<const uint8_t> bytes, std::ostream& out, std::ostream& err);
    // `tandem serve` for this game (its arguments without --game); null in a build without the server.
    int (*serve)(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) = nullptr;
};

// The games, the default (the arena) first.
std::span<const GameEntry> games();
const GameEntry* find_game(std::string_view name);
// The game whose fingerprint hash a replay's or a snapshot's header names, if any.
const GameEntry* game_with_fingerprint(uint64_t fingerprint_hash);
std::string game_names();   // "arena, ships"

}  // namespace tandem::cli
