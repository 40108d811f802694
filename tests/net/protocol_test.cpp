// Properties of src/net/protocol.cpp: every message's bytes equal the layout documented in
// protocol.hpp, written out here by hand (never produced by the encoder); every message
// round-trips; every ProtocolError is reached by a crafted message; every truncation of every
// message is refused without reading past the end (each prefix is a fresh exact-size buffer, so
// ASan sees any over-read); a frame count larger than its bytes is refused before anything is
// reserved; an error text is cut at a UTF-8 boundary.
#include "tandem/net/protocol.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "net/recording.hpp"
#include "tandem/core/random.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

using namespace tandem::net::testing;

Frame sample_frame() {
    Frame f;
    f.tick = 5;
    f.digest = 0x99;
    f.inputs = {
        {{1, world::InputKind::join, {Fx::from_int(2), Fx::from_int(3)}}, 0},
        {{1, world::InputKind::steer, {Fx::from_raw(5), Fx::from_raw(6)}}, 9},
        {{2, world::InputKind::leave, {}}, 0},
    };
    return f;
}

Welcome sample_welcome() {
    Welcome w;
    w.role = Role::play;
    w.player = 3;
    w.input_delay_ticks = 2;
    w.server_tick = 0x100;
    w.max_players = 16;
    w.config = world::default_config();
    return w;
}

// One of each message, as the byte tables below spell them.
std::vector<ClientMessage> sample_client_messages() {
    return {
        Hello{1, 0x0102030405060708u, Role::watch},
        InputMsg{0x11223344u, {Fx::from_raw(0x10000), Fx::from_raw(-1)}},
        Ack{true, 0x0A0B, 0xDEADBEEF00000001u},
        Ping{-2},
        Desync{7, {1, 2, 3, 4, 5}},
    };
}

std::vector<ServerMessage> sample_server_messages() {
    return {
        sample_welcome(),
        sample_frame(),
        Baseline{3, {0xAA, 0xBB}},
        Pong{0x10, 0x20, 0x30},
        Sections{9, true, {1, 2, 3, 4, 5}},
        ErrorMsg{net::ErrorCode::room_full, "full"},
    };
}

Bytes hello_bytes() { return {0x01, 0x01, 0x00, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x01}; }

}  // namespace

