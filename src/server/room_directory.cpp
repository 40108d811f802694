// The room directory's rules and the JSON of /rooms (room_directory.hpp). The body decoder is
// strict on purpose: a stranger's bytes, at most 4 KiB (the transport's body limit), read as one
// flat object; anything it does not recognise is refused with its reason, never skipped.
#include "server/room_directory.hpp"

#include <algorithm>

#include "tandem/net/protocol.hpp"

namespace tandem::server {

std::string_view room_request_code_name(RoomRequestCode code) {
    switch (code) {
        case RoomRequestCode::bad_json: return "bad_json";
        case RoomRequestCode::unknown_field: return "unknown_field";
        case RoomRequestCode::bad_value: return "bad_value";
        case RoomRequestCode::unknown_game: return "unknown_game";
        case RoomRequestCode::ticket_missing: return "ticket_missing";
        case RoomRequestCode::ticket_forged: return "ticket_forged";
        case RoomRequestCode::ticket_expired: return "ticket_expired";
        case RoomRequestCode::ticket_invalid: return "ticket_invalid";
        case RoomRequestCode::room_exists: return "room_exists";
        case RoomRequestCode::rooms_per_address: return "rooms_per_address";
        case RoomRequestCode::too_many_rooms: return "too_many_rooms";
        case RoomRequestCode::draining: return "draining";
        case RoomRequestCode::room_unknown: return "room_unknown";
        case RoomRequestCode::method_not_allowed: return "method_not_allowed";
    }
    return "bad_json";
}

std::string_view error_name(const RoomRequestError& e) { return room_request_code_name(e.code); }

uint16_t http_status(RoomRequestCode code) {
    switch (code) {
        case RoomRequestCode::bad_json:
        case RoomRequestCode::unknown_field:
        case RoomRequestCode::bad_value:
        case RoomRequestCode::unknown_game: return 400;
        case RoomRequestCode::ticket_missing: return 401;
        case RoomRequestCode::ticket_forged:
        case RoomRequestCode::ticket_expired:
        case RoomRequestCode::ticket_invalid: return 403;
        case RoomRequestCode::room_unknown: return 404;
        case RoomRequestCode::method_not_allowed: return 405;
        case RoomRequestCode::room_exists: return 409;
        case RoomRequestCode::rooms_per_address: return 429;
        case RoomRequestCode::too_many_rooms:
        case RoomRequestCode::draining: return 503;
    }
    return 400;
}

namespace {

// A JSON string's contents; the callers only ever write names, ids and our own sentences, but
// escaping is what keeps a sentence quoting a client's value valid JSON.
void append_json_string(std::string& out, std::string_view text) {
    out += '"';
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            static constexpr char hex[] = "0123456789abcdef";
            out += "\\u00";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += c;
        }
    }
    out += '"';
}

RoomRequestError fail(RoomRequestCode code, std::string detail) { return RoomRequestError{code, std::move(detail)}; }

// The reader of one flat object: {"name": "string" | whole number, ...}.
class FlatJson {
public:
    explicit FlatJson(std::string_view text) : s_(text) {}

