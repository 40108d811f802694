// Properties of src/net/protocol.cpp (the opaque codec, protocol version 4) and of
// game_codec.hpp over the arena: every message's bytes equal the layout documented in
// protocol.hpp, written out here by hand (never produced by the encoder); every message
// round-trips; every ProtocolError is reached by a crafted message, by the codec or by the
// typed layer; every truncation of every message is refused without reading past the end (each
// prefix is a fresh exact-size buffer, so ASan sees any over-read); a frame count larger than
// its bytes is refused before anything is reserved; an error text is cut at a UTF-8 boundary;
// a hello carries a length-prefixed resume token (16 bytes or none) and a length-prefixed
// ticket, whose own layout is pinned byte by byte too; a welcome ends with a token or none.
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
using Sim = arena::Sim;

// The arena's command as bytes: target.x raw, target.y raw.
CommandBytes steer_bytes(int32_t x, int32_t y) {
    Bytes b;
    le(b, static_cast<uint32_t>(x), 4);
    le(b, static_cast<uint32_t>(y), 4);
    return CommandBytes::of(b);
}

// Three applied inputs in canonical order (player, then kind), through the arena's codec.
Frame sample_frame() {
    const std::vector<Applied<Sim>> inputs = {
        {{1, sim::InputKind::join, {{Fx::from_int(2), Fx::from_int(3)}}}, 0},
        {{1, sim::InputKind::command, {{Fx::from_raw(5), Fx::from_raw(6)}}}, 9},
        {{2, sim::InputKind::leave, {}}, 0},
    };
    return std::get<Frame>(decode_server(arena_frame(5, 0x99, inputs)).value());
}

Welcome sample_welcome() { return welcome_for<Sim>(Role::play, 3, 2, 0x100, 16, arena::default_config()); }

