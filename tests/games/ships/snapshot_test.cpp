// Properties of ships' snapshots (the kit's codec over ships::Sim::visit_state): a snapshot
// round-trips every field, every truncation and each kind of damage is refused with its own
// typed error (the ones the visitor's requires guard included), and a restored state steps on
// exactly like the original.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "ships/scenario.hpp"
#include "ships/sim.hpp"
#include "tandem/sim/codec.hpp"

using namespace tandem;
using namespace ships;

namespace {
State busy_state(uint64_t ticks = 150) {
    const Scenario s = find_scenario("melee").value();
    State w = start(s);
    advance(s, w, ticks);
    return w;
}
void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
// The layout visit_state walks, worked out from its field order: the 14-byte header, the tick
// (8), the config (8 + 4 * 2 + 4 * 6 + 4 * 4 + 4 * 5 + 4 * 5 = 104 bytes: seed, then 23 four-byte
// knobs), then the ships' count and each ship: player 4, alive 1, respawn_in 4, pos 8, vel 8,
// heading 4, buttons 1, cooldown 4, score 4, deaths 4 = 42 bytes.
constexpr size_t config_at = 14 + 8;
constexpr size_t config_bytes = 8 + 23 * 4;
constexpr size_t ships_count_at = config_at + config_bytes;
constexpr size_t first_ship_at = ships_count_at + 4;
constexpr size_t ship_bytes = 42;
constexpr size_t heading_in_ship = 4 + 1 + 4 + 8 + 8;
constexpr size_t buttons_in_ship = heading_in_ship + 4;
}  // namespace

TEST_CASE("the layout offsets used below are the encoder's") {
    CHECK(tandem::sim::config_bytes<Sim>() == config_bytes);
    const State s = busy_state();
    const std::vector<uint8_t> b = encode(s);
    uint32_t n = 0;
    std::memcpy(&n, b.data() + ships_count_at, 4);   // little-endian host in this test
    CHECK(n == s.ships.size());
    uint32_t player = 0;
    std::memcpy(&player, b.data() + first_ship_at, 4);
    CHECK(player == s.ships[0].player);
    int32_t heading = 0;
    std::memcpy(&heading, b.data() + first_ship_at + heading_in_ship, 4);
    CHECK(heading == s.ships[0].heading.raw());
}

TEST_CASE("a snapshot decodes to an equal state and re-encodes to the same bytes") {
    const State s = busy_state();
    REQUIRE(s.ships.size() >= 2);
    REQUIRE_FALSE(s.bullets.empty());
    REQUIRE_FALSE(s.rocks.empty());
    const std::vector<uint8_t> bytes = encode(s);
    const auto r = decode(bytes);
    REQUIRE(r.ok());
    CHECK(*r == s);
    CHECK(encode(*r) == bytes);
    CHECK(digest(*r) == digest(s));
}

TEST_CASE("every truncation is refused as truncated") {
    const std::vector<uint8_t> bytes = encode(busy_state());
    for (size_t n = 0; n < bytes.size(); ++n) {
        const auto r = decode(std::span(bytes.data(), n));
        INFO("length " << n);
        REQUIRE_FALSE(r.ok());
        REQUIRE(r.error() == DecodeError::truncated);
    }
}

TEST_CASE("each kind of damage is refused with its own typed error") {
    const std::vector<uint8_t> good = encode(busy_state());
    auto with = [&](auto edit) {
        std::vector<uint8_t> b = good;
        edit(b);
        const auto r = decode(b);
        REQUIRE_FALSE(r.ok());
        return r.error();
    };
    CHECK(with([](auto& b) { b[0] = 'X'; }) == DecodeError::bad_magic);
    CHECK(with([](auto& b) { b[4] = 1; }) == DecodeError::unsupported_version);
    CHECK(with([](auto& b) { b[6] ^= 1; }) == DecodeError::fingerprint_mismatch);
    // max_players (the config's third field) 9: the config no longer validates.
    CHECK(with([](auto& b) { put_u32(b, config_at + 8 + 4, 9); }) == DecodeError::value_out_of_range);
    CHECK(with([](auto& b) { put_u32(b, ships_count_at, 9); }) == DecodeError::count_out_of_range);
    // A heading of 2pi, reserved buttons, a bool that is neither 0 nor 1: the visitor's requires.
    CHECK(with([](auto& b) { put_u32(b, first_ship_at + heading_in_ship, 411775); }) == DecodeError::value_out_of_range);
    CHECK(with([](auto& b) { b[first_ship_at + buttons_in_ship] |= 0x10; }) == DecodeError::value_out_of_range);
    CHECK(with([](auto& b) { b[first_ship_at + 4] = 2; }) == DecodeError::value_out_of_range);
    // The second ship's player made equal to the first's: keys must strictly increase.
    CHECK(with([](auto& b) { std::memcpy(&b[first_ship_at + ship_bytes], &b[first_ship_at], 4); }) ==
          DecodeError::value_out_of_range);
    CHECK(with([](auto& b) { b.push_back(0); }) == DecodeError::trailing_bytes);
    CHECK(with([](auto& b) { b[b.size() - 1] ^= 0x80; }) == DecodeError::digest_mismatch);
    // The rng's low byte (the last field before the digest): a valid value only the digest catches.
    CHECK(with([](auto& b) { b[b.size() - 16] ^= 0x01; }) == DecodeError::digest_mismatch);
    CHECK(error_name(DecodeError::value_out_of_range) == "value_out_of_range");
}

TEST_CASE("single bit flips anywhere never crash and never decode to another state") {
    const std::vector<uint8_t> good = encode(busy_state());
    for (size_t i = 0; i < good.size(); i += 3) {
        std::vector<uint8_t> b = good;
        b[i] ^= static_cast<uint8_t>(1u << (i % 8));
        REQUIRE_FALSE(decode(b).ok());
    }
}

TEST_CASE("a state restored from a snapshot steps on exactly like the original") {
    for (const char* name : {"duel", "melee", "rockfield", "chaos"}) {
        const Scenario s = find_scenario(name).value();
        State original = start(s);
        advance(s, original, 97);
        auto restored = decode(encode(original));
        REQUIRE(restored.ok());
        State copy = std::move(restored).value();
        Stepper a, b;
        for (int t = 0; t < 300; ++t) {
            advance(s, original, 1, a);
            advance(s, copy, 1, b);
            REQUIRE(digest(copy) == digest(original));
        }
        CHECK(copy == original);
    }
}

TEST_CASE("the fingerprint names the format, the number format, the game and its simulation version") {
    CHECK(fingerprint() == "tandem snapshot/2 Q16.16 ships/" + std::to_string(simulation_version));
    CHECK(tandem::sim::fingerprint_hash<Sim>() != tandem::sim::fingerprint_hash("tandem snapshot/2 Q16.16 arena/2"));
}
