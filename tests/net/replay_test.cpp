// Properties of src/net/replay.cpp: the header and record bytes are the documented layout,
// written out here by hand.
#include "tandem/net/replay.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

using namespace tandem;
using namespace tandem::net;

namespace {
using Bytes = std::vector<uint8_t>;
void le(Bytes& b, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
}  // namespace

TEST_CASE("a replay header is TNDR, format 1, the protocol version and the fingerprint hash, little-endian") {
    Bytes expected = {'T', 'N', 'D', 'R', 1, 0, 1, 0};
    le(expected, world::fingerprint_hash(), 8);
    Bytes out;
    append_replay_header(out);
    CHECK(out == expected);
    CHECK(out.size() == replay_header_bytes);
}

TEST_CASE("a replay record is the message's u32 length, then its bytes as they are") {
    Bytes out = {0xEE};  // records append to what is there
    append_replay_record(out, Bytes{0x83, 1, 2, 3, 4, 5});
    CHECK(out == Bytes{0xEE, 6, 0, 0, 0, 0x83, 1, 2, 3, 4, 5});
}
