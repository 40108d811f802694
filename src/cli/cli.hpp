// The `tandem` command line as a library: argument parsing and the commands themselves write
// to the streams they are given, so tests drive them without a process. Bad arguments exit 2
// with a message naming what was wrong and what is accepted; bad data (a snapshot that does
// not decode, a file that cannot be read or written) exits 1; nothing here may call exit().
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

enum class CommandKind : uint8_t { help, run, dump, snapshot, scenarios, version, serve, replay, games };

struct Command {
    CommandKind kind = CommandKind::help;
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
    std::vector<std::string> serve_args;  // serve: its arguments, read by src/server
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

// args excludes the program name.
Result<Command, UsageError> parse(std::span<const std::string_view> args);

// Parses and executes; returns the process exit status.
int run(std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

// The help text of one command ("" for the overview).
std::string help_text(std::string_view topic);

// A JSON string literal (names and fingerprints are ASCII; escaping keeps any valid).
std::string json_string(std::string_view text);
// A whole file's bytes, or nothing (after saying so on err) when it cannot be read.
std::optional<std::vector<uint8_t>> read_file(const std::string& path, std::string_view what, std::ostream& err);

// Strict unsigned decimal: digits only, no sign, no spaces, at most `max`.
std::optional<uint64_t> parse_count(std::string_view text, uint64_t max);

}  // namespace tandem::cli
