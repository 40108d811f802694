// The parts of a room's checkpoint that do not depend on the game: the record walk and the
// names and sentences of a refused restore.
#include "tandem/net/checkpoint.hpp"

#include "tandem/core/bytes.hpp"

namespace tandem::net {

std::optional<CheckpointRecord> CheckpointReader::next() {
    if (bad_ || torn_ || at_ >= bytes_.size()) return std::nullopt;
    const uint64_t left = bytes_.size() - at_;
    if (left < checkpoint_record_header_bytes) {
        torn_ = true;
        return std::nullopt;
    }
    ByteReader r(bytes_.subspan(at_, checkpoint_record_header_bytes));
    const uint8_t kind = r.u8();
    const uint32_t length = r.u32();
    if (kind < static_cast<uint8_t>(CheckpointKind::snapshot) || kind > static_cast<uint8_t>(CheckpointKind::input) ||
        length > max_checkpoint_record_bytes) {
        bad_ = true;
        return std::nullopt;
    }
    if (left - checkpoint_record_header_bytes < length) {
        torn_ = true;
        return std::nullopt;
    }
    CheckpointRecord record{static_cast<CheckpointKind>(kind), bytes_.subspan(at_ + checkpoint_record_header_bytes, length)};
    at_ += checkpoint_record_header_bytes + length;
    return record;
}

void append_checkpoint_record(std::vector<uint8_t>& out, CheckpointKind kind, std::span<const uint8_t> payload) {
    ByteWriter w(out);
    w.u8(static_cast<uint8_t>(kind));
    w.u32(static_cast<uint32_t>(payload.size()));
    w.bytes(payload);
}

std::optional<std::string_view> checkpoint_game(std::span<const uint8_t> segment) {
    CheckpointReader reader(segment);
    const auto first = reader.next();
    if (!first || first->kind != CheckpointKind::snapshot) return std::nullopt;
    ByteReader r(first->payload);
    if (r.u16() != checkpoint_format_version) return std::nullopt;
    const uint8_t n = r.u8();
    const auto name = r.take(n);
    if (!r.ok()) return std::nullopt;
    return std::string_view(reinterpret_cast<const char*>(name.data()), name.size());
}

std::string_view error_name(RestoreError error) {
    switch (error) {
        case RestoreError::empty: return "empty";
        case RestoreError::no_snapshot: return "no_snapshot";
        case RestoreError::damaged: return "damaged";
        case RestoreError::format_version: return "format_version";
        case RestoreError::game_mismatch: return "game_mismatch";
        case RestoreError::fingerprint_mismatch: return "fingerprint_mismatch";
        case RestoreError::snapshot: return "snapshot";
        case RestoreError::room_config: return "room_config";
        case RestoreError::frame_out_of_order: return "frame_out_of_order";
        case RestoreError::digest_mismatch: return "digest_mismatch";
    }
    return "unknown";
}

std::string_view describe(RestoreError error) {
    switch (error) {
        case RestoreError::empty: return "the checkpoint holds no whole record";
        case RestoreError::no_snapshot: return "a checkpoint segment must start with a snapshot record";
        case RestoreError::damaged: return "a checkpoint record has an unknown kind, an impossible length or a payload that does not parse";
        case RestoreError::format_version: return "the checkpoint was written in another checkpoint format";
        case RestoreError::game_mismatch: return "the checkpoint is another game's";
        case RestoreError::fingerprint_mismatch: return "the checkpoint was written by another build of the game's simulation";
        case RestoreError::snapshot: return "the checkpoint's game snapshot does not decode";
        case RestoreError::room_config: return "the checkpoint's room settings are out of range";
        case RestoreError::frame_out_of_order: return "a checkpointed frame is not the tick after the one before it";
        case RestoreError::digest_mismatch:
            return "stepping a checkpointed frame's inputs gave another digest than the frame's (damage, or another simulation)";
    }
    return "unknown restore error";
}

}  // namespace tandem::net
