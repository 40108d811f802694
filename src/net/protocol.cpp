// The wire codec: every message of include/tandem/net/protocol.hpp to its little-endian bytes
// and back. The decoders take untrusted bytes from the network: each checks the length its
// layout needs before reading, checks a frame's input count against the bytes present before
// reserving anything, and names the first rule a message breaks.
#include "tandem/net/protocol.hpp"

#include <algorithm>
#include <type_traits>

#include "tandem/core/bytes.hpp"

namespace tandem::net {

namespace {

using Reader = ByteReader;
using Writer = ByteWriter;

constexpr uint32_t input_header_bytes = 1 + 4 + 1;
constexpr uint32_t ack_bytes = 1 + 1 + 8 + 8;
constexpr uint32_t ping_bytes = 1 + 8;
constexpr uint32_t desync_header_bytes = 1 + 8 + 1;
constexpr uint32_t welcome_header_bytes = 1 + 1 + 4 + 4 + 8 + 4 + 1;  // up to the game name
constexpr uint32_t baseline_header_bytes = 1 + 8;
constexpr uint32_t pong_bytes = 1 + 8 + 8 + 8;
constexpr uint32_t sections_header_bytes = 1 + 8 + 1 + 1;
constexpr uint32_t error_header_bytes = 1 + 1 + 2;
static_assert(desync_header_bytes + 8 * max_sections == max_desync_bytes);
static_assert(max_hello_bytes <= max_client_message_bytes && max_desync_bytes <= max_client_message_bytes,
              "the server's read limit is the largest client message");
static_assert(input_header_bytes + max_command_bytes <= max_client_message_bytes);
static_assert(max_ticket_bytes <= UINT16_MAX);

void write_type(Writer& w, MessageType type) { w.u8(static_cast<uint8_t>(type)); }

void write_name(Writer& w, std::string_view name) {
    w.u8(static_cast<uint8_t>(name.size()));
    w.bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(name.data()), name.size()));
}

// u8 n | n bytes: a game name, checked (the caller has checked the length byte is there).
std::optional<ProtocolError> read_name(Reader& r, std::string& out) {
    const uint8_t n = r.u8();
    const std::span<const uint8_t> b = r.take(n);
    if (!r.ok()) return ProtocolError::truncated;
    out.assign(b.begin(), b.end());
    if (!sim::valid_game_name(out)) return ProtocolError::bad_game_name;
    return std::nullopt;
}

// An optional resume token ending a message: nothing left (none) or exactly the token.
std::optional<ProtocolError> read_token(Reader& r, std::optional<ResumeToken>& out) {
    if (r.remaining() == 0) return std::nullopt;
    if (r.remaining() < resume_token_bytes) return ProtocolError::truncated;
    if (r.remaining() > resume_token_bytes) return ProtocolError::trailing_bytes;
    const std::span<const uint8_t> b = r.take(resume_token_bytes);
    ResumeToken t{};
    std::copy(b.begin(), b.end(), t.begin());
    out = t;
    return std::nullopt;
}

void write_token(Writer& w, const std::optional<ResumeToken>& token) {
    if (token) w.bytes(std::span<const uint8_t>(token->data(), token->size()));
}

// The longest prefix of `text` of at most `most` bytes that ends on a UTF-8 boundary.
std::string_view cut_utf8(std::string_view text, size_t most);

// u8 t | t bytes: a hello's resume token, t = 0 (none) or resume_token_bytes.
std::optional<ProtocolError> read_prefixed_token(Reader& r, std::optional<ResumeToken>& out) {
    const uint8_t t = r.u8();
    if (!r.ok()) return ProtocolError::truncated;
    if (t == 0) return std::nullopt;
    if (t != resume_token_bytes) return ProtocolError::bad_token_length;
    const std::span<const uint8_t> b = r.take(resume_token_bytes);
    if (!r.ok()) return ProtocolError::truncated;
    ResumeToken token{};
    std::copy(b.begin(), b.end(), token.begin());
    out = token;
    return std::nullopt;
}

void write_ticket_fields(Writer& w, const Ticket& t) {
    w.u8(ticket_format);
    w.u64(t.expires_unix_s);
    w.bytes(std::span<const uint8_t>(t.nonce.data(), t.nonce.size()));
    w.u8(static_cast<uint8_t>(t.role));
    w.u32(t.role == Role::watch ? 0 : t.player);
    write_name(w, std::string_view(t.room).substr(0, max_room_name_bytes));
    write_name(w, cut_utf8(t.name, max_ticket_name_bytes));
}

