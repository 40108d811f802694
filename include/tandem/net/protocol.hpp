// The lockstep wire protocol: every message a client and the room exchange, as plain structs,
// and the one codec both ends use. Binary, little-endian, fixed-width integers, one message per
// WebSocket message, the first byte the message type. Decoders never read past their input,
// never allocate from a length they have not checked against the bytes present, and return a
// typed ProtocolError for anything that is not exactly a well-formed message.
#pragma once

#include <array>
#include <optional>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tandem/core/result.hpp"
#include "tandem/world/world.hpp"

namespace tandem::net {

// Bumped by any change to a message layout below. A hello with another version is refused
// with ErrorCode::version_mismatch; a hello whose fingerprint hash differs from
// world::fingerprint_hash() with ErrorCode::fingerprint_mismatch.
inline constexpr uint16_t protocol_version = 1;

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

// u8 type | u16 version | u64 fingerprint hash | u8 role                      = 12 bytes
struct Hello {
    uint16_t version = protocol_version;
    uint64_t fingerprint = 0;
    Role role = Role::play;
    friend bool operator==(const Hello&, const Hello&) = default;
};

// u8 type | u32 sequence | i32 target.x raw | i32 target.y raw                 = 13 bytes
// The client's own steer. The room decides which player it steers (the sender's) and on which
// tick it lands; a client can name neither. Sequence numbers start at 1 and increase.
struct InputMsg {
    uint32_t sequence = 0;
    Vec2 target;
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

// u8 type | u64 tick | 5 x u64 section digests (config, wells, pellets, scores, rng) = 49 bytes
// The client's section digests at a tick where its digest disagreed with the frame's.
struct Desync {
    uint64_t tick = 0;
    world::SectionDigests sections;
    friend bool operator==(const Desync&, const Desync&) = default;
};

// ---- Server to client --------------------------------------------------------------------
// The player id a watcher is told in its welcome.
inline constexpr uint32_t watcher_id = 0xFFFFFFFFu;

// u8 type | u8 role | u32 player id (watcher_id for a watcher) | u32 input delay (ticks)
// | u64 server tick | u32 max players of the room | world config (canonical, below)
// The world config in the order of world::for_each_config_field: u64 for seed, u32 for the
// integer knobs, i32 raw for each Fx (8 + 4 x 4 + 11 x 4 = 68 bytes).          = 22 + 68 = 90 bytes
struct Welcome {
    Role role = Role::play;
    uint32_t player = watcher_id;
    uint32_t input_delay_ticks = 0;
    uint64_t server_tick = 0;
    uint32_t max_players = 0;
    world::WorldConfig config;
    friend bool operator==(const Welcome&, const Welcome&) = default;
};

// One input the room applied at a tick: the world's canonical Input (13 bytes) followed by the
// u32 sequence number of the client message it came from (0 for the joins and leaves the room
// authors itself). Carrying every sender's sequence in the shared frame is how a client learns
// the newest of its own inputs the room has applied while the frame stays one buffer encoded
// once for every recipient.
struct AppliedInput {
    world::Input input;
    uint32_t sequence = 0;
    friend bool operator==(const AppliedInput&, const AppliedInput&) = default;
};
inline constexpr uint32_t applied_input_bytes = world::input_wire_bytes + 4;

// u8 type | u64 tick | u64 digest after the tick | u16 count | count x AppliedInput (17 bytes)
// The inputs are in world::canonical_less order (the order step applies them); a frame whose
// inputs are out of that order is malformed. `tick` is the world's tick after stepping.
struct Frame {
    uint64_t tick = 0;
    uint64_t digest = 0;
    std::vector<AppliedInput> inputs;
    friend bool operator==(const Frame&, const Frame&) = default;
};
inline constexpr uint32_t frame_header_bytes = 1 + 8 + 8 + 2;
// The most inputs one frame can carry: every seat joins, leaves and steers once.
inline constexpr uint32_t max_frame_inputs = 3 * world::max_player_limit;

// u8 type | u64 tick | world snapshot (world::encode, the rest of the message)
// The snapshot is not decoded by the codec (world::decode does that, with its own typed
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

// u8 type | u64 tick | u8 held (0 or 1) | 5 x u64 section digests              = 50 bytes
// The room's answer to a Desync: its section digests at that tick, if the tick is still in
// its ring (held = 1); otherwise held = 0 and the digests are 0.
struct Sections {
    uint64_t tick = 0;
    bool held = false;
    world::SectionDigests sections;
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
};
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

// The largest message a client may legally send (a Desync): the server's read limit.
inline constexpr uint32_t max_client_message_bytes = 49;

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
    bad_input,             // an applied input the world refuses (world::InputError)
    inputs_out_of_order,   // a frame's inputs not in world::canonical_less order, or repeated
    empty_snapshot,        // a baseline with no snapshot bytes
    bad_config,            // a welcome whose world config does not validate
    unknown_error_code,    // an error message with a code this build does not know
    text_too_long,         // an error text above max_error_text_bytes
    bad_text,              // an error text that is not valid UTF-8
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
void encode(std::vector<uint8_t>& out, const ServerMessage& m);

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
};
std::string_view error_name(CloseReason reason);  // "protocol_error", ...
std::string_view describe(CloseReason reason);
uint16_t websocket_close_code(CloseReason reason);

}  // namespace tandem::net
