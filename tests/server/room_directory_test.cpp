// Properties of src/server/room_directory.*: POST /rooms' body decoder takes exactly one flat
// object of the known fields and refuses everything else with its own code; the directory
// bounds created rooms per process and per address, frees a share when a room goes, never
// counts or closes the default room, and calls a room idle only after the stated time without
// a connection (time passed in); a creation ticket must be the key's, current and near; and
// the JSON written is what a client parses.
#include "server/room_directory.hpp"

#include <catch2/catch.hpp>

#include <string>

#include "tandem/net/protocol.hpp"

using namespace tandem;
using namespace tandem::server;

namespace {

AddressKey address(uint8_t last) {
    AddressKey a{};
    a[15] = last;
    return a;
}

RoomRequestCode refusal(std::string_view body) {
    auto parsed = parse_create_room(body);
    REQUIRE_FALSE(parsed.ok());
    return parsed.error().code;
}

constexpr int64_t second = 1'000'000'000;

}  // namespace

TEST_CASE("the create body takes each known field, and an empty body or {} asks for the defaults") {
    auto full = parse_create_room(R"( { "game" : "arena", "max_players": 8, "max_watchers":0, "ticket":"AbC-_" } )");
    REQUIRE(full.ok());
    CHECK(full.value().game == "arena");
    CHECK(full.value().max_players == 8u);
    CHECK(full.value().max_watchers == 0u);
    CHECK(full.value().ticket == "AbC-_");
    for (const std::string_view empty : {"", "  \n", "{}", " { } "}) {
        auto parsed = parse_create_room(empty);
        REQUIRE(parsed.ok());
        CHECK(parsed.value().game.empty());
        CHECK_FALSE(parsed.value().max_players.has_value());
    }
}

TEST_CASE("the create body refuses what is not one flat object, each with its own code") {
    for (const std::string_view bad : {"[]", "\"arena\"", "{", "{\"game\"}", "{\"game\":\"a\",}", "{\"game\":\"a\"} x",
                                       "{\"game\":\"a\" \"max_players\":1}", "{game:\"a\"}", "{\"game\":\"a\",\"game\":\"b\"}",
                                       "{\"ga\nme\":1}", "nul", "{\"game\":", "{\"game\": "}) {
        CAPTURE(bad);
        CHECK(refusal(bad) == RoomRequestCode::bad_json);
    }
    CHECK(refusal(R"({"seed":1})") == RoomRequestCode::unknown_field);
    CHECK(refusal(R"({"id":"mine"})") == RoomRequestCode::unknown_field);
    for (const std::string_view bad : {R"({"game":1})", R"({"game":{"a":1}})", R"({"max_players":0})", R"({"max_players":65})",
                                       R"({"max_players":-1})", R"({"max_players":1.5})", R"({"max_players":1e3})",
                                       R"({"max_players":"4"})", R"({"max_watchers":1025})", R"({"max_players":99999999999999999999})",
                                       R"({"ticket":true})", R"({"game":"a\u0041"})"}) {
        CAPTURE(bad);
        CHECK(refusal(bad) == RoomRequestCode::bad_value);
    }
    CHECK(parse_create_room(R"({"max_players":64,"max_watchers":1024})").ok());
}

TEST_CASE("every refusal has a 4xx or 503 status and a JSON body naming its code") {
    CHECK(http_status(RoomRequestCode::bad_json) == 400);
    CHECK(http_status(RoomRequestCode::unknown_game) == 400);
    CHECK(http_status(RoomRequestCode::ticket_missing) == 401);
    CHECK(http_status(RoomRequestCode::ticket_forged) == 403);
    CHECK(http_status(RoomRequestCode::room_unknown) == 404);
    CHECK(http_status(RoomRequestCode::method_not_allowed) == 405);
    CHECK(http_status(RoomRequestCode::room_exists) == 409);
    CHECK(http_status(RoomRequestCode::rooms_per_address) == 429);
    CHECK(http_status(RoomRequestCode::too_many_rooms) == 503);
    CHECK(room_error_json({RoomRequestCode::bad_value, "say \"no\"\n"}) ==
          "{\"error\":\"bad_value\",\"message\":\"say \\\"no\\\"\\u000a\"}\n");
}

