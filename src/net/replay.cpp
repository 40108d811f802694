// Replay files, the parts that do not depend on the game (replay.hpp): the writer the room and
// the client session record with, the header and record framing the reader takes apart (never
// past the end, never trusting a length it has not checked), and the errors' names.
#include "tandem/net/replay.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "tandem/core/bytes.hpp"

namespace tandem::net {

namespace {
constexpr uint8_t replay_magic[4] = {'T', 'N', 'D', 'R'};
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
    case ReplayError::truncated: return "the replay ends inside its header or a record, or without its end marker before any baseline";
    case ReplayError::bad_magic: return "the file is not a tandem replay (no \"TNDR\")";
    case ReplayError::unsupported_version: return "the replay's format version is not one this build reads";
    case ReplayError::protocol_mismatch: return "the replay was written by a build speaking another protocol version";
    case ReplayError::fingerprint_mismatch: return "the replay was written by a build of another game or simulation";
    case ReplayError::bad_record: return "a record is not a server message of this game a replay holds";
    case ReplayError::out_of_order: return "a record is out of order";
    case ReplayError::no_baseline: return "the replay has no baseline to start the state from";
    case ReplayError::bad_baseline: return "a baseline's snapshot does not decode or disagrees with its record";
    case ReplayError::tick_not_covered: return "the replay does not reach that tick";
    }
    return "an unknown replay error";
}

void append_replay_header(std::vector<uint8_t>& out, uint64_t fingerprint_hash) {
    out.insert(out.end(), std::begin(replay_magic), std::end(replay_magic));
    ByteWriter w(out);
    w.u16(replay_format_version);
    w.u16(protocol_version);
    w.u64(fingerprint_hash);
}

void append_replay_record(std::vector<uint8_t>& out, std::span<const uint8_t> server_message) {
    ByteWriter w(out);
    w.u32(static_cast<uint32_t>(server_message.size()));
    out.insert(out.end(), server_message.begin(), server_message.end());
}

void append_replay_end(std::vector<uint8_t>& out) {
    ByteWriter w(out);
    w.u32(0);
}

ReplayCoverage replay_coverage(const Replay& replay) {
    // read_replay has put the records in order.
    ReplayCoverage c;
    for (const ServerMessage& m : replay.records) {
        if (const auto* b = std::get_if<Baseline>(&m)) {
            if (c.first && b->tick > c.last) c.gaps = true;
            if (!c.first) c.first = b->tick;
            c.last = b->tick;
        } else if (const auto* f = std::get_if<Frame>(&m)) {
            c.last = f->tick;
        }
    }
    return c;
}

namespace detail {

ReplayFault replay_fault(ReplayError error, uint64_t record, uint64_t offset, std::string_view what) {
    std::string text(what);
    text += ", in record " + std::to_string(record) + " at byte " + std::to_string(offset);
    return ReplayFault{error, record, offset, std::move(text)};
}

ReplayFault replay_header_fault(ReplayError error, std::string_view what) {
    return ReplayFault{error, 0, 0, std::string(what)};
}

std::optional<ReplayFault> check_replay_header(std::span<const uint8_t> bytes, uint64_t fingerprint_hash,
                                               std::string_view fingerprint) {
    if (bytes.size() < replay_header_bytes) {
        return replay_header_fault(ReplayError::truncated, "the replay ends inside its 16-byte header");
    }
    if (!std::equal(std::begin(replay_magic), std::end(replay_magic), bytes.begin())) {
        return replay_header_fault(ReplayError::bad_magic, "the file does not start with \"TNDR\": not a tandem replay");
    }
    ByteReader h(bytes.subspan(4, replay_header_bytes - 4));
    const uint16_t format = h.u16();
    const uint16_t protocol = h.u16();
    const uint64_t print = h.u64();
    if (format != replay_format_version) {
        return replay_header_fault(ReplayError::unsupported_version, "replay format version " + std::to_string(format) +
                                                                         ", this build reads " +
                                                                         std::to_string(replay_format_version));
    }
    if (protocol != protocol_version) {
        return replay_header_fault(ReplayError::protocol_mismatch, "written by protocol version " + std::to_string(protocol) +
                                                                       ", this build speaks " + std::to_string(protocol_version));
    }
    if (print != fingerprint_hash) {
        return replay_header_fault(ReplayError::fingerprint_mismatch,
                                   "written by another game or simulation; this reader is \"" + std::string(fingerprint) + "\"");
    }
    return std::nullopt;
}

Result<std::span<const uint8_t>, ReplayFault> next_replay_record(std::span<const uint8_t> bytes, uint64_t index,
                                                                 uint64_t& offset) {
    const uint64_t at = offset;
    if (bytes.size() - offset < 4) return replay_fault(ReplayError::truncated, index, at, "the replay ends inside a record's length");
    ByteReader lr(bytes.subspan(static_cast<std::size_t>(offset), 4));
    const uint32_t length = lr.u32();
    offset += 4;
    if (bytes.size() - offset < length) {
        return replay_fault(ReplayError::truncated, index, at,
                            "a record claims " + std::to_string(length) + " bytes and " +
                                std::to_string(bytes.size() - offset) + " remain");
    }
    const std::span<const uint8_t> body = bytes.subspan(static_cast<std::size_t>(offset), length);
    offset += length;
    return body;
}

HeldSections held_sections(const Replay& replay) {
    HeldSections held;
    for (const ServerMessage& m : replay.records) {
        if (const auto* s = std::get_if<Sections>(&m); s && s->held) held.emplace(s->tick, s->sections);
    }
    return held;
}

ReplayFault tick_not_covered(const Replay& replay, uint64_t tick) {
    const ReplayCoverage c = replay_coverage(replay);
    return ReplayFault{ReplayError::tick_not_covered, 0, 0,
                       "tick " + std::to_string(tick) + " is not in the replay (it covers ticks " +
                           std::to_string(c.first.value_or(0)) + " to " + std::to_string(c.last) +
                           (c.gaps ? ", with gaps)" : ")")};
}

}  // namespace detail

}  // namespace tandem::net
