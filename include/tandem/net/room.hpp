// The Room: the authoritative end of the lockstep protocol, as pure logic with time passed in.
// It owns the world, admits clients, authors joins and leaves, stamps each client's steer onto
// a tick of its own choosing, steps once per tick() and streams one frame per tick, encoded
// once and shared by every recipient, under per-client flow control. It holds no clock and no
// socket: the server's tick loop calls tick(), the transport moves the bytes it queues.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/world/world.hpp"

namespace tandem::net {

// ---- Limits, each with its reason ---------------------------------------------------------
// Time-valued limits are stated in seconds and turned into ticks at the room's tick rate
// (Room::ring_ticks() and friends give the values in force), so they mean the same thing at
// every rate the world allows (1 to 1,000 Hz).

// The ring of recent frames and section digests: ten seconds (600 ticks at 60 Hz). Long
// enough that a tab hidden for a few seconds, or a client paused by flow control, resumes
// from frames it can verify one by one; a longer absence costs more to replay tick by tick
// than a baseline costs to send, so anything older is answered with a baseline.
inline constexpr uint32_t ring_seconds = 10;

// Flow control: the span a client may have unacknowledged, in ticks and in bytes. The stream is
// ordered and lossless (a WebSocket), so the newest tick a client acks is its whole
// acknowledgement: nothing for AckWindow's loss mask to add. Two seconds (120 ticks at 60 Hz)
// spans several acknowledgements plus a long round trip for a client that acks a few times a
// second (the client session acks up to ten times a second, and every second even without
// progress), so a reading client is never paused; one that has stopped reading is paused
// within two seconds. 192 KiB holds two seconds of the largest
// steady frames (64 players steering every tick: 1,107 B x 120 = 133 KB) with room to spare,
// so the tick bound is the one that binds in play, while the bytes a paused client leaves in
// the transport stay under its 256 KiB figure.
inline constexpr uint32_t flow_window_seconds = 2;
inline constexpr uint32_t flow_window_bytes = 192 * 1024;

// A client that says "nothing held" while a baseline the room sent it less than a second ago
// is still unacknowledged gets the next one only when that second has passed (it is usually
// answered by the one on its way). So a client asking without reading costs at most one
// baseline a second, until the transport's hard byte cap closes it.
inline constexpr uint32_t baseline_repeat_seconds = 1;

// Inputs accepted per client per second, beyond a burst. 120 is one steer per display frame
// at 120 Hz; at 60 ticks a second only one steer per player per tick is applied anyway (the
// newest), so a faster sender only replaces its own steers. The burst (half a second) absorbs
// inputs that the network delivers in clumps. An input past the limit is dropped and counted.
// A token bucket refilled per tick, not the link toolkit's RateMeter: the meter's rolling
// eight-second window is a readout, while a limit must hold over every second from the first
// input, and counting in ticks keeps it a function of the calls alone.
inline constexpr uint32_t max_inputs_per_second = 120;
inline constexpr uint32_t input_burst = 60;

// A sustained flood: every dropped input adds one to a client's flood debt, which drains at
// max_inputs_per_second a second. So a client sending up to twice the limit is only trimmed,
// never closed, while one whose debt passes two seconds' worth of the limit (240) gets
// ErrorCode::rate_limited and a close: a burst of 2,000 inputs at once, or a steady three
// times the limit within two seconds.
inline constexpr uint32_t flood_threshold_inputs = 2 * max_inputs_per_second;

// Input delay: an input received while the world is at tick W lands on tick W + 1 + delay
// (the next step when the delay is 0). Two ticks by default (33 ms at 60 Hz): a client that
// sends one steer per tick sees them land on consecutive ticks despite ordinary jitter. At
// most ten seconds at 60 Hz, past which the room is not a game.
inline constexpr uint32_t default_input_delay_ticks = 2;
inline constexpr uint32_t max_input_delay_ticks = 600;

// Watchers per room. Each costs one shared-pointer copy per tick (the frame is encoded once);
// 1,024 keep the room's own per-tick work below the world step it serves (the room bench,
// docs/performance.md). The hard limit bounds the client table.
inline constexpr uint32_t default_max_watchers = 1024;
inline constexpr uint32_t max_watcher_limit = 65'536;

// A connection from which nothing at all has arrived (no input, ack, ping) for this long is
// closed with ErrorCode::idle, and a player's seat is given back. Fifteen minutes: longer
// than a laptop lid closed over a coffee, since a client suspended for minutes is expected
// to resume with a baseline, not to rejoin; a dead socket is found sooner by the transport's
// own pings. Adjustable per room (RoomConfig::idle_timeout_ns), at least one second.
inline constexpr int64_t default_idle_timeout_ns = int64_t{15} * 60 * 1'000'000'000;
inline constexpr int64_t min_idle_timeout_ns = 1'000'000'000;

// The largest message the room accepts is protocol.hpp's max_client_message_bytes (49, a
// Desync): anything longer fails to decode and is refused as malformed.

// ---- Configuration ------------------------------------------------------------------------
struct RoomConfig {
    world::WorldConfig world = world::default_config();
    uint32_t input_delay_ticks = default_input_delay_ticks;
    // Seats offered to players: at most world.max_players (the world must have a well for each).
    uint32_t max_players = world::WorldConfig{}.max_players;
    uint32_t max_watchers = default_max_watchers;
    int64_t idle_timeout_ns = default_idle_timeout_ns;
};

// Why Room::create refused a config. For a world knob out of range the world's own code
// says which (world is set).
enum class RoomConfigCode : uint8_t {
    world_config,               // the world config does not validate (see world)
    input_delay_out_of_range,   // above max_input_delay_ticks
    max_players_out_of_range,   // above the world's max_players
    max_watchers_out_of_range,  // above max_watcher_limit
    idle_timeout_out_of_range,  // below min_idle_timeout_ns
};
struct RoomConfigError {
    RoomConfigCode code = RoomConfigCode::world_config;
    world::ConfigError world = world::ConfigError::tick_hz_out_of_range;  // meaningful for world_config
};
std::string_view error_name(const RoomConfigError& error);  // "input_delay_out_of_range", or the world's code
std::string_view describe(const RoomConfigError& error);

// ---- What the room hands the transport ----------------------------------------------------
// One message to one connection. The buffer is shared: a frame is one allocation whatever the
// number of recipients, held until the last of them has written it.
struct Outgoing {
    uint32_t to = 0;
    std::shared_ptr<const std::vector<uint8_t>> bytes;
};
// Close this connection once what was queued for it before is sent. The room has already
// queued the ErrorMsg that explains why and forgotten the client's seat.
struct CloseRequest {
    uint32_t who = 0;
    CloseReason reason = CloseReason::protocol_error;
};

struct RoomStats {
    uint64_t tick = 0;               // the world's tick
    uint32_t players = 0;            // connections admitted as players, not yet closed
    uint32_t watchers = 0;
    uint64_t frames_encoded = 0;     // one per tick
    uint64_t baselines_sent = 0;     // to clients (not the recording)
    uint64_t flow_pauses = 0;        // times a client's stream stopped at its flow window
    uint64_t inputs_accepted = 0;
    uint64_t inputs_dropped = 0;     // past the rate limit
    uint64_t inputs_stale = 0;       // a sequence number not newer than the client's last
    uint64_t desync_reports = 0;
    uint64_t ack_mismatches = 0;     // acks whose digest differs from the room's at that tick
    uint64_t replies_dropped = 0;    // pongs and sections not sent: the client's window was full
    uint64_t messages_received = 0;
    uint64_t bytes_received = 0;
    uint64_t messages_sent = 0;      // per recipient (a frame sent to 100 clients counts 100)
    uint64_t bytes_sent = 0;         // likewise
    std::array<uint64_t, 6> closes{};  // closes the room asked for, by CloseReason
    int64_t last_step_ns = 0;        // the world step inside the last tick (0 without a clock)
    int64_t last_tick_ns = 0;        // the whole last tick() (0 without a clock)
};

// What the room holds for one connection (tests and the bench read it; the server does not).
struct ClientFigures {
    bool admitted = false;       // its hello was accepted
    bool closed = false;         // the room asked for its close; awaiting disconnect()
    Role role = Role::watch;
    uint32_t player = watcher_id;
    bool paused = false;         // its stream is stopped at the flow window
    uint64_t sent_tick = 0;      // the newest tick it has been sent (frame or baseline)
    uint64_t base_tick = 0;      // its newest acknowledged tick or baseline, whichever is newer
    uint64_t unacked_bytes = 0;  // sent since base_tick, as far as the room can count
    // Bytes the room itself holds for it: its fixed record plus what sits in the outbox for it
    // (each shared buffer counted whole). Nothing grows with the length of a stall.
    uint64_t held_bytes = 0;
};

// ---- The room -----------------------------------------------------------------------------
// Call order is the only input besides the messages: the same calls with the same arguments
// produce the same bytes, in the same order, every time (set_clock feeds stats only).
//
// A connection's life: connect() -> the client sends Hello -> the room queues Welcome, then a
// Baseline of the world now, then one Frame per tick. A player's join is authored by the room
// at the hello (an AppliedInput with sequence 0) and its leave at disconnect(), at a close the
// room asks for, or at the idle timeout; a player's seat is reused only after its leave has
// been applied. Player ids are seats 1..max_players, the lowest free one first.
//
// Inputs: an InputMsg received while the world is at tick W lands on tick W + 1 +
// input_delay_ticks, whatever its arrival time within the tick; a client can only steer its
// own well. One steer per player per tick: a later InputMsg landing on the same tick replaces
// the earlier one (sequence numbers only increase, so the newest sequence wins); a sequence
// not newer than the client's last accepted one is ignored (inputs_stale).
//
// Flow control: a client may have at most flow_window_seconds of ticks and flow_window_bytes
// of frames and replies unacknowledged since its newest ack or baseline; past either the room
// stops streaming to it (flow_pauses) and sends nothing more until an Ack. An Ack of tick A
// (holds = 1) resumes the stream after the last tick sent: from the ring while it still holds
// those ticks, else with a baseline of the current tick. An Ack "nothing held" gets a
// baseline (see baseline_repeat_seconds). Baselines are exempt from the window (a client that
// asks must be answered). The bound: a client that stops reading has at most
// flow_window_bytes plus one baseline unacknowledged (it asks for nothing more), and costs the
// room O(1) however long it stalls: one fixed record, no per-tick queue (ClientFigures). One
// that keeps asking for baselines without reading gets at most one a second, until the
// transport's hard byte cap closes it. A client must ack a tick it holds at least every
// flow_window_seconds, or it is paused.
//
// Refusals (an ErrorMsg, then a CloseRequest): a hello of another protocol version
// (version_mismatch) or simulation (fingerprint_mismatch), a message that does not decode
// (malformed), and a well-formed one at the wrong time (unexpected: anything before hello, a
// second hello, input from a watcher, an ack of a tick never sent), all closed with
// protocol_error; no seat or watcher place left (room_full); a sustained input flood
// (rate_limited); silence past the idle timeout (idle); shut_down (shutting_down). What one
// client sends never changes what another receives, except through its own accepted steers.
class Room {
public:
    static Result<Room, RoomConfigError> create(const RoomConfig& config);

