// A room's checkpoint as bytes: the records Room<G> writes so that another process can rebuild
// it (room.hpp: enable_checkpoints, take_checkpoint, restore), and the walk that reads them back.
// The layout is the kit's, not a game's: a game's part is its snapshot and its frames' commands.
// A checkpoint holds no resume token, only each token's SHA-256, so reading a store takes no seat.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"

namespace tandem::net {

// A segment is a run of records, each `u8 kind | u32 length | length bytes` (little-endian), and
// always starts with a snapshot record. A store keeps one segment per room: the newest.
//   snapshot (1): u16 checkpoint_format_version | u8 n | the game's name (n bytes)
//                 | u64 the game's fingerprint hash | the room's config beyond the game's
//                   (u32 input delay, u32 max players, u32 max watchers, i64 idle timeout ns,
//                   i64 resume grace ns) | u32 m | the game's snapshot (m bytes, sim::encode_snapshot,
//                   which carries the game's config and tick) | the room's seats (below)
//   frame (2):    one tick's Frame exactly as the room sent it (protocol.hpp): the tick, the digest
//                 after it and the inputs applied, in canonical order
//   seats (3):    the room's seats, written whenever they change between snapshots:
//                 u32 seats | per seat: u8 state (0 free, 1 taken, 2 leaving, 3 kept for a token)
//                 | u64 the tick it is free at (leaving, kept) | u8 has a token | 32 bytes of the
//                 token's SHA-256 when it has one
//                 | u32 retired tokens | u32 next slot | per token: 32 bytes of SHA-256 | u8 why
//                 | u32 inputs the room authored that have not landed | per input: u64 the tick it
//                   lands on | u32 player | u8 kind | the command's bytes
//   input (4):    a client's command the room accepted, before any frame applies it: u64 the tick
//                 it lands on | u32 player | u32 sequence | the command's bytes. So a restored
//                 room applies what its clients sent before the crash, as the dead one would have.
enum class CheckpointKind : uint8_t { snapshot = 1, frame = 2, seats = 3, input = 4 };
inline constexpr uint16_t checkpoint_format_version = 1;
inline constexpr uint32_t checkpoint_record_header_bytes = 5;
// A record's payload is at most this: a frame is at most a few KiB and a snapshot, bounded by
// its game, well under it. A length above it is damage, not a record to allocate for.
inline constexpr uint32_t max_checkpoint_record_bytes = 64u << 20;

// A snapshot every five seconds of ticks (300 at 60 Hz) by default: a restore decodes one
// snapshot and steps at most that many recorded ticks (ships: about 10 ms, the arena's default
// world about 60 ms on this machine; docs/scaling.md), while a snapshot's bytes are written once
// per five seconds instead of every tick.
inline constexpr uint32_t default_checkpoint_seconds = 5;

// What take_checkpoint hands the store: records to append to the room's segment, or, when
// new_segment, a whole new segment (its first record a snapshot) that replaces the old one.
struct CheckpointBatch {
    bool new_segment = false;
    std::vector<uint8_t> bytes;
    uint64_t through_tick = 0;   // the room's tick when the batch was taken
    bool empty() const { return bytes.empty(); }
};

struct CheckpointRecord {
    CheckpointKind kind = CheckpointKind::frame;
    std::span<const uint8_t> payload;
};

// Walks a segment's records. A last record cut short (a write torn by a machine crash) ends the
// walk with torn() set: what precedes it is whole. A record of unknown kind or impossible
// length is damage (bad() set): nothing after it can be trusted.
class CheckpointReader {
public:
    explicit CheckpointReader(std::span<const uint8_t> segment) : bytes_(segment) {}
    std::optional<CheckpointRecord> next();
    bool torn() const { return torn_; }
    bool bad() const { return bad_; }

private:
    std::span<const uint8_t> bytes_;
    uint64_t at_ = 0;
    bool torn_ = false;
    bool bad_ = false;
};

// Appends one record.
void append_checkpoint_record(std::vector<uint8_t>& out, CheckpointKind kind, std::span<const uint8_t> payload);

// The game a segment's snapshot names, so a process can pick which game to restore it as.
std::optional<std::string_view> checkpoint_game(std::span<const uint8_t> segment);

// Why Room<G>::restore refused a segment.
enum class RestoreError : uint8_t {
    empty,                  // no whole record at all
    no_snapshot,            // the first record is not a snapshot
    damaged,                // a record of unknown kind or impossible length, or a payload that does not parse
    format_version,         // another checkpoint format
    game_mismatch,          // the snapshot is another game's
    fingerprint_mismatch,   // another build of the game (its simulation differs)
    snapshot,               // the game's snapshot does not decode
    room_config,            // the room's config beyond the game's is out of range
    frame_out_of_order,     // a frame that is not the next tick
    digest_mismatch,        // a frame's digest differs from the state's after stepping its inputs
};
std::string_view error_name(RestoreError error);
std::string_view describe(RestoreError error);

struct RestoreReport {
    uint64_t snapshot_tick = 0;   // the tick the segment's snapshot holds
    uint64_t tick = 0;            // the restored room's tick (the segment's last frame)
    uint64_t frames_replayed = 0;
    uint32_t seats_kept = 0;      // seats kept for their tokens once restored (those that had a connection too)
    bool torn_tail = false;       // a last record cut short was left out
};

}  // namespace tandem::net
