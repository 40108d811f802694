// Parsing of `tandem serve` flags and its --help. Every refusal names the flag, what it got
// and what it accepts; nothing here opens a socket or a file, so the tests see every branch.
#include "tandem/server/options.hpp"
#include "tandem/store/checkpoint_store.hpp"

#include "tandem/server/serve.hpp"  // TransportLimits: --help states its defaults
#include "tandem/server/tickets.hpp"  // the ticket's bounds, for --help

#include <arpa/inet.h>  // inet_pton: the one IP-literal parser the socket layer will agree with

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>


namespace tandem::server {

std::string default_pkg_dir(std::string_view game) { return "build/wasm/packages/" + std::string(game); }


namespace {

using Parsed = Result<ServeCommand, ServeUsageError>;

ServeUsageError usage(std::string message) { return ServeUsageError{std::move(message)}; }

// Strict unsigned decimal in [min, max]: digits only, no sign, no spaces, no leading '+'.
std::optional<uint64_t> whole_number(std::string_view text, uint64_t min, uint64_t max) {
    if (text.empty() || text.size() > 20) return std::nullopt;
    uint64_t value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        const uint64_t digit = static_cast<uint64_t>(c - '0');
        if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
        value = value * 10 + digit;
    }
    if (value < min || value > max) return std::nullopt;
    return value;
}

bool is_ip_literal(const std::string& text) {
    std::array<unsigned char, 16> scratch{};
    return ::inet_pton(AF_INET, text.c_str(), scratch.data()) == 1 ||
           ::inet_pton(AF_INET6, text.c_str(), scratch.data()) == 1;
}

}  // namespace

std::optional<std::string> normalize_origin(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string_view rest = lower;
    std::string scheme;
    std::string_view scheme_port;
    if (rest.starts_with("http://")) {
        scheme = "http://";
        scheme_port = "80";
    } else if (rest.starts_with("https://")) {
        scheme = "https://";
        scheme_port = "443";
    } else {
        return std::nullopt;
    }
    rest.remove_prefix(scheme.size());
    if (rest.ends_with('/')) rest.remove_suffix(1);  // a pasted "http://host:1/" means the origin
    if (rest.empty()) return std::nullopt;
    std::string_view host = rest;
    std::string_view port;
    if (rest.front() == '[') {  // [v6]:port
        const size_t close = rest.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        host = rest.substr(0, close + 1);
        const std::string_view after = rest.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') return std::nullopt;
            port = after.substr(1);
        }
    } else if (const size_t colon = rest.rfind(':'); colon != std::string_view::npos) {
        host = rest.substr(0, colon);
        port = rest.substr(colon + 1);
    }
    if (host.empty() || host == "[]") return std::nullopt;
    const bool bracketed = host.front() == '[';
    const std::string_view inner = bracketed ? host.substr(1, host.size() - 2) : host;
    for (const char c : inner) {
        const bool allowed = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ||
                             (bracketed && c == ':');
        if (!allowed) return std::nullopt;  // a path, a user, a query: not an origin
    }
    if (!port.empty() || rest.back() == ':') {
        const auto number = whole_number(port, 1, 65535);
        // Leading zeros are not how a browser serialises a port, so such an entry could
        // never match: refuse it rather than accept a rule that does nothing.
        if (!number || std::to_string(*number) != port) return std::nullopt;
    }
    std::string out = scheme + std::string(host);
    if (!port.empty() && port != scheme_port) {
        out += ':';  // appended piecewise: ":" + string trips GCC 12's false -Wrestrict (bug 105329)
        out += port;
    }
    return out;
}

Result<uint32_t, ServeUsageError> parse_flag_count(std::string_view flag, std::string_view value, uint32_t min, uint32_t max) {
    const auto v = whole_number(value, min, max);
    if (!v) {
        return usage(std::string(flag) + " expects a whole number in " + std::to_string(min) + ".." + std::to_string(max) +
                     " (got '" + std::string(value) + "')");
    }
    return static_cast<uint32_t>(*v);
}