// At most max_sections, so whatever the caller passes, the message decodes.
void write_digests(Writer& w, const std::vector<uint64_t>& digests) {
    const std::size_t n = std::min<std::size_t>(digests.size(), max_sections);
    w.u8(static_cast<uint8_t>(n));
    for (std::size_t i = 0; i < n; ++i) w.u64(digests[i]);
}

// u8 n | n x u64, exactly filling the rest of the message.
std::optional<ProtocolError> read_digests(Reader& r, std::vector<uint64_t>& out) {
    const uint8_t n = r.u8();
    if (!r.ok()) return ProtocolError::truncated;
    if (n > max_sections) return ProtocolError::too_many_sections;
    if (r.remaining() < uint64_t{n} * 8) return ProtocolError::truncated;
    if (r.remaining() > uint64_t{n} * 8) return ProtocolError::trailing_bytes;
    out.resize(n);
    for (uint64_t& d : out) d = r.u64();
    return std::nullopt;
}

// A fixed-size message is exactly its layout: fewer bytes are truncated, more are trailing.
std::optional<ProtocolError> check_size(std::span<const uint8_t> bytes, uint32_t size) {
    if (bytes.size() < size) return ProtocolError::truncated;
    if (bytes.size() > size) return ProtocolError::trailing_bytes;
    return std::nullopt;
}

// The length of the well-formed UTF-8 sequence starting at text[i], or 0 when the bytes there
// are not one (a stray continuation byte, an overlong form, a surrogate, above U+10FFFF, or a
// sequence cut by the end of the text).
size_t utf8_sequence_length(std::string_view text, size_t i) {
    const auto at = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
    const uint8_t b0 = at(i);
    if (b0 < 0x80) return 1;
    size_t n = 0;
    uint8_t lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) n = 2;
    else if (b0 == 0xE0) { n = 3; lo = 0xA0; }
    else if (b0 >= 0xE1 && b0 <= 0xEC) n = 3;
    else if (b0 == 0xED) { n = 3; hi = 0x9F; }  // no UTF-16 surrogates
    else if (b0 >= 0xEE && b0 <= 0xEF) n = 3;
    else if (b0 == 0xF0) { n = 4; lo = 0x90; }
    else if (b0 >= 0xF1 && b0 <= 0xF3) n = 4;
    else if (b0 == 0xF4) { n = 4; hi = 0x8F; }  // nothing above U+10FFFF
    else return 0;
    if (text.size() - i < n) return 0;
    if (at(i + 1) < lo || at(i + 1) > hi) return 0;
    for (size_t k = 2; k < n; ++k) {
        if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
    }
    return n;
}