TEST_CASE("client messages are the documented little-endian layouts, byte for byte") {
    CHECK(encoded(Hello{1, 0x0102030405060708u, Role::watch}) == hello_bytes());
    CHECK(encoded(InputMsg{0x11223344u, {Fx::from_raw(0x10000), Fx::from_raw(-1)}}) ==
          Bytes{0x02, 0x44, 0x33, 0x22, 0x11, 0x00, 0x00, 0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF});
    CHECK(encoded(Ack{true, 0x0A0B, 0xDEADBEEF00000001u}) ==
          Bytes{0x03, 0x01, 0x0B, 0x0A, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0xEF, 0xBE, 0xAD, 0xDE});
    CHECK(encoded(Ack{false, 0, 0}) == Bytes{0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    CHECK(encoded(Ping{-2}) == Bytes{0x04, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF});
    Bytes desync = {0x05, 7, 0, 0, 0, 0, 0, 0, 0};
    for (uint8_t s = 1; s <= 5; ++s) desync.insert(desync.end(), {s, 0, 0, 0, 0, 0, 0, 0});
    CHECK(encoded(Desync{7, {1, 2, 3, 4, 5}}) == desync);
    CHECK(desync.size() == max_client_message_bytes);
}

TEST_CASE("server messages are the documented little-endian layouts, byte for byte") {
    SECTION("welcome: role, player, delay, server tick, max players, then the config in field order") {
        Bytes b = {0x81, 0x00};
        le(b, 3, 4);
        le(b, 2, 4);
        le(b, 0x100, 8);
        le(b, 16, 4);
        // default_config(), field by field, Fx as raw Q16.16.
        le(b, 1, 8);                // seed
        le(b, 60, 4);               // tick_hz
        le(b, 1024u << 16, 4);      // arena_size
        le(b, 1024, 4);             // pellet_count
        le(b, 16, 4);               // max_players
        le(b, 6000u << 16, 4);      // well_strength
        le(b, 0x1000, 4);           // pellet_strength 1/16
        le(b, 8u << 16, 4);         // softening
        le(b, 12u << 16, 4);        // capture_radius
        le(b, 4u << 16, 4);         // steer_gain
        le(b, 3u << 16, 4);         // steer_damping
        le(b, 400u << 16, 4);       // max_well_accel
        le(b, 300u << 16, 4);       // max_pellet_speed
        le(b, 0xC000, 4);           // wall_restitution 0.75
        le(b, 0xB333, 4);           // theta 0.7
        le(b, 12, 4);               // tree_max_depth
        CHECK(b.size() == 90);
        CHECK(encoded(sample_welcome()) == b);
    }
    SECTION("frame: tick, digest, count, then per input player, kind, target, sequence") {
        Bytes b = {0x82, 5, 0, 0, 0, 0, 0, 0, 0, 0x99, 0, 0, 0, 0, 0, 0, 0, 3, 0};
        b.insert(b.end(), {1, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0});  // join (2, 3), seq 0
        b.insert(b.end(), {1, 0, 0, 0, 2, 5, 0, 0, 0, 6, 0, 0, 0, 9, 0, 0, 0});  // steer raw (5, 6), seq 9
        b.insert(b.end(), {2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});  // leave, seq 0
        CHECK(b.size() == frame_header_bytes + 3 * applied_input_bytes);
        CHECK(encoded(sample_frame()) == b);
    }
    SECTION("baseline: tick, then the snapshot bytes as they are") {
        CHECK(encoded(Baseline{3, {0xAA, 0xBB}}) == Bytes{0x83, 3, 0, 0, 0, 0, 0, 0, 0, 0xAA, 0xBB});
    }
    SECTION("pong: echoed client time, server time, server tick") {
        Bytes b = {0x84};
        le(b, 0x10, 8);
        le(b, 0x20, 8);
        le(b, 0x30, 8);
        CHECK(encoded(Pong{0x10, 0x20, 0x30}) == b);
    }
    SECTION("sections: tick, held, five digests; unheld carries zeros") {
        Bytes b = {0x85, 9, 0, 0, 0, 0, 0, 0, 0, 1};
        for (uint8_t s = 1; s <= 5; ++s) b.insert(b.end(), {s, 0, 0, 0, 0, 0, 0, 0});
        CHECK(encoded(Sections{9, true, {1, 2, 3, 4, 5}}) == b);
        Bytes unheld = {0x85, 9, 0, 0, 0, 0, 0, 0, 0, 0};
        unheld.resize(50, 0);
        CHECK(encoded(Sections{9, false, {}}) == unheld);
    }
    SECTION("error: code, u16 length, UTF-8 text") {
        CHECK(encoded(ErrorMsg{net::ErrorCode::room_full, "full"}) == Bytes{0x86, 0x03, 0x04, 0x00, 'f', 'u', 'l', 'l'});
    }
}

TEST_CASE("hand-written bytes decode to the messages they spell") {
    const auto hello = decode_client(hello_bytes());
    REQUIRE(hello.ok());
    CHECK(std::get<Hello>(*hello) == Hello{1, 0x0102030405060708u, Role::watch});
    const auto pong = decode_server(Bytes{0x84, 1, 0, 0, 0, 0, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                          2, 0, 0, 0, 0, 0, 0, 0x80});
    REQUIRE(pong.ok());
    CHECK(std::get<Pong>(*pong) == Pong{1, -2, (uint64_t{0x80} << 56) | 2});
}

TEST_CASE("every sample message round-trips and re-encodes to the same bytes") {
    for (const ClientMessage& m : sample_client_messages()) {
        const Bytes b = encoded(m);
        const auto r = decode_client(b);
        INFO("type " << int(b[0]));
        REQUIRE(r.ok());
        CHECK(*r == m);
        CHECK(encoded(*r) == b);
        CHECK(peek_type(b) == static_cast<MessageType>(b[0]));
    }
    for (const ServerMessage& m : sample_server_messages()) {
        const Bytes b = encoded(m);
        const auto r = decode_server(b);
        INFO("type " << int(b[0]));
        REQUIRE(r.ok());
        CHECK(*r == m);
        CHECK(encoded(*r) == b);
        CHECK(peek_type(b) == static_cast<MessageType>(b[0]));
    }
}

TEST_CASE("random messages of every type round-trip") {
    XorShift rng(10);
    const auto fx = [&] { return Fx::from_raw(static_cast<int32_t>(rng.next())); };
    const auto sections = [&] { return world::SectionDigests{rng.next(), rng.next(), rng.next(), rng.next(), rng.next()}; };
    for (int i = 0; i < 200; ++i) {
        std::vector<ClientMessage> client = {
            Hello{static_cast<uint16_t>(rng.next()), rng.next(), rng.next() % 2 ? Role::play : Role::watch},
            InputMsg{static_cast<uint32_t>(rng.next()), {fx(), fx()}},
            rng.next() % 2 ? Ack{true, rng.next(), rng.next()} : Ack{false, 0, 0},
            Ping{static_cast<int64_t>(rng.next())},
            Desync{rng.next(), sections()},
        };
        for (const ClientMessage& m : client) {
            const auto r = decode_client(encoded(m));
            REQUIRE(r.ok());
            CHECK(*r == m);
        }
        Welcome w = sample_welcome();
        w.role = rng.next() % 2 ? Role::play : Role::watch;
        w.player = static_cast<uint32_t>(rng.next());
        w.server_tick = rng.next();
        w.config.seed = rng.next();
        w.config.pellet_count = 1 + static_cast<uint32_t>(rng.next() % world::max_pellet_count);
        Frame f;
        f.tick = rng.next();
        f.digest = rng.next();
        // Strictly increasing players keep the inputs in canonical order.
        uint32_t player = 0;
        const uint64_t n = rng.next() % (max_frame_inputs + 1);
        for (uint64_t k = 0; k < n; ++k) {
            player += 1 + static_cast<uint32_t>(rng.next() % 1000);
            f.inputs.push_back({{player, static_cast<world::InputKind>(rng.next() % 3), {fx(), fx()}},
                                static_cast<uint32_t>(rng.next())});
        }
        Baseline b{rng.next(), Bytes(1 + rng.next() % 300)};
        for (uint8_t& byte : b.snapshot) byte = static_cast<uint8_t>(rng.next());
        std::string text(rng.next() % (max_error_text_bytes + 1), ' ');
        for (char& c : text) c = static_cast<char>(0x20 + rng.next() % 0x5F);  // printable ASCII
        std::vector<ServerMessage> server = {
            w,
            f,
            b,
            Pong{static_cast<int64_t>(rng.next()), static_cast<int64_t>(rng.next()), rng.next()},
            rng.next() % 2 ? Sections{rng.next(), true, sections()} : Sections{rng.next(), false, {}},
            ErrorMsg{static_cast<net::ErrorCode>(1 + rng.next() % 9), text},
        };
        for (const ServerMessage& m : server) {
            const auto r = decode_server(encoded(m));
            REQUIRE(r.ok());
            CHECK(*r == m);
        }
    }
}

TEST_CASE("every truncation of every message is refused as truncated, never read past") {
    std::vector<Bytes> client, server;
    for (const ClientMessage& m : sample_client_messages()) client.push_back(encoded(m));
    for (const ServerMessage& m : sample_server_messages()) server.push_back(encoded(m));
    server.push_back(encoded(Frame{}));  // a frame with no inputs
    server.push_back(encoded(ErrorMsg{net::ErrorCode::idle, ""}));
    const auto check_prefixes = [](const Bytes& whole, auto decode, uint64_t first_complete) {
        for (size_t n = 0; n < whole.size(); ++n) {
            // A fresh buffer of exactly n bytes: reading byte n is a heap overflow ASan reports.
            const Bytes prefix(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n));
            const auto r = decode(std::span<const uint8_t>(prefix));
            INFO("type " << int(whole[0]) << ", length " << n << " of " << whole.size());
            if (n >= first_complete) {
                // A baseline's snapshot is the rest of the message: any non-empty rest decodes.
                CHECK(r.ok());
                continue;
            }
            REQUIRE_FALSE(r.ok());
            if (n == 0) CHECK(r.error() == ProtocolError::empty);
            else if (whole[0] == 0x83 && n == 9) CHECK(r.error() == ProtocolError::empty_snapshot);
            else CHECK(r.error() == ProtocolError::truncated);
        }
    };
    for (const Bytes& b : client) check_prefixes(b, decode_client, b.size());
    for (const Bytes& b : server) check_prefixes(b, decode_server, b[0] == 0x83 ? 10 : b.size());
}

TEST_CASE("a frame count claiming more inputs than the bytes hold is refused before any reserve") {
    // Header of a frame claiming 192 inputs (the most allowed) with one input present.
    Bytes b = {0x82, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
    le(b, max_frame_inputs, 2);
    b.insert(b.end(), {1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0});
    const auto r = decode_server(b);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == ProtocolError::truncated);
    // The largest count the field can spell is refused by the limit, not by the length.
    Bytes huge = {0x82, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    const auto h = decode_server(huge);
    REQUIRE_FALSE(h.ok());
    CHECK(h.error() == ProtocolError::too_many_inputs);
    Bytes over = {0x82, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
    le(over, max_frame_inputs + 1, 2);
    CHECK(decode_server(over).error() == ProtocolError::too_many_inputs);
}

TEST_CASE("every ProtocolError is reached by a crafted message") {
    const auto client_error = [](Bytes b) {
        const auto r = decode_client(b);
        REQUIRE_FALSE(r.ok());
        return r.error();
    };
    const auto server_error = [](Bytes b) {
        const auto r = decode_server(b);
        REQUIRE_FALSE(r.ok());
        return r.error();
    };
    CHECK(client_error({}) == ProtocolError::empty);
    CHECK(server_error({}) == ProtocolError::empty);

    // A server message sent to the server, a client message to the client, an unused byte.
    CHECK(client_error(encoded(Pong{})) == ProtocolError::unknown_type);
    CHECK(server_error(hello_bytes()) == ProtocolError::unknown_type);
    CHECK(client_error({0x00}) == ProtocolError::unknown_type);
    CHECK(server_error({0xFF}) == ProtocolError::unknown_type);

    Bytes hello = hello_bytes();
    hello.push_back(0);
    CHECK(client_error(hello) == ProtocolError::trailing_bytes);
    hello = hello_bytes();
    hello[11] = 2;
    CHECK(client_error(hello) == ProtocolError::bad_role);

    Bytes ack = {0x03, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK(client_error(ack) == ProtocolError::bad_flag);
    ack[1] = 0;
    ack[2] = 1;  // nothing held, yet a tick
    CHECK(client_error(ack) == ProtocolError::nonzero_padding);
    ack[2] = 0;
    ack[17] = 1;  // nothing held, yet a digest
    CHECK(client_error(ack) == ProtocolError::nonzero_padding);

    Bytes sections = encoded(Sections{9, true, {1, 2, 3, 4, 5}});
    sections[9] = 2;
    CHECK(server_error(sections) == ProtocolError::bad_flag);
    sections[9] = 0;  // unheld, yet digests
    CHECK(server_error(sections) == ProtocolError::nonzero_padding);

    Bytes frame = encoded(sample_frame());
    frame[frame_header_bytes + 4] = 3;  // the first input's kind byte
    CHECK(server_error(frame) == ProtocolError::bad_input);
    frame = encoded(sample_frame());
    frame.push_back(0);
    CHECK(server_error(frame) == ProtocolError::trailing_bytes);
    Frame swapped = sample_frame();
    std::swap(swapped.inputs[0], swapped.inputs[2]);
    CHECK(server_error(encoded(swapped)) == ProtocolError::inputs_out_of_order);
    Frame repeated = sample_frame();
    repeated.inputs[1] = repeated.inputs[0];
    repeated.inputs[1].sequence = 4;  // the same input twice, from two messages
    CHECK(server_error(encoded(repeated)) == ProtocolError::inputs_out_of_order);

    CHECK(server_error({0x83, 1, 0, 0, 0, 0, 0, 0, 0}) == ProtocolError::empty_snapshot);

    Welcome bad_config = sample_welcome();
    bad_config.config.tick_hz = 0;
    CHECK(server_error(encoded(bad_config)) == ProtocolError::bad_config);
    Bytes welcome = encoded(sample_welcome());
    welcome[1] = 7;
    CHECK(server_error(welcome) == ProtocolError::bad_role);

    CHECK(server_error({0x86, 0x00, 0x00, 0x00}) == ProtocolError::unknown_error_code);
    CHECK(server_error({0x86, 0x0A, 0x00, 0x00}) == ProtocolError::unknown_error_code);
    Bytes long_text = {0x86, 0x05};
    le(long_text, max_error_text_bytes + 1, 2);
    long_text.resize(long_text.size() + max_error_text_bytes + 1, 'a');
    CHECK(server_error(long_text) == ProtocolError::text_too_long);
    CHECK(server_error({0x86, 0x05, 0x02, 0x00, 0xC3, 0x28}) == ProtocolError::bad_text);     // bad continuation
    CHECK(server_error({0x86, 0x05, 0x02, 0x00, 0xC0, 0x80}) == ProtocolError::bad_text);     // overlong NUL
    CHECK(server_error({0x86, 0x05, 0x03, 0x00, 0xED, 0xA0, 0x80}) == ProtocolError::bad_text);  // a surrogate
    CHECK(server_error({0x86, 0x05, 0x03, 0x00, 0xE0, 0x80, 0x80}) == ProtocolError::bad_text);  // overlong 3-byte
    CHECK(server_error({0x86, 0x05, 0x04, 0x00, 0xF0, 0x80, 0x80, 0x80}) == ProtocolError::bad_text);  // overlong 4-byte
    CHECK(server_error({0x86, 0x05, 0x02, 0x00, 0xE2, 0x82}) == ProtocolError::bad_text);  // cut short by the end
    CHECK(server_error({0x86, 0x05, 0x04, 0x00, 0xF4, 0x90, 0x80, 0x80}) == ProtocolError::bad_text);  // > U+10FFFF
    CHECK(server_error({0x86, 0x05, 0x01, 0x00, 'x', 'y'}) == ProtocolError::trailing_bytes);
    const auto ok = decode_server(Bytes{0x86, 0x05, 0x04, 0x00, 0xF0, 0x9F, 0x98, 0x80});  // U+1F600
    REQUIRE(ok.ok());
    CHECK(std::get<ErrorMsg>(*ok).text == "\xF0\x9F\x98\x80");
}

TEST_CASE("each ProtocolError, ErrorCode and CloseReason has a distinct name and a sentence") {
    std::vector<std::string> names;
    for (int e = 0; e <= static_cast<int>(ProtocolError::bad_text); ++e) {
        const auto error = static_cast<ProtocolError>(e);
        names.emplace_back(error_name(error));
        CHECK(names.back() != "unknown");
        CHECK(describe(error).size() > 20);
    }
    std::sort(names.begin(), names.end());
    CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
    CHECK(error_name(net::ErrorCode::version_mismatch) == "version_mismatch");
    CHECK(error_name(net::ErrorCode::fingerprint_mismatch) == "fingerprint_mismatch");
    CHECK(error_name(net::ErrorCode::idle) == "idle");
    CHECK(error_name(CloseReason::protocol_error) == "protocol_error");
    CHECK(websocket_close_code(CloseReason::protocol_error) == 1002);
    CHECK(websocket_close_code(CloseReason::rate_limited) == 1008);
    CHECK(websocket_close_code(CloseReason::room_full) == 1013);
    CHECK(websocket_close_code(CloseReason::too_slow) == 1008);
    CHECK(websocket_close_code(CloseReason::idle) == 1001);
    CHECK(websocket_close_code(CloseReason::shutting_down) == 1001);
}

TEST_CASE("an error text is cut to max_error_text_bytes at a UTF-8 boundary, never inside a character") {
    // 255 ASCII bytes, then a two-byte character that would end at byte 257: it is dropped whole.
    std::string text(max_error_text_bytes - 1, 'a');
    text += "\xC3\xA9tail";
    const Bytes b = encoded(ErrorMsg{net::ErrorCode::malformed, text});
    CHECK(b[2] == max_error_text_bytes - 1);
    CHECK(b[3] == 0);
    const auto r = decode_server(b);
    REQUIRE(r.ok());
    CHECK(std::get<ErrorMsg>(*r).text == std::string(max_error_text_bytes - 1, 'a'));

    // A four-byte character that ends exactly at the limit is kept.
    std::string fits(max_error_text_bytes - 4, 'b');
    fits += "\xF0\x9F\x98\x80";
    const auto whole = decode_server(encoded(ErrorMsg{net::ErrorCode::malformed, fits + "more"}));
    REQUIRE(whole.ok());
    CHECK(std::get<ErrorMsg>(*whole).text == fits);

    // Bytes that begin no valid sequence become '?', so the encoder never sends a bad_text.
    const auto fixed = decode_server(encoded(ErrorMsg{net::ErrorCode::malformed, "a\xFF" "b\xC3"}));
    REQUIRE(fixed.ok());
    CHECK(std::get<ErrorMsg>(*fixed).text == "a?b?");
}

TEST_CASE("peek_type names the type without decoding, and nothing for no type") {
    CHECK(peek_type(Bytes{}) == std::nullopt);
    CHECK(peek_type(Bytes{0x00}) == std::nullopt);
    CHECK(peek_type(Bytes{0x87}) == std::nullopt);
    CHECK(peek_type(Bytes{0x82}) == MessageType::frame);  // a truncated frame is still a frame
    CHECK(peek_type(Bytes{0x05, 1}) == MessageType::desync);
}