Parsed parse_serve_args(std::span<const std::string_view> args, const ServeFlags& flags) {
    ServeCommand command;
    ServeOptions& o = command.options;
    std::vector<std::string> seen;
    // The kit's flags, then the game's: the list an unknown flag's message names.
    std::vector<std::string> known = {"--host", "--port", "--web", "--pkg"};
    if (flags.scenario) known.push_back("--scenario");
    for (const FlagSpec& f : flags.game) known.push_back(f.flag);
    for (const char* f : {"--input-delay", "--max-players", "--max-watchers", "--per-address-limit", "--resume-grace", "--record", "--record-dir",
                          "--store", "--room", "--advertise", "--room-idle-close", "--max-rooms", "--tick-threads", "--ticket-key", "--allow-origin", "--help"}) {
        known.emplace_back(f);
    }
    std::string accepted;
    for (const std::string& f : known) accepted += (accepted.empty() ? "" : ", ") + f;

    for (size_t i = 0; i < args.size(); ++i) {
        std::string_view flag = args[i];
        std::optional<std::string_view> inline_value;
        if (flag.starts_with("--")) {
            if (const size_t eq = flag.find('='); eq != std::string_view::npos) {
                inline_value = flag.substr(eq + 1);
                flag = flag.substr(0, eq);
            }
        }
        if (flag == "--help" || flag == "-h") {
            command.help = true;
            return command;
        }
        if (std::find(known.begin(), known.end(), flag) == known.end()) {
            return usage("unknown option '" + std::string(args[i]) + "' (accepted: " + accepted + ")");
        }
        std::string_view value;
        if (inline_value) {
            value = *inline_value;
        } else if (i + 1 < args.size() && !args[i + 1].starts_with("--")) {
            value = args[++i];
        } else {
            return usage("missing value for " + std::string(flag));
        }
        const std::string name(flag);
        if (flag != "--allow-origin") {
            if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
                return usage(name + " given twice (each option but --allow-origin is accepted once)");
            }
            seen.push_back(name);
        }
        const std::string got = " (got '" + std::string(value) + "')";
        auto count = [&](uint32_t min, uint32_t max) { return parse_flag_count(flag, value, min, max); };

        if (flag == "--host") {
            if (!is_ip_literal(std::string(value))) {
                return usage("--host expects an IP address such as 127.0.0.1, 0.0.0.0, ::1 or ::" + got);
            }
            o.host = std::string(value);
        } else if (flag == "--port") {
            const auto v = count(0, 65535);
            if (!v) return usage(std::string(v.message()) + "; 0 picks a free port");
            o.port = static_cast<uint16_t>(*v);
        } else if (flag == "--web" || flag == "--pkg") {
            if (value.empty()) return usage(name + " expects a directory" + got);
            (flag == "--web" ? o.web_dir : o.pkg_dir) = std::string(value);
            (flag == "--web" ? o.web_dir_given : o.pkg_dir_given) = true;
        } else if (flag == "--scenario") {
            if (value.empty()) return usage("--scenario expects a scenario's name" + got);
            o.scenario = std::string(value);   // resolved by the game (ServeGame::scenario_problem)
        } else if (flag == "--input-delay") {
            const auto v = count(0, largest_input_delay);
            if (!v) return usage(std::string(v.message()));
            o.input_delay_ticks = *v;
        } else if (flag == "--max-players" || flag == "--max-watchers") {
            const auto v = count(0, largest_connection_count);
            if (!v) return usage(std::string(v.message()));
            (flag == "--max-players" ? o.max_players : o.max_watchers) = *v;
        } else if (flag == "--per-address-limit") {
            const auto v = count(1, largest_connection_count);
            if (!v) return usage(std::string(v.message()));
            o.per_address_limit = *v;
        } else if (flag == "--resume-grace") {
            const auto v = count(0, largest_resume_grace_seconds);
            if (!v) return usage(std::string(v.message()));
            o.resume_grace_seconds = *v;
        } else if (flag == "--room-idle-close") {
            const auto v = count(1, largest_room_idle_close_seconds);
            if (!v) return usage(std::string(v.message()));
            o.room_idle_close_seconds = *v;
        } else if (flag == "--max-rooms") {
            const auto v = count(1, largest_max_rooms);
            if (!v) return usage(std::string(v.message()));
            o.max_rooms = *v;
        } else if (flag == "--tick-threads") {
            const auto v = count(0, largest_tick_threads);
            if (!v) return usage(std::string(v.message()));
            o.tick_threads = *v;
        } else if (flag == "--ticket-key") {
            if (value.empty()) return usage("--ticket-key expects a file holding the key tickets are signed with" + got);
            o.ticket_key_path = std::string(value);
        } else if (flag == "--record-dir") {
            std::error_code ec;
            if (value.empty() || !std::filesystem::is_directory(std::string(value), ec)) {
                return usage("--record-dir expects an existing directory" + got);
            }
            o.record_dir = std::string(value);
        } else if (flag == "--record") {
            if (value.empty()) return usage("--record expects a file path" + got);
            o.record_path = std::string(value);
        } else if (flag == "--store") {
            if (!store::valid_store_address(value)) {
                return usage("--store expects dir:PATH (or a path starting with / or .), redis://HOST:PORT or unix:PATH, "
                             "optionally followed by #PREFIX" + got);
            }
            o.store_address = std::string(value);
        } else if (flag == "--advertise") {
            auto origin = normalize_origin(value);
            if (!origin || origin->size() > max_advertise_url_bytes) {
                return usage("--advertise expects the URL clients reach this process at, such as http://10.0.0.5:8080 "
                             "(scheme http or https, a host, an optional port, no path; at most " +
                             std::to_string(max_advertise_url_bytes) + " characters)" + got);
            }
            o.advertise_url = std::move(*origin);
        } else if (flag == "--room") {
            if (!store::valid_room_name(value)) return usage("--room expects a name of 1 to 64 of A-Z, a-z, 0-9, _ and -" + got);
            o.room_name = std::string(value);
        } else if (flag == "--allow-origin") {
            auto origin = normalize_origin(value);
            if (!origin) {
                return usage("--allow-origin expects an origin such as http://example.com:8080 "
                             "(scheme http or https, a host, an optional port, no path)" + got);
            }
            if (std::find(o.allowed_origins.begin(), o.allowed_origins.end(), *origin) == o.allowed_origins.end()) {
                o.allowed_origins.push_back(std::move(*origin));
            }
        } else {
            o.game_values.emplace_back(name, std::string(value));   // a game flag: the game reads it
        }
    }
    if (!o.advertise_url.empty() && o.store_address.empty()) {
        return usage("--advertise tells the processes sharing a store where this one is: it needs --store ADDRESS");
    }
    if (std::find(seen.begin(), seen.end(), "--room") != seen.end() && o.store_address.empty() && o.ticket_key_path.empty()) {
        return usage("--room names the room in its store and in its tickets: it needs --store ADDRESS or --ticket-key FILE");
    }
    if (!o.scenario.empty()) {
        for (const FlagSpec& f : flags.game) {
            if (f.scenario_conflict.empty()) continue;
            for (const auto& [given, value] : o.game_values) {
                if (given == f.flag) return usage(f.flag + " and --scenario are exclusive (" + f.scenario_conflict + ")");
            }
        }
    }
    return command;
}

