// Properties of ships' commands and inputs on the wire (the kit's codec over
// ships::Sim::visit_command): one byte of held buttons, reserved bits refused with a typed
// error, every valid input round-trips, and the canonical order is (player, kind, buttons).
#include <catch2/catch.hpp>
#include <vector>

#include "ships/sim.hpp"
#include "tandem/sim/codec.hpp"

using namespace tandem;
using namespace ships;
using tandem::sim::CodecError;

TEST_CASE("an input is player u32 little-endian, kind u8, buttons u8: six bytes") {
    CHECK(tandem::sim::command_bytes<Sim>() == 1);
    CHECK(tandem::sim::input_bytes<Sim>() == 6);
    std::vector<uint8_t> out;
    tandem::sim::append_input<Sim>(out, hold(0x01020304, thrust | fire));
    CHECK(out == std::vector<uint8_t>{0x04, 0x03, 0x02, 0x01, 2, 0x09});
}

TEST_CASE("every command without reserved bits round-trips, every one with them is refused") {
    for (uint32_t byte = 0; byte < 256; ++byte) {
        const std::vector<uint8_t> b{static_cast<uint8_t>(byte)};
        const auto c = tandem::sim::decode_command<Sim>(b);
        INFO("byte " << byte);
        if (byte <= all_buttons) {
            REQUIRE(c.ok());
            CHECK(c->buttons == byte);
            std::vector<uint8_t> again;
            ByteWriter w(again);
            tandem::sim::encode_command<Sim>(w, *c);
            CHECK(again == b);
        } else {
            REQUIRE_FALSE(c.ok());
            CHECK(c.error() == CodecError::value_out_of_range);
        }
    }
}

TEST_CASE("a wrong length or kind is refused by name") {
    CHECK(tandem::sim::decode_input<Sim>(std::vector<uint8_t>{1, 0, 0, 0, 2}).error() == CodecError::truncated);
    CHECK(tandem::sim::decode_input<Sim>(std::vector<uint8_t>{1, 0, 0, 0, 2, 0, 0}).error() == CodecError::trailing_bytes);
    CHECK(tandem::sim::decode_input<Sim>(std::vector<uint8_t>{1, 0, 0, 0, 3, 0}).error() == CodecError::bad_kind);
    CHECK(tandem::sim::decode_input<Sim>(std::vector<uint8_t>{1, 0, 0, 0, 2, 0x80}).error() == CodecError::value_out_of_range);
    const auto ok = tandem::sim::decode_input<Sim>(std::vector<uint8_t>{7, 0, 0, 0, 0, 0});
    REQUIRE(ok.ok());
    CHECK(*ok == join(7));
}

TEST_CASE("the canonical order is player, then kind, then the buttons byte") {
    using tandem::sim::canonical_less;
    CHECK(canonical_less<Sim>(hold(1, 15), hold(2, 0)));
    CHECK(canonical_less<Sim>(join(3), leave(3)));
    CHECK(canonical_less<Sim>(leave(3), hold(3, 0)));
    CHECK(canonical_less<Sim>(hold(3, 1), hold(3, 2)));
    CHECK_FALSE(canonical_less<Sim>(hold(3, 2), hold(3, 2)));
}

TEST_CASE("a config round-trips through its bytes, and one that does not validate is refused") {
    Config c;
    c.max_players = 5;
    c.turn_rate = Fx::from_raw(12345);
    const auto bytes = tandem::sim::encode_config<Sim>(c);
    CHECK(bytes.size() == tandem::sim::config_bytes<Sim>());
    CHECK(tandem::sim::decode_config<Sim>(bytes).value() == c);
    c.max_players = 1;
    CHECK(tandem::sim::decode_config<Sim>(tandem::sim::encode_config<Sim>(c)).error() == CodecError::value_out_of_range);
}
