// Replay files: the writer the room and the client session record with, the reader that takes
// an untrusted file apart record by record (never past its end, never trusting a length it has
// not checked), and the checker that re-runs the match and names where this build differs.
#include "tandem/net/replay.hpp"

#include "world/bytes.hpp"

namespace tandem::net {

namespace {

constexpr uint8_t replay_magic[4] = {'T', 'N', 'D', 'R'};

}  // namespace

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

}  // namespace tandem::net
