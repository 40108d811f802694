// The real room behind the transport: src/net's Room adapted to the RoomPort seam (close
// reasons to WebSocket codes, RoomStats to the figures /metrics shows, the replay written
// to --record as it grows), and the `tandem serve` entry point the CLI calls. Nothing here
// decides anything; the room does.
#pragma once

#include <iosfwd>
#include <memory>
#include <span>
#include <string_view>

#include "server/options.hpp"
#include "server/room_port.hpp"
#include "tandem/core/result.hpp"

namespace tandem::server {

// Whether this build has src/net's Room (it is being written alongside the server).
bool net_room_available();

// The room a command line asks for: the world (--scenario, --pellets, --tick-hz) and the
// room's limits (--input-delay, --max-players, --max-watchers), recording to --record.
// A configuration the room refuses is a command-line mistake.
Result<std::unique_ptr<RoomPort>, ServeUsageError> make_net_room(const ServeOptions& options);

// `tandem serve ARGS...`: returns the process exit status.
int serve_main(std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

}  // namespace tandem::server