    void skip_space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    bool take(char c) {
        skip_space();
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    bool at_end() {
        skip_space();
        return i_ == s_.size();
    }
    bool peek(char c) {
        skip_space();
        return i_ < s_.size() && s_[i_] == c;
    }
    // A string; escapes \" \\ \/ only (no field this decoder takes needs another).
    std::optional<std::string> string() {
        if (!take('"')) return std::nullopt;
        std::string out;
        while (i_ < s_.size()) {
            const char c = s_[i_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) return std::nullopt;
            if (c == '\\') {
                if (i_ >= s_.size()) return std::nullopt;
                const char e = s_[i_++];
                if (e != '"' && e != '\\' && e != '/') return std::nullopt;
                out += e;
                continue;
            }
            out += c;
        }
        return std::nullopt;
    }
    // A whole number: digits only, no sign, fraction or exponent, at most 10 digits.
    std::optional<uint64_t> number() {
        skip_space();
        const size_t start = i_;
        uint64_t value = 0;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
            value = value * 10 + static_cast<uint64_t>(s_[i_] - '0');
            ++i_;
            if (i_ - start > 10) return std::nullopt;
        }
        if (i_ == start) return std::nullopt;
        if (i_ < s_.size() && (s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E')) return std::nullopt;
        return value;
    }

private:
    std::string_view s_;
    size_t i_ = 0;
};

}  // namespace

std::string room_error_json(const RoomRequestError& e) {
    std::string out = "{\"error\":";
    append_json_string(out, error_name(e));
    out += ",\"message\":";
    append_json_string(out, e.detail);
    out += "}\n";
    return out;
}

Result<CreateRoomRequest, RoomRequestError> parse_create_room(std::string_view body) {
    CreateRoomRequest request;
    FlatJson json(body);
    // An empty body asks for the defaults, as "{}" does.
    if (json.at_end()) return request;
    if (!json.take('{')) return fail(RoomRequestCode::bad_json, "the body must be a JSON object");
    std::vector<std::string> seen;
    if (!json.take('}')) {
        for (;;) {
            auto name = json.string();
            if (!name) return fail(RoomRequestCode::bad_json, "expected a field name in double quotes");
            if (!json.take(':')) return fail(RoomRequestCode::bad_json, "expected ':' after \"" + *name + "\"");
            if (json.at_end()) return fail(RoomRequestCode::bad_json, "the body ends before \"" + *name + "\"'s value");
            if (std::find(seen.begin(), seen.end(), *name) != seen.end()) {
                return fail(RoomRequestCode::bad_json, "\"" + *name + "\" given twice");
            }
            seen.push_back(*name);
            if (*name == "game" || *name == "ticket") {
                auto value = json.string();
                if (!value) return fail(RoomRequestCode::bad_value, "\"" + *name + "\" expects a string");
                (*name == "game" ? request.game : request.ticket) = std::move(*value);
            } else if (*name == "max_players" || *name == "max_watchers") {
                const bool players = *name == "max_players";
                const uint64_t low = players ? 1 : 0;
                const uint64_t high = players ? net::max_players_per_room : largest_room_watchers;
                auto value = json.number();
                if (!value || *value < low || *value > high) {
                    return fail(RoomRequestCode::bad_value, "\"" + *name + "\" expects a whole number in " + std::to_string(low) +
                                                                ".." + std::to_string(high));
                }
                (players ? request.max_players : request.max_watchers) = static_cast<uint32_t>(*value);
            } else {
                std::string shown = name->substr(0, 64);
                return fail(RoomRequestCode::unknown_field,
                            "unknown field \"" + shown + "\" (accepted: game, max_players, max_watchers, ticket)");
            }
            if (json.take(',')) continue;
            if (json.take('}')) break;
            return fail(RoomRequestCode::bad_json, "expected ',' or '}'");
        }
    }
    if (!json.at_end()) return fail(RoomRequestCode::bad_json, "nothing may follow the object");
    return request;
}

Result<std::string, RoomRequestError> room_id_from_ticket(const TicketKey& key, std::string_view text, int64_t now_unix_s) {
    if (text.empty()) return fail(RoomRequestCode::ticket_missing, "this server requires a ticket naming the room to create");
    const auto bytes = from_base64url(text);
    if (!bytes) return fail(RoomRequestCode::ticket_forged, "\"ticket\" is not base64url");
    auto ticket = net::decode_ticket(*bytes);
    if (!ticket.ok()) return fail(RoomRequestCode::ticket_forged, "\"ticket\" is not a ticket (" + std::string(ticket.message()) + ")");
    if (!signature_holds(key, ticket.value())) return fail(RoomRequestCode::ticket_forged, "the ticket is not signed with this server's key");
    const uint64_t now = now_unix_s < 0 ? 0 : static_cast<uint64_t>(now_unix_s);
    if (ticket.value().expires_unix_s <= now) return fail(RoomRequestCode::ticket_expired, "the ticket has expired");
    if (ticket.value().expires_unix_s - now > static_cast<uint64_t>(max_ticket_lifetime_s)) {
        return fail(RoomRequestCode::ticket_invalid, "the ticket expires more than a day ahead");
    }
    return ticket.value().room;
}

bool valid_room_id(std::string_view id) { return net::valid_room_name(id); }

std::string room_id_from_bytes(const std::array<uint8_t, 8>& bytes) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (const uint8_t b : bytes) {
        out += hex[b >> 4];
        out += hex[b & 15];
    }
    return out;
}

