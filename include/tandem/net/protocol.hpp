// The lockstep wire protocol: every message a client and the room exchange, as plain structs,
// and the one codec both ends use. Binary, little-endian, fixed-width integers, one message per
// WebSocket message, the first byte the message type. Decoders never read past their input,
// never allocate from a length they have not checked against the bytes present, and return a
// typed ProtocolError for anything that is not exactly a well-formed message.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tandem/core/bytes.hpp"
#include "tandem/core/result.hpp"
#include "tandem/sim/simulation.hpp"

namespace tandem::net {

// Bumped by any change to a message layout below. A hello with another version is refused
// with ErrorCode::version_mismatch, one naming another game with game_mismatch, one whose
// fingerprint hash differs from the room's game's (sim::fingerprint_hash<G>) with
// fingerprint_mismatch. Version 2: the game's config, commands and section digests became
// opaque payloads, and the hello and the welcome name the game. Version 3: a player's welcome
// may end with a resume token, and a hello may end with one (reclaiming a seat kept after a
// drop), with the three refusals of a token (resume_unknown, resume_expired, resume_used) and
// resumed_elsewhere. Version 4: the hello's resume token is length-prefixed and a ticket may
// follow it (a room that requires tickets), with the ticket's refusals (ticket_missing,
// ticket_forged, ticket_expired, ticket_replayed, ticket_invalid) and address_limit. Version 5:
// room_moved, whose text is the WebSocket URL of the process that serves the room now.
inline constexpr uint16_t protocol_version = 5;

// A resume token: a secret the room hands a player in its welcome, good for one hello that
// takes the seat back after a drop (room.hpp says when). 128 bits from the source the room is
// given (the server's is the OS's random bytes), so guessing one is hopeless; the room never
// issues all zeros. It is sent only to its player: never in a frame, a baseline, a replay or a
// digest.
inline constexpr uint32_t resume_token_bytes = 16;
using ResumeToken = std::array<uint8_t, resume_token_bytes>;

// ---- Tickets ------------------------------------------------------------------------------
// A ticket: a lobby's or matchmaker's signed permission for one hello, for a server that
// requires them (`tandem serve --ticket-key FILE`). It names the room, the role, the seat (or
// any seat) and the player's name, and expires; the signature is HMAC-SHA256 over every byte
// before it, with a key the lobby and the server share. The codec checks only the layout: the
// server checks the signature, the expiry, the room and that it was not used before
// (tandem/server/tickets.hpp), and the room checks the role and the seat.
//   u8 format (ticket_format) | u64 expiry, Unix seconds (UTC) | ticket_nonce_bytes of nonce
//   | u8 role | u32 player (a seat 1..max_players_per_room, or 0: any seat; 0 for a watcher)
//   | u8 r | r bytes of the room's name (1 to max_room_name_bytes of [A-Za-z0-9_-], as a
//   server's --room and its checkpoint store spell it)
//   | u8 m | m bytes of the player's name (0 to max_ticket_name_bytes of UTF-8)
//   | ticket_mac_bytes of HMAC-SHA256(key, all of the above)          = 64 + r + m bytes
inline constexpr uint8_t ticket_format = 1;
inline constexpr uint32_t ticket_nonce_bytes = 16;
inline constexpr uint32_t ticket_mac_bytes = 32;
inline constexpr uint32_t max_room_name_bytes = 64;
inline constexpr uint32_t max_ticket_name_bytes = 64;
inline constexpr uint32_t min_ticket_bytes = 1 + 8 + ticket_nonce_bytes + 1 + 4 + 1 + 1 + 1 + ticket_mac_bytes;
inline constexpr uint32_t max_ticket_bytes = min_ticket_bytes - 1 + max_room_name_bytes + max_ticket_name_bytes;
using TicketNonce = std::array<uint8_t, ticket_nonce_bytes>;
using TicketMac = std::array<uint8_t, ticket_mac_bytes>;

// A room's name as tickets (and a server's --room) spell it.
bool valid_room_name(std::string_view name);

// The codec carries a game's own bytes without knowing the game: a config (the welcome), a
// command (an input, each input of a frame) and the game's section digests (a desync report
// and its answer). Each is length-checked against these bounds before anything is read or
// reserved for it; tandem/net/game_codec.hpp turns them into the game's types.
inline constexpr uint32_t max_config_bytes = 4096;
using sim::max_command_bytes;
using sim::max_game_name_bytes;
using sim::max_sections;

// ---- Message types (the first byte) ------------------------------------------------------
// Client to server have the high bit clear, server to client set, so a message sent the wrong
// way is refused by its type alone.
enum class MessageType : uint8_t {
    hello = 0x01,
    input = 0x02,
    ack = 0x03,
    ping = 0x04,
    desync = 0x05,
    welcome = 0x81,
    frame = 0x82,
    baseline = 0x83,
    pong = 0x84,
    sections = 0x85,
    error = 0x86,
};

// ---- Client to server --------------------------------------------------------------------
enum class Role : uint8_t { play = 0, watch = 1 };

struct Ticket {
    uint64_t expires_unix_s = 0;
    TicketNonce nonce{};
    Role role = Role::play;
    uint32_t player = 0;   // 0: any free seat (and always 0 for a watcher)
    std::string room;
    std::string name;
    TicketMac mac{};
    friend bool operator==(const Ticket&, const Ticket&) = default;
};
// The bytes the signature covers (everything before the mac), and the whole ticket. A name
// longer than its bound is cut (at a UTF-8 boundary), so whatever the caller passes encodes to
// a ticket that decodes.
std::vector<uint8_t> ticket_signed_bytes(const Ticket& t);
void encode_ticket(std::vector<uint8_t>& out, const Ticket& t);

// u8 type | u16 version | u64 fingerprint hash | u8 role | u8 n | n bytes of the game's name
// (1 to max_game_name_bytes of [a-z0-9_-]) | u8 t (0 or resume_token_bytes) | t bytes of a
// resume token | u16 k (0 to max_ticket_bytes) | k bytes of a ticket (above)
//                                                                    = 16 + n + t + k bytes
// Without a token the hello asks for a new seat (or a watcher's place); with one it asks for
// the seat the token names back (role play only). A room that requires tickets admits a hello
// without a token only with a ticket it accepts; a room that does not ignores one.
struct Hello {
    uint16_t version = protocol_version;
    uint64_t fingerprint = 0;
    Role role = Role::play;
    std::string game;
    std::optional<ResumeToken> resume;
    std::optional<Ticket> ticket;
    friend bool operator==(const Hello&, const Hello&) = default;
};
inline constexpr uint32_t hello_header_bytes = 1 + 2 + 8 + 1 + 1;
inline constexpr uint32_t max_hello_bytes = hello_header_bytes + max_game_name_bytes + 1 + resume_token_bytes + 2 + max_ticket_bytes;

// A game's command as bytes, inline (an input message is small and frequent: no allocation).
struct CommandBytes {
    std::array<uint8_t, max_command_bytes> bytes{};
    uint8_t size = 0;
    std::span<const uint8_t> view() const { return std::span<const uint8_t>(bytes.data(), size); }
    static CommandBytes of(std::span<const uint8_t> b) {
        CommandBytes c;
        c.size = static_cast<uint8_t>(b.size() < max_command_bytes ? b.size() : max_command_bytes);
        for (uint8_t i = 0; i < c.size; ++i) c.bytes[i] = b[i];
        return c;
    }
    friend bool operator==(const CommandBytes& a, const CommandBytes& b) {
        if (a.size != b.size) return false;
        for (uint8_t i = 0; i < a.size; ++i) {
            if (a.bytes[i] != b.bytes[i]) return false;
        }
        return true;
    }
};

// u8 type | u32 sequence | u8 n | n bytes of the game's command (n <= max_command_bytes)
// The client's own command (a steer, the buttons held). The room decides which player it is
// for (the sender's) and on which tick it lands; a client can name neither. Sequence numbers
// start at 1 and increase.
struct InputMsg {
    uint32_t sequence = 0;
    CommandBytes command;
    friend bool operator==(const InputMsg&, const InputMsg&) = default;
};

// u8 type | u8 holds (0 or 1) | u64 tick | u64 digest                          = 18 bytes
// holds = 1: the newest tick the client has verified and its digest there.
// holds = 0 ("nothing held"; tick and digest must be 0): the client has no world and needs a
// baseline. There is no separate resync request.
struct Ack {
    bool holds = false;
    uint64_t tick = 0;
    uint64_t digest = 0;
    friend bool operator==(const Ack&, const Ack&) = default;
};

// u8 type | i64 client time (ns, the client's own clock)                      = 9 bytes
struct Ping {
    int64_t client_time_ns = 0;
    friend bool operator==(const Ping&, const Ping&) = default;
};

// u8 type | u64 tick | u8 n | n x u64 section digests, in the game's section order
// (n <= max_sections)                                                    = 10 + 8n bytes
// The client's section digests at a tick where its digest disagreed with the frame's.
struct Desync {
    uint64_t tick = 0;
    std::vector<uint64_t> sections;
    friend bool operator==(const Desync&, const Desync&) = default;
};

// ---- Server to client --------------------------------------------------------------------
// The player id a watcher is told in its welcome.
inline constexpr uint32_t watcher_id = 0xFFFFFFFFu;

// u8 type | u8 role | u32 player id (watcher_id for a watcher) | u32 input delay (ticks)
// | u64 server tick | u32 max players of the room | u8 n | n bytes of the game's name
// | u16 m | m bytes of the game's config (sim::encode_config, m <= max_config_bytes)
// | optionally resume_token_bytes of the player's resume token (a room that offers resume)
struct Welcome {
    Role role = Role::play;
    uint32_t player = watcher_id;
    uint32_t input_delay_ticks = 0;
    uint64_t server_tick = 0;
    uint32_t max_players = 0;
    std::string game;
    std::vector<uint8_t> config;
    std::optional<ResumeToken> resume;
    friend bool operator==(const Welcome&, const Welcome&) = default;
};

// One input the room applied at a tick, as the kit's envelope around the game's command,
// followed by the sequence number of the client message it came from (0 for the joins and
// leaves the room authors itself):
//   u32 player | u8 kind (0 join, 1 leave, 2 command) | u32 sequence | the command's bytes
// Carrying every sender's sequence in the shared frame is how a client learns the newest of
// its own inputs the room has applied while the frame stays one buffer encoded once for every
// recipient.
inline constexpr uint32_t applied_input_header_bytes = 4 + 1 + 4;

// u8 type | u64 tick | u64 digest after the tick | u16 count | u8 command bytes (c)
// | count x (applied_input_header_bytes + c) bytes of applied inputs, as above
// The inputs are in the game's canonical order (sim::canonical_less: the order step is given
// them), which game_codec.hpp checks where the game is known; the codec checks the layout,
// the count and the kinds. `tick` is the world's tick after stepping.
struct Frame {
    uint64_t tick = 0;
    uint64_t digest = 0;
    uint16_t count = 0;
    uint8_t command_bytes = 0;
    std::vector<uint8_t> inputs;   // count applied inputs, back to back
    friend bool operator==(const Frame&, const Frame&) = default;
};
inline constexpr uint32_t frame_header_bytes = 1 + 8 + 8 + 2 + 1;
// The most inputs one frame can carry: every seat joins, leaves and commands once.
inline constexpr uint32_t max_players_per_room = 64;
inline constexpr uint32_t max_frame_inputs = 3 * max_players_per_room;

// u8 type | u64 tick | the game's snapshot (sim::encode_snapshot, the rest of the message)
// The snapshot is not decoded by the codec (sim::decode_snapshot does that, with its own typed
// error); the codec checks only that the tick field and a non-empty snapshot are present.
struct Baseline {
    uint64_t tick = 0;
    std::vector<uint8_t> snapshot;
    friend bool operator==(const Baseline&, const Baseline&) = default;
};

// u8 type | i64 echoed client time | i64 server time (ns) | u64 server tick   = 25 bytes
struct Pong {
    int64_t client_time_ns = 0;
    int64_t server_time_ns = 0;
    uint64_t server_tick = 0;
    friend bool operator==(const Pong&, const Pong&) = default;
};

// u8 type | u64 tick | u8 held (0 or 1) | u8 n | n x u64 section digests  = 11 + 8n bytes
// The room's answer to a Desync: its section digests at that tick, if the tick is still in
// its ring (held = 1); otherwise held = 0 and n = 0.
struct Sections {
    uint64_t tick = 0;
    bool held = false;
    std::vector<uint64_t> sections;
    friend bool operator==(const Sections&, const Sections&) = default;
};

// Stable codes (the numbers never change meaning; new ones are appended).
enum class ErrorCode : uint8_t {
    version_mismatch = 1,      // the hello's protocol version is not protocol_version
    fingerprint_mismatch = 2,  // the hello's fingerprint hash is another simulation's
    room_full = 3,             // no seat (or watcher place) left for this role
    rate_limited = 4,          // inputs sent faster than the room accepts, for too long
    malformed = 5,             // a message that does not decode (unknown type, bad length, ...)
    unexpected = 6,            // a well-formed message at the wrong time (input before hello, ...)
    too_slow = 7,              // the client read too slowly: its queue passed the hard cap
    shutting_down = 8,         // the server is stopping
    idle = 9,                  // nothing received for longer than the idle timeout
    game_mismatch = 10,        // the hello names another game than the room's
    resume_unknown = 11,       // the hello's resume token is none this room issued (or remembers)
    resume_expired = 12,       // the token's seat was given up: its grace period ended first
    resume_used = 13,          // the token was already used to resume (each is good once)
    resumed_elsewhere = 14,    // another connection took this seat back with its token
    ticket_missing = 15,       // the room requires a ticket and the hello carried none
    ticket_forged = 16,        // the ticket's signature is not the room's key's
    ticket_expired = 17,       // the ticket's expiry has passed
    ticket_replayed = 18,      // the ticket was used already (a player's), or is in use (a watcher's)
    ticket_invalid = 19,       // signed and current, but not for this: another room, role or seat
    address_limit = 20,        // the client's address holds its share of the room's seats or places
    room_moved = 21,           // another process serves the room now: the text is its WebSocket URL
};
// One past the largest code: arrays indexed by a code's value (0 is no code).
inline constexpr uint32_t error_code_end = 22;
std::string_view error_name(ErrorCode code);  // "version_mismatch", ...
std::string_view describe(ErrorCode code);

// u8 type | u8 code | u16 length | length bytes of UTF-8 text (at most max_error_text_bytes)
struct ErrorMsg {
    ErrorCode code = ErrorCode::malformed;
    std::string text;  // one sentence for a person, e.g. "protocol version 9, this server speaks 1"
    friend bool operator==(const ErrorMsg&, const ErrorMsg&) = default;
};
inline constexpr uint32_t max_error_text_bytes = 256;

using ClientMessage = std::variant<Hello, InputMsg, Ack, Ping, Desync>;
using ServerMessage = std::variant<Welcome, Frame, Baseline, Pong, Sections, ErrorMsg>;

// The largest message a client may legally send (a hello with a token and the longest ticket,
// or a Desync of max_sections digests, whichever is longer): the server's read limit, whatever
// the game.
inline constexpr uint32_t max_desync_bytes = 1 + 8 + 1 + 8 * max_sections;
inline constexpr uint32_t max_client_message_bytes = max_hello_bytes > max_desync_bytes ? max_hello_bytes : max_desync_bytes;

// ---- Decoding errors ---------------------------------------------------------------------
enum class ProtocolError : uint8_t {
    empty,                 // no bytes at all
    unknown_type,          // a first byte that is no message type (of this direction)
    truncated,             // fewer bytes than the message's layout needs
    trailing_bytes,        // more bytes than the layout (fixed-size messages)
    bad_role,              // a role byte other than 0 or 1
    bad_flag,              // a 0-or-1 byte (ack holds, sections held) with another value
    nonzero_padding,       // "nothing held" with a non-zero tick or digest; unheld sections
    too_many_inputs,       // a frame count above max_frame_inputs
    bad_input,             // an applied input with a bad kind, or a command the game refuses
    inputs_out_of_order,   // a frame's inputs not in the game's canonical order, or repeated
    empty_snapshot,        // a baseline with no snapshot bytes
    bad_config,            // a welcome whose config the game refuses, or of the wrong length
    unknown_error_code,    // an error message with a code this build does not know
    text_too_long,         // an error text above max_error_text_bytes
    bad_text,              // an error text that is not valid UTF-8
    bad_game_name,         // a game name empty, too long, or not of [a-z0-9_-]
    too_many_sections,     // more section digests than max_sections
    payload_too_long,      // a command or a config above its bound
    bad_token_length,      // a hello's resume token length other than 0 or resume_token_bytes
    unknown_ticket_format, // a ticket whose format byte is not ticket_format
    bad_room_name,         // a ticket's room name empty, too long, or not of [A-Za-z0-9_-]
};
std::string_view error_name(ProtocolError error);
std::string_view describe(ProtocolError error);

// ---- The codec ---------------------------------------------------------------------------
// Each encode appends exactly one message to `out` (the caller reuses the buffer).
void encode(std::vector<uint8_t>& out, const Hello& m);
void encode(std::vector<uint8_t>& out, const InputMsg& m);
void encode(std::vector<uint8_t>& out, const Ack& m);
void encode(std::vector<uint8_t>& out, const Ping& m);
void encode(std::vector<uint8_t>& out, const Desync& m);
void encode(std::vector<uint8_t>& out, const Welcome& m);
void encode(std::vector<uint8_t>& out, const Frame& m);
void encode(std::vector<uint8_t>& out, const Baseline& m);
void encode(std::vector<uint8_t>& out, const Pong& m);
void encode(std::vector<uint8_t>& out, const Sections& m);
void encode(std::vector<uint8_t>& out, const ErrorMsg& m);  // text cut to max_error_text_bytes at a UTF-8 boundary
void encode(std::vector<uint8_t>& out, const ClientMessage& m);
// A frame's header, for an encoder that writes the applied inputs itself (game_codec.hpp).
void write_frame_header(ByteWriter& w, uint64_t tick, uint64_t digest, uint16_t count, uint8_t command_bytes);
void encode(std::vector<uint8_t>& out, const ServerMessage& m);

// A ticket alone (as `tandem ticket` prints it, decoded), exactly: its layout only.
Result<Ticket, ProtocolError> decode_ticket(std::span<const uint8_t> bytes);

// One whole message, exactly: a server message sent to the server (and vice versa) is
// unknown_type.
Result<ClientMessage, ProtocolError> decode_client(std::span<const uint8_t> bytes);
Result<ServerMessage, ProtocolError> decode_server(std::span<const uint8_t> bytes);

// The message type of a message, without decoding the rest (empty input: no type).
std::optional<MessageType> peek_type(std::span<const uint8_t> bytes);

// ---- Closing a connection ----------------------------------------------------------------
// Why the room closes a connection; the transport maps it to a WebSocket close code and sends
// error_name as the close frame's reason. A client is always sent an ErrorMsg first when the
// reason has one.
enum class CloseReason : uint8_t {
    protocol_error,   // version or fingerprint mismatch, malformed or unexpected message (1002)
    rate_limited,     // a sustained input flood (1008)
    room_full,        // no place for the role asked (1013: try again later)
    too_slow,         // the write queue passed its hard cap (1008)
    idle,             // nothing heard for the idle timeout (1001)
    shutting_down,    // the server stops (1001)
    resume_refused,   // a hello's resume token is unknown, expired or used (1008)
    resumed_elsewhere,  // another connection took the seat back with its token (1001)
    ticket_refused,   // a hello's ticket is missing, forged, expired, replayed or not for this (1008)
    address_limit,    // the client's address holds its share of seats or watcher places (1008)
    room_moved,       // another process serves the room now; the ErrorMsg before it names where (1012)
};
inline constexpr uint32_t close_reason_count = 11;
std::string_view error_name(CloseReason reason);  // "protocol_error", ...
std::string_view describe(CloseReason reason);
uint16_t websocket_close_code(CloseReason reason);

}  // namespace tandem::net
