// `tandem serve` as a library: the transport that moves bytes between sockets and a room, the
// hooks through which a game adds its own HTTP routes, and the command (flags to exit status)
// around a room that a game's factory builds. The transport keeps time and guards the door; it
// decides nothing about the game, and it must never block the tick on a slow client or a route.
// A game's own main is serve_main.hpp's serve_main<G>; this header is what it is built on.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tandem/core/result.hpp"
#include "tandem/server/options.hpp"
#include "tandem/server/room_port.hpp"

namespace tandem::net {
class TicketJudge;
}

namespace tandem::server {

class RoomCheckpointing;

// The transport's bounds, each with its reason; tests shorten the timeouts and lower the
// budgets. docs/scaling.md lists them with their values. Loopback is an address like any
// other: behind a proxy every client is the proxy's address (--per-address-limit raises the
// per-address budgets, as the load benchmark does from one machine). An IPv6 peer counts by
// its /64 (AddressKey).
struct TransportLimits {
    // Per connection, everything it has queued: the room's frames and Beast's own (pongs, the
    // close frame). The room's flow control pauses a slow reader long before this; the cap is
    // the backstop that closes a peer the room could not stop (1008 write_queue_overflow).
    // Pongs are never refused but never pass it either: the session stops reading from a
    // peer whose queue could not take the pongs of one more read, so a peer that pings and
    // never reads costs at most this (and TCP stops it).
    uint64_t write_queue_cap_bytes = uint64_t{1} << 20;
    // A WebSocket's kernel send buffer (SO_SNDBUF; Linux books twice this). Left to itself the
    // kernel grows it up to 4 MiB for a peer that does not read, memory /metrics cannot see and
    // the cap does not bound; fixed, what a connection can hold is this plus the cap. 64 KiB is
    // over a second of a room's stream (54 KB/s) and two baselines. 0: the kernel's default.
    uint32_t socket_send_buffer_bytes = 64 * 1024;
    // The opening and closing WebSocket handshakes must finish in this.
    int64_t handshake_timeout_ns = 5'000'000'000;
    // An HTTP request's headers (and its body, at most 4 KiB) must arrive within this of the
    // connection's opening or, on a keep-alive connection, of the request's first byte: a
    // slow sender (slowloris) holds a socket 5 s, not the 30 s of an idle connection.
    int64_t request_timeout_ns = 5'000'000'000;
    // A WebSocket silent this long is dropped; a ping goes out at half of it.
    int64_t idle_timeout_ns = 30'000'000'000;
    // A keep-alive HTTP connection with no request begun this long is closed.
    int64_t http_idle_timeout_ns = 30'000'000'000;
    // After the close frame is queued, the peer has this long to take it before the socket
    // is torn down (a client that stopped reading never will).
    int64_t close_timeout_ns = 1'000'000'000;
    // SIGINT/SIGTERM: everything still open after this is torn down and the process exits.
    int64_t drain_deadline_ns = 1'500'000'000;
    // Open sockets of any kind; past it new connections are refused (closed at once), so file
    // descriptors and memory stay bounded whatever the room admits.
    uint32_t max_open_sockets = 16'384;
    // Open sockets of one peer address, HTTP and WebSocket alike: past it a new connection is
    // answered 503 connections_per_address and closed, so no one address takes the sockets
    // every other client needs. A room holds 16 players and 1,024 watchers; 64 leaves a
    // household or an office behind one address room for every tab it would open.
    uint32_t connections_per_address = 64;
    // Of those, the ones whose HTTP request or WebSocket upgrade is unfinished (from the
    // connection's opening, or a keep-alive request's first byte, to its headers or to the
    // upgrade's end): past it a new connection is answered 503 handshakes_per_address. A
    // browser opens 6 connections to a host at once; slow senders beyond 16 are refused at
    // once instead of each holding a socket until the request deadline.
    uint32_t handshakes_per_address = 16;
    // Pings a WebSocket peer may send: `pings_per_second` sustained after a burst of
    // `ping_burst`, beyond which it is closed 1008 ping_rate. Browsers never send pings (the
    // server pings them when idle); a library client pinging once a second stays far inside.
    // Each ping costs a read and a pong on the room's thread. 0 pings a second: no limit.
    uint32_t pings_per_second = 4;
    uint32_t ping_burst = 8;
    // Player seats one address may hold in a room, kept seats (a dropped player's, for its
    // resume token) included: past it a player's hello is refused with address_limit. Without
    // it one client takes all 16 seats of a room and keeps them with a message per idle timeout
    // (and dropping its sockets only turns them into kept seats). 4 seats a couch of players
    // behind one home router, while one address can take at most a quarter of a 16-seat room.
    uint32_t seats_per_address = 4;
    // Watcher places one address may hold: past it a watcher's hello is refused with
    // address_limit. 32 is a classroom behind one router; filling a room's 1,024 places then
    // takes 32 addresses, each within its 64 connections.
    uint32_t watchers_per_address = 32;
    // Rooms POST /rooms may create: at most max_rooms at once in the process (the default room
    // not counted), at most rooms_per_address of them created by one address (--per-address-limit
    // sets it too). An arena room is about 1 MB before anyone joins: 64 bound what strangers can
    // make the process hold to tens of MB, and 4 leave a lobby behind one address room to work
    // while one stranger takes at most a sixteenth. docs/scaling.md, "Many rooms".
    uint32_t max_rooms = 64;
    uint32_t rooms_per_address = 4;
};

// ---- Rooms: what POST /rooms may create -----------------------------------------------------
// What a created room is asked for: the request's seats and places (unset: the game's, or the
// command line's for the server's own game), the per-address shares and, with tickets on, the
// judge of the room's tickets (which name the room's id).
struct RoomSettings {
    std::string id;
    std::optional<uint32_t> max_players;
    std::optional<uint32_t> max_watchers;
    std::shared_ptr<net::TicketJudge> judge;
};

// A game the server can host rooms of. `make` refuses settings the game cannot take (a seat
// count above its bound) with a sentence; the server answers it 400 bad_value.
// With --store, `make` writes the room's checkpoint there under its id, and `restore` brings a
// room of this game back from its checkpoint (the lease taken and the segments loaded by
// `checkpointing`): failover's adoption (store_watch.hpp). The room keeps the settings its
// checkpoint holds; `restored` says from which tick.
struct RoomKind {
    std::string game;
    std::function<Result<std::unique_ptr<RoomPort>, ServeUsageError>(const ServeOptions& options, const RoomSettings& settings)> make;
    std::function<Result<std::unique_ptr<RoomPort>, ServeUsageError>(const ServeOptions& options, const RoomSettings& settings,
                                                                      std::unique_ptr<RoomCheckpointing> checkpointing,
                                                                      std::string* restored)>
        restore;
};

// ---- Routes: a game's own URLs ------------------------------------------------------------
// A GET or HEAD of a route's path (any query) is handed to the route; every other URL stays
// the transport's (the files, /pkg/, /ws, /metrics, /healthz, which no route may take).
struct HttpRequest {
    std::string target;   // path and query as sent ("/native/stream?scenario=trig&ticks=10")
    bool head = false;    // HEAD: the answer's headers are sent without its body
    std::string peer;     // the client's IP address as text ("127.0.0.1", "::1"); "" unknown
    // Set by the transport (from its thread) once the client's connection ends before the
    // answer (it closed or reset it): nobody is left to answer, so a route may stop its work.
    // Null when nothing watches (a request made by hand).
    std::shared_ptr<const std::atomic<bool>> gone;
    bool client_gone() const { return gone && gone->load(std::memory_order_relaxed); }
    std::string_view path() const { return std::string_view(target).substr(0, target.find('?')); }
    // After the '?', "" when there is none.
    std::string_view query() const {
        const size_t q = target.find('?');
        return q == std::string::npos ? std::string_view{} : std::string_view(target).substr(q + 1);
    }
};

struct HttpResponse {
    uint16_t status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    // Sent besides Server, X-Content-Type-Options, Content-Type, Content-Length and
    // Cache-Control (no-store: a route's answer is computed, never a file).
    std::vector<std::pair<std::string, std::string>> headers;
};

// Answers the request: once, from any thread, now or later. The transport writes the answer on
// its own thread; an answer after the server stopped, or a second one, is dropped.
using HttpReply = std::function<void(HttpResponse)>;

struct HttpRoute {
    std::string path;                 // exact, starting with '/': "/native/stream"
    // Runs on the server's I/O thread, which carries every room's messages and sends: it must return at once and hand
    // any work that takes longer to a thread of its own, answering through `reply` from there.
    std::function<void(const HttpRequest& request, HttpReply reply)> handle;
    // Called once the server has stopped serving (after the drain), before serve() returns: a
    // route's worker stops here. May be empty.
    std::function<void()> stop;
    std::vector<std::string> usage;   // its lines in --help's list of URLs (the first names it)
    // The route's own flags (in --help beside the game's, each accepted once), and what reads
    // them with the rest of the options before serving: a message is a command-line mistake
    // (exit 2). Either may be empty.
    std::vector<FlagSpec> flags;
    std::function<std::optional<std::string>(const ServeOptions& options)> configure;
    // The route's own figures in Prometheus text format (# HELP and # TYPE lines included,
    // names of its own), appended to /metrics on the server's thread. May be empty.
    std::function<std::string()> metrics;
};

// Binds, prints "listening on http://HOST:PORT/" on out, and serves until SIGINT/SIGTERM.
// Returns 0 after a clean drain, 1 when the address cannot be bound, 2 when a route takes a
// path the transport serves itself. `room` is the default room (plain /ws, named
// options.room_name, never closed); `kinds` are the games POST /rooms may create rooms of, the
// default room's game first (none: POST /rooms creates nothing, and answers unknown_game).
int serve(const ServeOptions& options, RoomPort& room, std::span<const HttpRoute> routes,
          const TransportLimits& limits, std::ostream& out, std::ostream& err, std::span<const RoomKind> kinds = {});

// ---- The command ----------------------------------------------------------------------------
// A game as `tandem serve` sees it, without its type: what its flags are, how to check a
// scenario's name, how to build its room from the parsed options, and its routes.
// serve_main<G> (serve_main.hpp) builds one from a game's traits and its GameServe<G>.
struct ServeGame {
    std::string command = "tandem serve";    // for --help's usage line
    std::string program = "tandem serve";    // what its messages start with
    std::string name;                         // the game's name, for --help ("" = unnamed)
    std::vector<FlagSpec> flags;              // the game's own flags
    // What --scenario accepts ("" = the game has no scenarios: --scenario is unknown), and why
    // a name does not resolve (nullopt when it does).
    std::string scenario_names;
    std::function<std::optional<std::string>(std::string_view name)> scenario_problem;
    // The room the parsed options ask for; a refusal is a command-line mistake (exit 2).
    std::function<Result<std::unique_ptr<RoomPort>, ServeUsageError>(const ServeOptions&)> make_room;
    std::vector<HttpRoute> routes;
    // The games POST /rooms may create rooms of: this game's first, then any other the binary
    // has (`tandem serve --game arena` hosts ships' rooms too).
    std::vector<RoomKind> room_kinds;
};

// `tandem serve ARGS...`: --help, exit 2 on any command-line mistake, then serve().
int serve_command(std::span<const std::string_view> args, const ServeGame& game, const TransportLimits& limits,
                  std::ostream& out, std::ostream& err);

}  // namespace tandem::server