bool valid_utf8(std::string_view text) {
    for (size_t i = 0; i < text.size();) {
        const size_t n = utf8_sequence_length(text, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

// The text an ErrorMsg carries: whole UTF-8 sequences up to max_error_text_bytes, never half
// a character, and each byte that begins no valid sequence replaced by '?', so whatever the
// caller passes, the encoded message decodes.
std::string wire_text(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        const size_t n = utf8_sequence_length(text, i);
        const size_t take = n == 0 ? 1 : n;
        if (out.size() + take > max_error_text_bytes) break;
        if (n == 0) out.push_back('?');
        else out.append(text.substr(i, n));
        i += take;
    }
    return out;
}

bool known_error_code(uint8_t code) {
    return code >= static_cast<uint8_t>(ErrorCode::version_mismatch) && code < error_code_end;
}

std::string_view cut_utf8(std::string_view text, size_t most) {
    size_t end = 0;
    for (size_t i = 0; i < text.size();) {
        const size_t n = utf8_sequence_length(text, i);
        if (n == 0 || i + n > most) break;
        i += n;
        end = i;
    }
    return text.substr(0, end);
}


// A ticket's bytes, exactly (the caller has cut them out by their length).
Result<Ticket, ProtocolError> decode_ticket_bytes(std::span<const uint8_t> bytes) {
    if (bytes.size() < min_ticket_bytes) return ProtocolError::truncated;
    if (bytes.size() > max_ticket_bytes) return ProtocolError::payload_too_long;
    Reader r(bytes);
    if (r.u8() != ticket_format) return ProtocolError::unknown_ticket_format;
    Ticket t;
    t.expires_unix_s = r.u64();
    const std::span<const uint8_t> nonce = r.take(ticket_nonce_bytes);
    std::copy(nonce.begin(), nonce.end(), t.nonce.begin());
    const uint8_t role = r.u8();
    if (role > static_cast<uint8_t>(Role::watch)) return ProtocolError::bad_role;
    t.role = static_cast<Role>(role);
    t.player = r.u32();
    if (t.role == Role::watch && t.player != 0) return ProtocolError::nonzero_padding;
    const uint8_t room = r.u8();
    const std::span<const uint8_t> room_bytes = r.take(room);
    if (!r.ok()) return ProtocolError::truncated;
    t.room.assign(room_bytes.begin(), room_bytes.end());
    if (!valid_room_name(t.room)) return ProtocolError::bad_room_name;
    const uint8_t name = r.u8();
    if (!r.ok()) return ProtocolError::truncated;
    if (name > max_ticket_name_bytes) return ProtocolError::text_too_long;
    const std::span<const uint8_t> name_bytes = r.take(name);
    if (!r.ok()) return ProtocolError::truncated;
    t.name.assign(name_bytes.begin(), name_bytes.end());
    if (!valid_utf8(t.name)) return ProtocolError::bad_text;
    if (r.remaining() < ticket_mac_bytes) return ProtocolError::truncated;
    if (r.remaining() > ticket_mac_bytes) return ProtocolError::trailing_bytes;
    const std::span<const uint8_t> mac = r.take(ticket_mac_bytes);
    std::copy(mac.begin(), mac.end(), t.mac.begin());
    return t;
}

Result<ClientMessage, ProtocolError> decode_hello(std::span<const uint8_t> bytes) {
    if (bytes.size() < hello_header_bytes) return ProtocolError::truncated;
    Reader r(bytes.subspan(1));
    Hello m;
    m.version = r.u16();
    m.fingerprint = r.u64();
    const uint8_t role = r.u8();
    if (role > static_cast<uint8_t>(Role::watch)) return ProtocolError::bad_role;
    m.role = static_cast<Role>(role);
    if (auto e = read_name(r, m.game)) return *e;
    if (auto e = read_prefixed_token(r, m.resume)) return *e;
    const uint16_t k = r.u16();
    if (!r.ok()) return ProtocolError::truncated;
    if (k > max_ticket_bytes) return ProtocolError::payload_too_long;
    if (r.remaining() < k) return ProtocolError::truncated;
    if (r.remaining() > k) return ProtocolError::trailing_bytes;
    if (k > 0) {
        auto ticket = decode_ticket_bytes(r.take(k));
        if (!ticket.ok()) return ticket.error();
        m.ticket = std::move(ticket).value();
    }
    return ClientMessage{std::move(m)};
}

Result<ClientMessage, ProtocolError> decode_input(std::span<const uint8_t> bytes) {
    if (bytes.size() < input_header_bytes) return ProtocolError::truncated;
    Reader r(bytes.subspan(1));
    InputMsg m;
    m.sequence = r.u32();
    const uint8_t n = r.u8();
    if (n > max_command_bytes) return ProtocolError::payload_too_long;
    if (r.remaining() < n) return ProtocolError::truncated;
    if (r.remaining() > n) return ProtocolError::trailing_bytes;
    m.command = CommandBytes::of(r.take(n));
    return ClientMessage{m};
}

Result<ClientMessage, ProtocolError> decode_ack(std::span<const uint8_t> bytes) {
    if (auto e = check_size(bytes, ack_bytes)) return *e;
    Reader r(bytes.subspan(1));
    const uint8_t holds = r.u8();
    if (holds > 1) return ProtocolError::bad_flag;
    Ack m;
    m.holds = holds == 1;
    m.tick = r.u64();
    m.digest = r.u64();
    if (!m.holds && (m.tick != 0 || m.digest != 0)) return ProtocolError::nonzero_padding;
    return ClientMessage{m};
}

Result<ClientMessage, ProtocolError> decode_ping(std::span<const uint8_t> bytes) {
    if (auto e = check_size(bytes, ping_bytes)) return *e;
    Reader r(bytes.subspan(1));
    Ping m;
    m.client_time_ns = static_cast<int64_t>(r.u64());
    return ClientMessage{m};
}

Result<ClientMessage, ProtocolError> decode_desync(std::span<const uint8_t> bytes) {
    if (bytes.size() < desync_header_bytes) return ProtocolError::truncated;
    Reader r(bytes.subspan(1));
    Desync m;
    m.tick = r.u64();
    if (auto e = read_digests(r, m.sections)) return *e;
    return ClientMessage{std::move(m)};
}

Result<ServerMessage, ProtocolError> decode_welcome(std::span<const uint8_t> bytes) {
    if (bytes.size() < welcome_header_bytes) return ProtocolError::truncated;
    Reader r(bytes.subspan(1));
    const uint8_t role = r.u8();
    if (role > static_cast<uint8_t>(Role::watch)) return ProtocolError::bad_role;
    Welcome m;
    m.role = static_cast<Role>(role);
    m.player = r.u32();
    m.input_delay_ticks = r.u32();
    m.server_tick = r.u64();
    m.max_players = r.u32();
    if (auto e = read_name(r, m.game)) return *e;
    const uint16_t n = r.u16();
    if (!r.ok()) return ProtocolError::truncated;
    if (n > max_config_bytes) return ProtocolError::payload_too_long;
    if (r.remaining() < n) return ProtocolError::truncated;
    const std::span<const uint8_t> config = r.take(n);
    m.config.assign(config.begin(), config.end());
    if (auto e = read_token(r, m.resume)) return *e;
    return ServerMessage{std::move(m)};
}

Result<ServerMessage, ProtocolError> decode_frame(std::span<const uint8_t> bytes) {
    if (bytes.size() < frame_header_bytes) return ProtocolError::truncated;
    Reader r(bytes.subspan(1));
    Frame m;
    m.tick = r.u64();
    m.digest = r.u64();
    m.count = r.u16();
    m.command_bytes = r.u8();
    if (m.count > max_frame_inputs) return ProtocolError::too_many_inputs;
    if (m.command_bytes > max_command_bytes) return ProtocolError::payload_too_long;
    // The count is checked against the bytes present before anything is reserved for it.
    const uint64_t stride = applied_input_header_bytes + m.command_bytes;
    const uint64_t body = bytes.size() - frame_header_bytes;
    const uint64_t need = uint64_t{m.count} * stride;
    if (body < need) return ProtocolError::truncated;
    if (body > need) return ProtocolError::trailing_bytes;
    const std::span<const uint8_t> inputs = bytes.subspan(frame_header_bytes);
    // The kind is the kit's; the command's bytes are the game's, checked where it is known.
    for (uint64_t at = 0; at < need; at += stride) {
        if (inputs[static_cast<size_t>(at + 4)] > static_cast<uint8_t>(sim::InputKind::command)) return ProtocolError::bad_input;
    }
    m.inputs.assign(inputs.begin(), inputs.end());
    return ServerMessage{std::move(m)};
}

Result<ServerMessage, ProtocolError> decode_baseline(std::span<const uint8_t> bytes) {
    if (bytes.size() < baseline_header_bytes) return ProtocolError::truncated;
    if (bytes.size() == baseline_header_bytes) return ProtocolError::empty_snapshot;
    Reader r(bytes.subspan(1));
    Baseline m;
    m.tick = r.u64();
    const std::span<const uint8_t> snapshot = bytes.subspan(baseline_header_bytes);
    m.snapshot.assign(snapshot.begin(), snapshot.end());
    return ServerMessage{std::move(m)};
}

Result<ServerMessage, ProtocolError> decode_pong(std::span<const uint8_t> bytes) {
    if (auto e = check_size(bytes, pong_bytes)) return *e;
    Reader r(bytes.subspan(1));
    Pong m;
    m.client_time_ns = static_cast<int64_t>(r.u64());
    m.server_time_ns = static_cast<int64_t>(r.u64());
    m.server_tick = r.u64();
    return ServerMessage{m};
}

Result<ServerMessage, ProtocolError> decode_sections(std::span<const uint8_t> bytes) {
    if (bytes.size() < sections_header_bytes) return ProtocolError::truncated;
    Reader r(bytes.subspan(1));
    Sections m;
    m.tick = r.u64();
    const uint8_t held = r.u8();
    if (held > 1) return ProtocolError::bad_flag;
    m.held = held == 1;
    if (auto e = read_digests(r, m.sections)) return *e;
    if (!m.held && !m.sections.empty()) return ProtocolError::nonzero_padding;
    return ServerMessage{std::move(m)};
}

Result<ServerMessage, ProtocolError> decode_error(std::span<const uint8_t> bytes) {
    if (bytes.size() < error_header_bytes) return ProtocolError::truncated;
    Reader r(bytes.subspan(1));
    const uint8_t code = r.u8();
    const uint16_t length = r.u16();
    if (!known_error_code(code)) return ProtocolError::unknown_error_code;
    if (length > max_error_text_bytes) return ProtocolError::text_too_long;
    const uint64_t body = bytes.size() - error_header_bytes;
    if (body < length) return ProtocolError::truncated;
    if (body > length) return ProtocolError::trailing_bytes;
    const std::span<const uint8_t> text = bytes.subspan(error_header_bytes);
    ErrorMsg m;
    m.code = static_cast<ErrorCode>(code);
    m.text.assign(text.begin(), text.end());
    if (!valid_utf8(m.text)) return ProtocolError::bad_text;
    return ServerMessage{std::move(m)};
}

}  // namespace

// ---- Names -------------------------------------------------------------------------------

std::string_view error_name(ErrorCode code) {
    switch (code) {
    case ErrorCode::version_mismatch: return "version_mismatch";
    case ErrorCode::fingerprint_mismatch: return "fingerprint_mismatch";
    case ErrorCode::room_full: return "room_full";
    case ErrorCode::rate_limited: return "rate_limited";
    case ErrorCode::malformed: return "malformed";
    case ErrorCode::unexpected: return "unexpected";
    case ErrorCode::too_slow: return "too_slow";
    case ErrorCode::shutting_down: return "shutting_down";
    case ErrorCode::idle: return "idle";
    case ErrorCode::game_mismatch: return "game_mismatch";
    case ErrorCode::resume_unknown: return "resume_unknown";
    case ErrorCode::resume_expired: return "resume_expired";
    case ErrorCode::resume_used: return "resume_used";
    case ErrorCode::resumed_elsewhere: return "resumed_elsewhere";
    case ErrorCode::ticket_missing: return "ticket_missing";
    case ErrorCode::ticket_forged: return "ticket_forged";
    case ErrorCode::ticket_expired: return "ticket_expired";
    case ErrorCode::ticket_replayed: return "ticket_replayed";
    case ErrorCode::ticket_invalid: return "ticket_invalid";
    case ErrorCode::address_limit: return "address_limit";
    case ErrorCode::room_moved: return "room_moved";
    }
    return "unknown";
}

std::string_view describe(ErrorCode code) {
    switch (code) {
    case ErrorCode::version_mismatch: return "the client speaks another protocol version than this server";
    case ErrorCode::fingerprint_mismatch: return "the client runs another build of the game (snapshot format, number format or simulation version) than this server";
    case ErrorCode::room_full: return "the room has no place left for the role asked";
    case ErrorCode::rate_limited: return "the client sent inputs faster than the room accepts, for too long";
    case ErrorCode::malformed: return "the client sent a message that does not decode";
    case ErrorCode::unexpected: return "the client sent a well-formed message at the wrong time";
    case ErrorCode::too_slow: return "the client read too slowly and its queue passed the server's cap";
    case ErrorCode::shutting_down: return "the server is stopping";
    case ErrorCode::idle: return "nothing was received from the client for longer than the idle timeout";
    case ErrorCode::game_mismatch: return "the client asked for another game than this room runs";
    case ErrorCode::resume_unknown: return "the hello's resume token is none this room issued";
    case ErrorCode::resume_expired: return "the resume token's seat was given up when its grace period ended";
    case ErrorCode::resume_used: return "the resume token was already used (each token is good for one resume)";
    case ErrorCode::resumed_elsewhere: return "another connection took this seat back with its resume token";
    case ErrorCode::ticket_missing: return "this room admits only a hello carrying a ticket from its lobby, and this one carried none";
    case ErrorCode::ticket_forged: return "the ticket's signature is not one made with this room's key";
    case ErrorCode::ticket_expired: return "the ticket's expiry has passed";
    case ErrorCode::ticket_replayed: return "the ticket was used already (a player's ticket admits once; a watcher's one connection at a time)";
    case ErrorCode::ticket_invalid: return "the ticket is not for this hello: another room, another role, a seat not free or not of this room, or a lifetime longer than the server accepts";
    case ErrorCode::address_limit: return "the client's address already holds its share of this room's seats or watcher places";
    case ErrorCode::room_moved: return "another process serves this room now (the message names its address)";
    }
    return "an unknown error code";
}

std::string_view error_name(ProtocolError error) {
    switch (error) {
    case ProtocolError::empty: return "empty";
    case ProtocolError::unknown_type: return "unknown_type";
    case ProtocolError::truncated: return "truncated";
    case ProtocolError::trailing_bytes: return "trailing_bytes";
    case ProtocolError::bad_role: return "bad_role";
    case ProtocolError::bad_flag: return "bad_flag";
    case ProtocolError::nonzero_padding: return "nonzero_padding";
    case ProtocolError::too_many_inputs: return "too_many_inputs";
    case ProtocolError::bad_input: return "bad_input";
    case ProtocolError::inputs_out_of_order: return "inputs_out_of_order";
    case ProtocolError::empty_snapshot: return "empty_snapshot";
    case ProtocolError::bad_config: return "bad_config";
    case ProtocolError::unknown_error_code: return "unknown_error_code";
    case ProtocolError::text_too_long: return "text_too_long";
    case ProtocolError::bad_text: return "bad_text";
    case ProtocolError::bad_game_name: return "bad_game_name";
    case ProtocolError::too_many_sections: return "too_many_sections";
    case ProtocolError::payload_too_long: return "payload_too_long";
    case ProtocolError::bad_token_length: return "bad_token_length";
    case ProtocolError::unknown_ticket_format: return "unknown_ticket_format";
    case ProtocolError::bad_room_name: return "bad_room_name";
    }
    return "unknown";
}

std::string_view describe(ProtocolError error) {
    switch (error) {
    case ProtocolError::empty: return "a message needs at least its type byte";
    case ProtocolError::unknown_type: return "the first byte is no message type this end accepts";
    case ProtocolError::truncated: return "the message ends before a field its layout requires";
    case ProtocolError::trailing_bytes: return "the message has bytes after the end of its layout";
    case ProtocolError::bad_role: return "a role byte must be 0 (play) or 1 (watch)";
    case ProtocolError::bad_flag: return "a flag byte (ack holds, sections held) must be 0 or 1";
    case ProtocolError::nonzero_padding: return "an ack of nothing held, or unheld sections, must carry zeros";
    case ProtocolError::too_many_inputs: return "a frame carries at most max_frame_inputs inputs";
    case ProtocolError::bad_input: return "an applied input's kind byte must be 0 (join), 1 (leave) or 2 (command), and its command one the game accepts";
    case ProtocolError::inputs_out_of_order: return "a frame's inputs must be in strictly increasing canonical order";
    case ProtocolError::empty_snapshot: return "a baseline must carry snapshot bytes";
    case ProtocolError::bad_config: return "a welcome's config is not one the game accepts (its length or a knob out of range)";
    case ProtocolError::unknown_error_code: return "an error message's code is none this build knows";
    case ProtocolError::text_too_long: return "an error message's text is limited to max_error_text_bytes bytes";
    case ProtocolError::bad_text: return "an error message's text must be valid UTF-8";
    case ProtocolError::bad_game_name: return "a game's name is 1 to 32 bytes of [a-z0-9_-]";
    case ProtocolError::too_many_sections: return "a message carries at most max_sections section digests";
    case ProtocolError::payload_too_long: return "a command, a config or a ticket is longer than its bound (max_command_bytes, max_config_bytes, max_ticket_bytes)";
    case ProtocolError::bad_token_length: return "a hello's resume token is 0 or 16 bytes long";
    case ProtocolError::unknown_ticket_format: return "a ticket's format byte is none this build knows";
    case ProtocolError::bad_room_name: return "a room's name is 1 to 64 bytes of [A-Za-z0-9_-]";
    }
    return "an unknown protocol error";
}

std::string_view error_name(CloseReason reason) {
    switch (reason) {
    case CloseReason::protocol_error: return "protocol_error";
    case CloseReason::rate_limited: return "rate_limited";
    case CloseReason::room_full: return "room_full";
    case CloseReason::too_slow: return "too_slow";
    case CloseReason::idle: return "idle";
    case CloseReason::shutting_down: return "shutting_down";
    case CloseReason::resume_refused: return "resume_refused";
    case CloseReason::resumed_elsewhere: return "resumed_elsewhere";
    case CloseReason::ticket_refused: return "ticket_refused";
    case CloseReason::address_limit: return "address_limit";
    case CloseReason::room_moved: return "room_moved";
    }
    return "unknown";
}

std::string_view describe(CloseReason reason) {
    switch (reason) {
    case CloseReason::protocol_error: return "the client broke the protocol (version, fingerprint, a malformed or unexpected message)";
    case CloseReason::rate_limited: return "the client flooded the room with inputs";
    case CloseReason::room_full: return "the room has no place for the role asked; try again later";
    case CloseReason::too_slow: return "the client read too slowly and its queue passed the hard cap";
    case CloseReason::idle: return "nothing was heard from the client for the idle timeout";
    case CloseReason::shutting_down: return "the server is stopping";
    case CloseReason::resume_refused: return "the hello's resume token is unknown, expired or already used";
    case CloseReason::resumed_elsewhere: return "another connection took this seat back with its resume token";
    case CloseReason::ticket_refused: return "the hello's ticket is missing, forged, expired, replayed or not for this room";
    case CloseReason::address_limit: return "the client's address holds its share of the room's seats or watcher places";
    case CloseReason::room_moved: return "another process serves the room now";
    }
    return "an unknown close reason";
}

uint16_t websocket_close_code(CloseReason reason) {
    switch (reason) {
    case CloseReason::protocol_error: return 1002;  // protocol error
    case CloseReason::rate_limited: return 1008;    // policy violation
    case CloseReason::room_full: return 1013;       // try again later
    case CloseReason::too_slow: return 1008;
    case CloseReason::idle: return 1001;            // going away
    case CloseReason::shutting_down: return 1001;
    case CloseReason::resume_refused: return 1008;  // policy violation
    case CloseReason::resumed_elsewhere: return 1001;
    case CloseReason::ticket_refused: return 1008;
    case CloseReason::address_limit: return 1008;
    case CloseReason::room_moved: return 1012;      // service restart: reconnect (where the ErrorMsg said)
    }
    return 1011;  // internal error: a reason this build does not know
}

// ---- Encoding ----------------------------------------------------------------------------

void write_frame_header(ByteWriter& w, uint64_t tick, uint64_t digest, uint16_t count, uint8_t command_bytes) {
    write_type(w, MessageType::frame);
    w.u64(tick);
    w.u64(digest);
    w.u16(count);
    w.u8(command_bytes);
}

// A name or a payload longer than its bound is cut to it, so whatever the caller passes, the
// message decodes (a valid name and command always fit).
void encode(std::vector<uint8_t>& out, const Hello& m) {
    Writer w(out);
    write_type(w, MessageType::hello);
    w.u16(m.version);
    w.u64(m.fingerprint);
    w.u8(static_cast<uint8_t>(m.role));
    write_name(w, std::string_view(m.game).substr(0, max_game_name_bytes));
    w.u8(m.resume ? static_cast<uint8_t>(resume_token_bytes) : 0);
    write_token(w, m.resume);
    if (!m.ticket) {
        w.u16(0);
        return;
    }
    std::vector<uint8_t> ticket;
    encode_ticket(ticket, *m.ticket);
    w.u16(static_cast<uint16_t>(ticket.size()));
    w.bytes(ticket);
}

std::vector<uint8_t> ticket_signed_bytes(const Ticket& t) {
    std::vector<uint8_t> out;
    Writer w(out);
    write_ticket_fields(w, t);
    return out;
}

void encode_ticket(std::vector<uint8_t>& out, const Ticket& t) {
    Writer w(out);
    write_ticket_fields(w, t);
    w.bytes(std::span<const uint8_t>(t.mac.data(), t.mac.size()));
}

bool valid_room_name(std::string_view name) {
    if (name.empty() || name.size() > max_room_name_bytes) return false;
    for (const char c : name) {
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
    }
    return true;
}

void encode(std::vector<uint8_t>& out, const InputMsg& m) {
    Writer w(out);
    write_type(w, MessageType::input);
    w.u32(m.sequence);
    w.u8(m.command.size);
    w.bytes(m.command.view());
}

void encode(std::vector<uint8_t>& out, const Ack& m) {
    Writer w(out);
    write_type(w, MessageType::ack);
    w.u8(m.holds ? 1 : 0);
    // "Nothing held" always carries zeros, whatever the struct holds, so it decodes.
    w.u64(m.holds ? m.tick : 0);
    w.u64(m.holds ? m.digest : 0);
}

void encode(std::vector<uint8_t>& out, const Ping& m) {
    Writer w(out);
    write_type(w, MessageType::ping);
    w.u64(static_cast<uint64_t>(m.client_time_ns));
}

void encode(std::vector<uint8_t>& out, const Desync& m) {
    Writer w(out);
    write_type(w, MessageType::desync);
    w.u64(m.tick);
    write_digests(w, m.sections);
}

void encode(std::vector<uint8_t>& out, const Welcome& m) {
    Writer w(out);
    write_type(w, MessageType::welcome);
    w.u8(static_cast<uint8_t>(m.role));
    w.u32(m.player);
    w.u32(m.input_delay_ticks);
    w.u64(m.server_tick);
    w.u32(m.max_players);
    write_name(w, std::string_view(m.game).substr(0, max_game_name_bytes));
    w.u16(static_cast<uint16_t>(m.config.size()));
    w.bytes(m.config);
    write_token(w, m.resume);
}

// The caller passes the inputs in canonical order and at most max_frame_inputs of them (the
// room builds frames that way, through game_codec.hpp); the codec writes them as given.
void encode(std::vector<uint8_t>& out, const Frame& m) {
    out.reserve(out.size() + frame_header_bytes + m.inputs.size());
    Writer w(out);
    write_frame_header(w, m.tick, m.digest, m.count, m.command_bytes);
    w.bytes(m.inputs);
}

void encode(std::vector<uint8_t>& out, const Baseline& m) {
    out.reserve(out.size() + baseline_header_bytes + m.snapshot.size());
    Writer w(out);
    write_type(w, MessageType::baseline);
    w.u64(m.tick);
    out.insert(out.end(), m.snapshot.begin(), m.snapshot.end());
}

void encode(std::vector<uint8_t>& out, const Pong& m) {
    Writer w(out);
    write_type(w, MessageType::pong);
    w.u64(static_cast<uint64_t>(m.client_time_ns));
    w.u64(static_cast<uint64_t>(m.server_time_ns));
    w.u64(m.server_tick);
}

void encode(std::vector<uint8_t>& out, const Sections& m) {
    Writer w(out);
    write_type(w, MessageType::sections);
    w.u64(m.tick);
    w.u8(m.held ? 1 : 0);
    // Unheld sections always carry none, whatever the struct holds, so they decode.
    write_digests(w, m.held ? m.sections : std::vector<uint64_t>{});
}

void encode(std::vector<uint8_t>& out, const ErrorMsg& m) {
    const std::string text = wire_text(m.text);
    Writer w(out);
    write_type(w, MessageType::error);
    w.u8(static_cast<uint8_t>(m.code));
    w.u16(static_cast<uint16_t>(text.size()));
    out.insert(out.end(), text.begin(), text.end());
}

void encode(std::vector<uint8_t>& out, const ClientMessage& m) {
    std::visit([&out](const auto& message) { encode(out, message); }, m);
}

void encode(std::vector<uint8_t>& out, const ServerMessage& m) {
    std::visit([&out](const auto& message) { encode(out, message); }, m);
}

// ---- Decoding ----------------------------------------------------------------------------

Result<Ticket, ProtocolError> decode_ticket(std::span<const uint8_t> bytes) { return decode_ticket_bytes(bytes); }

Result<ClientMessage, ProtocolError> decode_client(std::span<const uint8_t> bytes) {
    if (bytes.empty()) return ProtocolError::empty;
    switch (bytes[0]) {
    case static_cast<uint8_t>(MessageType::hello): return decode_hello(bytes);
    case static_cast<uint8_t>(MessageType::input): return decode_input(bytes);
    case static_cast<uint8_t>(MessageType::ack): return decode_ack(bytes);
    case static_cast<uint8_t>(MessageType::ping): return decode_ping(bytes);
    case static_cast<uint8_t>(MessageType::desync): return decode_desync(bytes);
    default: return ProtocolError::unknown_type;
    }
}

Result<ServerMessage, ProtocolError> decode_server(std::span<const uint8_t> bytes) {
    if (bytes.empty()) return ProtocolError::empty;
    switch (bytes[0]) {
    case static_cast<uint8_t>(MessageType::welcome): return decode_welcome(bytes);
    case static_cast<uint8_t>(MessageType::frame): return decode_frame(bytes);
    case static_cast<uint8_t>(MessageType::baseline): return decode_baseline(bytes);
    case static_cast<uint8_t>(MessageType::pong): return decode_pong(bytes);
    case static_cast<uint8_t>(MessageType::sections): return decode_sections(bytes);
    case static_cast<uint8_t>(MessageType::error): return decode_error(bytes);
    default: return ProtocolError::unknown_type;
    }
}

std::optional<MessageType> peek_type(std::span<const uint8_t> bytes) {
    if (bytes.empty()) return std::nullopt;
    switch (static_cast<MessageType>(bytes[0])) {
    case MessageType::hello:
    case MessageType::input:
    case MessageType::ack:
    case MessageType::ping:
    case MessageType::desync:
    case MessageType::welcome:
    case MessageType::frame:
    case MessageType::baseline:
    case MessageType::pong:
    case MessageType::sections:
    case MessageType::error: return static_cast<MessageType>(bytes[0]);
    }
    return std::nullopt;  // a byte that is no message type
}

}  // namespace tandem::net
