// The command line of any list of games, as a library: `tandem` (the games this repository
// ships) and a game's own command (tandem_add_game) are both this parser and these commands over
// a Catalog. The commands write to the streams they are given, so tests drive them without a
// process. Bad arguments exit 2 with a message naming what was wrong and what is accepted; bad
// data (a snapshot that does not decode, a file that cannot be read or written) exits 1;
// nothing here may call exit(), and nothing here names a game.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"

namespace tandem::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_data = 1;   // the arguments were fine, the bytes or the file were not
inline constexpr int exit_usage = 2;

enum class Format : uint8_t { text, json };

enum class CommandKind : uint8_t { help, run, dump, snapshot, scenarios, version, serve, replay, games, ticket };

struct Command {
    CommandKind kind = CommandKind::help;
    std::string program = "tandem";  // the command's own name, which its messages start with
    std::string topic;              // help: the command asked about ("" for the overview)
    std::string game;               // --game ("" = the default, the first game the command ships)
    std::string scenario;           // run, dump, snapshot
    uint64_t ticks = 2000;          // run: ticks to step
    uint64_t every = 100;           // run: print a digest every K ticks (and the last)
    uint64_t tick = 0;              // dump, snapshot: the tick to print or save
    Format format = Format::text;   // run
    std::string from_path;          // run: resume from this snapshot file ("" = from tick 0)
    std::string out_path;           // snapshot: the file to write
    std::string operand;            // replay: the replay file
    std::optional<uint64_t> dump_at;  // replay: print the canonical state at this tick instead
    bool allow_truncated = false;   // replay: check a file without its end marker instead of refusing it
    std::string world_path;         // run: a world file instead of --scenario
    bool ticks_given = false;       // run: --ticks was on the command line (over a world file's)
    bool every_given = false;       // run: --every was on the command line
    std::vector<std::string> serve_args;  // serve, ticket: their arguments, read by src/server
};

// A command line that cannot run: what was wrong and what is accepted, for stderr.
struct UsageError {
    std::string message;
};
inline std::string_view error_name(const UsageError&) { return "usage"; }
inline std::string_view describe(const UsageError& e) { return e.message; }

// A world file: the scenario (a name or a random world's spec) and the ticks to run, written by
// the determinism check's shrinker so `tandem run --world FILE` reproduces a divergence.
//   # comments   [game NAME]   scenario NAME   ticks N   [every K]   [expect TICK DIGEST]
// expect: the reference build's digest at TICK, which the run compares with its own.
struct WorldFile {
    struct Expect {
        uint64_t tick = 0;
        uint64_t digest = 0;
    };
    std::string game;   // "" = the default game
    std::string scenario;
    uint64_t ticks = 0;
    uint64_t every = 1;
    std::optional<Expect> expect;
};
struct WorldFileError {
    std::string message;
};
inline std::string_view error_name(const WorldFileError&) { return "bad_world_file"; }
inline std::string_view describe(const WorldFileError& e) { return e.message; }
Result<WorldFile, WorldFileError> parse_world_file(std::string_view text);

// ---- The games a command ships ----------------------------------------------------------
// One game as the command line sees it: each command instantiated for the game's traits by
// make_game_entry<G> (game_commands.hpp), so the parser and the dispatch name no game.
struct GameEntry {
    std::string_view name;              // as --game takes it (the game's sim name)
    std::string_view description;       // one line, for `games`
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
    // `serve` for this game (its arguments without --game); null in a build without the server.
    int (*serve)(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) = nullptr;
};

// A command: its name and its games, the first being the default (what runs without --game).
struct Catalog {
    std::string_view program = "tandem";
    std::span<const GameEntry> games;
    // `ticket` (mint a join ticket for a server started with --ticket-key; its arguments); null
    // in a build without the server. One for the command: a ticket names a room, not a game.
    int (*ticket)(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) = nullptr;

    const GameEntry* find(std::string_view name) const;   // "" = the default; null if unknown
    // The game whose fingerprint hash a replay's or a snapshot's header names, if any.
    const GameEntry* with_fingerprint(uint64_t fingerprint_hash) const;
    std::string names() const;   // "arena, ships"
};

// args excludes the program name.
Result<Command, UsageError> parse(const Catalog& catalog, std::span<const std::string_view> args);

// Parses and executes; returns the process exit status.
int run(const Catalog& catalog, std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

// The help text of one command ("" for the overview).
std::string help_text(const Catalog& catalog, std::string_view topic);

// A JSON string literal (names and fingerprints are ASCII; escaping keeps any valid).
std::string json_string(std::string_view text);
// A whole file's bytes, or nothing (after saying so on err, as `program`) when it cannot be read.
std::optional<std::vector<uint8_t>> read_file(const std::string& path, std::string_view what, std::string_view program,
                                              std::ostream& err);

// Strict unsigned decimal: digits only, no sign, no spaces, at most `max`.
std::optional<uint64_t> parse_count(std::string_view text, uint64_t max);

}  // namespace tandem::cli