std::optional<RoomRequestCode> RoomDirectory::may_create(const AddressKey& creator, std::string_view id) const {
    if (entries_.find(id) != entries_.end()) return RoomRequestCode::room_exists;
    if (created_ >= limits_.max_rooms) return RoomRequestCode::too_many_rooms;
    const auto found = per_address_.find(creator);
    if (found != per_address_.end() && found->second >= limits_.rooms_per_address) return RoomRequestCode::rooms_per_address;
    return std::nullopt;
}

void RoomDirectory::add(const std::string& id, std::string game, const AddressKey& creator, int64_t now_ns, bool permanent) {
    Entry entry;
    entry.game = std::move(game);
    entry.creator = creator;
    entry.permanent = permanent;
    entry.idle_since_ns = now_ns;
    if (!entries_.emplace(id, std::move(entry)).second) return;
    if (permanent) return;
    ++created_;
    ++per_address_[creator];
}

void RoomDirectory::remove(std::string_view id) {
    const auto found = entries_.find(id);
    if (found == entries_.end()) return;
    if (!found->second.permanent) {
        --created_;
        const auto count = per_address_.find(found->second.creator);
        if (count != per_address_.end() && --count->second == 0) per_address_.erase(count);
    }
    entries_.erase(found);
}

void RoomDirectory::connected(std::string_view id) {
    const auto found = entries_.find(id);
    if (found != entries_.end()) ++found->second.connections;
}

void RoomDirectory::disconnected(std::string_view id, int64_t now_ns) {
    const auto found = entries_.find(id);
    if (found == entries_.end() || found->second.connections == 0) return;
    if (--found->second.connections == 0) found->second.idle_since_ns = now_ns;
}

std::vector<std::string> RoomDirectory::idle(int64_t now_ns) const {
    std::vector<std::string> out;
    for (const auto& [id, entry] : entries_) {
        if (!entry.permanent && entry.connections == 0 && now_ns - entry.idle_since_ns >= limits_.idle_close_ns) out.push_back(id);
    }
    return out;
}

const RoomDirectory::Entry* RoomDirectory::find(std::string_view id) const {
    const auto found = entries_.find(id);
    return found == entries_.end() ? nullptr : &found->second;
}

std::string rooms_json(const std::vector<RoomListing>& rooms) {
    std::string out = "{\"rooms\":[";
    bool first = true;
    for (const RoomListing& room : rooms) {
        if (!first) out += ',';
        first = false;
        out += "{\"id\":";
        append_json_string(out, room.id);
        out += ",\"game\":";
        append_json_string(out, room.game);
        out += ",\"players\":" + std::to_string(room.figures.players);
        out += ",\"watchers\":" + std::to_string(room.figures.watchers);
        out += ",\"seats\":" + std::to_string(room.figures.seats);
        out += ",\"tick\":" + std::to_string(room.figures.tick);
        out += '}';
    }
    out += "]}\n";
    return out;
}

std::string created_room_json(std::string_view id, std::string_view game) {
    std::string out = "{\"id\":";
    append_json_string(out, id);
    out += ",\"game\":";
    append_json_string(out, game);
    out += ",\"ws\":";
    append_json_string(out, "/ws/" + std::string(id));
    out += "}\n";
    return out;
}

}  // namespace tandem::server
