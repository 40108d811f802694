// Replay files: how a match of any game G (a room's recording or what one client received)
// travels as a desync bug report. The file is the server's own messages as they went over the
// wire, so a replay re-runs exactly what a client would have run, and a checker can name the
// first tick (and, where the file holds the room's section digests there, the section; where it
// holds a state at or after it, the fields) where this build differs.
//
//   "TNDR" | u16 replay format version | u16 protocol_version | u64 sim::fingerprint_hash<G>()
//   | records: u32 length | one server message exactly as on the wire (protocol.hpp)
//   | the end marker: u32 0 (no server message is empty)
//
// A writer that finishes cleanly ends the file with the end marker; a file without one was cut
// short (a crash, a kill, a full disk) and holds the match only up to its last whole record.
// All integers little-endian. A room's recording: a Welcome (role watch, the room's config and
// input delay), a Baseline of the state the match starts from, then per tick its Frame and the
// room's Sections for that tick (held = 1). A client's export: its Welcome, the Baselines and
// Frames it received in order, plus any Sections it got. The header's fingerprint names the
// game (and its build), so a reader knows which game's reader to call before reading further.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tandem/core/bytes.hpp"
#include "tandem/core/result.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::net {

// Format 2: the game's fingerprint in the header, the protocol's opaque game payloads in the
// records (protocol version 2). Format 1 (the arena-only files) is not read.
inline constexpr uint16_t replay_format_version = 2;
inline constexpr uint32_t replay_header_bytes = 4 + 2 + 2 + 8;

// ---- Writing ------------------------------------------------------------------------------
// Appends the 16-byte header for this build (its protocol version) and a game's fingerprint hash.
void append_replay_header(std::vector<uint8_t>& out, uint64_t fingerprint_hash);
template <sim::Simulation G>
void append_replay_header(std::vector<uint8_t>& out) {
    append_replay_header(out, sim::fingerprint_hash<G>());
}
// Appends one record: the message's length as u32, then its bytes as they are. The caller
// passes one encoded server message (Welcome, Baseline, Frame or Sections).
void append_replay_record(std::vector<uint8_t>& out, std::span<const uint8_t> server_message);
// Appends the end marker: nothing may follow it. A room appends it when its recording ends, a
// client's export ends with it.
void append_replay_end(std::vector<uint8_t>& out);
inline constexpr uint32_t replay_end_bytes = 4;

