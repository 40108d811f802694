// Replay files: the writer the room and the client session record with, the reader that takes
// an untrusted file apart record by record (never past its end, never trusting a length it has
// not checked), and the checker that re-runs the match and names where this build differs.
#include "tandem/net/replay.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "world/bytes.hpp"

namespace tandem::net {

namespace {

constexpr uint8_t replay_magic[4] = {'T', 'N', 'D', 'R'};

ReplayFault fault(ReplayError error, uint64_t record, uint64_t offset, std::string_view what) {
    std::string text(what);
    text += ", in record " + std::to_string(record) + " at byte " + std::to_string(offset);
    return ReplayFault{error, record, offset, std::move(text)};
}

ReplayFault header_fault(ReplayError error, std::string_view what) {
    return ReplayFault{error, 0, 0, std::string(what)};
}

// The room's section digests by tick, from the held Sections records: what names a divergent
// section.
using HeldSections = std::map<uint64_t, world::SectionDigests>;

HeldSections held_sections(const Replay& replay) {
    HeldSections held;
    for (const ServerMessage& m : replay.records) {
        if (const auto* s = std::get_if<Sections>(&m); s && s->held) held.emplace(s->tick, s->sections);
    }
    return held;
}

// The re-run: one walk over the records, shared by the checker and the dump. `stop_at` ends
// the walk once the world reaches that tick (the dump); the check runs to the end.
struct Run {
    world::World world;
    world::Stepper stepper;
    std::vector<world::Input> inputs;
    ReplayCheck check;
    bool started = false;
};

world::World decoded_baseline(const Baseline& b) {
    // read_replay decoded every baseline already; a Replay built otherwise is the caller's.
    auto w = world::decode(b.snapshot);
    return w.ok() ? std::move(*w) : world::World{};
}

void diverge(Run& run, uint64_t tick, uint64_t expected, const HeldSections& held,
             const std::optional<world::SectionDigests>& whole_world_sections) {
    if (run.check.divergence) return;  // the first one is the one to name
    Divergence d;
    d.tick = tick;
    d.expected_digest = expected;
    d.actual_digest = world::digest(run.world);
    const world::SectionDigests mine = world::section_digests(run.world);
    if (whole_world_sections) {
        d.sections_known = true;
        d.sections = differing_sections(*whole_world_sections, mine);
    } else if (auto it = held.find(tick); it != held.end()) {
        d.sections_known = true;
        d.sections = differing_sections(it->second, mine);
    }
    run.check.divergence = std::move(d);
}

// Walks the records until the end, or (stop_at) the world at that tick. The check stops at the
// first divergence; the dump (stop_at) records it and steps on, since what it shows is this
// build's own re-run, the state to diff against another build's dump at the same tick.
void walk(const Replay& replay, Run& run, std::optional<uint64_t> stop_at) {
    const HeldSections held = held_sections(replay);
    for (const ServerMessage& m : replay.records) {
        if (run.check.divergence && !stop_at) return;
        if (stop_at && run.started && run.world.tick >= *stop_at) return;
        if (const auto* b = std::get_if<Baseline>(&m)) {
            world::World theirs = decoded_baseline(*b);
            if (!run.started) {
                run.world = std::move(theirs);
                run.started = true;
                run.check.first_tick = run.check.last_tick = run.world.tick;
                continue;
            }
            if (theirs.tick == run.world.tick) {
                ++run.check.baselines_checked;
                if (theirs != run.world) diverge(run, theirs.tick, world::digest(theirs), held, world::section_digests(theirs));
                continue;
            }
            // Past a gap in the frames (a client that resynced): nothing to compare, adopt it. A
            // dump that asked for a tick inside the gap is not covered.
            if (stop_at && *stop_at < theirs.tick) return;
            ++run.check.baselines_adopted;
            run.world = std::move(theirs);
            run.check.last_tick = run.world.tick;
        } else if (const auto* f = std::get_if<Frame>(&m)) {
            run.inputs.clear();
            for (const AppliedInput& a : f->inputs) run.inputs.push_back(a.input);
            run.stepper.step(run.world, run.inputs);
            ++run.check.frames_checked;
            run.check.last_tick = run.world.tick;
            if (world::digest(run.world) != f->digest) diverge(run, f->tick, f->digest, held, std::nullopt);
        }
        // Welcome and Sections records change nothing in the re-run.
    }
}

}  // namespace

std::string_view error_name(ReplayError error) {
    switch (error) {
    case ReplayError::truncated: return "truncated";
    case ReplayError::bad_magic: return "bad_magic";
    case ReplayError::unsupported_version: return "unsupported_version";
    case ReplayError::protocol_mismatch: return "protocol_mismatch";
    case ReplayError::fingerprint_mismatch: return "fingerprint_mismatch";
    case ReplayError::bad_record: return "bad_record";
    case ReplayError::out_of_order: return "out_of_order";
    case ReplayError::no_baseline: return "no_baseline";
    case ReplayError::bad_baseline: return "bad_baseline";
    case ReplayError::tick_not_covered: return "tick_not_covered";
    }
    return "unknown";
}

std::string_view describe(ReplayError error) {
    switch (error) {
    case ReplayError::truncated: return "the replay ends inside its header or a record";
    case ReplayError::bad_magic: return "the file is not a tandem replay (no \"TNDR\")";
    case ReplayError::unsupported_version: return "the replay's format version is not one this build reads";
    case ReplayError::protocol_mismatch: return "the replay was written by a build speaking another protocol version";
    case ReplayError::fingerprint_mismatch: return "the replay was written by a build of another simulation";
    case ReplayError::bad_record: return "a record is not a server message a replay holds";
    case ReplayError::out_of_order: return "a record is out of order";
    case ReplayError::no_baseline: return "the replay has no baseline to start the world from";
    case ReplayError::bad_baseline: return "a baseline's snapshot does not decode or disagrees with its record";
    case ReplayError::tick_not_covered: return "the replay does not reach that tick";
    }
    return "an unknown replay error";
}

void append_replay_header(std::vector<uint8_t>& out) {
    out.insert(out.end(), std::begin(replay_magic), std::end(replay_magic));
    world::Writer w(out);
    w.u16(replay_format_version);
    w.u16(protocol_version);
    w.u64(world::fingerprint_hash());
}

void append_replay_record(std::vector<uint8_t>& out, std::span<const uint8_t> server_message) {
    world::Writer w(out);
    w.u32(static_cast<uint32_t>(server_message.size()));
    out.insert(out.end(), server_message.begin(), server_message.end());
}

Result<Replay, ReplayFault> read_replay(std::span<const uint8_t> bytes) {
    if (bytes.size() < replay_header_bytes) return header_fault(ReplayError::truncated, "the replay ends inside its 16-byte header");
    if (!std::equal(std::begin(replay_magic), std::end(replay_magic), bytes.begin())) {
        return header_fault(ReplayError::bad_magic, "the file does not start with \"TNDR\": not a tandem replay");
    }
    world::Reader h(bytes.subspan(4, replay_header_bytes - 4));
    const uint16_t format = h.u16();
    const uint16_t protocol = h.u16();
    const uint64_t fingerprint = h.u64();
    if (format != replay_format_version) {
        return header_fault(ReplayError::unsupported_version, "replay format version " + std::to_string(format) +
                                                                  ", this build reads " + std::to_string(replay_format_version));
    }
    if (protocol != protocol_version) {
        return header_fault(ReplayError::protocol_mismatch, "written by protocol version " + std::to_string(protocol) +
                                                                ", this build speaks " + std::to_string(protocol_version));
    }
    if (fingerprint != world::fingerprint_hash()) {
        return header_fault(ReplayError::fingerprint_mismatch,
                            "written by another simulation; this build is \"" + world::fingerprint() + "\"");
    }

    Replay replay;
    std::optional<uint64_t> tick;  // the newest tick a baseline or frame reached
    uint64_t offset = replay_header_bytes;
    for (uint64_t index = 0; offset < bytes.size(); ++index) {
        const uint64_t at = offset;
        if (bytes.size() - offset < 4) return fault(ReplayError::truncated, index, at, "the replay ends inside a record's length");
        world::Reader lr(bytes.subspan(static_cast<size_t>(offset), 4));
        const uint32_t length = lr.u32();
        offset += 4;
        if (bytes.size() - offset < length) {
            return fault(ReplayError::truncated, index, at,
                         "a record claims " + std::to_string(length) + " bytes and " +
                             std::to_string(bytes.size() - offset) + " remain");
        }
        const std::span<const uint8_t> body = bytes.subspan(static_cast<size_t>(offset), length);
        offset += length;
        auto decoded = decode_server(body);
        if (!decoded.ok()) {
            return fault(ReplayError::bad_record, index, at,
                         "a record does not decode: " + std::string(describe(decoded.error())));
        }
        ServerMessage& m = *decoded;
        if (const auto* welcome = std::get_if<Welcome>(&m)) {
            if (!replay.welcome) {
                if (index != 0) return fault(ReplayError::out_of_order, index, at, "a welcome must be the first record");
                replay.welcome = *welcome;
            } else if (welcome->config != replay.welcome->config) {
                // A client that reconnected is welcomed again, to the same room.
                return fault(ReplayError::out_of_order, index, at, "a later welcome names another world config");
            }
        } else if (const auto* b = std::get_if<Baseline>(&m)) {
            auto w = world::decode(b->snapshot);
            if (!w.ok()) {
                return fault(ReplayError::bad_baseline, index, at,
                             "a baseline's snapshot does not decode: " + std::string(describe(w.error())));
            }
            if (w->tick != b->tick) return fault(ReplayError::bad_baseline, index, at, "a baseline's world is at another tick than its record says");
            if (replay.welcome && w->config != replay.welcome->config) {
                return fault(ReplayError::bad_baseline, index, at, "a baseline's world config differs from the welcome's");
            }
            if (tick && b->tick < *tick) return fault(ReplayError::out_of_order, index, at, "a baseline goes back in time");
            tick = b->tick;
        } else if (const auto* f = std::get_if<Frame>(&m)) {
            if (!tick) return fault(ReplayError::out_of_order, index, at, "a frame before any baseline");
            if (f->tick != *tick + 1) {
                return fault(ReplayError::out_of_order, index, at,
                             "frame of tick " + std::to_string(f->tick) + " follows tick " + std::to_string(*tick));
            }
            tick = f->tick;
        } else if (!std::holds_alternative<Sections>(m)) {
            return fault(ReplayError::bad_record, index, at, "a replay holds welcome, baseline, frame and sections records only");
        }
        replay.records.push_back(std::move(m));
    }
    if (!tick) return header_fault(ReplayError::no_baseline, "the replay holds no baseline to start from");
    return replay;
}

std::vector<std::string_view> differing_sections(const world::SectionDigests& a, const world::SectionDigests& b) {
    std::vector<std::string_view> names;
    if (a.config != b.config) names.emplace_back("config");
    if (a.wells != b.wells) names.emplace_back("wells");
    if (a.pellets != b.pellets) names.emplace_back("pellets");
    if (a.scores != b.scores) names.emplace_back("scores");
    if (a.rng != b.rng) names.emplace_back("rng");
    return names;
}

ReplayCheck check_replay(const Replay& replay) {
    Run run;
    walk(replay, run, std::nullopt);
    return run.check;
}

Result<world::World, ReplayFault> replay_world_at(const Replay& replay, uint64_t tick) {
    Run run;
    walk(replay, run, tick);
    if (run.started && run.world.tick == tick) return std::move(run.world);
    // Where the replay starts and ends, for the message (read_replay has put them in order).
    std::optional<uint64_t> first;
    uint64_t last = 0;
    bool gaps = false;
    for (const ServerMessage& m : replay.records) {
        if (const auto* b = std::get_if<Baseline>(&m)) {
            if (first && b->tick > last) gaps = true;
            if (!first) first = b->tick;
            last = b->tick;
        } else if (const auto* f = std::get_if<Frame>(&m)) {
            last = f->tick;
        }
    }
    return ReplayFault{ReplayError::tick_not_covered, 0, 0,
                       "tick " + std::to_string(tick) + " is not in the replay (it covers ticks " +
                           std::to_string(first.value_or(0)) + " to " + std::to_string(last) +
                           (gaps ? ", with gaps)" : ")")};
}

}  // namespace tandem::net
