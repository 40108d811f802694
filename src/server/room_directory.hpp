// The directory of rooms one `tandem serve` hosts, as pure bookkeeping: which rooms exist, who
// created each, how many connections each has and since when it has had none; the bounds on
// creating rooms (per process, per address); the body of POST /rooms, read by a strict decoder
// with a typed error; and the JSON the directory is answered with. Time is passed in, so every
// rule is unit-tested without a socket (tests/server/room_directory_test.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"
#include "tandem/server/room_port.hpp"
#include "tandem/server/tickets.hpp"

namespace tandem::server {

// Every way a request about rooms can be refused. Each has its HTTP status and its name (the
// JSON error's "error"), so a client tells them apart without reading the sentence.
enum class RoomRequestCode : uint8_t {
    bad_json,             // 400 the body is not one flat JSON object of strings and whole numbers
    unknown_field,        // 400 a field POST /rooms does not take
    bad_value,            // 400 a known field of the wrong type or out of its range
    unknown_game,         // 400 a game this binary does not have
    ticket_missing,       // 401 tickets are on and the body carries none
    ticket_forged,        // 403 not signed with the server's key (or not a ticket at all)
    ticket_expired,       // 403 expired
    ticket_invalid,       // 403 expiring too far ahead
    room_exists,          // 409 the ticket's room is hosted already
    rooms_per_address,    // 429 this address holds its share of created rooms
    too_many_rooms,       // 503 the process hosts as many rooms as it may
    draining,             // 503 the server is shutting down
    room_unknown,         // 404 no room by that id (GET or /ws/ROOM)
    method_not_allowed,   // 405 /rooms takes GET, HEAD and POST
};

struct RoomRequestError {
    RoomRequestCode code = RoomRequestCode::bad_json;
    std::string detail;   // one sentence: what was wrong
};
std::string_view error_name(const RoomRequestError& e);
inline std::string_view describe(const RoomRequestError& e) { return e.detail; }
std::string_view room_request_code_name(RoomRequestCode code);
uint16_t http_status(RoomRequestCode code);
// The answer's body: {"error":"NAME","message":"..."}.
std::string room_error_json(const RoomRequestError& e);

// What POST /rooms asks for. Fields: "game" (string; default the server's own game),
// "max_players" (1..max_players_per_room), "max_watchers" (0..largest_room_watchers),
// "ticket" (base64url, as `tandem ticket` prints it).
struct CreateRoomRequest {
    std::string game;
    std::optional<uint32_t> max_players;
    std::optional<uint32_t> max_watchers;
    std::string ticket;
};
// A created room's watcher places: the room's own default (1,024). More would let one request
// reserve a larger share of the process's connections than the default room has.
inline constexpr uint32_t largest_room_watchers = 1024;
Result<CreateRoomRequest, RoomRequestError> parse_create_room(std::string_view body);

// With tickets on, a created room is the one its ticket names: the ticket must be the key's
// (ticket_forged; text that is not a ticket too), current (ticket_expired) and expire at most
// max_ticket_lifetime_s ahead (ticket_invalid). Its role, seat and name are a hello's business
// and are not read. Returns the room's id. A lobby mints one ticket per room it wants; a
// replayed one finds the room there (room_exists) or, after the room closed, makes it again,
// which is the room the lobby asked for and counts against the same bounds.
Result<std::string, RoomRequestError> room_id_from_ticket(const TicketKey& key, std::string_view text, int64_t now_unix_s);

// Room ids as tickets, --room and the stores spell a room's name: 1 to 64 of [A-Za-z0-9_-].
bool valid_room_id(std::string_view id);
// 16 lower-case hex digits from 8 random bytes (a created room's id when tickets are off).
std::string room_id_from_bytes(const std::array<uint8_t, 8>& bytes);

// The bounds on created rooms; docs/scaling.md says why each is what it is.
struct RoomLimits {
    // Created rooms at once in one process (the default room not counted). Each room holds
    // its world and its connections' state: an arena room at its defaults is about 1 MB before
    // anyone joins, so 64 bound what strangers can make the process hold to tens of MB.
    uint32_t max_rooms = 64;
    // Created rooms one address (an IPv6 peer by its /64) holds at once: a lobby behind one
    // address creates more through --per-address-limit; a stranger fills at most this share.
    uint32_t rooms_per_address = 4;
    // A created room with no connection for this long is closed (the default room never is).
    int64_t idle_close_ns = int64_t{60} * 1'000'000'000;
};

class RoomDirectory {
public:
    struct Entry {
        std::string game;
        AddressKey creator{};
        bool permanent = false;      // the default room: never counted, never closed
        uint32_t connections = 0;
        int64_t idle_since_ns = 0;   // when its last connection ended (or it was created)
    };

    explicit RoomDirectory(RoomLimits limits) : limits_(limits) {}

    // Why `creator` may not create the room `id` now (nullopt: it may). In this order:
    // room_exists, too_many_rooms, rooms_per_address.
    std::optional<RoomRequestCode> may_create(const AddressKey& creator, std::string_view id) const;
    void add(const std::string& id, std::string game, const AddressKey& creator, int64_t now_ns, bool permanent = false);
    void remove(std::string_view id);
    void connected(std::string_view id);
    void disconnected(std::string_view id, int64_t now_ns);
    // Created rooms without a connection for idle_close_ns or more at now_ns, in id order.
    std::vector<std::string> idle(int64_t now_ns) const;
    const Entry* find(std::string_view id) const;
    const std::map<std::string, Entry, std::less<>>& entries() const { return entries_; }
    uint32_t created() const { return created_; }
    const RoomLimits& limits() const { return limits_; }

private:
    RoomLimits limits_;
    std::map<std::string, Entry, std::less<>> entries_;
    std::map<AddressKey, uint32_t> per_address_;
    uint32_t created_ = 0;
};

// One row of GET /rooms.
struct RoomListing {
    std::string id;
    std::string game;
    RoomFigures figures;
};
// {"rooms":[{"id":...,"game":...,"players":N,"watchers":N,"seats":N,"tick":N}, ...]}
std::string rooms_json(const std::vector<RoomListing>& rooms);
// {"id":...,"game":...,"ws":"/ws/ID"}
std::string created_room_json(std::string_view id, std::string_view game);

}  // namespace tandem::server