// ---- Reading ------------------------------------------------------------------------------
enum class ReplayError : uint8_t {
    truncated,             // the header, a record's length or a record's bytes end early; or
                           // a file without its end marker that holds no baseline
    bad_magic,             // not a replay ("TNDR")
    unsupported_version,   // a replay format version this build cannot read
    protocol_mismatch,     // written by a build speaking another protocol version
    fingerprint_mismatch,  // written by a build of another game or simulation
    bad_record,            // a record that is no server message (ProtocolError), a kind a
                           // replay never holds (pong, error), a welcome naming another game or
                           // a config the game refuses, a frame whose inputs the game refuses,
                           // sections of another count than the game's, bytes after the end
                           // marker
    out_of_order,          // a welcome not first or naming another config, a frame before any
                           // baseline or not the tick after the one before, a baseline going back
    no_baseline,           // no baseline: nothing to start the state from
    bad_baseline,          // a baseline whose snapshot does not decode, or whose state disagrees
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

// Each record, decoded. Baselines keep their snapshot bytes and frames their inputs' bytes; the
// reader has checked that each baseline decodes (sim::decode_snapshot<G>) to a state at the
// baseline's tick with the welcome's config, and that each frame's inputs are the game's.
// How the file ends. A cut inside a record is refused (truncated, its fault's offset the cut
// record's start: what comes before is the file's whole records, which read as cut_short).
enum class ReplayEnd : uint8_t {
    marked,      // with its end marker: the match as its writer finished it
    cut_short,   // after a whole record, without the end marker: the writer never finished
};
struct Replay {
    std::optional<Welcome> welcome;
    std::vector<ServerMessage> records;  // in file order (the welcome included)
    ReplayEnd end = ReplayEnd::marked;
};

// The ticks the records reach: the first baseline's, the newest a baseline or frame reaches,
// and whether a later baseline skips ticks (a client that resynced).
struct ReplayCoverage {
    std::optional<uint64_t> first;   // none: no baseline
    uint64_t last = 0;
    bool gaps = false;
};
ReplayCoverage replay_coverage(const Replay& replay);

namespace detail {
ReplayFault replay_fault(ReplayError error, uint64_t record, uint64_t offset, std::string_view what);
ReplayFault replay_header_fault(ReplayError error, std::string_view what);
// The header checked against this build and a game's fingerprint (none: it holds).
std::optional<ReplayFault> check_replay_header(std::span<const uint8_t> bytes, uint64_t fingerprint_hash,
                                               std::string_view fingerprint);
// The next record's body from `offset` (advanced past it), or truncated.
Result<std::span<const uint8_t>, ReplayFault> next_replay_record(std::span<const uint8_t> bytes, uint64_t index,
                                                                 uint64_t& offset);
// The tick_not_covered fault naming what the replay covers.
ReplayFault tick_not_covered(const Replay& replay, uint64_t tick);
}  // namespace detail

// The whole file, every record checked for its kind and order as above. Never reads past the
// span; a record length is checked against the bytes present before anything is read for it.
template <sim::Simulation G>
Result<Replay, ReplayFault> read_replay(std::span<const uint8_t> bytes) {
    if (auto bad = detail::check_replay_header(bytes, sim::fingerprint_hash<G>(), sim::fingerprint<G>())) return *bad;
    using detail::replay_fault;
    Replay replay;
    std::optional<typename G::Config> config;  // the welcome's
    std::optional<uint64_t> tick;              // the newest tick a baseline or frame reached
    std::vector<Applied<G>> applied;
    uint64_t offset = replay_header_bytes;
    replay.end = ReplayEnd::cut_short;
    for (uint64_t index = 0; offset < bytes.size(); ++index) {
        const uint64_t at = offset;
        auto body = detail::next_replay_record(bytes, index, offset);
        if (!body.ok()) return body.error();
        if (body->empty()) {   // the end marker
            if (offset != bytes.size()) {
                return replay_fault(ReplayError::bad_record, index, at,
                                    std::to_string(bytes.size() - offset) + " bytes follow the end marker");
            }
            replay.end = ReplayEnd::marked;
            break;
        }
        auto decoded = decode_server(*body);
        if (!decoded.ok()) {
            return replay_fault(ReplayError::bad_record, index, at,
                                "a record does not decode: " + std::string(describe(decoded.error())));
        }
        ServerMessage& m = *decoded;
        if (const auto* welcome = std::get_if<Welcome>(&m)) {
            if (!replay.welcome) {
                if (index != 0) return replay_fault(ReplayError::out_of_order, index, at, "a welcome must be the first record");
                if (welcome->game != G::name) {
                    return replay_fault(ReplayError::bad_record, index, at,
                                        "a welcome names the game '" + welcome->game + "', the header " + std::string(G::name));
                }
                auto c = config_of<G>(*welcome);
                if (!c.ok()) {
                    return replay_fault(ReplayError::bad_record, index, at,
                                        "a welcome's config does not decode: " + std::string(describe(c.error())));
                }
                config = *c;
                replay.welcome = *welcome;
            } else if (welcome->config != replay.welcome->config || welcome->game != replay.welcome->game) {
                // A client that reconnected is welcomed again, to the same room. The config's
                // encoding is canonical: equal bytes, equal configs.
                return replay_fault(ReplayError::out_of_order, index, at, "a later welcome names another game config");
            }
        } else if (const auto* b = std::get_if<Baseline>(&m)) {
            auto s = sim::decode_snapshot<G>(b->snapshot);
            if (!s.ok()) {
                return replay_fault(ReplayError::bad_baseline, index, at,
                                    "a baseline's snapshot does not decode: " + std::string(describe(s.error())));
            }
            if (G::tick(*s) != b->tick) {
                return replay_fault(ReplayError::bad_baseline, index, at, "a baseline's state is at another tick than its record says");
            }
            if (config && !(G::config_of(*s) == *config)) {
                return replay_fault(ReplayError::bad_baseline, index, at, "a baseline's game config differs from the welcome's");
            }
            if (tick && b->tick < *tick) return replay_fault(ReplayError::out_of_order, index, at, "a baseline goes back in time");
            tick = b->tick;
        } else if (const auto* f = std::get_if<Frame>(&m)) {
            if (!tick) return replay_fault(ReplayError::out_of_order, index, at, "a frame before any baseline");
            if (f->tick != *tick + 1) {
                return replay_fault(ReplayError::out_of_order, index, at,
                                    "frame of tick " + std::to_string(f->tick) + " follows tick " + std::to_string(*tick));
            }
            if (auto inputs = decode_frame_inputs<G>(*f, applied); !inputs.ok()) {
                return replay_fault(ReplayError::bad_record, index, at,
                                    "a frame's inputs are not the game's: " + std::string(describe(inputs.error())));
            }
            tick = f->tick;
        } else if (const auto* s = std::get_if<Sections>(&m)) {
            if (s->held && s->sections.size() != sim::section_count<G>) {
                return replay_fault(ReplayError::bad_record, index, at,
                                    "a sections record holds " + std::to_string(s->sections.size()) + " digests, the game has " +
                                        std::to_string(sim::section_count<G>) + " sections");
            }
        } else {
            return replay_fault(ReplayError::bad_record, index, at,
                                "a replay holds welcome, baseline, frame and sections records only");
        }
        replay.records.push_back(std::move(m));
    }
    if (!tick && replay.end == ReplayEnd::cut_short) {
        // Nothing to check, and the writer never finished: cut before the match began.
        return detail::replay_header_fault(ReplayError::truncated,
                                           "the replay ends without its end marker before any baseline: it covers no tick");
    }
    if (!tick) return detail::replay_header_fault(ReplayError::no_baseline, "the replay holds no baseline to start from");
    return replay;
}

// ---- Checking -----------------------------------------------------------------------------
// The first tick at which this build's re-run differs from the replay.
struct Divergence {
    uint64_t tick = 0;
    uint64_t expected_digest = 0;  // the replay's (the frame's, or the baseline state's)
    uint64_t actual_digest = 0;    // this build's re-run
    // The sections that differ, in the game's section order, when the replay holds them for
    // that tick: a held Sections record, or a baseline (a whole state) at that tick. Otherwise
    // empty and sections_known is false.
    bool sections_known = false;
    std::vector<std::string_view> sections;
    // The fields that differ between the first state the replay holds at or after `tick` (a
    // baseline the re-run reaches without a gap) and this build's re-run at that tick
    // (fields_tick), the replay's side first; none when the replay holds no such state.
    std::optional<sim::FieldDiff> fields;
    uint64_t fields_tick = 0;
};

struct ReplayCheck {
    uint64_t first_tick = 0;        // the first baseline's tick
    uint64_t last_tick = 0;         // the newest tick re-run (or adopted from a baseline)
    uint64_t frames_checked = 0;    // frames stepped and compared
    uint64_t baselines_checked = 0; // later baselines compared against the re-run state
    uint64_t baselines_adopted = 0; // later baselines past a gap in the frames (nothing to check)
    std::optional<Divergence> divergence;  // none: every digest agreed
};

namespace detail {

// The re-run: one walk over the records, shared by the checker and the dump.
template <sim::Simulation G>
struct ReplayRun {
    typename G::State state{};
    typename G::Stepper stepper;
    std::vector<Applied<G>> applied;
    std::vector<sim::Input<G>> inputs;
    ReplayCheck check;
    bool started = false;
};

template <sim::Simulation G>
typename G::State decoded_baseline(const Baseline& b) {
    // read_replay decoded every baseline already; a Replay built otherwise is the caller's.
    auto s = sim::decode_snapshot<G>(b.snapshot);
    return s.ok() ? std::move(*s) : typename G::State{};
}

// The room's section digests by tick, from the held Sections records: what names a divergent
// section.
using HeldSections = std::map<uint64_t, std::vector<uint64_t>>;
HeldSections held_sections(const Replay& replay);

template <sim::Simulation G>
void diverge(ReplayRun<G>& run, uint64_t tick, uint64_t expected, const HeldSections& held,
             const std::optional<sim::SectionDigests<G>>& whole_state_sections) {
    if (run.check.divergence) return;  // the first one is the one to name
    Divergence d;
    d.tick = tick;
    d.expected_digest = expected;
    const sim::Digests<G> mine = sim::digests<G>(run.state);
    d.actual_digest = mine.digest;
    const std::span<const uint64_t> mine_sections(mine.sections);
    if (whole_state_sections) {
        d.sections_known = true;
        d.sections = sim::differing_sections<G>(std::span<const uint64_t>(*whole_state_sections), mine_sections);
    } else if (auto it = held.find(tick); it != held.end()) {
        d.sections_known = true;
        d.sections = sim::differing_sections<G>(std::span<const uint64_t>(it->second), mine_sections);
    }
    run.check.divergence = std::move(d);
}

// Walks the records until the end, or (stop_at) the state at that tick. The check stops at the
// first divergence, but for its field diff: when a baseline follows, the re-run steps on (its
// counts frozen) to the first baseline it reaches without a gap and diffs the two states. The
// dump (stop_at) records the divergence and steps on, since what it shows is this build's own
// re-run, the state to diff against another build's dump at the same tick.
template <sim::Simulation G>
void walk(const Replay& replay, ReplayRun<G>& run, std::optional<uint64_t> stop_at) {
    const HeldSections held = held_sections(replay);
    // The last baseline's record: past it, a divergence has no state left to diff against.
    std::size_t last_baseline = 0;
    for (std::size_t i = 0; i < replay.records.size(); ++i) {
        if (std::holds_alternative<Baseline>(replay.records[i])) last_baseline = i;
    }
    bool seeking_fields = false;   // diverged; stepping on to a baseline for the field diff
    for (std::size_t i = 0; i < replay.records.size(); ++i) {
        const ServerMessage& m = replay.records[i];
        if (run.check.divergence && !stop_at && !seeking_fields) {
            if (i > last_baseline) return;
            seeking_fields = true;
        }
        if (stop_at && run.started && G::tick(run.state) >= *stop_at) return;
        if (const auto* b = std::get_if<Baseline>(&m)) {
            typename G::State theirs = decoded_baseline<G>(*b);
            if (!run.started) {
                run.state = std::move(theirs);
                run.started = true;
                run.check.first_tick = run.check.last_tick = G::tick(run.state);
                continue;
            }
            if (G::tick(theirs) == G::tick(run.state)) {
                const bool differ = !(theirs == run.state);
                if (seeking_fields) {
                    run.check.divergence->fields = sim::diff<G>(theirs, run.state);
                    run.check.divergence->fields_tick = G::tick(theirs);
                    return;
                }
                ++run.check.baselines_checked;
                if (differ) {
                    const sim::Digests<G> d = sim::digests<G>(theirs);
                    diverge<G>(run, G::tick(theirs), d.digest, held, d.sections);
                    if (!stop_at) {
                        run.check.divergence->fields = sim::diff<G>(theirs, run.state);
                        run.check.divergence->fields_tick = G::tick(theirs);
                        return;
                    }
                }
                continue;
            }
            // Past a gap in the frames (a client that resynced): nothing to compare, adopt it. A
            // dump that asked for a tick inside the gap is not covered; a field diff has no
            // re-run state at this tick to compare with.
            if (seeking_fields) return;
            if (stop_at && *stop_at < G::tick(theirs)) return;
            ++run.check.baselines_adopted;
            run.state = std::move(theirs);
            run.check.last_tick = G::tick(run.state);
        } else if (const auto* f = std::get_if<Frame>(&m)) {
            if (!decode_frame_inputs<G>(*f, run.applied).ok()) run.applied.clear();  // read_replay checked them
            run.inputs.clear();
            for (const Applied<G>& a : run.applied) run.inputs.push_back(a.input);
            run.stepper.step(run.state, std::span<const sim::Input<G>>(run.inputs));
            if (seeking_fields) continue;
            ++run.check.frames_checked;
            run.check.last_tick = G::tick(run.state);
            if (sim::digest<G>(run.state) != f->digest) diverge<G>(run, f->tick, f->digest, held, std::nullopt);
        }
        // Welcome and Sections records change nothing in the re-run.
    }
}

}  // namespace detail

// Re-runs the replay from its first baseline with the game's Stepper, stepping each frame's
// inputs and comparing the digest after it; a later baseline at the tick the re-run has reached
// is compared state against state, one past a gap in the frames is adopted. Stops at the first
// divergence (but for the field diff's re-run to the next state the replay holds).
template <sim::Simulation G>
ReplayCheck check_replay(const Replay& replay) {
    detail::ReplayRun<G> run;
    detail::walk<G>(replay, run, std::nullopt);
    return std::move(run.check);
}

// This build's re-run state at `tick` (as check_replay computes it, but stepping on past a
// divergence: it is the state to diff against another build's), or tick_not_covered naming
// the ticks the replay covers.
template <sim::Simulation G>
Result<typename G::State, ReplayFault> replay_state_at(const Replay& replay, uint64_t tick) {
    detail::ReplayRun<G> run;
    detail::walk<G>(replay, run, tick);
    if (run.started && G::tick(run.state) == tick) return std::move(run.state);
    return detail::tick_not_covered(replay, tick);
}

}  // namespace tandem::net
