// Parsing of `tandem serve` flags. Every refusal names the flag, what it got and what it
// accepts; nothing here opens a socket or a file, so the tests see every branch.
#include "server/options.hpp"

#include <arpa/inet.h>  // inet_pton: the one IP-literal parser the socket layer will agree with

#include <algorithm>
#include <array>
#include <cctype>

#include "tandem/world/scenario.hpp"
#include "tandem/world/world.hpp"

namespace tandem::server {

namespace {

using Parsed = Result<ServeCommand, ServeUsageError>;

ServeUsageError usage(std::string message) { return ServeUsageError{std::move(message)}; }

std::string scenario_names() {
    std::string names;
    for (const world::Scenario& s : world::scenarios()) {
        if (!names.empty()) names += ", ";
        names += s.name;
    }
    return names;
}

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

Parsed parse_serve_args(std::span<const std::string_view> args) {
    ServeCommand command;
    ServeOptions& o = command.options;
    std::vector<std::string> seen;

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
        static constexpr std::array<std::string_view, 13> known = {
            "--host",      "--port",        "--web",         "--pkg",          "--pellets",
            "--scenario",  "--tick-hz",     "--input-delay", "--max-players",  "--max-watchers",
            "--record",    "--allow-origin", "--help"};
        if (std::find(known.begin(), known.end(), flag) == known.end()) {
            return usage("unknown option '" + std::string(args[i]) +
                         "' (accepted: --host, --port, --web, --pkg, --pellets, --scenario, --tick-hz, "
                         "--input-delay, --max-players, --max-watchers, --record, --allow-origin, --help)");
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
        auto count = [&](uint64_t min, uint64_t max) -> std::optional<uint32_t> {
            const auto v = whole_number(value, min, max);
            if (!v) return std::nullopt;
            return static_cast<uint32_t>(*v);
        };
        auto range = [&](uint64_t min, uint64_t max) {
            return name + " expects a whole number in " + std::to_string(min) + ".." + std::to_string(max) + got;
        };

        if (flag == "--host") {
            if (!is_ip_literal(std::string(value))) {
                return usage("--host expects an IP address such as 127.0.0.1, 0.0.0.0, ::1 or ::" + got);
            }
            o.host = std::string(value);
        } else if (flag == "--port") {
            const auto v = count(0, 65535);
            if (!v) return usage(range(0, 65535) + "; 0 picks a free port");
            o.port = static_cast<uint16_t>(*v);
        } else if (flag == "--web" || flag == "--pkg") {
            if (value.empty()) return usage(name + " expects a directory" + got);
            (flag == "--web" ? o.web_dir : o.pkg_dir) = std::string(value);
            (flag == "--web" ? o.web_dir_given : o.pkg_dir_given) = true;
        } else if (flag == "--pellets") {
            const auto v = count(1, world::max_pellet_count);
            if (!v) return usage(range(1, world::max_pellet_count));
            o.pellets = *v;
        } else if (flag == "--scenario") {
            if (auto found = world::find_scenario(value); !found) return usage(std::string(found.message()));
            o.scenario = std::string(value);
        } else if (flag == "--tick-hz") {
            const auto v = count(1, largest_tick_hz);
            if (!v) return usage(range(1, largest_tick_hz));
            o.tick_hz = *v;
        } else if (flag == "--input-delay") {
            const auto v = count(0, largest_input_delay);
            if (!v) return usage(range(0, largest_input_delay));
            o.input_delay_ticks = *v;
        } else if (flag == "--max-players") {
            const auto v = count(0, largest_connection_count);
            if (!v) return usage(range(0, largest_connection_count));
            o.max_players = *v;
        } else if (flag == "--max-watchers") {
            const auto v = count(0, largest_connection_count);
            if (!v) return usage(range(0, largest_connection_count));
            o.max_watchers = *v;
        } else if (flag == "--record") {
            if (value.empty()) return usage("--record expects a file path" + got);
            o.record_path = std::string(value);
        } else if (flag == "--allow-origin") {
            auto origin = normalize_origin(value);
            if (!origin) {
                return usage("--allow-origin expects an origin such as http://example.com:8080 "
                             "(scheme http or https, a host, an optional port, no path)" + got);
            }
            if (std::find(o.allowed_origins.begin(), o.allowed_origins.end(), *origin) == o.allowed_origins.end()) {
                o.allowed_origins.push_back(std::move(*origin));
            }
        }
    }
    if (o.pellets && !o.scenario.empty()) {
        return usage("--pellets and --scenario are exclusive (a scenario fixes its own pellet count)");
    }
    return command;
}

std::string serve_help_text() {
    return "usage: tandem serve [--host ADDR] [--port N] [--web DIR] [--pkg DIR]\n"
           "                    [--pellets N | --scenario NAME] [--tick-hz HZ] [--input-delay TICKS]\n"
           "                    [--max-players N] [--max-watchers N] [--record FILE]\n"
           "                    [--allow-origin ORIGIN]...\n"
           "\n"
           "Runs one room: the authoritative world, its tick loop, its players and watchers, and\n"
           "the HTTP server for the page. Prints 'listening on http://HOST:PORT/' once it accepts.\n"
           "\n"
           "options:\n"
           "  --host ADDR          IP address to bind (default 127.0.0.1: this machine only; 0.0.0.0\n"
           "                       or :: is the explicit choice to accept other machines)\n"
           "  --port N             TCP port, 0..65535 (default 8080; 0 picks a free one)\n"
           "  --web DIR            the page's directory (default ./web)\n"
           "  --pkg DIR            the WebAssembly package's directory (default ./build/wasm/package)\n"
           "  --pellets N          the default world with N pellets, 1.." +
           std::to_string(world::max_pellet_count) +
           "\n"
           "  --scenario NAME      a named scenario's world instead (" + scenario_names() +
           ")\n"
           "  --tick-hz HZ         simulation ticks per second, 1.." + std::to_string(largest_tick_hz) +
           " (default: the world's, 60)\n"
           "  --input-delay TICKS  ticks between an input's arrival and the tick it lands on,\n"
           "                       0.." + std::to_string(largest_input_delay) +
           " (default: the room's)\n"
           "  --max-players N      players admitted at once (default: the room's)\n"
           "  --max-watchers N     watchers admitted at once (default: the room's)\n"
           "  --record FILE        write the match as a replay that `tandem replay` checks\n"
           "  --allow-origin ORIGIN  also accept WebSocket connections from pages at ORIGIN\n"
           "                       (http(s)://host[:port]); repeatable\n"
           "  --help               this text\n"
           "\n"
           "URLs:\n"
           "  /                    DIR/index.html; /X is the file DIR/X (the page maps its npm\n"
           "                       dependencies, e.g. /node_modules/three/build/three.module.js)\n"
           "  /pkg/X               the file X of the WebAssembly package (--pkg)\n"
           "  /ws                  the room's WebSocket (binary messages only)\n"
           "  /metrics             Prometheus text exposition\n"
           "  /healthz             200 while the tick loop is on time; 503 when it has fallen behind\n"
           "                       (a tick started over 4 steps late or a step dropped in the last\n"
           "                       10 s, or the next tick overdue by 4 steps), before the first tick\n"
           "                       and while draining\n"
           "  /native/stream?scenario=NAME&ticks=N[&every=K]\n"
           "                       a listed scenario's digest stream as this build computes it\n"
           "                       (ticks 1..3600; every 1..N, default 1): '#' comment,\n"
           "                       simulation_version, 'TICK DIGEST' lines; 400 for a bad query,\n"
           "                       503 while another is being computed (off the tick loop)\n"
           "  Files are sent with Cache-Control: no-cache and an ETag (a reload revalidates and gets\n"
           "  304 when nothing changed), gzipped to a client that accepts gzip (text, JavaScript,\n"
           "  JSON, wasm, SVG; each file version compressed once, in the background: its first\n"
           "  request is answered uncompressed). Directories are never listed; a path that is not\n"
           "  a plain relative file name under DIR ('..', '.', encoded '/', '\\' or '%', NUL,\n"
           "  control bytes, invalid or overlong UTF-8) is refused with 400; hidden files, symbolic\n"
           "  links leading out of DIR and missing files get 404.\n"
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
}

}  // namespace tandem::server