    // Only for the stats' durations (last_step_ns, last_tick_ns); nothing is decided by it.
    void set_clock(int64_t (*now_ns)());

    // A connection opened; the client must then send Hello. Ids start at 1.
    uint32_t connect(int64_t now_ns);
    void receive(uint32_t id, std::span<const uint8_t> message, int64_t now_ns);
    // The connection is gone (for any reason, including a close the room asked for).
    void disconnect(uint32_t id, int64_t now_ns);
    // One simulation tick: step with the inputs that land on it, then stream the frame.
    void tick(int64_t now_ns);
    // ErrorMsg shutting_down and a close for every connection; later hellos are refused alike.
    void shut_down(int64_t now_ns);
    // Everything queued since the last call, appended in order (per connection, messages in
    // the order they must be written; a CloseRequest after that connection's last message).
    void take_outbox(std::vector<Outgoing>& sends, std::vector<CloseRequest>& closes);

    const RoomStats& stats() const { return stats_; }
    const RoomConfig& config() const { return config_; }
    const world::World& world() const { return world_; }
    std::optional<ClientFigures> client(uint32_t id) const;

    // The limits in force, in ticks at this room's rate.
    uint32_t ring_ticks() const { return ring_ticks_; }
    uint32_t flow_window_ticks() const { return window_ticks_; }
    uint32_t baseline_repeat_ticks() const { return baseline_repeat_ticks_; }

