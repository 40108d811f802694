// The server's rooms: which room an upgrade joins (/ws, /ws/ROOM), POST /rooms and GET /rooms,
// and the idle check that closes a created room nobody is connected to. What may be created
// and what is idle is decided by RoomDirectory (room_directory.hpp, pure); this file acts on it.
#include <cstdio>

#include "server/moved_room.hpp"
#include "server/transport.hpp"
#include "tandem/server/os_random.hpp"
#include "tandem/server/tickets.hpp"

namespace tandem::server::detail {

std::shared_ptr<HostedRoom> Server::room_for(std::string_view path) {
    if (path == "/ws") return default_room_;
    if (!path.starts_with("/ws/")) return nullptr;
    const std::string_view id = path.substr(4);
    if (!valid_room_id(id)) return nullptr;
    const auto found = rooms_.find(id);
    if (found != rooms_.end()) return found->second->closed ? nullptr : found->second;
    // Served by another process: the join is answered where it went.
    const auto moved = moved_.find(id);
    if (moved == moved_.end()) return nullptr;
    auto& answer = moved_rooms_[std::string(id)];
    if (!answer || static_cast<const MovedRoom*>(answer->port)->url() != moved->second) {
        auto port = std::make_unique<MovedRoom>(moved->second);
        answer = std::make_shared<HostedRoom>(room_context(), std::string(id), std::string(), *port);
        answer->owned = std::move(port);
    }
    return answer;
}

void Server::hosted_changed() {
    std::set<std::string, std::less<>> ids;
    // Draining, this process serves nothing as far as its scans go: the rooms it handed off are
    // then reported where they went.
    if (!draining_) {
        for (const auto& [id, room] : rooms_) ids.insert(id);
    }
    const uint32_t created = directory_.created();
    const std::lock_guard lock(hosted_mutex_);
    hosted_ids_ = std::move(ids);
    hosted_room_for_ = draining_ || created >= limits_.max_rooms ? 0 : limits_.max_rooms - created;
}

void Server::start_store_watch() {
    if (options_.store_address.empty()) return;
    hosted_changed();
    StoreWatch::Hooks hooks;
    hooks.hosted = [this] {
        const std::lock_guard lock(hosted_mutex_);
        std::set<std::string, std::less<>> ids = hosted_ids_;
        ids.insert(adopting_.begin(), adopting_.end());
        const uint32_t pending = static_cast<uint32_t>(adopting_.size());
        return std::pair{std::move(ids), hosted_room_for_ > pending ? hosted_room_for_ - pending : 0};
    };
    hooks.adopted = [this](AdoptedRoom adopted) {
        {
            // Hosted from now on as far as the next scan can tell, though not yet opened.
            const std::lock_guard lock(hosted_mutex_);
            adopting_.insert(adopted.id);
        }
        asio::post(io_, [this, shared = std::make_shared<AdoptedRoom>(std::move(adopted))] { open_adopted(std::move(*shared)); });
    };
    hooks.moved = [this](std::map<std::string, std::string> moved) {
        asio::post(io_, [this, moved = std::move(moved)]() mutable { set_moved(std::move(moved)); });
    };
    // stderr, as the room's own lines (GameRoom): the watch's thread writes one line at a time.
    hooks.log = [program = options_.program](const std::string& line) { std::fprintf(stderr, "%s: %s\n", program.c_str(), line.c_str()); };
    if (ticket_key_) {
        hooks.judge = [key = *ticket_key_](const std::string& room) { return ticket_judge(key, room); };
    }
    store_watch_ = std::make_unique<StoreWatch>(options_, kinds_, std::move(hooks));
}

void Server::open_adopted(AdoptedRoom adopted) {
    {
        const std::lock_guard lock(hosted_mutex_);
        adopting_.erase(adopted.id);
    }
    // A room of that id served here already: this copy is dropped without a word to the store
    // (its lease and checkpoint are the live room's).
    if (rooms_.contains(adopted.id)) return;
    std::shared_ptr<HostedRoom> room;
    if (!draining_) {
        room = std::make_shared<HostedRoom>(room_context(), adopted.id, adopted.game, *adopted.port);
        room->owned = std::move(adopted.port);
        room->reported = room->port->figures();
        if (std::string problem; !start_ticking(*room, &problem)) room.reset();
    }
    if (!room) {
        // Not to be served here after all: its lease goes back for another process to take.
        if (adopted.port) adopted.port->shut_down(now_ns());
        hosted_changed();
        return;
    }
    rooms_[adopted.id] = room;
    // Adopted rooms count against the process's bound like created ones, under no address.
    directory_.add(adopted.id, adopted.game, AddressKey{}, now_ns());
    metrics_.room_opened(adopted.id);
    metrics_.room_adopted();
    moved_.erase(adopted.id);
    moved_rooms_.erase(adopted.id);
    hosted_changed();
    std::fprintf(stderr, "%s: adopted: %s\n", options_.program.c_str(), adopted.restored.c_str());
}

void Server::set_moved(std::map<std::string, std::string> moved) {
    moved_.clear();
    for (auto& [id, url] : moved) {
        if (!rooms_.contains(id) || handing_off_.contains(id)) moved_.emplace(id, std::move(url));
    }
    // A hand-over's rooms a peer has taken: their clients are sent there.
    for (auto it = handing_off_.begin(); it != handing_off_.end();) {
        const auto where = moved_.find(*it);
        const auto room = rooms_.find(*it);
        if (where == moved_.end() || room == rooms_.end()) {
            ++it;
            continue;
        }
        send_on(*room->second, where->second);
        it = handing_off_.erase(it);
    }
    // An answer whose room is no longer elsewhere goes once nobody is being answered by it.
    std::erase_if(moved_rooms_, [&](const auto& entry) { return !moved_.contains(entry.first) && entry.second->sessions.empty(); });
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
    auto room = std::make_shared<HostedRoom>(room_context(), id, game, *made.value());
    room->owned = std::move(made).value();
    room->reported = room->port->figures();   // before start_ticking shares it with its strand
    if (std::string problem; !start_ticking(*room, &problem)) {
        return RoomRequestError{RoomRequestCode::bad_value, "the room's tick rate is refused: " + problem};
    }
    rooms_[id] = room;
    directory_.add(id, game, creator, now_ns());
    metrics_.room_opened(id);
    hosted_changed();
    return room;
}

void Server::close_room(const std::string& id, bool retire) {
    const auto found = rooms_.find(id);
    if (found == rooms_.end() || found->second == default_room_) return;
    std::shared_ptr<HostedRoom> room = found->second;
    room->closed = true;
    // Idle means no connection, but close whatever the room did not, all the same.
    room_shut_down(*room, [room] {
        for (auto& [cid, session] : std::map(room->sessions)) session->close(close_going_away, "room_closed");
    }, retire);
    rooms_.erase(found);
    directory_.remove(id);
    metrics_.room_closed(id);
    hosted_changed();
}

void Server::schedule_idle_check() {
    idle_timer_.expires_after(std::chrono::milliseconds(500));
    idle_timer_.async_wait([this](const error_code& ec) {
        if (ec || draining_) return;
        for (const std::string& id : directory_.idle(now_ns())) close_room(id, /*retire=*/true);
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
