// `tandem serve` flags as a value, parsed by a pure function so every mistake is tested
// without a process. The kit's flags (where to listen, what to serve, the room's limits, a
// scenario) are parsed here; a game's own flags are declared by the game (FlagSpec) and their
// values handed back in command-line order for the game to apply. Parsing never touches the
// network or the file system (the directories are checked when the server starts); it must
// never accept a flag it would then ignore.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tandem/core/result.hpp"

namespace tandem::server {

inline constexpr uint16_t default_port = 8080;
inline constexpr uint32_t largest_tick_hz = 1000;      // a step under 1 ms is not a game tick
inline constexpr uint32_t largest_input_delay = 600;   // ten seconds at 60 Hz
inline constexpr uint32_t largest_connection_count = 100'000;
inline constexpr uint32_t largest_resume_grace_seconds = 3600;   // the room's max_resume_grace_ns
inline constexpr uint32_t largest_room_idle_close_seconds = 86'400;   // a day: past it a room is not idle, it is forgotten
// --advertise's URL is part of a lease owner's name in the store (at most 200 bytes with the
// host, pid and incarnation after it), and the room_moved a client follows.
inline constexpr uint32_t max_advertise_url_bytes = 120;
inline constexpr uint32_t largest_tick_threads = 64;   // past the cores of any machine a process is placed on
// --max-rooms: an arena room is about 1 MB before anyone joins, so 1,024 of them is a gigabyte
// a stranger could make the process hold: past what a 2-core process ticks anyway.
inline constexpr uint32_t largest_max_rooms = 1024;

// One flag a game adds to `tandem serve` (its value is the game's to read).
struct FlagSpec {
    std::string flag;         // "--tick-hz"
    std::string value_name;   // "HZ", for the usage line and --help
    std::string help;         // what it sets, one or more lines without the flag (--help indents them)
    // Non-empty: the flag sets what a scenario fixes, so it is refused beside --scenario, and
    // this says why ("a scenario fixes its own size").
    std::string scenario_conflict;
};

// What the command line may hold beyond the kit's own flags.
struct ServeFlags {
    std::span<const FlagSpec> game;   // the game's flags, each accepted once
    bool scenario = false;            // --scenario NAME (a game with scenarios); the name is checked later
};

// The package a game's page loads, where the build lays it out: build/wasm/packages/<game>.
std::string default_pkg_dir(std::string_view game);

struct ServeOptions {
    // What the server's messages start with: the command that runs it ("tandem serve", or a
    // game's own program). Not a flag: set by whoever calls serve.
    std::string program = "tandem serve";
    // Loopback unless the user says otherwise: a wider bind is an explicit choice.
    std::string host = "127.0.0.1";
    uint16_t port = default_port;                  // 0: any free port (printed when listening)
    std::string web_dir = "web";                   // every URL but /pkg/... resolves under it
    // /pkg/X resolves to pkg_dir/X; "" until the game is known: its own package,
    // default_pkg_dir(game), the one tandem_add_game_module builds for it.
    std::string pkg_dir;
    bool web_dir_given = false;                    // an explicit directory must exist
    bool pkg_dir_given = false;
    std::string scenario;                          // a named scenario's config ("" = the game's default)
    std::optional<uint32_t> input_delay_ticks;     // unset: the room's default
    std::optional<uint32_t> max_players;
    std::optional<uint32_t> max_watchers;
    // --per-address-limit N: every per-address budget (connections, unfinished requests) set
    // to N, for a load test from one machine or clients all behind one proxy. Unset: the
    // transport's defaults (TransportLimits).
    std::optional<uint32_t> per_address_limit;
    std::optional<uint32_t> resume_grace_seconds;  // unset: the room's default (30 s)
    // --ticket-key FILE: a hello must carry a ticket signed with the key in FILE, naming this
    // room (--room) ("" = none: the room is open to anyone; tandem/server/tickets.hpp).
    std::string ticket_key_path;
    // The seats and watcher places one address may hold (TransportLimits' budgets, or N from
    // --per-address-limit): no flags of their own, filled in by serve_command before the room
    // is made, so a game's room factory reads them with the rest. 0: no limit.
    uint32_t seats_per_address = 0;
    uint32_t watchers_per_address = 0;
    std::string record_path;                       // "" = no replay written
    std::string record_dir;                        // --record-dir: the other rooms' replays ("" = none)
    // --store ADDRESS: the room writes its checkpoint there and, started again with the same
    // store and --room, resumes from it (tandem/store/checkpoint_store.hpp's open_store).
    std::string store_address;                     // "" = no checkpoint
    std::string room_name = "default";             // --room NAME: the room's name in the store and its tickets
    // --advertise URL (with --store): where this process's clients reach it, http(s)://host[:port]
    // as normalize_origin spells it. It is part of this process's name in the store's leases,
    // so another process sharing the store answers a join for one of this process's rooms with
    // room_moved naming it. "" = not said: such joins are answered room_unknown instead.
    std::string advertise_url;
    // Not a flag: this process's name as a lease owner (room_checkpointing.hpp's process_owner),
    // set once by serve_command when --store is given, so every room it serves holds its lease
    // under the same name.
    std::string store_owner;
    // --room-idle-close SECONDS: a room made by POST /rooms with no connection this long is
    // closed (the default room never is). A minute: a page reloading or a player's dropped
    // connection comes back well within it, while an abandoned room holds memory only briefly.
    uint32_t room_idle_close_seconds = 60;
    // --max-rooms N: the rooms POST /rooms may make at once (TransportLimits::max_rooms, 64 by
    // default); an operator packing many small rooms into a process raises it.
    std::optional<uint32_t> max_rooms;
    // --tick-threads N: the threads that tick the rooms (unset: max(2, hardware threads - 1);
    // src/server/tick_driver.cpp says why); 0: the rooms tick on the I/O thread.
    std::optional<uint32_t> tick_threads;
    std::vector<std::string> allowed_origins;      // normalised; added to the defaults
    // The game's flags as given ({"--tick-hz", "30"}), in command-line order.
    std::vector<std::pair<std::string, std::string>> game_values;
};

struct ServeCommand {
    bool help = false;
    ServeOptions options;
};

// A command-line mistake: what was wrong and what is accepted, in one sentence.
struct ServeUsageError {
    std::string message;
    // 2 for a command-line mistake; 1 for what the command line could not have prevented (a
    // store that cannot be reached, a room another process serves).
    int exit_status = 2;
};
inline std::string_view error_name(const ServeUsageError&) { return "usage"; }
inline std::string_view describe(const ServeUsageError& e) { return e.message; }

// args: what follows `serve` on the command line.
Result<ServeCommand, ServeUsageError> parse_serve_args(std::span<const std::string_view> args, const ServeFlags& flags = {});

// A game flag's whole number in [min, max] (digits only), or the message every flag of the
// kit gives: "--tick-hz expects a whole number in 1..1000 (got 'x')".
Result<uint32_t, ServeUsageError> parse_flag_count(std::string_view flag, std::string_view value, uint32_t min, uint32_t max);

// An origin as browsers serialise it: lower-case scheme and host, no default port, no path.
// Refuses anything that is not http(s)://host[:port].
std::optional<std::string> normalize_origin(std::string_view text);

// What `tandem serve --help` says beyond the kit's own flags and URLs.
struct ServeHelp {
    std::string command = "tandem serve";   // the usage line's command ("tandem serve --game NAME")
    std::string game;                        // the game's name, "" when not to be named
    std::span<const FlagSpec> game_flags;
    std::string scenario_names;              // "" = no --scenario
    std::vector<std::string> route_usage;    // each route's lines for the URL list (HttpRoute::usage)
};
std::string serve_help_text(const ServeHelp& help = {});

}  // namespace tandem::server