    // A replay of the match from now on (replay.hpp's format): a Welcome as a watcher gets it,
    // a Baseline of the world now, then per tick its Frame and Sections. take_recording
    // appends the bytes recorded since the last call.
    void start_recording();
    void take_recording(std::vector<uint8_t>& out);

    Room(Room&&) noexcept;
    Room& operator=(Room&&) noexcept;
    ~Room();

private:
    struct Client;
    struct RingEntry;
    explicit Room(const RoomConfig& config, world::World world);

    Client* find(uint32_t id);
    const Client* find(uint32_t id) const;
    const RingEntry* held(uint64_t tick) const;
    void on_hello(Client& c, const Hello& hello);
    void on_input(Client& c, const InputMsg& input);
    void on_ack(Client& c, const Ack& ack);
    void refuse(Client& c, ErrorCode code, std::string_view text, CloseReason reason);
    void release(Client& c);
    void schedule(const AppliedInput& input);
    void send(Client& c, const std::shared_ptr<const std::vector<uint8_t>>& bytes);
    void reply(Client& c, std::vector<uint8_t> bytes);
    void send_baseline(Client& c);
    void stream(Client& c);
    const std::shared_ptr<const std::vector<uint8_t>>& baseline_now();

    RoomConfig config_;
    world::World world_;
    world::Stepper stepper_;
    RoomStats stats_;
    int64_t (*clock_)() = nullptr;
    uint32_t ring_ticks_ = 0;
    uint32_t window_ticks_ = 0;
    uint32_t baseline_repeat_ticks_ = 0;
    bool shutting_down_ = false;
    uint32_t next_id_ = 1;

    std::vector<RingEntry> ring_;
    uint64_t frame_bytes_total_ = 0;  // cumulative frame bytes: the ring's running sum
    // Pending inputs by landing tick: slot t % (delay + 1) holds tick t's, for the delay + 1
    // ticks an input can land on.
    std::vector<std::vector<AppliedInput>> pending_;
    // Seat i (player i + 1): 0 free, 1 taken, 2 leaving until seat_free_at_[i] is stepped.
    std::vector<uint8_t> seats_;
    std::vector<uint64_t> seat_free_at_;
    std::vector<Client> clients_;  // sorted by id

    std::vector<Outgoing> outbox_;
    std::vector<CloseRequest> closes_;
    uint64_t baseline_tick_ = 0;
    std::shared_ptr<const std::vector<uint8_t>> baseline_;  // encoded at most once per tick
    Frame frame_;                       // reused from tick to tick
    std::vector<world::Input> inputs_;  // likewise
    bool recording_ = false;
    std::vector<uint8_t> recorded_;
};

}  // namespace tandem::net
