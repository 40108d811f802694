// `tandem serve` flags as a value, parsed by a pure function so every mistake is tested
// without a process. Parsing never touches the network or the file system (the directories
// are checked when the server starts); it must never accept a flag it would then ignore.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"

namespace tandem::server {

inline constexpr uint16_t default_port = 8080;
inline constexpr uint32_t largest_tick_hz = 1000;      // a step under 1 ms is not a game tick
inline constexpr uint32_t largest_input_delay = 600;   // ten seconds at 60 Hz
inline constexpr uint32_t largest_connection_count = 100'000;

struct ServeOptions {
    // Loopback unless the user says otherwise: a wider bind is an explicit choice.
    std::string host = "127.0.0.1";
    uint16_t port = default_port;                  // 0: any free port (printed when listening)
    std::string web_dir = "web";                   // every URL but /pkg/... resolves under it
    std::string pkg_dir = "build/wasm/package";    // /pkg/X resolves to pkg_dir/X
    bool web_dir_given = false;                    // an explicit directory must exist
    bool pkg_dir_given = false;
    std::optional<uint32_t> pellets;               // the default world with N pellets, or
    std::string scenario;                          // a named scenario's world ("" = default)
    std::optional<uint32_t> tick_hz;               // unset: the world's (60 Hz by default)
    std::optional<uint32_t> input_delay_ticks;     // unset: the room's default
    std::optional<uint32_t> max_players;
    std::optional<uint32_t> max_watchers;
    std::string record_path;                       // "" = no replay written
    std::vector<std::string> allowed_origins;      // normalised; added to the defaults
};

struct ServeCommand {
    bool help = false;
    ServeOptions options;
};

// A command-line mistake: what was wrong and what is accepted, in one sentence.
struct ServeUsageError {
    std::string message;
};
inline std::string_view error_name(const ServeUsageError&) { return "usage"; }
inline std::string_view describe(const ServeUsageError& e) { return e.message; }

// args: what follows `serve` on the command line.
Result<ServeCommand, ServeUsageError> parse_serve_args(std::span<const std::string_view> args);

// An origin as browsers serialise it: lower-case scheme and host, no default port, no path.
// Refuses anything that is not http(s)://host[:port].
std::optional<std::string> normalize_origin(std::string_view text);

// The text `tandem serve --help` prints.
std::string serve_help_text();

}  // namespace tandem::server
