// Properties of the arena's snapshots (the kit's codec over arena::Sim::visit_state): encode/decode round-trips every field, every damaged
// snapshot is refused with the right reason instead of crashing, and a world restored from a
// snapshot continues exactly like the original (GGPO's SyncTest idea).
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "arena/scenario.hpp"
#include "arena/sim.hpp"

using namespace tandem;
using namespace arena;

namespace {
World busy_world(uint64_t ticks = 40) {
    const Scenario s = *find_scenario("chaos");
    WorldConfig c = s.config;
    c.pellet_count = 300;
    Scenario small = s;
    small.config = c;
    World w = make_world(c).value();
    advance(small, w, ticks);
    return w;
}
void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
// Offsets of the layout arena::Sim::visit_state walks: the 14-byte header, the tick, then the config.
constexpr size_t config_at = 14 + 8, pellet_count_in_config = config_at + 8 + 4 + 4;
}  // namespace

TEST_CASE("a snapshot decodes to an equal world and re-encodes to the same bytes") {
    const World w = busy_world();
    REQUIRE_FALSE(w.wells.empty());
    const std::vector<uint8_t> bytes = encode(w);
    const auto r = decode(bytes);
    REQUIRE(r.ok());
    CHECK(*r == w);
    CHECK(encode(*r) == bytes);
}

TEST_CASE("every truncation is refused as truncated") {
    const std::vector<uint8_t> bytes = encode(busy_world());
    for (size_t n = 0; n < bytes.size(); ++n) {
        const auto r = decode(std::span(bytes.data(), n));
        INFO("length " << n);
        REQUIRE_FALSE(r.ok());
        REQUIRE(r.error() == DecodeError::truncated);
    }
}

TEST_CASE("each kind of damage is named") {
    const std::vector<uint8_t> good = encode(busy_world());
    auto with = [&](auto edit) {
        std::vector<uint8_t> b = good;
        edit(b);
        const auto r = decode(b);
        REQUIRE_FALSE(r.ok());
        return r.error();
    };
    CHECK(with([](auto& b) { b[0] = 'X'; }) == DecodeError::bad_magic);
    CHECK(with([](auto& b) { b[4] = 1; }) == DecodeError::unsupported_version);  // the format before the seam
    CHECK(with([](auto& b) { b[6] ^= 1; }) == DecodeError::fingerprint_mismatch);
    CHECK(with([](auto& b) { put_u32(b, pellet_count_in_config, 1u << 30); }) == DecodeError::value_out_of_range);
    CHECK(with([](auto& b) { put_u32(b, pellet_count_in_config, 299); }) == DecodeError::count_out_of_range);
    CHECK(with([](auto& b) { b.push_back(0); }) == DecodeError::trailing_bytes);
    CHECK(with([](auto& b) { b[b.size() - 1] ^= 0x80; }) == DecodeError::digest_mismatch);
    // A velocity bit flip is a valid value, so only the digest can catch it.
    CHECK(with([](auto& b) { b[b.size() - 8 - 1] ^= 0x01; }) == DecodeError::digest_mismatch);
    CHECK(error_name(DecodeError::truncated) == "truncated");
    CHECK(error_name(DecodeError::count_out_of_range) == "count_out_of_range");
    CHECK(decode(std::vector<uint8_t>{'T', 'N', 'D', 'X'}).code() == "bad_magic");
    CHECK(decode(std::vector<uint8_t>{'T', 'N', 'D', 'X'}).message().find("magic") != std::string_view::npos);
}

TEST_CASE("single bit flips anywhere never crash and never decode to a different world") {
    const World w = busy_world();
    const std::vector<uint8_t> good = encode(w);
    for (size_t i = 0; i < good.size(); i += 7) {
        std::vector<uint8_t> b = good;
        b[i] ^= static_cast<uint8_t>(1u << (i % 8));
        REQUIRE_FALSE(decode(b).ok());
    }
}

TEST_CASE("a huge declared count is refused before anything is allocated") {
    std::vector<uint8_t> b = encode(make_world(default_config()).value());
    b.resize(14 + 8 + 68 + 4);    // header, tick, config, the wells' count
    put_u32(b, b.size() - 4, 5);  // five wells declared, no bytes for them
    CHECK(decode(b).error() == DecodeError::truncated);
}

TEST_CASE("a world restored from a snapshot at a random tick continues identically") {
    // GGPO SyncTest: save at tick N, keep going on both copies, demand the same digests.
    for (uint64_t seed : {1u, 2u, 3u}) {
        const Scenario s = *find_scenario("chaos");
        Scenario small = s;
        small.config.pellet_count = 512;
        small.config.seed = seed;
        World original = make_world(small.config).value();
        XorShift pick(seed);
        advance(small, original, 20 + pick.below(200));
        const auto restored = decode(encode(original));
        REQUIRE(restored.ok());
        World copy = *restored;
        for (int t = 0; t < 300; ++t) {
            advance(small, original, 1);
            advance(small, copy, 1);
            REQUIRE(digest(copy) == digest(original));
        }
        CHECK(copy == original);
    }
}

TEST_CASE("the fingerprint names the format, the number format, the game and its simulation version") {
    CHECK(fingerprint() == "tandem snapshot/2 Q16.16 arena/" + std::to_string(simulation_version));
    CHECK(fingerprint_hash() != 0);
}
