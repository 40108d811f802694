// Properties of the arena's input as the kit encodes it (arena::Sim::visit_command): the
// 13-byte canonical Input encoding is exactly the
// documented layout (every multi-byte field little-endian, checked against bytes written by
// hand), round-trips every input, and refuses a wrong length or kind by name; canonical_less
// is the documented total order.
#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "tandem/core/random.hpp"
#include "arena/sim.hpp"
#include "tandem/sim/codec.hpp"

using namespace tandem;
using namespace arena;

TEST_CASE("an input's bytes are player u32, kind u8, target x and y as i32, all little-endian") {
    const Input input{0x04030201u, InputKind::command, {Fx::from_raw(0x0D0C0B0A), Fx::from_raw(-2)}};
    std::vector<uint8_t> bytes{0xEE};  // appends after what is there
    tandem::sim::append_input<Sim>(bytes, input);
    const std::vector<uint8_t> expected{0xEE,                    // untouched
                                        0x01, 0x02, 0x03, 0x04,  // player, lowest byte first
                                        0x02,                    // steer
                                        0x0A, 0x0B, 0x0C, 0x0D,  // x raw
                                        0xFE, 0xFF, 0xFF, 0xFF}; // y raw -2, two's complement
    CHECK(bytes == expected);
    CHECK(tandem::sim::input_bytes<Sim>() == 13u);
    const auto read = tandem::sim::decode_input<Sim>(std::span<const uint8_t>(bytes).subspan(1));
    REQUIRE(read.ok());
    CHECK(*read == input);
}

TEST_CASE("the kind byte is 0 join, 1 leave, 2 steer") {
    for (const auto& [kind, byte] : {std::pair{InputKind::join, 0}, {InputKind::leave, 1}, {InputKind::command, 2}}) {
        std::vector<uint8_t> bytes;
        tandem::sim::append_input<Sim>(bytes, Input{7, kind, {}});
        REQUIRE(bytes.size() == 13);
        CHECK(bytes[4] == byte);
        CHECK(std::all_of(bytes.begin() + 5, bytes.end(), [](uint8_t b) { return b == 0; }));
    }
}

TEST_CASE("hand-written bytes decode to the input they spell") {
    const std::vector<uint8_t> bytes{0xFF, 0xFF, 0xFF, 0xFF,  // player 2^32 - 1
                                     0x00,                    // join
                                     0x00, 0x00, 0x00, 0x80,  // x raw INT32_MIN
                                     0x00, 0x00, 0x01, 0x00}; // y raw 0x10000 = 1.0
    const auto read = tandem::sim::decode_input<Sim>(bytes);
    REQUIRE(read.ok());
    CHECK(read->player == 0xFFFFFFFFu);
    CHECK(read->kind == InputKind::join);
    CHECK(read->command.target.x.raw() == INT32_MIN);
    CHECK(read->command.target.y == Fx::one());
}

TEST_CASE("every input round-trips through its bytes") {
    XorShift rng(99);
    std::vector<uint8_t> all;
    std::vector<Input> inputs;
    for (int i = 0; i < 2000; ++i) {
        const Input in{static_cast<uint32_t>(rng.next()), static_cast<InputKind>(rng.below(3)),
                       {Fx::from_raw(static_cast<int32_t>(rng.next())), Fx::from_raw(static_cast<int32_t>(rng.next()))}};
        inputs.push_back(in);
        tandem::sim::append_input<Sim>(all, in);
    }
    REQUIRE(all.size() == 13u * inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto read = tandem::sim::decode_input<Sim>(std::span<const uint8_t>(all).subspan(13 * i, 13));
        REQUIRE(read.ok());
        REQUIRE(*read == inputs[i]);
    }
}

TEST_CASE("a wrong length or kind is refused by name") {
    std::vector<uint8_t> good;
    tandem::sim::append_input<Sim>(good, Input{1, InputKind::leave, {}});
    for (size_t n = 0; n < 13; ++n) {
        const auto r = tandem::sim::decode_input<Sim>(std::span<const uint8_t>(good).first(n));
        REQUIRE_FALSE(r.ok());
        REQUIRE(r.error() == tandem::sim::CodecError::truncated);
    }
    std::vector<uint8_t> longer = good;
    longer.push_back(0);
    CHECK(tandem::sim::decode_input<Sim>(longer).code() == "trailing_bytes");
    for (const int kind : {3, 4, 0x80, 0xFF}) {
        std::vector<uint8_t> bad = good;
        bad[4] = static_cast<uint8_t>(kind);
        const auto r = tandem::sim::decode_input<Sim>(bad);
        REQUIRE_FALSE(r.ok());
        CHECK(r.code() == "bad_kind");
        CHECK(r.message().find("kind") != std::string_view::npos);
    }
    CHECK(error_name(tandem::sim::CodecError::truncated) == "truncated");
    CHECK_FALSE(describe(tandem::sim::CodecError::trailing_bytes).empty());
}

TEST_CASE("canonical order is (player, kind, target x, target y), a total order") {
    const auto at = [](int32_t x, int32_t y) { return Vec2{Fx::from_raw(x), Fx::from_raw(y)}; };
    // Listed in canonical order; every earlier one is less than every later one.
    const std::vector<Input> ordered{{1, InputKind::join, at(9, 9)},   {1, InputKind::leave, at(0, 0)},
                                     {1, InputKind::command, at(-5, 9)}, {1, InputKind::command, at(3, -1)},
                                     {1, InputKind::command, at(3, 0)},  {2, InputKind::join, at(-9, -9)}};
    for (size_t i = 0; i < ordered.size(); ++i) {
        CHECK_FALSE(tandem::sim::canonical_less<Sim>(ordered[i], ordered[i]));
        for (size_t j = i + 1; j < ordered.size(); ++j) {
            INFO(i << " < " << j);
            CHECK(tandem::sim::canonical_less<Sim>(ordered[i], ordered[j]));
            CHECK_FALSE(tandem::sim::canonical_less<Sim>(ordered[j], ordered[i]));
        }
    }
}