// One of each message, as the byte tables below spell them.
std::vector<ClientMessage> sample_client_messages() {
    return {
        Hello{2, 0x0102030405060708u, Role::watch, "arena", std::nullopt, std::nullopt},
        InputMsg{0x11223344u, steer_bytes(0x10000, -1)},
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

// ... | u8 token length 0 | u16 ticket length 0.
Bytes hello_bytes() {
    return {0x01, 0x02, 0x00, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x01, 5, 'a', 'r', 'e', 'n', 'a', 0, 0, 0};
}

// A ticket for room "r1", seat 3, named "ann", expiring at 0x0102030405060708, by hand: format,
// expiry, nonce 0x10..0x1F, role, player, room, name, then a 32-byte mac of 0xE0..0xFF.
Bytes ticket_bytes() {
    Bytes b = {0x01, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
    for (uint8_t i = 0; i < 16; ++i) b.push_back(static_cast<uint8_t>(0x10 + i));
    b.insert(b.end(), {0x00, 0x03, 0x00, 0x00, 0x00, 2, 'r', '1', 3, 'a', 'n', 'n'});
    for (uint8_t i = 0; i < 32; ++i) b.push_back(static_cast<uint8_t>(0xE0 + i));
    return b;
}

Ticket sample_ticket() {
    Ticket t;
    t.expires_unix_s = 0x0102030405060708u;
    for (uint8_t i = 0; i < 16; ++i) t.nonce[i] = static_cast<uint8_t>(0x10 + i);
    t.role = Role::play;
    t.player = 3;
    t.room = "r1";
    t.name = "ann";
    for (uint8_t i = 0; i < 32; ++i) t.mac[i] = static_cast<uint8_t>(0xE0 + i);
    return t;
}

}  // namespace

TEST_CASE("client messages are the documented little-endian layouts, byte for byte") {
    CHECK(encoded(Hello{2, 0x0102030405060708u, Role::watch, "arena", std::nullopt, std::nullopt}) == hello_bytes());
    CHECK(encoded(InputMsg{0x11223344u, steer_bytes(0x10000, -1)}) ==
          Bytes{0x02, 0x44, 0x33, 0x22, 0x11, 8, 0x00, 0x00, 0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF});
    CHECK(encoded(Ack{true, 0x0A0B, 0xDEADBEEF00000001u}) ==
          Bytes{0x03, 0x01, 0x0B, 0x0A, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0xEF, 0xBE, 0xAD, 0xDE});
    CHECK(encoded(Ack{false, 0, 0}) == Bytes{0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    CHECK(encoded(Ping{-2}) == Bytes{0x04, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF});
    Bytes desync = {0x05, 7, 0, 0, 0, 0, 0, 0, 0, 5};
    for (uint8_t s = 1; s <= 5; ++s) desync.insert(desync.end(), {s, 0, 0, 0, 0, 0, 0, 0});
    CHECK(encoded(Desync{7, {1, 2, 3, 4, 5}}) == desync);
    // The largest a client may send: a hello with the longest name, a token and the longest ticket.
    Hello longest{protocol_version, 1, Role::play, std::string(max_game_name_bytes, 'g'), ResumeToken{}, sample_ticket()};
    longest.ticket->room = std::string(max_room_name_bytes, 'r');
    longest.ticket->name = std::string(max_ticket_name_bytes, 'n');
    CHECK(encoded(longest).size() == max_client_message_bytes);
    CHECK(max_client_message_bytes == 13 + 32 + 1 + 16 + 2 + (64 + 64 + 64));
    CHECK(encoded(Desync{7, std::vector<uint64_t>(max_sections, 1)}).size() < max_client_message_bytes);
    // The typed layer writes the same input message from the arena's command.
    CHECK(encoded(input_message<Sim>(0x11223344u, arena::Steer{{Fx::from_raw(0x10000), Fx::from_raw(-1)}})) ==
          encoded(InputMsg{0x11223344u, steer_bytes(0x10000, -1)}));
    CHECK(encoded(hello_for<Sim>(Role::play)).size() == 16 + 5);
}

TEST_CASE("server messages are the documented little-endian layouts, byte for byte") {
    SECTION("welcome: role, player, delay, server tick, max players, the game's name, then its config") {
        Bytes b = {0x81, 0x00};
        le(b, 3, 4);
        le(b, 2, 4);
        le(b, 0x100, 8);
        le(b, 16, 4);
        b.insert(b.end(), {5, 'a', 'r', 'e', 'n', 'a'});
        le(b, 68, 2);
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
        CHECK(b.size() == 98);
        CHECK(encoded(sample_welcome()) == b);
        CHECK(config_of<Sim>(sample_welcome()).value() == arena::default_config());
    }
    SECTION("frame: tick, digest, count, command bytes, then per input player, kind, sequence, command") {
        Bytes b = {0x82, 5, 0, 0, 0, 0, 0, 0, 0, 0x99, 0, 0, 0, 0, 0, 0, 0, 3, 0, 8};
        b.insert(b.end(), {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0});  // join (2, 3), seq 0
        b.insert(b.end(), {1, 0, 0, 0, 2, 9, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0});  // command raw (5, 6), seq 9
        b.insert(b.end(), {2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});  // leave, seq 0
        CHECK(b.size() == frame_header_bytes + 3 * (applied_input_header_bytes + 8));
        CHECK(encoded(sample_frame()) == b);
        const Frame f = sample_frame();
        CHECK(f.count == 3);
        CHECK(f.command_bytes == 8);
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
    SECTION("sections: tick, held, the count, the digests; unheld carries none") {
        Bytes b = {0x85, 9, 0, 0, 0, 0, 0, 0, 0, 1, 5};
        for (uint8_t s = 1; s <= 5; ++s) b.insert(b.end(), {s, 0, 0, 0, 0, 0, 0, 0});
        CHECK(encoded(Sections{9, true, {1, 2, 3, 4, 5}}) == b);
        CHECK(encoded(Sections{9, false, {}}) == Bytes{0x85, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        CHECK(encoded(Sections{9, false, {1, 2}}) == Bytes{0x85, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0});  // always decodes
    }
    SECTION("error: code, u16 length, UTF-8 text") {
        CHECK(encoded(ErrorMsg{net::ErrorCode::room_full, "full"}) == Bytes{0x86, 0x03, 0x04, 0x00, 'f', 'u', 'l', 'l'});
    }
}

TEST_CASE("hand-written bytes decode to the messages they spell") {
    const auto hello = decode_client(hello_bytes());
    REQUIRE(hello.ok());
    CHECK(std::get<Hello>(*hello) == Hello{2, 0x0102030405060708u, Role::watch, "arena", std::nullopt, std::nullopt});
    const auto pong = decode_server(Bytes{0x84, 1, 0, 0, 0, 0, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                          2, 0, 0, 0, 0, 0, 0, 0x80});
    REQUIRE(pong.ok());
    CHECK(std::get<Pong>(*pong) == Pong{1, -2, (uint64_t{0x80} << 56) | 2});
    // A frame's inputs in the arena's types.
    const auto inputs = decode_frame_inputs<Sim>(sample_frame());
    REQUIRE(inputs.ok());
    REQUIRE(inputs->size() == 3);
    CHECK((*inputs)[1] == Applied<Sim>{{1, sim::InputKind::command, {{Fx::from_raw(5), Fx::from_raw(6)}}}, 9});
    CHECK(command_of<Sim>(InputMsg{1, steer_bytes(7, -7)}).value() == arena::Steer{{Fx::from_raw(7), Fx::from_raw(-7)}});
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

TEST_CASE("random messages of every type round-trip, and random arena frames through the typed layer") {
    XorShift rng(10);
    const auto fx = [&] { return Fx::from_raw(static_cast<int32_t>(rng.next())); };
    const auto digests = [&] {
        std::vector<uint64_t> d(rng.next() % (max_sections + 1));
        for (uint64_t& x : d) x = rng.next();
        return d;
    };
    const auto name = [&] {
        std::string n(1 + rng.next() % max_game_name_bytes, 'a');
        for (char& c : n) c = "abcxyz0189_-"[rng.next() % 12];
        return n;
    };
    const auto payload = [&](uint64_t most) {
        Bytes b(rng.next() % (most + 1));
        for (uint8_t& x : b) x = static_cast<uint8_t>(rng.next());
        return b;
    };
    const auto token = [&]() -> std::optional<ResumeToken> {
        if (rng.next() % 2) return std::nullopt;
        ResumeToken t{};
        for (uint8_t& x : t) x = static_cast<uint8_t>(rng.next());
        return t;
    };
    const auto ticket = [&]() -> std::optional<Ticket> {
        if (rng.next() % 2) return std::nullopt;
        Ticket t;
        t.expires_unix_s = rng.next();
        for (uint8_t& x : t.nonce) x = static_cast<uint8_t>(rng.next());
        t.role = rng.next() % 2 ? Role::play : Role::watch;
        t.player = t.role == Role::watch ? 0 : static_cast<uint32_t>(rng.next());
        t.room = std::string(1 + rng.next() % max_room_name_bytes, 'a');
        for (char& c : t.room) c = "abcxyz0189_-"[rng.next() % 12];
        t.name = std::string(rng.next() % (max_ticket_name_bytes + 1), ' ');
        for (char& c : t.name) c = static_cast<char>(0x20 + rng.next() % 0x5F);
        for (uint8_t& x : t.mac) x = static_cast<uint8_t>(rng.next());
        return t;
    };
    for (int i = 0; i < 200; ++i) {
        std::vector<ClientMessage> client = {
            Hello{static_cast<uint16_t>(rng.next()), rng.next(), rng.next() % 2 ? Role::play : Role::watch, name(), token(), ticket()},
            InputMsg{static_cast<uint32_t>(rng.next()), CommandBytes::of(payload(max_command_bytes))},
            rng.next() % 2 ? Ack{true, rng.next(), rng.next()} : Ack{false, 0, 0},
            Ping{static_cast<int64_t>(rng.next())},
            Desync{rng.next(), digests()},
        };
        for (const ClientMessage& m : client) {
            const auto r = decode_client(encoded(m));
            REQUIRE(r.ok());
            CHECK(*r == m);
        }
        Welcome w{rng.next() % 2 ? Role::play : Role::watch, static_cast<uint32_t>(rng.next()), static_cast<uint32_t>(rng.next()),
                  rng.next(), static_cast<uint32_t>(rng.next()), name(), payload(300), token()};
        // Strictly increasing players keep the inputs in canonical order.
        std::vector<Applied<Sim>> inputs;
        uint32_t player = 0;
        const uint64_t n = rng.next() % (max_frame_inputs + 1);
        for (uint64_t k = 0; k < n; ++k) {
            player += 1 + static_cast<uint32_t>(rng.next() % 1000);
            inputs.push_back({{player, static_cast<sim::InputKind>(rng.next() % 3), {{fx(), fx()}}},
                              static_cast<uint32_t>(rng.next())});
        }
        const Bytes frame_bytes = arena_frame(rng.next(), rng.next(), inputs);
        const auto frame = decode_server(frame_bytes);
        REQUIRE(frame.ok());
        CHECK(encoded(*frame) == frame_bytes);
        const auto typed = decode_frame_inputs<Sim>(std::get<Frame>(*frame));
        REQUIRE(typed.ok());
        CHECK(*typed == inputs);
        Baseline b{rng.next(), Bytes(1 + rng.next() % 300)};
        for (uint8_t& byte : b.snapshot) byte = static_cast<uint8_t>(rng.next());
        std::string text(rng.next() % (max_error_text_bytes + 1), ' ');
        for (char& c : text) c = static_cast<char>(0x20 + rng.next() % 0x5F);  // printable ASCII
        std::vector<ServerMessage> server = {
            w,
            b,
            Pong{static_cast<int64_t>(rng.next()), static_cast<int64_t>(rng.next()), rng.next()},
            rng.next() % 2 ? Sections{rng.next(), true, digests()} : Sections{rng.next(), false, {}},
            ErrorMsg{static_cast<net::ErrorCode>(1 + rng.next() % (error_code_end - 1)), text},
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
    server.push_back(arena_frame(1, 2, {}));  // a frame with no inputs
    server.push_back(encoded(ErrorMsg{net::ErrorCode::idle, ""}));
    server.push_back(encoded(Sections{4, false, {}}));
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

TEST_CASE("a hello's resume token is length-prefixed, 0 or 16 bytes, and a welcome ends with one or none") {
    ResumeToken t{};
    for (uint32_t i = 0; i < resume_token_bytes; ++i) t[i] = static_cast<uint8_t>(0xA0 + i);
    // The layout by hand: after the game's name, the token's length and bytes, then the
    // ticket's length (0).
    Bytes with = {0x01, 0x02, 0x00, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x01, 5, 'a', 'r', 'e', 'n', 'a', 16};
    with.insert(with.end(), t.begin(), t.end());
    with.insert(with.end(), {0, 0});
    CHECK(encoded(Hello{2, 0x0102030405060708u, Role::watch, "arena", t, std::nullopt}) == with);
    const auto hello = decode_client(with);
    REQUIRE(hello.ok());
    CHECK(std::get<Hello>(*hello).resume == t);
    // A length other than 0 or 16 is refused as such, whatever follows; 16 with fewer bytes is
    // truncated (a fresh exact-size buffer: a read past it is an ASan report).
    for (uint32_t length = 1; length < 256; ++length) {
        if (length == resume_token_bytes) continue;
        Bytes b = with;
        b[18] = static_cast<uint8_t>(length);
        INFO("token length " << length);
        CHECK(decode_client(b).error() == ProtocolError::bad_token_length);
    }
    for (uint32_t present = 0; present < resume_token_bytes; ++present) {
        const Bytes b(with.begin(), with.begin() + 19 + present);
        CHECK(decode_client(b).error() == ProtocolError::truncated);
    }
    // After the config, for a welcome: 16 bytes or none, decided by the length left.
    Welcome w = sample_welcome();
    const Bytes plain = encoded(w);
    w.resume = t;
    Bytes welcome = plain;
    welcome.insert(welcome.end(), t.begin(), t.end());
    CHECK(encoded(w) == welcome);
    const auto back = decode_server(welcome);
    REQUIRE(back.ok());
    CHECK(std::get<Welcome>(*back).resume == t);
    CHECK_FALSE(std::get<Welcome>(decode_server(plain).value()).resume.has_value());
    for (uint32_t extra = 1; extra <= resume_token_bytes + 1; ++extra) {
        if (extra == resume_token_bytes) continue;
        Bytes b = plain;
        b.resize(plain.size() + extra, 0x5A);
        INFO(extra << " bytes after the welcome's config");
        CHECK(decode_server(b).error() == (extra < resume_token_bytes ? ProtocolError::truncated : ProtocolError::trailing_bytes));
    }
}

TEST_CASE("a ticket is the documented layout byte for byte, alone and inside a hello") {
    CHECK(ticket_bytes().size() == 64 + 2 + 3);
    std::vector<uint8_t> encoded_ticket;
    encode_ticket(encoded_ticket, sample_ticket());
    CHECK(encoded_ticket == ticket_bytes());
    const auto decoded = decode_ticket(ticket_bytes());
    REQUIRE(decoded.ok());
    CHECK(*decoded == sample_ticket());
    // The signed bytes are everything before the mac.
    const Bytes whole = ticket_bytes();
    CHECK(ticket_signed_bytes(sample_ticket()) == Bytes(whole.begin(), whole.end() - ticket_mac_bytes));
    // In a hello: no token (length 0), the ticket's u16 length, its bytes.
    Bytes b = {0x01, 0x02, 0x00, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x00, 5, 'a', 'r', 'e', 'n', 'a', 0, 69, 0};
    b.insert(b.end(), whole.begin(), whole.end());
    const Hello h{2, 0x0102030405060708u, Role::play, "arena", std::nullopt, sample_ticket()};
    CHECK(encoded(h) == b);
    const auto back = decode_client(b);
    REQUIRE(back.ok());
    CHECK(std::get<Hello>(*back) == h);
    // A watcher's ticket names no seat: the encoder writes 0 whatever the struct holds.
    Ticket watcher = sample_ticket();
    watcher.role = Role::watch;
    std::vector<uint8_t> w;
    encode_ticket(w, watcher);
    CHECK(w[25] == 0x01);
    CHECK((w[26] | w[27] | w[28] | w[29]) == 0);
    CHECK(decode_ticket(w)->player == 0);
    // Every prefix of the ticket, alone and in a hello, is truncated.
    for (size_t n = 0; n < whole.size(); ++n) {
        const Bytes prefix(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n));
        INFO("ticket prefix of " << n);
        CHECK(decode_ticket(prefix).error() == ProtocolError::truncated);
    }
}

TEST_CASE("a ticket that breaks its layout gets its own ProtocolError") {
    const auto ticket_error = [](Bytes b) {
        const auto r = decode_ticket(b);
        REQUIRE_FALSE(r.ok());
        return r.error();
    };
    Bytes b = ticket_bytes();
    b[0] = 2;
    CHECK(ticket_error(b) == ProtocolError::unknown_ticket_format);
    b = ticket_bytes();
    b[25] = 2;  // role
    CHECK(ticket_error(b) == ProtocolError::bad_role);
    b = ticket_bytes();
    b[25] = 1;  // a watcher naming seat 3
    CHECK(ticket_error(b) == ProtocolError::nonzero_padding);
    b = ticket_bytes();
    b[31] = '.';  // the room's name: letters, digits, _ and - only
    CHECK(ticket_error(b) == ProtocolError::bad_room_name);
    b = ticket_bytes();
    b[30] = 0;  // an empty room name (the rest then reads as the name and mac: wrong either way)
    CHECK(ticket_error(b) == ProtocolError::bad_room_name);
    b = ticket_bytes();
    b[34] = 0xFF;  // not UTF-8 in the name
    CHECK(ticket_error(b) == ProtocolError::bad_text);
    b = ticket_bytes();
    b.push_back(0);
    CHECK(ticket_error(b) == ProtocolError::trailing_bytes);
    // A name length past the bound.
    Bytes long_name = ticket_bytes();
    long_name[33] = max_ticket_name_bytes + 1;
    long_name.insert(long_name.begin() + 34, max_ticket_name_bytes + 1 - 3, 'x');
    CHECK(ticket_error(long_name) == ProtocolError::text_too_long);
    // More than max_ticket_bytes in all.
    CHECK(ticket_error(Bytes(max_ticket_bytes + 1, 1)) == ProtocolError::payload_too_long);
    // Inside a hello, a ticket length past the bound is refused before its bytes are read.
    Bytes hello = {0x01, 0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 5, 'a', 'r', 'e', 'n', 'a', 0};
    le(hello, max_ticket_bytes + 1, 2);
    CHECK(decode_client(hello).error() == ProtocolError::payload_too_long);
}

TEST_CASE("the resume refusals are error codes 11 to 14 on the wire") {
    CHECK(encoded(ErrorMsg{net::ErrorCode::resume_unknown, ""}) == Bytes{0x86, 11, 0, 0});
    CHECK(encoded(ErrorMsg{net::ErrorCode::resume_expired, ""}) == Bytes{0x86, 12, 0, 0});
    CHECK(encoded(ErrorMsg{net::ErrorCode::resume_used, ""}) == Bytes{0x86, 13, 0, 0});
    CHECK(encoded(ErrorMsg{net::ErrorCode::resumed_elsewhere, ""}) == Bytes{0x86, 14, 0, 0});
    CHECK(std::get<ErrorMsg>(decode_server(Bytes{0x86, 14, 0, 0}).value()).code == net::ErrorCode::resumed_elsewhere);
    CHECK(error_name(net::ErrorCode::resume_unknown) == "resume_unknown");
    CHECK(error_name(net::ErrorCode::resume_expired) == "resume_expired");
    CHECK(error_name(net::ErrorCode::resume_used) == "resume_used");
    CHECK(error_name(net::ErrorCode::resumed_elsewhere) == "resumed_elsewhere");
    CHECK(websocket_close_code(CloseReason::resume_refused) == 1008);
    CHECK(websocket_close_code(CloseReason::resumed_elsewhere) == 1001);
    CHECK(error_name(CloseReason::resume_refused) == "resume_refused");
}

TEST_CASE("the ticket refusals and address_limit are error codes 15 to 20 on the wire, room_moved is 21, and 22 is unknown") {
    const std::vector<std::pair<net::ErrorCode, std::string_view>> codes = {
        {net::ErrorCode::ticket_missing, "ticket_missing"},   {net::ErrorCode::ticket_forged, "ticket_forged"},
        {net::ErrorCode::ticket_expired, "ticket_expired"},   {net::ErrorCode::ticket_replayed, "ticket_replayed"},
        {net::ErrorCode::ticket_invalid, "ticket_invalid"},   {net::ErrorCode::address_limit, "address_limit"},
        {net::ErrorCode::room_moved, "room_moved"},
    };
    uint8_t wire = 15;
    for (const auto& [code, name] : codes) {
        CHECK(encoded(ErrorMsg{code, ""}) == Bytes{0x86, wire, 0, 0});
        CHECK(std::get<ErrorMsg>(decode_server(Bytes{0x86, wire, 0, 0}).value()).code == code);
        CHECK(error_name(code) == name);
        ++wire;
    }
    CHECK(decode_server(Bytes{0x86, 22, 0, 0}).error() == ProtocolError::unknown_error_code);
    // room_moved's text is a URL and arrives whole.
    const auto moved = decode_server(Bytes{0x86, 21, 3, 0, 'w', 's', ':'});
    REQUIRE(moved.ok());
    CHECK(std::get<ErrorMsg>(moved.value()).text == "ws:");
    CHECK(websocket_close_code(CloseReason::room_moved) == 1012);
    CHECK(error_name(CloseReason::room_moved) == "room_moved");
    CHECK(websocket_close_code(CloseReason::ticket_refused) == 1008);
    CHECK(websocket_close_code(CloseReason::address_limit) == 1008);
    CHECK(error_name(CloseReason::ticket_refused) == "ticket_refused");
    CHECK(error_name(CloseReason::address_limit) == "address_limit");
}

TEST_CASE("a frame count claiming more inputs than the bytes hold is refused before any reserve") {
    // Header of a frame claiming 192 inputs (the most allowed) of 8-byte commands, one present.
    Bytes b = {0x82, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
    le(b, max_frame_inputs, 2);
    b.push_back(8);
    b.insert(b.end(), {1, 0, 0, 0, 2, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    const auto r = decode_server(b);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == ProtocolError::truncated);
    // The largest count the field can spell is refused by the limit, not by the length.
    Bytes huge = {0x82, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 8};
    const auto h = decode_server(huge);
    REQUIRE_FALSE(h.ok());
    CHECK(h.error() == ProtocolError::too_many_inputs);
    Bytes over = {0x82, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
    le(over, max_frame_inputs + 1, 2);
    over.push_back(8);
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
    // The typed layer's refusals of a frame that the opaque codec accepts.
    const auto frame_error = [](const Bytes& b) {
        const auto f = decode_server(b);
        REQUIRE(f.ok());
        const auto r = decode_frame_inputs<Sim>(std::get<Frame>(*f));
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
    hello.push_back(0);  // a byte after a ticket length of 0
    CHECK(client_error(hello) == ProtocolError::trailing_bytes);
    hello = hello_bytes();
    hello[18] = 3;
    CHECK(client_error(hello) == ProtocolError::bad_token_length);
    hello = hello_bytes();
    hello[11] = 2;
    CHECK(client_error(hello) == ProtocolError::bad_role);
    hello = hello_bytes();
    hello[13] = 'A';  // upper case is not a game name
    CHECK(client_error(hello) == ProtocolError::bad_game_name);
    CHECK(client_error({0x01, 0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0, 0, 0, 0}) == ProtocolError::bad_game_name);  // empty
    Bytes long_name = {0x01, 0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, max_game_name_bytes + 1};
    long_name.resize(long_name.size() + max_game_name_bytes + 1, 'a');
    CHECK(client_error(long_name) == ProtocolError::bad_game_name);

    Bytes input = {0x02, 1, 0, 0, 0, max_command_bytes + 1};
    input.resize(input.size() + max_command_bytes + 1, 0);
    CHECK(client_error(input) == ProtocolError::payload_too_long);
    CHECK(client_error({0x02, 1, 0, 0, 0, 2, 0, 0, 0}) == ProtocolError::trailing_bytes);
    // Bytes of another length than the arena's command: the typed layer's bad_input.
    CHECK(command_of<Sim>(InputMsg{1, CommandBytes::of(Bytes{1, 2, 3})}).error() == ProtocolError::bad_input);

    Bytes ack = {0x03, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK(client_error(ack) == ProtocolError::bad_flag);
    ack[1] = 0;
    ack[2] = 1;  // nothing held, yet a tick
    CHECK(client_error(ack) == ProtocolError::nonzero_padding);
    ack[2] = 0;
    ack[17] = 1;  // nothing held, yet a digest
    CHECK(client_error(ack) == ProtocolError::nonzero_padding);

    Bytes desync = {0x05, 7, 0, 0, 0, 0, 0, 0, 0, max_sections + 1};
    desync.resize(desync.size() + 8 * (max_sections + 1), 0);
    CHECK(client_error(desync) == ProtocolError::too_many_sections);

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
    frame = encoded(sample_frame());
    frame[19] = max_command_bytes + 1;
    CHECK(server_error(frame) == ProtocolError::payload_too_long);
    // A frame of 4-byte commands decodes as bytes, but holds no arena command.
    Bytes four = {0x82, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 4, 1, 0, 0, 0, 2, 0, 0, 0, 0, 9, 9, 9, 9};
    CHECK(frame_error(four) == ProtocolError::bad_input);
    std::vector<Applied<Sim>> swapped = decode_frame_inputs<Sim>(sample_frame()).value();
    std::swap(swapped[0], swapped[2]);
    CHECK(frame_error(arena_frame(5, 0x99, swapped)) == ProtocolError::inputs_out_of_order);
    std::vector<Applied<Sim>> repeated = decode_frame_inputs<Sim>(sample_frame()).value();
    repeated[1] = repeated[0];
    repeated[1].sequence = 4;  // the same input twice, from two messages
    CHECK(frame_error(arena_frame(5, 0x99, repeated)) == ProtocolError::inputs_out_of_order);

    CHECK(server_error({0x83, 1, 0, 0, 0, 0, 0, 0, 0}) == ProtocolError::empty_snapshot);

    arena::WorldConfig zero_hz = arena::default_config();
    zero_hz.tick_hz = 0;
    const Welcome bad_config = welcome_for<Sim>(Role::play, 3, 2, 0x100, 16, zero_hz);
    REQUIRE(decode_server(encoded(bad_config)).ok());  // the opaque codec cannot know
    CHECK(config_of<Sim>(bad_config).error() == ProtocolError::bad_config);
    Welcome short_config = sample_welcome();
    short_config.config.pop_back();
    CHECK(config_of<Sim>(short_config).error() == ProtocolError::bad_config);
    Bytes welcome = encoded(sample_welcome());
    welcome[1] = 7;
    CHECK(server_error(welcome) == ProtocolError::bad_role);
    welcome = encoded(sample_welcome());
    welcome[23] = '!';  // the game name's first byte
    CHECK(server_error(welcome) == ProtocolError::bad_game_name);
    welcome = encoded(sample_welcome());
    welcome[28] = static_cast<uint8_t>((max_config_bytes + 1) & 0xFF);  // the config's u16 length
    welcome[29] = static_cast<uint8_t>((max_config_bytes + 1) >> 8);
    CHECK(server_error(welcome) == ProtocolError::payload_too_long);

    CHECK(server_error({0x86, 0x00, 0x00, 0x00}) == ProtocolError::unknown_error_code);
    CHECK(server_error({0x86, 0x16, 0x00, 0x00}) == ProtocolError::unknown_error_code);
    CHECK(decode_server(Bytes{0x86, 0x15, 0x00, 0x00}).ok());  // room_moved, the newest code
    Bytes ticketed = {0x01, 0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 5, 'a', 'r', 'e', 'n', 'a', 0, 69, 0};
    Bytes ticket = ticket_bytes();
    ticket[0] = 9;
    ticketed.insert(ticketed.end(), ticket.begin(), ticket.end());
    CHECK(client_error(ticketed) == ProtocolError::unknown_ticket_format);
    ticketed[21 + 31] = '.';  // the room's first byte
    ticketed[21] = 1;
    CHECK(client_error(ticketed) == ProtocolError::bad_room_name);
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
    for (int e = 0; e <= static_cast<int>(ProtocolError::bad_room_name); ++e) {
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
    CHECK(error_name(net::ErrorCode::game_mismatch) == "game_mismatch");
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
