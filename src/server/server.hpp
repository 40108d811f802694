// `tandem serve` as a library: the command (flags to exit status) and the transport that
// moves bytes between sockets and a room. The transport keeps time and guards the door;
// it decides nothing about the game, and it must never block the tick on a slow client.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <span>
#include <string_view>

#include "server/options.hpp"
#include "server/room_port.hpp"
#include "tandem/core/result.hpp"

namespace tandem::server {

// The transport's bounds, each with its reason; tests shorten the timeouts.
struct TransportLimits {
    // Per connection. The room's flow control pauses a slow reader long before this; the
    // cap is the backstop that closes a peer the room could not stop (1008).
    uint64_t write_queue_cap_bytes = uint64_t{1} << 20;
    // The opening and closing handshakes (and an HTTP request's headers) must finish in this.
    int64_t handshake_timeout_ns = 5'000'000'000;
    // A WebSocket silent this long is dropped; a ping goes out at half of it.
    int64_t idle_timeout_ns = 30'000'000'000;
    // A keep-alive HTTP connection idle this long is closed.
    int64_t http_idle_timeout_ns = 30'000'000'000;
    // After the close frame is queued, the peer has this long to take it before the socket
    // is torn down (a client that stopped reading never will).
    int64_t close_timeout_ns = 1'000'000'000;
    // SIGINT/SIGTERM: everything still open after this is torn down and the process exits.
    int64_t drain_deadline_ns = 1'500'000'000;
    // Open sockets of any kind; past it new connections are refused (503), so file
    // descriptors and memory stay bounded whatever the room admits.
    uint32_t max_open_sockets = 16'384;
};

// Binds, prints "listening on http://HOST:PORT/" on out, and serves until SIGINT/SIGTERM.
// Returns 0 after a clean drain, 1 when the address cannot be bound.
int serve(const ServeOptions& options, RoomPort& room, const TransportLimits& limits, std::ostream& out,
          std::ostream& err);

// Builds the room a command line asks for; a refusal is a command-line mistake (exit 2).
using RoomFactory = std::function<Result<std::unique_ptr<RoomPort>, ServeUsageError>(const ServeOptions&)>;

// `tandem serve ARGS...`: --help, exit 2 on any command-line mistake, then serve().
int serve_command(std::span<const std::string_view> args, const RoomFactory& make_room, const TransportLimits& limits,
                  std::ostream& out, std::ostream& err);

}  // namespace tandem::server