TEST_CASE("the directory bounds created rooms per process and per address, and frees a share when a room goes") {
    RoomDirectory d(RoomLimits{.max_rooms = 3, .rooms_per_address = 2, .idle_close_ns = 10 * second});
    d.add("default", "arena", AddressKey{}, 0, /*permanent=*/true);
    CHECK(d.may_create(address(1), "default") == RoomRequestCode::room_exists);
    CHECK_FALSE(d.may_create(address(1), "a").has_value());
    d.add("a", "arena", address(1), 0);
    d.add("b", "arena", address(1), 0);
    CHECK(d.may_create(address(1), "c") == RoomRequestCode::rooms_per_address);
    CHECK_FALSE(d.may_create(address(2), "c").has_value());
    d.add("c", "arena", address(2), 0);
    CHECK(d.created() == 3);   // the default room is not counted
    CHECK(d.may_create(address(3), "d") == RoomRequestCode::too_many_rooms);
    d.remove("a");
    CHECK_FALSE(d.may_create(address(1), "d").has_value());
    d.remove("default");   // never happens in the server; here: removing it frees no created room's place
    CHECK(d.created() == 2);
}

TEST_CASE("a created room is idle only after the stated time with no connection, and the default room never") {
    RoomDirectory d(RoomLimits{.max_rooms = 8, .rooms_per_address = 8, .idle_close_ns = 10 * second});
    d.add("default", "arena", AddressKey{}, 0, /*permanent=*/true);
    d.add("a", "arena", address(1), 0);
    d.add("b", "arena", address(1), 5 * second);
    CHECK(d.idle(10 * second - 1).empty());
    CHECK(d.idle(10 * second) == std::vector<std::string>{"a"});
    d.connected("a");
    CHECK(d.idle(100 * second) == std::vector<std::string>{"b"});
    d.connected("a");
    d.disconnected("a", 100 * second);   // one connection left: not idle
    CHECK(d.idle(200 * second) == std::vector<std::string>{"b"});
    d.disconnected("a", 200 * second);
    CHECK(d.idle(210 * second - 1) == std::vector<std::string>{"b"});
    CHECK(d.idle(210 * second) == (std::vector<std::string>{"a", "b"}));
}

TEST_CASE("a creation ticket must be the key's, current and at most a day ahead, and its room is the room made") {
    const TicketKey key{std::vector<uint8_t>(32, 7)};
    const TicketKey other{std::vector<uint8_t>(32, 8)};
    const int64_t now = 1'800'000'000;
    auto minted = [&](const TicketKey& k, uint64_t expires, std::string room = "lobby-1") {
        net::Ticket t;
        t.expires_unix_s = expires;
        t.room = std::move(room);
        sign_ticket(k, t);
        std::vector<uint8_t> bytes;
        net::encode_ticket(bytes, t);
        return base64url(bytes);
    };
    auto good = room_id_from_ticket(key, minted(key, now + 60), now);
    REQUIRE(good.ok());
    CHECK(good.value() == "lobby-1");
    CHECK(room_id_from_ticket(key, "", now).error().code == RoomRequestCode::ticket_missing);
    CHECK(room_id_from_ticket(key, "not base64!", now).error().code == RoomRequestCode::ticket_forged);
    CHECK(room_id_from_ticket(key, "AAAA", now).error().code == RoomRequestCode::ticket_forged);
    CHECK(room_id_from_ticket(key, minted(other, now + 60), now).error().code == RoomRequestCode::ticket_forged);
    CHECK(room_id_from_ticket(key, minted(key, now), now).error().code == RoomRequestCode::ticket_expired);
    CHECK(room_id_from_ticket(key, minted(key, now + max_ticket_lifetime_s + 1), now).error().code == RoomRequestCode::ticket_invalid);
    CHECK(room_id_from_ticket(key, minted(key, now + max_ticket_lifetime_s), now).ok());
}

TEST_CASE("the listing and the creation answer are the JSON a client parses") {
    RoomFigures f;
    f.players = 2;
    f.watchers = 3;
    f.seats = 16;
    f.tick = 99;
    CHECK(rooms_json({{"default", "arena", f}, {"x\"y", "ships", RoomFigures{}}}) ==
          "{\"rooms\":[{\"id\":\"default\",\"game\":\"arena\",\"players\":2,\"watchers\":3,\"seats\":16,\"tick\":99},"
          "{\"id\":\"x\\\"y\",\"game\":\"ships\",\"players\":0,\"watchers\":0,\"seats\":0,\"tick\":0}]}\n");
    CHECK(created_room_json("ab12", "arena") == "{\"id\":\"ab12\",\"game\":\"arena\",\"ws\":\"/ws/ab12\"}\n");
    CHECK(room_id_from_bytes({0x00, 0x01, 0xab, 0xff, 0x10, 0x20, 0x30, 0x40}) == "0001abff10203040");
    CHECK(valid_room_id("ab-_9Z"));
    CHECK_FALSE(valid_room_id(""));
    CHECK_FALSE(valid_room_id("a/b"));
    CHECK_FALSE(valid_room_id(std::string(65, 'a')));
}
