// The server's rooms: which room an upgrade joins (/ws, /ws/ROOM), POST /rooms and GET /rooms,
// and the idle check that closes a created room nobody is connected to. What may be created
// and what is idle is decided by RoomDirectory (room_directory.hpp, pure); this file acts on it.
#include "server/transport.hpp"
#include "tandem/server/os_random.hpp"

namespace tandem::server::detail {

std::shared_ptr<HostedRoom> Server::room_for(std::string_view path) const {
    if (path == "/ws") return default_room_;
    if (!path.starts_with("/ws/")) return nullptr;
    const std::string_view id = path.substr(4);
    if (!valid_room_id(id)) return nullptr;
    const auto found = rooms_.find(id);
    if (found == rooms_.end() || found->second->closed) return nullptr;
    return found->second;
}

Result<std::shared_ptr<HostedRoom>, RoomRequestError> Server::create_room(const CreateRoomRequest& request, const AddressKey& creator) {
    if (draining_) return RoomRequestError{RoomRequestCode::draining, "the server is shutting down"};
    const std::string game = request.game.empty() ? default_room_->game : request.game;
    const RoomKind* kind = nullptr;
    std::string accepted;
    for (const RoomKind& k : kinds_) {
        if (k.game == game) kind = &k;
        accepted += (accepted.empty() ? "" : ", ") + k.game;
    }
    if (kind == nullptr || !kind->make) {
        return RoomRequestError{RoomRequestCode::unknown_game,
                                "no game '" + game.substr(0, 64) + "' here (accepted: " + (accepted.empty() ? "none" : accepted) + ")"};
    }
    std::string id;
    if (ticket_key_) {
        auto named = room_id_from_ticket(*ticket_key_, request.ticket, unix_now_s());
        if (!named.ok()) return named.error();
        id = std::move(named).value();
    } else {
        if (!request.ticket.empty()) {
            return RoomRequestError{RoomRequestCode::bad_value, "\"ticket\": this server takes no tickets (no --ticket-key)"};
        }
        // Unguessable, from the OS: an id is all a stranger needs to join an open room.
        std::array<uint8_t, 8> bytes{};
        os_random_bytes(bytes);
        id = room_id_from_bytes(bytes);
    }
    if (const auto refused = directory_.may_create(creator, id)) {
        std::string detail = *refused == RoomRequestCode::room_exists ? "a room '" + id + "' is hosted already"
                             : *refused == RoomRequestCode::too_many_rooms
                                 ? "this server hosts " + std::to_string(limits_.max_rooms) + " created rooms, its most"
                                 : "this address holds " + std::to_string(limits_.rooms_per_address) + " created rooms, its share";
        return RoomRequestError{*refused, std::move(detail)};
    }
    RoomSettings settings;
    settings.id = id;
    settings.max_players = request.max_players;
    settings.max_watchers = request.max_watchers;
    if (ticket_key_) settings.judge = ticket_judge(*ticket_key_, id);
    auto made = kind->make(options_, settings);
    if (!made.ok()) return RoomRequestError{RoomRequestCode::bad_value, std::string(made.message())};
    auto room = std::make_shared<HostedRoom>(pool_, id, game, *made.value());
    room->owned = std::move(made).value();
    room->reported = room->port->figures();   // before start_ticking shares it with its strand
    if (std::string problem; !start_ticking(*room, &problem)) {
        return RoomRequestError{RoomRequestCode::bad_value, "the room's tick rate is refused: " + problem};
    }
    rooms_[id] = room;
    directory_.add(id, game, creator, now_ns());
    metrics_.room_opened(id);
    return room;
}

void Server::close_room(const std::string& id) {
    const auto found = rooms_.find(id);
    if (found == rooms_.end() || found->second == default_room_) return;
    std::shared_ptr<HostedRoom> room = found->second;
    room->closed = true;
    // Idle means no connection, but close whatever the room did not, all the same.
    room_shut_down(*room, [room] {
        for (auto& [cid, session] : std::map(room->sessions)) session->close(close_going_away, "room_closed");
    });
    rooms_.erase(found);
    directory_.remove(id);
    metrics_.room_closed(id);
}

void Server::schedule_idle_check() {
    idle_timer_.expires_after(std::chrono::milliseconds(500));
    idle_timer_.async_wait([this](const error_code& ec) {
        if (ec || draining_) return;
        for (const std::string& id : directory_.idle(now_ns())) close_room(id);
        schedule_idle_check();
    });
}

http::message_generator Server::rooms_answer(const http::request<http::string_body>& request, const AddressKey& address) {
    const bool head = request.method() == http::verb::head;
    auto json = [&](unsigned status, std::string body) {
        http::response<http::string_body> response{static_cast<http::status>(status), request.version()};
        common_headers(response);
        response.set(http::field::content_type, "application/json");
        response.set(http::field::cache_control, "no-store");
        if (status == 405) response.set(http::field::allow, "GET, HEAD, POST");
        response.keep_alive(request.keep_alive());
        const size_t length = body.size();
        response.body() = head ? std::string() : std::move(body);
        response.content_length(length);
        metrics_.http_response(status);
        return http::message_generator(std::move(response));
    };
    auto refuse = [&](const RoomRequestError& e) {
        metrics_.room_request_refused(error_name(e));
        return json(http_status(e.code), room_error_json(e));
    };
    if (request.method() == http::verb::get || head) {
        std::vector<RoomListing> listing;
        for (const auto& [id, room] : rooms_) listing.push_back({id, room->game, room->reported});
        return json(200, rooms_json(listing));
    }
    if (request.method() != http::verb::post) {
        return refuse({RoomRequestCode::method_not_allowed, "/rooms takes GET, HEAD and POST"});
    }
    auto parsed = parse_create_room(request.body());
    if (!parsed.ok()) return refuse(parsed.error());
    auto room = create_room(parsed.value(), address);
    if (!room.ok()) return refuse(room.error());
    metrics_.room_created();
    return json(201, created_room_json(room.value()->id, room.value()->game));
}

}  // namespace tandem::server::detail