namespace {

// "  --flag VALUE" padded to the help's column, then the text's lines, the later ones indented to it.
void help_entry(std::string& out, const std::string& head, const std::string& text) {
    constexpr size_t column = 23;
    out += "  " + head;
    bool first = true;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find('\n', start), text.size());
        const std::string line = text.substr(start, end - start);
        if (first) {
            // At least two spaces after a head that reaches the column.
            out += std::string(head.size() + 4 <= column ? column - 2 - head.size() : 2, ' ');
        } else {
            out += "\n" + std::string(column, ' ');
        }
        out += line;
        first = false;
        start = end + 1;
    }
    out += '\n';
}

}  // namespace

namespace {

std::string seconds_text(int64_t ns) {
    const int64_t ms = ns / 1'000'000;
    return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

// The transport's limits as --help states them, from TransportLimits' defaults.
std::string limits_text() {
    const TransportLimits l;
    const std::string queue = l.write_queue_cap_bytes % (1u << 20) == 0 ? std::to_string(l.write_queue_cap_bytes >> 20) + " MiB"
                                                                        : std::to_string(l.write_queue_cap_bytes) + " bytes";
    return "Limits: a request's headers must arrive within " + seconds_text(l.request_timeout_ns) +
           " of the connection's opening (or, on a\n"
           "keep-alive connection, of the request's first byte; it is closed after " + seconds_text(l.http_idle_timeout_ns) +
           " without one).\n"
           "Per address (an IPv6 peer counts by its /64; loopback like any other; --per-address-limit\n"
           "sets all four): " + std::to_string(l.connections_per_address) + " connections, of them " +
           std::to_string(l.handshakes_per_address) + " with a request or upgrade unfinished (past\n"
           "either, 503 connections_per_address or handshakes_per_address and closed), " +
           std::to_string(l.seats_per_address) + " player seats\n"
           "(kept seats included) and " + std::to_string(l.watchers_per_address) +
           " watcher places (past either, the hello is refused: error\n"
           "address_limit, close 1008). At most " +
           std::to_string(l.max_open_sockets) + " sockets are open in all (past it a connection is\n"
           "closed at once, counted as max_open_sockets). Per WebSocket: at most " + queue +
           " queued (the room's frames,\n"
           "pongs and the close frame together: past it, close 1008 write_queue_overflow, and nothing\n"
           "more is read from a peer whose queue is full), a " + std::to_string(l.socket_send_buffer_bytes / 1024) +
           " KiB kernel send buffer, " + std::to_string(l.pings_per_second) + " pings a second\n"
           "after a burst of " + std::to_string(l.ping_burst) + " (past it, close 1008 ping_rate), closed after " +
           seconds_text(l.idle_timeout_ns) + " of silence (pinged at half\n"
           "of it). /metrics counts every refusal and close by its reason; docs/scaling.md says why\n"
           "each limit is what it is.\n";
}

}  // namespace

std::string serve_help_text(const ServeHelp& help) {
    std::string out = "usage: " + help.command + " [--host ADDR] [--port N] [--web DIR] [--pkg DIR]\n";
    const std::string indent(7 + help.command.size() + 1, ' ');
    std::string game_line;
    if (!help.scenario_names.empty()) game_line += "[--scenario NAME] ";
    for (const FlagSpec& f : help.game_flags) game_line += "[" + f.flag + " " + f.value_name + "] ";
    if (!game_line.empty()) out += indent + game_line.substr(0, game_line.size() - 1) + "\n";
    out += indent + "[--input-delay TICKS] [--max-players N] [--max-watchers N] [--record FILE]\n";
    out += indent + "[--per-address-limit N] [--resume-grace SECONDS] [--allow-origin ORIGIN]...\n";
    out += indent + "[--store ADDRESS] [--advertise URL] [--room NAME] [--ticket-key FILE] [--room-idle-close SECONDS]\n";
    out += indent + "[--max-rooms N] [--tick-threads N]\n";
    out += "\n";
    out += "Runs a room" + (help.game.empty() ? std::string() : " of " + help.game) +
           " (the default room): the authoritative simulation, its tick loop, its\n"
           "players and watchers, and the HTTP server for the page; POST /rooms creates more rooms.\n"
           "Prints 'listening on http://HOST:PORT/' once it accepts.\n"
           "\n"
           "options:\n";
    help_entry(out, "--host ADDR", "IP address to bind (default 127.0.0.1: this machine only; 0.0.0.0\n"
                                   "or :: is the explicit choice to accept other machines)");
    help_entry(out, "--port N", "TCP port, 0..65535 (default 8080; 0 picks a free one)");
    help_entry(out, "--web DIR", "the page's directory (default ./web)");
    help_entry(out, "--pkg DIR", "the game's WebAssembly package's directory (default ./" +
                                     default_pkg_dir(help.game.empty() ? "GAME" : help.game) + ")");
    if (!help.scenario_names.empty()) {
        help_entry(out, "--scenario NAME", "start from a named scenario's config (" + help.scenario_names + ")");
    }
    for (const FlagSpec& f : help.game_flags) help_entry(out, f.flag + " " + f.value_name, f.help);
    help_entry(out, "--input-delay TICKS", "ticks between an input's arrival and the tick it lands on,\n0.." +
                                               std::to_string(largest_input_delay) + " (default: the room's)");
    help_entry(out, "--max-players N", "players admitted at once (default: the room's)");
    help_entry(out, "--max-watchers N", "watchers admitted at once (default: the room's)");
    help_entry(out, "--per-address-limit N", "the connections one IP address may hold at once, of those the ones\n"
                                             "with a request or upgrade unfinished, and its player seats and\n"
                                             "watcher places in the room: all N, 1.." + std::to_string(largest_connection_count) +
                                                 " (default " + std::to_string(TransportLimits{}.connections_per_address) +
                                                 ", " + std::to_string(TransportLimits{}.handshakes_per_address) + ", " +
                                                 std::to_string(TransportLimits{}.seats_per_address) + " and " +
                                                 std::to_string(TransportLimits{}.watchers_per_address) +
                                                 ";\nloopback counts like any address). Raise it for a load test from\n"
                                             "one machine, or when every client comes through one proxy");
    help_entry(out, "--resume-grace SECONDS",
               "how long a dropped player's seat and its place in the game are\n"
               "kept for the secret resume token its welcome carried, 0.." + std::to_string(largest_resume_grace_seconds) +
                   "\n"
               "(default 30; 0: a drop is a leave at once). Meanwhile nobody else\n"
               "gets the seat and the game gets no command for it; a hello with the\n"
               "token within the grace gets the same player id back, a wrong,\n"
               "expired or used one is refused (resume_unknown, resume_expired,\n"
               "resume_used). Tokens: 128 bits each from the OS (getrandom)");
    help_entry(out, "--ticket-key FILE",
               "admit only hellos carrying a ticket signed with the key in FILE\n"
               "(HMAC-SHA256; the file's bytes without trailing whitespace, " + std::to_string(min_ticket_key_bytes) + " to\n" +
                   std::to_string(max_ticket_key_bytes) + "), as a lobby mints them ('tandem ticket --help'). Without\n"
               "it the room is open: anyone may take a free seat or place");
    help_entry(out, "--record-dir DIR", "write a replay of every room made by POST /rooms or adopted from\n"
                                        "the store as DIR/ROOM.replay (DIR/ROOM.N.replay when that exists),\n"
                                        "written as --record's is; an adopted room's starts at the tick it\n"
                                        "was restored at");
    help_entry(out, "--record FILE", "write the match as a replay that `tandem replay` checks; each\n"
                                     "tick's records are written out (one write, no fsync) before its\n"
                                     "frames are sent, so a kill or crash loses at most the tick in\n"
                                     "progress; a drain ends the file with its end marker (without it\n"
                                     "`tandem replay` reports the file truncated)");
    help_entry(out, "--store ADDRESS", "write the room's checkpoint to a store: dir:PATH (a directory on\n"
                                       "this machine), redis://HOST:PORT or unix:PATH (Redis), optionally\n"
                                       "#PREFIX. Started again with the same store and --room after a\n"
                                       "crash or a stop, the room goes on from the tick it had, and its\n"
                                       "players take their seats back with their resume tokens. A tick's\n"
                                       "frame is sent only once its inputs are in the store's write path\n"
                                       "(docs/scaling.md: what each store can lose). The room's lease\n"
                                       "lasts 1 s, renewed every 250 ms: a second process given the same\n"
                                       "store and room waits for it (at most 2 s), then exits 1");
    help_entry(out, "--advertise URL", "with --store: where clients reach this process (http(s)://host[:port]).\n"
                                        "Every process sharing the store hosts the rooms whose owner died\n"
                                        "(within 2 s of its last lease renewal), and answers a join for a\n"
                                        "room another process serves with room_moved naming that process's\n"
                                        "--advertise URL, which the client session follows");
    help_entry(out, "--room NAME", "the room's name in the store and in its tickets, 1 to 64 of A-Z\n"
                                   "a-z 0-9 _ - (default 'default'; with --store or --ticket-key)");
    help_entry(out, "--room-idle-close SECONDS", "close a room made by POST /rooms once it has had no connection\n"
                                                 "this long, 1.." + std::to_string(largest_room_idle_close_seconds) +
                                                     " (default 60; the default room never closes)");
    help_entry(out, "--max-rooms N", "rooms POST /rooms may make at once, 1.." + std::to_string(largest_max_rooms) +
                                         " (default " + std::to_string(TransportLimits{}.max_rooms) + "; an arena\n"
                                         "room holds about 1 MB before anyone joins)");
    help_entry(out, "--tick-threads N", "threads that tick the rooms, 0.." + std::to_string(largest_tick_threads) +
                                            " (default: the hardware threads but\n"
                                            "the I/O thread's, at least 2). Each room is stepped on one thread at\n"
                                            "a time; a slow room holds one thread, the others keep ticking.\n"
                                            "0: the rooms tick on the I/O thread, with no hand-over between\n"
                                            "threads (a process on one core packing small rooms it trusts:\n"
                                            "a slow room then delays every room and socket)");
    help_entry(out, "--allow-origin ORIGIN", "also accept WebSocket connections from pages at ORIGIN\n"
                                             "(http(s)://host[:port]); repeatable");
    help_entry(out, "--help", "this text");
    out += "\n"
           "URLs:\n";
    help_entry(out, "/", "DIR/index.html; /X is the file DIR/X (the page maps its npm\n"
                         "dependencies, e.g. /node_modules/three/build/three.module.js)");
    help_entry(out, "/pkg/X", "the file X of the WebAssembly package (--pkg)");
    help_entry(out, "/ws", "the default room's WebSocket (binary messages only)");
    help_entry(out, "/ws/ROOM", "the WebSocket of room ROOM (404 room_unknown when there is none)");
    help_entry(out, "/rooms", "GET: the rooms as JSON (id, game, players, watchers, seats, tick).\n"
                              "POST a JSON object {\"game\", \"max_players\", \"max_watchers\",\n"
                              "\"ticket\"} (each optional; the ticket required with --ticket-key,\n"
                              "and the room it names is the room made): 201 with the room's id.\n"
                              "At most " + std::to_string(TransportLimits{}.max_rooms) + " rooms made at once (--max-rooms), " +
                                  std::to_string(TransportLimits{}.rooms_per_address) + " per address; every\n"
                              "refusal is a 4xx or 503 with {\"error\", \"message\"}");
    help_entry(out, "/metrics", "Prometheus text exposition");
    help_entry(out, "/healthz", "200 while the tick loop is on time; 503 when it has fallen behind\n"
                                "(a tick started over 4 steps late or a step dropped in the last\n"
                                "10 s, or the next tick overdue by 4 steps), before the first tick\n"
                                "and while draining");
    for (const std::string& line : help.route_usage) out += "  " + line + "\n";
    out += "  Files are sent with Cache-Control: no-cache and an ETag (a reload revalidates and gets\n"
           "  304 when nothing changed), gzipped to a client that accepts gzip (text, JavaScript,\n"
           "  JSON, wasm, SVG; each file version compressed once, in the background: its first\n"
           "  request is answered uncompressed). Directories are never listed; a path that is not\n"
           "  a plain relative file name under DIR ('..', '.', encoded '/', '\\' or '%', NUL,\n"
           "  control bytes, invalid or overlong UTF-8) is refused with 400; hidden files, symbolic\n"
           "  links leading out of DIR and missing files get 404.\n"
           "\n"
           + limits_text() +
           "\n"
           "Tickets (--ticket-key): a hello asking for a new seat or place must carry a ticket naming\n"
           "this room (--room), its role (play or watch), a seat (1..N, or 0 for any free one),\n"
           "a player's name and an expiry at most a day ahead, signed with the key. A missing,\n"
           "forged, expired or replayed ticket is refused with its own error (ticket_missing,\n"
           "ticket_forged, ticket_expired, ticket_replayed), one for another room, role or seat with\n"
           "ticket_invalid, each then closed 1008. A player's ticket admits once; a watcher's one\n"
           "connection at a time until it expires. Expiry is checked against this machine's clock.\n"
           "\n"
           "Reconnect: a player's welcome carries a secret resume token (16 random bytes). A player\n"
           "whose connection drops keeps its seat and its place in the game for --resume-grace; a\n"
           "hello with the token (no ticket needed) gets the same player id back, with a new token.\n"
           "\n"
           "WebSocket origins: pages at http://localhost:PORT, http://127.0.0.1:PORT, http://[::1]:PORT\n"
           "and http://HOST:PORT are accepted, plus every --allow-origin; a request without an Origin\n"
           "header (not a browser) is accepted; any other origin is refused with 403.\n"
           "\n"
           "SIGINT or SIGTERM: stop accepting, close every client with 1001 (going away), flush,\n"
           "exit 0 within 2 s.\n"
           "\n"
           "exit status: 0 after a signal, 1 when the port cannot be bound or a directory cannot\n"
           "be read, 2 for a command-line mistake.\n";
    return out;
}

}  // namespace tandem::server
