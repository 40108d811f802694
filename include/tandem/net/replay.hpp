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
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/world/world.hpp"

namespace tandem::net {

inline constexpr uint16_t replay_format_version = 1;
inline constexpr uint32_t replay_header_bytes = 4 + 2 + 2 + 8;

// ---- Writing ------------------------------------------------------------------------------
// Appends the 16-byte header for this build (its protocol version and fingerprint hash).
void append_replay_header(std::vector<uint8_t>& out);
// Appends one record: the message's length as u32, then its bytes as they are. The caller
// passes one encoded server message (Welcome, Baseline, Frame or Sections).
void append_replay_record(std::vector<uint8_t>& out, std::span<const uint8_t> server_message);

// ---- Reading ------------------------------------------------------------------------------
enum class ReplayError : uint8_t {
    truncated,             // the header, a record's length or a record's bytes end early
    bad_magic,             // not a replay ("TNDR")
    unsupported_version,   // a replay format version this build cannot read
    protocol_mismatch,     // written by a build speaking another protocol version
    fingerprint_mismatch,  // written by a build of another simulation
    bad_record,            // a record that is no server message (ProtocolError), or a kind a
                           // replay never holds (pong, error)
    out_of_order,          // a welcome not first or naming another config, a frame before any
                           // baseline or not the tick after the one before, a baseline going back
    no_baseline,           // no baseline: nothing to start the world from
    bad_baseline,          // a baseline whose snapshot does not decode, or whose world disagrees
                           // with the record (its tick, the welcome's config)
    tick_not_covered,      // a tick asked for (dump) that the replay does not reach
};
std::string_view error_name(ReplayError error);
std::string_view describe(ReplayError error);

// A refusal with where it happened: the record (0-based, the header is none) and the byte
// offset of its length field, and a sentence (ending ", in record N at byte B" for a record).
struct ReplayFault {
    ReplayError error = ReplayError::truncated;
    uint64_t record = 0;
    uint64_t offset = 0;
    std::string text;
};
inline std::string_view error_name(const ReplayFault& f) { return error_name(f.error); }
inline std::string_view describe(const ReplayFault& f) { return f.text; }

// Each record, decoded. Baselines keep their snapshot bytes; the reader has checked that each
// decodes (world::decode) to a world at the baseline's tick with the welcome's config.
struct Replay {
    std::optional<Welcome> welcome;
    std::vector<ServerMessage> records;  // in file order (the welcome included)
};

// The whole file, every record checked for its kind and order as above. Never reads past the
// span; a record length is checked against the bytes present before anything is read for it.
Result<Replay, ReplayFault> read_replay(std::span<const uint8_t> bytes);

// ---- Checking -----------------------------------------------------------------------------
// The first tick at which this build's re-run differs from the replay.
struct Divergence {
    uint64_t tick = 0;
    uint64_t expected_digest = 0;  // the replay's (the frame's, or the baseline world's)
    uint64_t actual_digest = 0;    // this build's re-run
    // The sections that differ, in SectionDigests order ("config", "wells", "pellets",
    // "scores", "rng"), when the replay holds them for that tick: a held Sections record, or a
    // baseline (a whole world) at that tick. Otherwise empty and sections_known is false.
    bool sections_known = false;
    std::vector<std::string_view> sections;
};

struct ReplayCheck {
    uint64_t first_tick = 0;        // the first baseline's tick
    uint64_t last_tick = 0;         // the newest tick re-run (or adopted from a baseline)
    uint64_t frames_checked = 0;    // frames stepped and compared
    uint64_t baselines_checked = 0; // later baselines compared against the re-run world
    uint64_t baselines_adopted = 0; // later baselines past a gap in the frames (nothing to check)
    std::optional<Divergence> divergence;  // none: every digest agreed
};

// Re-runs the replay from its first baseline with a world::Stepper, stepping each frame's
// inputs and comparing the digest after it; a later baseline at the tick the re-run has reached
// is compared world against world, one past a gap in the frames is adopted. Stops at the first
// divergence.
ReplayCheck check_replay(const Replay& replay);

// This build's re-run world at `tick` (as check_replay computes it, but stepping on past a
// divergence: it is the state to diff against another build's), or tick_not_covered naming
// the ticks the replay covers.
Result<world::World, ReplayFault> replay_world_at(const Replay& replay, uint64_t tick);

// The names of the sections that differ between two digests, in SectionDigests order.
std::vector<std::string_view> differing_sections(const world::SectionDigests& a, const world::SectionDigests& b);

}  // namespace tandem::net
