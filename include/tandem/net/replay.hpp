// Replay files: how a match (a room's recording or what one client received) travels as a desync
// bug report. The file is the server's own messages as they went over the wire, so a replay
// re-runs exactly what a client would have run, and a checker can name the first tick (and,
// where the file holds the room's section digests there, the section) where this build differs.
//
//   "TNDR" | u16 replay format version | u16 protocol_version | u64 world::fingerprint_hash()
//   | records: u32 length | one server message exactly as on the wire (protocol.hpp)
//
// All integers little-endian. A room's recording: a Welcome (role watch, the room's config and
// input delay), a Baseline of the world the match starts from, then per tick its Frame and the
// room's Sections for that tick (held = 1). A client's export: its Welcome, the Baselines and
// Frames it received in order, plus any Sections it got.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tandem/net/protocol.hpp"

namespace tandem::net {

inline constexpr uint16_t replay_format_version = 1;
inline constexpr uint32_t replay_header_bytes = 4 + 2 + 2 + 8;

// ---- Writing ------------------------------------------------------------------------------
// Appends the 16-byte header for this build (its protocol version and fingerprint hash).
void append_replay_header(std::vector<uint8_t>& out);
// Appends one record: the message's length as u32, then its bytes as they are. The caller
// passes one encoded server message (Welcome, Baseline, Frame or Sections).
void append_replay_record(std::vector<uint8_t>& out, std::span<const uint8_t> server_message);

}  // namespace tandem::net
