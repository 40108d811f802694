// The Room: the authoritative end of the lockstep protocol for any game G (a
// tandem::sim::Simulation), as pure logic with time passed in. It owns the game's state, admits
// clients, authors joins and leaves, stamps each client's command onto a tick of its own
// choosing, steps once per tick() and streams one frame per tick, encoded once and shared by
// every recipient, under per-client flow control. It holds no clock and no socket: the server's
// tick loop calls tick(), the transport moves the bytes it queues. It names no game.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tandem/core/digest.hpp"  // hex64: the one spelling of a digest
#include "tandem/core/result.hpp"
#include "tandem/core/sha256.hpp"
#include "tandem/net/checkpoint.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/link_arith.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/sim/codec.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::net {

// ---- Limits, each with its reason ---------------------------------------------------------
// Time-valued limits are stated in seconds and turned into ticks at the room's tick rate
// (Room::ring_ticks() and friends give the values in force), so they mean the same thing at
// every rate a game may run at (1 to 1,000 Hz).

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
// within two seconds. 192 KiB holds two seconds of the largest steady frames of an 8-byte
// command (64 players commanding every tick: 20 + 64 x 17 = 1,108 B x 120 = 133 KB) with room
// to spare, so the tick bound is the one that binds in play, while the bytes a paused client
// leaves in the transport stay under its 256 KiB figure.
inline constexpr uint32_t flow_window_seconds = 2;
inline constexpr uint32_t flow_window_bytes = 192 * 1024;

// A client that says "nothing held" while a baseline the room sent it less than a second ago
// is still unacknowledged gets the next one only when that second has passed (it is usually
// answered by the one on its way). So a client asking without reading costs at most one
// baseline a second, until the transport's hard byte cap closes it.
inline constexpr uint32_t baseline_repeat_seconds = 1;

// Inputs accepted per client per second, beyond a burst. 120 is one command per display frame
// at 120 Hz; at 60 ticks a second only one command per player per tick is applied anyway (the
// newest), so a faster sender only replaces its own commands. The burst (half a second)
// absorbs inputs that the network delivers in clumps. An input past the limit is dropped and
// counted. A token bucket refilled per tick, not the link toolkit's RateMeter: the meter's
// rolling eight-second window is a readout, while a limit must hold over every second from the
// first input, and counting in ticks keeps it a function of the calls alone.
inline constexpr uint32_t max_inputs_per_second = 120;
inline constexpr uint32_t input_burst = 60;

// A sustained flood: every dropped input adds one to a client's flood debt, which drains at
// max_inputs_per_second a second. So a client sending up to twice the limit is only trimmed,
// never closed, while one whose debt passes two seconds' worth of the limit (240) gets
// ErrorCode::rate_limited and a close: a burst of 2,000 inputs at once, or a steady three
// times the limit within two seconds.
inline constexpr uint32_t flood_threshold_inputs = 2 * max_inputs_per_second;

// Input delay: an input received while the state is at tick W lands on tick W + 1 + delay
// (the next step when the delay is 0). Two ticks by default (33 ms at 60 Hz): a client that
// sends one command per tick sees them land on consecutive ticks despite ordinary jitter. At
// most ten seconds at 60 Hz, past which the room is not a game.
inline constexpr uint32_t default_input_delay_ticks = 2;
inline constexpr uint32_t max_input_delay_ticks = 600;

// Watchers per room. Each costs one shared-pointer copy per tick (the frame is encoded once);
// 1,024 keep the room's own per-tick work below the step it serves (the room bench,
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

// Resume: a player whose connection drops keeps its seat, and whatever the game's state holds
// for it, for this long, and the resume token its welcome carried takes the seat back (see the
// class comment). Thirty seconds covers a network blip, a Wi-Fi handover or a page's own
// reconnect backoff (its schedule reaches 8 s only after four failures) with room to spare,
// while a player who has really gone frees the seat within half a minute. At most an hour: a
// seat kept longer is a seat nobody else can play in. 0: no seat is kept (a drop is a leave at
// once, as when the room has no token source).
inline constexpr int64_t default_resume_grace_ns = int64_t{30} * 1'000'000'000;
inline constexpr int64_t max_resume_grace_ns = int64_t{3600} * 1'000'000'000;
// Tokens the room has retired (used for a resume, or whose seat's grace ended) and remembers,
// so that such a token is refused for what it is (resume_used, resume_expired) rather than as
// unknown: the newest 256, 17 bytes each. An older one is refused as resume_unknown.
inline constexpr uint32_t retired_tokens_kept = 256;

// The largest message the room accepts is protocol.hpp's max_client_message_bytes (a hello with
// a token and the longest ticket): anything longer fails to decode and is refused as malformed.

// Where a connection comes from, as the transport names it: an opaque 16-byte key (the server
// passes the peer's IP address, an IPv4 one mapped into IPv6 and an IPv6 one cut to its /64).
// Connections with equal keys share the per-source limits below; the room never reads it
// otherwise. An in-process match passes the zero key for everyone.
using SourceKey = std::array<uint8_t, 16>;

// ---- Configuration ------------------------------------------------------------------------
template <sim::Simulation G>
struct RoomConfig {
    typename G::Config game = typename G::Config{};
    uint32_t input_delay_ticks = default_input_delay_ticks;
    // Seats offered to players: at most G::max_players(game) (the state must hold each of
    // them) and at most max_players_per_room (a frame's bound). 0: as many as both allow.
    uint32_t max_players = 0;
    uint32_t max_watchers = default_max_watchers;
    int64_t idle_timeout_ns = default_idle_timeout_ns;
    // How long a dropped player's seat is kept for its resume token (default_resume_grace_ns),
    // counted in the room's ticks (rounded up). Resume needs a token source too
    // (Room::set_token_source).
    int64_t resume_grace_ns = default_resume_grace_ns;
    // Seats (kept ones included) and watcher places one source may hold at once; 0: no limit.
    // Without them one client takes every seat and place of a room and keeps them with one
    // message per idle timeout, and dropping its connections only turns its seats into kept
    // ones: the server sets both (TransportLimits says how many, and why). Past either, a
    // hello is refused with ErrorCode::address_limit; nobody else's place is touched.
    uint32_t seats_per_source = 0;
    uint32_t watchers_per_source = 0;
};

// Where a room's resume tokens come from: each call returns a fresh one. The room is pure
// logic, so it cannot make unguessable tokens itself: the server hands it one drawing from the
// OS (tandem/server/os_random.hpp), tests a deterministic one.
using TokenSource = std::function<ResumeToken()>;

// Where a room's tickets are judged: the server's judge (tandem/server/tickets.hpp) holds the
// key, reads the clock and remembers the tickets used. A room given one admits a hello that
// carries no resume token only with a ticket the judge accepts and whose role and seat fit this
// hello; a room without one ignores tickets. The room calls check, then (the hello admitted)
// spend; release when a watcher admitted by a ticket is gone. Player seats taken back with a
// resume token need no ticket: the token is the ticketed player's.
class TicketJudge {
public:
    virtual ~TicketJudge() = default;
    // nullopt: the ticket may admit now; else why not: ticket_forged, ticket_expired,
    // ticket_replayed, ticket_invalid (another room, a lifetime past the judge's bound), or
    // room_full when the judge can remember no more tickets.
    virtual std::optional<ErrorCode> check(const Ticket& ticket) = 0;
    // The ticket admitted a connection: a player's is used for good, a watcher's is in use
    // until released (a watcher has no seat to resume: its page reconnects with the ticket).
    virtual void spend(const Ticket& ticket) = 0;
    virtual void release(const TicketNonce& nonce) = 0;
};
// Why Room::create refused a config. For a game knob out of range the game's own code says
// which (game is set).
enum class RoomConfigCode : uint8_t {
    game_config,                // the game's config does not validate (see game)
    input_delay_out_of_range,   // above max_input_delay_ticks
    max_players_out_of_range,   // above the game's max_players or max_players_per_room
    max_watchers_out_of_range,  // above max_watcher_limit
    idle_timeout_out_of_range,  // below min_idle_timeout_ns
    resume_grace_out_of_range,  // negative or above max_resume_grace_ns
};
std::string_view error_name(RoomConfigCode code);   // "input_delay_out_of_range", ...
std::string_view describe(RoomConfigCode code);

template <sim::Simulation G>
struct RoomConfigError {
    RoomConfigCode code = RoomConfigCode::game_config;
    typename G::ConfigError game{};  // meaningful for game_config
};
// The game's own code and sentence for a game knob, the room's otherwise.
template <sim::Simulation G>
std::string_view error_name(const RoomConfigError<G>& e) {
    return e.code == RoomConfigCode::game_config ? std::string_view(error_name(e.game)) : error_name(e.code);
}
template <sim::Simulation G>
std::string_view describe(const RoomConfigError<G>& e) {
    return e.code == RoomConfigCode::game_config ? std::string_view(describe(e.game)) : describe(e.code);
}

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
    uint64_t tick = 0;               // the state's tick
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
    std::array<uint64_t, close_reason_count> closes{};  // closes the room asked for, by CloseReason
    uint32_t held_seats = 0;         // seats kept for a dropped player's token (not in `players`)
    uint64_t resumes = 0;            // hellos that took a kept (or still open) seat back
    uint64_t resumes_refused = 0;    // hellos whose token was unknown, expired or used
    uint64_t seats_expired = 0;      // kept seats whose grace ended: the room authored the leave
    // Hellos and connections the room refused, by ErrorCode (indexed by its value).
    std::array<uint64_t, error_code_end> refusals{};
    uint64_t seats_refused_per_source = 0;     // address_limit refusals of a player's hello
    uint64_t watchers_refused_per_source = 0;  // ... of a watcher's
    uint32_t sources = 0;            // sources holding a seat or a watcher's place now
    int64_t last_step_ns = 0;        // the game's step inside the last tick (0 without a clock)
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

namespace detail {
// The refusal sentences of a hello (non-template: src/net/room.cpp).
std::string version_refusal(uint16_t theirs);
std::string game_refusal(std::string_view theirs, std::string_view ours);
std::string fingerprint_refusal(uint64_t theirs, uint64_t ours, std::string_view our_fingerprint);
}  // namespace detail

// ---- The room -----------------------------------------------------------------------------
// Call order is the only input besides the messages: the same calls with the same arguments
// produce the same bytes, in the same order, every time (set_clock feeds stats only).
//
// A connection's life: connect() -> the client sends Hello -> the room queues Welcome, then a
// Baseline of the state now, then one Frame per tick. A player's join is authored by the room
// at the hello (an applied input with sequence 0 carrying G::join_command) and its leave at
// disconnect(), at a close the room asks for, or at the idle timeout; a player's seat is
// reused only after its leave has been applied. Player ids are seats 1..max_players, the
// lowest free one first.
//
// Inputs: an InputMsg received while the state is at tick W lands on tick W + 1 +
// input_delay_ticks, whatever its arrival time within the tick; a client can only command its
// own player. One command per player per tick: a later InputMsg landing on the same tick
// replaces the earlier one (sequence numbers only increase, so the newest sequence wins); a
// sequence not newer than the client's last accepted one is ignored (inputs_stale). A command
// whose bytes the game refuses (game_codec.hpp's command_of) is malformed.
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
// Resume (when the room has a token source and a grace above 0): each player's welcome carries a
// fresh resume token, sent to that player alone (never in a frame, a baseline, a recording or a
// digest). A player's disconnect() does not author its leave: its seat is kept for
// resume_grace_ticks(), and the game's state keeps its player as it was. Meanwhile the room
// stamps nothing for it (no command at all: each game's step decides what a player without
// a new command does, and the arena's well keeps its last target), except a game that declares
// a neutral command, G::idle_command(config) (ships: no button held), has that stamped once at
// the drop, as if received then. Inputs received before the drop still land. A hello of role
// play carrying the token within the grace gets the same seat back: a Welcome naming the same
// player id (with a new token: each is good once), a Baseline of the state now, then Frames,
// and no join is authored. A valid token for a seat whose connection is still open (the client
// saw the drop before the server did) takes the seat over: the old connection gets
// resumed_elsewhere and is closed, with no leave. The grace is counted in ticks: a drop while
// the state is at tick D keeps the seat until the tick() that steps to D + grace, which
// authors the leave (it lands on D + grace + 1 + input_delay_ticks, where a disconnect at
// D + grace would have put it), and the token is retired as expired. Meanwhile the seat is
// nobody else's: a hello without the token gets another seat or room_full. A token refused:
// one this room never issued (resume_unknown), one whose seat's grace ended or whose
// connection the room itself closed (resume_expired), one already used (resume_used), each
// with close reason resume_refused; a watcher's hello with a token is unexpected. A close the
// room asks for (a refusal, the idle timeout, shut_down) gives the seat up at once, as before.
// Without a token source, or with a grace of 0, welcomes carry no token and a disconnect
// authors the leave at once. The room keeps each token only as its SHA-256 (what a hello's token
// is compared with, in constant time), so neither its memory nor its checkpoint holds a token.
//
// Checkpoints (checkpoint.hpp; off until enable_checkpoints): the room writes what another
// process needs to rebuild it: a snapshot record (the game's snapshot, the room's config and
// seats) when enabled and every snapshot_every_ticks after, the frame of every tick, and its seats
// whenever they change between snapshots. The order contract: nothing a call queued for a client
// leaves take_outbox before the checkpoint records that call wrote have left take_checkpoint.
// A driver takes the checkpoint, puts it in the store's write path, then takes the outbox; a
// driver that takes the outbox first gets only what was queued before the first record not yet
// taken, and the rest after take_checkpoint. So no client ever holds a tick, a seat or a token
// the store has not been given: a room restored from the store is at least as far as any of its
// clients. restore() rebuilds the room from a segment: the snapshot, then every frame stepped
// with its recorded inputs, each one's digest checked against the state's, then the seats, and
// the inputs that had not landed yet: the joins, leaves and neutral commands the room authored
// (in the seats records) and every command it accepted (an input record, written without
// holding anything back: no client sees its effect before the frame that applies it, whose
// record comes after). A command accepted after the last batch the driver took is lost with the
// process; its sender sees it unapplied and sends anew. Restored, the seats that had a
// connection are kept for their tokens, as after a drop.
//
// Refusals (an ErrorMsg, then a CloseRequest): a hello of another protocol version
// (version_mismatch), game (game_mismatch) or build of the game (fingerprint_mismatch), a
// message that does not decode or a command the game refuses (malformed), and a well-formed one
// at the wrong time (unexpected: anything before hello, a second hello, input from a watcher,
// an ack of a tick never sent), all closed with protocol_error; no seat or watcher place left
// (room_full); a sustained input flood (rate_limited); silence past the idle timeout (idle);
// shut_down (shutting_down); a source past its share of seats or watcher places
// (address_limit, counted before any place is given); with a ticket judge, a hello without a
// token and without a ticket (ticket_missing), or with one the judge refuses (ticket_forged,
// ticket_expired, ticket_replayed, ticket_invalid) or whose role is not the hello's or whose seat
// is none of this room's (ticket_invalid), each closed with ticket_refused; a ticket naming a
// seat gets that seat or room_full. What one client sends never changes what another receives,
// except through its own accepted commands.
template <sim::Simulation G>
class Room {
public:
    using Config = RoomConfig<G>;
    using ConfigError = RoomConfigError<G>;
    using State = typename G::State;

    static Result<Room, ConfigError> create(const Config& config);

    // Only for the stats' durations (last_step_ns, last_tick_ns); nothing is decided by it.
    void set_clock(int64_t (*now_ns)()) { clock_ = now_ns; }
    // Turns resume on (with a grace above 0): the tokens welcomes carry come from `source`.
    // Set it before the first hello; every call after it is still a function of the calls and
    // of what the source returns.
    void set_token_source(TokenSource source) { token_source_ = std::move(source); }
    // Requires tickets from now on (see TicketJudge); null: tickets are ignored again.
    void set_ticket_judge(std::shared_ptr<TicketJudge> judge) { ticket_judge_ = std::move(judge); }
    // The per-source shares (RoomConfig::seats_per_source, watchers_per_source) from now on: a
    // restored room's come from its server, not its checkpoint (they are the transport's).
    void set_source_limits(uint32_t seats, uint32_t watchers) {
        config_.seats_per_source = seats;
        config_.watchers_per_source = watchers;
    }
    // The grace in force, in ticks at this room's rate (0: no seat is kept).
    uint32_t resume_grace_ticks() const { return grace_ticks_; }
    // Whether player seat `player` (1..max_players) is kept for a dropped player's token.
    bool seat_held(uint32_t player) const {
        return player >= 1 && player <= seats_.size() && seats_[player - 1] == seat_held_state;
    }

    // A connection opened from `source`; the client must then send Hello. Ids start at 1.
    uint32_t connect(int64_t now_ns, const SourceKey& source = {});
    void receive(uint32_t id, std::span<const uint8_t> message, int64_t now_ns);
    // The connection is gone (for any reason, including a close the room asked for).
    void disconnect(uint32_t id, int64_t now_ns);
    // One simulation tick: step with the inputs that land on it, then stream the frame.
    void tick(int64_t now_ns);
    // ErrorMsg shutting_down and a close for every connection; later hellos are refused alike.
    // keep_seats: each player's seat is kept for its token as on a drop (the room goes on
    // elsewhere, from its checkpoint), instead of given up.
    void shut_down(int64_t now_ns, bool keep_seats = false);
    // A rolling restart's hand-over: as shut_down with keep_seats, but nothing is sent and no
    // close is queued. Whoever runs the room tells each connection where the room went once
    // another process has it (room_moved), or closes it when none takes it in time.
    void hand_off(int64_t now_ns);
    // Everything queued since the last call, appended in order (per connection, messages in
    // the order they must be written; a CloseRequest after that connection's last message).
    void take_outbox(std::vector<Outgoing>& sends, std::vector<CloseRequest>& closes);

    const RoomStats& stats() const { return stats_; }
    // The config in force (max_players resolved: never 0).
    const Config& config() const { return config_; }
    const State& state() const { return state_; }
    std::optional<ClientFigures> client(uint32_t id) const;

    // The limits in force, in ticks at this room's rate.
    uint32_t ring_ticks() const { return ring_ticks_; }
    uint32_t flow_window_ticks() const { return window_ticks_; }
    uint32_t baseline_repeat_ticks() const { return baseline_repeat_ticks_; }

    // A replay of the match from now on (replay.hpp's format): a Welcome as a watcher gets it,
    // a Baseline of the state now, then per tick its Frame and Sections. take_recording
    // appends the bytes recorded since the last call. end_recording (and shut_down) appends
    // the end marker and records nothing more: a file without it was cut short.
    void start_recording();
    void take_recording(std::vector<uint8_t>& out);
    void end_recording();

    // Checkpoints (see the class comment). enable_checkpoints writes a snapshot record now and
    // every snapshot_every_ticks after (0: default_checkpoint_seconds at the room's rate).
    void enable_checkpoints(uint32_t snapshot_every_ticks = 0);
    bool checkpoints_enabled() const { return checkpoint_every_ > 0; }
    uint32_t checkpoint_every_ticks() const { return checkpoint_every_; }
    // Everything written since the last call (nothing: an empty batch), and the outbox it held
    // back is free to go.
    void take_checkpoint(CheckpointBatch& out);
    // The room a segment describes, at its last frame's tick, with no connection: its seats
    // that had one are kept for their tokens (or left, without resume). Checkpoints are off
    // until enabled again (a new owner starts a segment of its own). each_tick(tick, digest) is
    // called for every tick stepped, from the snapshot's on, with the digest the state reached.
    static Result<Room, RestoreError> restore(std::span<const uint8_t> segment, RestoreReport* report = nullptr,
                                              const std::function<void(uint64_t, uint64_t)>& each_tick = {});

private:
    using Bytes = std::shared_ptr<const std::vector<uint8_t>>;

    // Per-client state: fixed size, nothing that grows with time.
    struct Client {
        enum class Stage : uint8_t { awaiting_hello, admitted, closed };
        uint32_t id = 0;
        Stage stage = Stage::awaiting_hello;
        bool admitted = false;  // its hello was accepted (it stays true once closed)
        Role role = Role::watch;
        uint32_t player = watcher_id;
        SourceKey source{};
        std::optional<TicketNonce> watch_ticket;  // the ticket that admitted this watcher, in use
        int64_t last_heard_ns = 0;
        uint32_t last_sequence = 0;  // 0: none yet (sequences start at 1)
        // Rate limit in units of 1 / tick_hz input: an input costs tick_hz units, a tick
        // refills max_inputs_per_second units, so a second refills max_inputs_per_second inputs
        // exactly.
        int64_t tokens = 0;
        int64_t flood_debt = 0;  // same units
        uint64_t sent_tick = 0;
        uint64_t base_tick = 0;
        uint64_t unacked_bytes = 0;
        uint64_t last_baseline_tick = 0;
        bool baseline_unacked = false;
        bool wants_baseline = false;
        bool paused = false;
    };

    // One tick the ring holds: its frame (none for the tick the room started at), the digest
    // and section digests after it, and the cumulative frame bytes up to and including it, so a
    // client's unacknowledged frame bytes are one subtraction.
    struct RingEntry {
        uint64_t tick = UINT64_MAX;
        Bytes frame;
        uint64_t digest = 0;
        sim::SectionDigests<G> sections{};
        uint64_t bytes_through = 0;
    };

    Room(const Config& config, State state);

    uint64_t now_tick() const { return G::tick(state_); }
    uint32_t tick_hz() const { return G::tick_hz(config_.game); }
    Client* find(uint32_t id);
    const Client* find(uint32_t id) const;
    const RingEntry* held(uint64_t tick) const;
    void on_hello(Client& c, const Hello& hello);
    void on_resume(Client& c, const ResumeToken& token);
    void admit(Client& c, Role role, uint32_t player);
    // The per-source counts: what a source holds, and a place taken or given back.
    struct SourceHold {
        uint32_t seats = 0;
        uint32_t watchers = 0;
    };
    SourceHold held_by(const SourceKey& source) const;
    void hold(const SourceKey& source, Role role, int delta);
    std::optional<ErrorCode> ticket_problem(const Hello& hello) const;
    bool resume_on() const { return grace_ticks_ > 0 && static_cast<bool>(token_source_); }
    std::optional<ResumeToken> issue_token(uint32_t seat);
    void retire_token(uint32_t seat, ErrorCode why);
    void expire_held_seats();
    void on_input(Client& c, const InputMsg& input);
    void on_ack(Client& c, const Ack& ack);
    void refuse(Client& c, ErrorCode code, std::string_view text, CloseReason reason);
    void release(Client& c, bool keep_seat = false);
    void schedule(const Applied<G>& input);
    void place(uint64_t lands, const Applied<G>& input);
    void write_input_record(uint64_t lands, const Applied<G>& input);
    void send(Client& c, const Bytes& bytes);
    void reply(Client& c, std::vector<uint8_t> bytes);
    void send_baseline(Client& c);
    void stream(Client& c);
    const Bytes& baseline_now();
    // Checkpoints: each public call that can change what a checkpoint holds opens a Call; when it
    // ends, changed seats are written and, if the call wrote any record, what it queued is held
    // back until take_checkpoint.
    struct Call {
        explicit Call(Room& r) : room(r), sends(r.outbox_.size()), closes(r.closes_.size()) {}
        ~Call() { room.end_call(sends, closes); }
        Call(const Call&) = delete;
        Call& operator=(const Call&) = delete;
        Room& room;
        std::size_t sends;
        std::size_t closes;
    };
    void end_call(std::size_t sends_before, std::size_t closes_before);
    void write_seats(ByteWriter& w) const;
    bool read_seats(ByteReader& r);
    void write_snapshot_record();

    template <class Message>
    static Bytes encoded(const Message& m) {
        auto out = std::make_shared<std::vector<uint8_t>>();
        encode(*out, m);
        return out;
    }

    Config config_;
    State state_;
    typename G::Stepper stepper_;
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
    std::vector<std::vector<Applied<G>>> pending_;
    // Seat i (player i + 1): 0 free, 1 taken, 2 leaving until seat_free_at_[i] is stepped,
    // seat_held_state kept for its token until the state reaches seat_free_at_[i].
    static constexpr uint8_t seat_held_state = 3;
    std::vector<uint8_t> seats_;
    std::vector<uint64_t> seat_free_at_;
    // The live token of each seat (none: the room offers no resume, or the seat is free).
    // The SHA-256 of each seat's live token (none: the room offers no resume, or the seat is free).
    std::vector<std::optional<Sha256>> seat_tokens_;
    struct Retired {
        Sha256 token{};
        ErrorCode why = ErrorCode::resume_unknown;
    };
    std::vector<Retired> retired_;   // a ring of retired_tokens_kept
    uint32_t retired_next_ = 0;
    TokenSource token_source_;
    uint32_t grace_ticks_ = 0;
    std::shared_ptr<TicketJudge> ticket_judge_;
    // What each source holds (ordered: no hash decides anything); a source holding nothing has
    // no entry, so the table never outgrows the seats and places. seat_sources_[i]: the source
    // seat i is counted against, from its hello until its leave is authored.
    std::map<SourceKey, SourceHold> sources_;
    std::vector<SourceKey> seat_sources_;
    std::vector<Client> clients_;  // sorted by id

    std::vector<Outgoing> outbox_;
    std::vector<CloseRequest> closes_;
    uint64_t baseline_tick_ = 0;
    Bytes baseline_;                     // encoded at most once per tick
    std::vector<sim::Input<G>> inputs_;  // reused from tick to tick
    bool recording_ = false;
    bool recording_started_ = false;
    std::vector<uint8_t> recorded_;

    uint32_t checkpoint_every_ = 0;       // 0: checkpoints off
    uint64_t last_snapshot_tick_ = 0;
    CheckpointBatch checkpoint_;          // written since the last take_checkpoint
    bool checkpoint_holds_ = false;       // it holds a record the outbox must wait for
    bool seats_changed_ = false;          // since the last seats or snapshot record
    // The outbox and closes queued from these indices on wait for take_checkpoint.
    std::optional<std::size_t> held_sends_from_;
    std::optional<std::size_t> held_closes_from_;
};

// ---- Implementation -----------------------------------------------------------------------
// Everything here is decided by the order of calls and their arguments; the clock set by
// set_clock only times the stats.

template <sim::Simulation G>
Room<G>::Room(const Config& config, State state) : config_(config), state_(std::move(state)) {
    const uint32_t hz = tick_hz();
    ring_ticks_ = ring_seconds * hz;
    window_ticks_ = flow_window_seconds * hz;
    baseline_repeat_ticks_ = baseline_repeat_seconds * hz;
    ring_.resize(ring_ticks_);
    pending_.resize(std::size_t{config_.input_delay_ticks} + 1);
    seats_.assign(config_.max_players, 0);
    seat_free_at_.assign(config_.max_players, 0);
    seat_tokens_.assign(config_.max_players, std::nullopt);
    seat_sources_.assign(config_.max_players, SourceKey{});
    // Rounded up: a grace is never shorter than asked.
    grace_ticks_ = static_cast<uint32_t>((config_.resume_grace_ns * hz + 999'999'999) / 1'000'000'000);
    RingEntry& start = ring_[now_tick() % ring_ticks_];
    start.tick = now_tick();
    const sim::Digests<G> d = sim::digests<G>(state_);
    start.sections = d.sections;
    start.digest = d.digest;
    stats_.tick = now_tick();
}

template <sim::Simulation G>
Result<Room<G>, RoomConfigError<G>> Room<G>::create(const Config& config) {
    if (const auto valid = G::validate(config.game); !valid.ok()) {
        return ConfigError{RoomConfigCode::game_config, valid.error()};
    }
    if (config.input_delay_ticks > max_input_delay_ticks) return ConfigError{RoomConfigCode::input_delay_out_of_range};
    const uint32_t seats_allowed = std::min<uint32_t>(G::max_players(config.game), max_players_per_room);
    if (config.max_players > seats_allowed) return ConfigError{RoomConfigCode::max_players_out_of_range};
    if (config.max_watchers > max_watcher_limit) return ConfigError{RoomConfigCode::max_watchers_out_of_range};
    if (config.idle_timeout_ns < min_idle_timeout_ns) return ConfigError{RoomConfigCode::idle_timeout_out_of_range};
    if (config.resume_grace_ns < 0 || config.resume_grace_ns > max_resume_grace_ns) {
        return ConfigError{RoomConfigCode::resume_grace_out_of_range};
    }
    auto state = G::make(config.game);
    if (!state.ok()) return ConfigError{RoomConfigCode::game_config, state.error()};
    Config resolved = config;
    if (resolved.max_players == 0) resolved.max_players = seats_allowed;
    return Room(resolved, std::move(state).value());
}

template <sim::Simulation G>
typename Room<G>::Client* Room<G>::find(uint32_t id) {
    auto it = std::lower_bound(clients_.begin(), clients_.end(), id, [](const Client& c, uint32_t v) { return c.id < v; });
    return it != clients_.end() && it->id == id ? &*it : nullptr;
}
template <sim::Simulation G>
const typename Room<G>::Client* Room<G>::find(uint32_t id) const {
    return const_cast<Room*>(this)->find(id);
}

template <sim::Simulation G>
const typename Room<G>::RingEntry* Room<G>::held(uint64_t tick) const {
    const RingEntry& e = ring_[tick % ring_ticks_];
    return e.tick == tick ? &e : nullptr;
}

// ---- Connections --------------------------------------------------------------------------
template <sim::Simulation G>
uint32_t Room<G>::connect(int64_t now_ns, const SourceKey& source) {
    // Ids increase; after 2^32 connections they wrap, skipping 0 and any still in use.
    while (next_id_ == 0 || find(next_id_) != nullptr) ++next_id_;
    Client c;
    c.id = next_id_++;
    c.source = source;
    c.last_heard_ns = now_ns;
    c.tokens = int64_t{input_burst} * tick_hz();
    auto at = std::lower_bound(clients_.begin(), clients_.end(), c.id, [](const Client& x, uint32_t v) { return x.id < v; });
    clients_.insert(at, c);
    return c.id;
}

template <sim::Simulation G>
void Room<G>::disconnect(uint32_t id, int64_t) {
    const Call call(*this);
    Client* c = find(id);
    if (c == nullptr) return;
    release(*c, /*keep_seat=*/true);
    clients_.erase(clients_.begin() + (c - clients_.data()));
}

// Gives up whatever an admitted client holds: a player's seat (its leave is scheduled now and
// the seat is free once that leave has been stepped) and its place in the counts. keep_seat (a
// drop, not a close the room decided): with resume on and a token out for the seat, the seat is
// kept for the grace instead, and no leave is authored.
template <sim::Simulation G>
void Room<G>::release(Client& c, bool keep_seat) {
    if (c.stage == Client::Stage::admitted) {
        if (c.role == Role::play) {
            --stats_.players;
            const uint32_t seat = c.player - 1;
            // A token out for the seat means resume is on (a restored room has no source yet).
            if (keep_seat && grace_ticks_ > 0 && seat_tokens_[seat]) {
                seats_[seat] = seat_held_state;
                seat_free_at_[seat] = now_tick() + grace_ticks_;
                seats_changed_ = true;
                ++stats_.held_seats;
                // A game whose players must not keep acting on their last command says what
                // "nothing" is; the others are sent no command at all.
                if constexpr (requires(const typename G::Config& k) {
                                  { G::idle_command(k) } -> std::convertible_to<typename G::Command>;
                              }) {
                    schedule(Applied<G>{sim::Input<G>{c.player, sim::InputKind::command, G::idle_command(config_.game)}, 0});
                }
                c.stage = Client::Stage::closed;
                return;
            }
            retire_token(seat, ErrorCode::resume_expired);
            const uint64_t lands = now_tick() + 1 + config_.input_delay_ticks;
            schedule(Applied<G>{sim::Input<G>{c.player, sim::InputKind::leave, typename G::Command{}}, 0});
            seats_[c.player - 1] = 2;
            seat_free_at_[c.player - 1] = lands;
            hold(seat_sources_[seat], Role::play, -1);
        } else {
            --stats_.watchers;
            hold(c.source, Role::watch, -1);
            if (c.watch_ticket && ticket_judge_) ticket_judge_->release(*c.watch_ticket);
            c.watch_ticket.reset();
        }
    }
    c.stage = Client::Stage::closed;
}

template <sim::Simulation G>
void Room<G>::refuse(Client& c, ErrorCode code, std::string_view text, CloseReason reason) {
    // The explanation goes out whatever the flow window: it is the last message.
    send(c, encoded(ErrorMsg{code, std::string(text)}));
    closes_.push_back(CloseRequest{c.id, reason});
    ++stats_.refusals[static_cast<std::size_t>(code)];
    ++stats_.closes[static_cast<std::size_t>(reason)];
    release(c);
}

template <sim::Simulation G>
void Room<G>::shut_down(int64_t, bool keep_seats) {
    const Call call(*this);
    shutting_down_ = true;
    end_recording();
    for (Client& c : clients_) {
        if (c.stage == Client::Stage::closed) continue;
        if (!keep_seats) {
            refuse(c, ErrorCode::shutting_down, "the server is stopping", CloseReason::shutting_down);
            continue;
        }
        send(c, encoded(ErrorMsg{ErrorCode::shutting_down, "the server is stopping; this room goes on from its checkpoint"}));
        closes_.push_back(CloseRequest{c.id, CloseReason::shutting_down});
        ++stats_.closes[static_cast<std::size_t>(CloseReason::shutting_down)];
        release(c, /*keep_seat=*/true);
    }
}

template <sim::Simulation G>
void Room<G>::hand_off(int64_t) {
    const Call call(*this);
    shutting_down_ = true;
    end_recording();
    for (Client& c : clients_) {
        if (c.stage == Client::Stage::closed) continue;
        release(c, /*keep_seat=*/true);
    }
}

// ---- Messages -----------------------------------------------------------------------------
template <sim::Simulation G>
void Room<G>::receive(uint32_t id, std::span<const uint8_t> message, int64_t now_ns) {
    const Call call(*this);
    Client* c = find(id);
    if (c == nullptr || c->stage == Client::Stage::closed) return;  // closing: nothing more counts
    ++stats_.messages_received;
    stats_.bytes_received += message.size();
    c->last_heard_ns = now_ns;
    auto decoded = decode_client(message);
    if (!decoded.ok()) {
        refuse(*c, ErrorCode::malformed, std::string("the message does not decode: ") + std::string(describe(decoded.error())),
               CloseReason::protocol_error);
        return;
    }
    const ClientMessage& m = decoded.value();
    if (const auto* hello = std::get_if<Hello>(&m)) {
        if (c->stage != Client::Stage::awaiting_hello) {
            refuse(*c, ErrorCode::unexpected, "a second hello on one connection", CloseReason::protocol_error);
            return;
        }
        on_hello(*c, *hello);
        return;
    }
    if (c->stage != Client::Stage::admitted) {
        refuse(*c, ErrorCode::unexpected, "a message before hello", CloseReason::protocol_error);
        return;
    }
    if (const auto* input = std::get_if<InputMsg>(&m)) {
        on_input(*c, *input);
    } else if (const auto* ack = std::get_if<Ack>(&m)) {
        on_ack(*c, *ack);
    } else if (const auto* ping = std::get_if<Ping>(&m)) {
        std::vector<uint8_t> out;
        encode(out, Pong{ping->client_time_ns, now_ns, now_tick()});
        reply(*c, std::move(out));
    } else if (const auto* desync = std::get_if<Desync>(&m)) {
        ++stats_.desync_reports;
        Sections answer{desync->tick, false, {}};
        if (const RingEntry* e = held(desync->tick)) {
            answer.held = true;
            answer.sections = section_list<G>(e->sections);
        }
        std::vector<uint8_t> out;
        encode(out, answer);
        reply(*c, std::move(out));
    }
}

template <sim::Simulation G>
void Room<G>::on_hello(Client& c, const Hello& hello) {
    if (hello.version != protocol_version) {
        refuse(c, ErrorCode::version_mismatch, detail::version_refusal(hello.version), CloseReason::protocol_error);
        return;
    }
    if (hello.game != G::name) {
        refuse(c, ErrorCode::game_mismatch, detail::game_refusal(hello.game, G::name), CloseReason::protocol_error);
        return;
    }
    if (hello.fingerprint != sim::fingerprint_hash<G>()) {
        refuse(c, ErrorCode::fingerprint_mismatch,
               detail::fingerprint_refusal(hello.fingerprint, sim::fingerprint_hash<G>(), sim::fingerprint<G>()),
               CloseReason::protocol_error);
        return;
    }
    if (shutting_down_) {
        refuse(c, ErrorCode::shutting_down, "the server is stopping", CloseReason::shutting_down);
        return;
    }
    if (hello.resume) {
        if (hello.role != Role::play) {
            refuse(c, ErrorCode::unexpected, "a watcher's hello with a resume token: a watcher has no seat to resume",
                   CloseReason::protocol_error);
            return;
        }
        on_resume(c, *hello.resume);
        return;
    }
    if (const auto problem = ticket_problem(hello)) {
        const char* text = *problem == ErrorCode::ticket_missing    ? "this room admits a hello only with a ticket from its lobby"
                           : *problem == ErrorCode::ticket_forged   ? "the ticket's signature is not this room's key's"
                           : *problem == ErrorCode::ticket_expired  ? "the ticket has expired"
                           : *problem == ErrorCode::ticket_replayed ? "the ticket was used already"
                           : *problem == ErrorCode::room_full       ? "the room cannot take more tickets now"
                                                                    : "the ticket is not for this room, role or seat";
        refuse(c, *problem, text, *problem == ErrorCode::room_full ? CloseReason::room_full : CloseReason::ticket_refused);
        return;
    }
    // The source's share before anything else is given: a refusal here takes nobody's place.
    const SourceHold held = held_by(c.source);
    if (hello.role == Role::play && config_.seats_per_source != 0 && held.seats >= config_.seats_per_source) {
        ++stats_.seats_refused_per_source;
        refuse(c, ErrorCode::address_limit,
               "this address holds " + std::to_string(config_.seats_per_source) + " of the room's seats already",
               CloseReason::address_limit);
        return;
    }
    if (hello.role == Role::watch && config_.watchers_per_source != 0 && held.watchers >= config_.watchers_per_source) {
        ++stats_.watchers_refused_per_source;
        refuse(c, ErrorCode::address_limit,
               "this address holds " + std::to_string(config_.watchers_per_source) + " of the room's watcher places already",
               CloseReason::address_limit);
        return;
    }
    // A ticket naming a seat gets that seat or none; otherwise the lowest free one.
    const uint32_t wanted = ticket_judge_ && hello.ticket ? hello.ticket->player : 0;
    uint32_t player = watcher_id;
    if (hello.role == Role::play) {
        for (uint32_t i = 0; i < seats_.size(); ++i) {
            if (seats_[i] == 2 && seat_free_at_[i] <= now_tick()) seats_[i] = 0;
            if (seats_[i] == 0 && (wanted == 0 || wanted == i + 1)) {
                player = i + 1;
                break;
            }
        }
        if (player == watcher_id) {
            refuse(c, ErrorCode::room_full,
                   wanted != 0 ? "seat " + std::to_string(wanted) + ", the ticket's, is taken"
                               : "all " + std::to_string(config_.max_players) + " player seats are taken",
                   CloseReason::room_full);
            return;
        }
        seats_[player - 1] = 1;
        seat_sources_[player - 1] = c.source;
        hold(c.source, Role::play, +1);
        ++stats_.players;
        // The join is the room's: it lands like an input received now, with the command the
        // game starts a player with.
        schedule(Applied<G>{sim::Input<G>{player, sim::InputKind::join, G::join_command(config_.game)}, 0});
    } else {
        if (stats_.watchers >= config_.max_watchers) {
            refuse(c, ErrorCode::room_full, "all " + std::to_string(config_.max_watchers) + " watcher places are taken",
                   CloseReason::room_full);
            return;
        }
        ++stats_.watchers;
        hold(c.source, Role::watch, +1);
    }
    if (ticket_judge_ && hello.ticket) {
        ticket_judge_->spend(*hello.ticket);
        if (hello.role == Role::watch) c.watch_ticket = hello.ticket->nonce;
    }
    admit(c, hello.role, player);
}

// Why the hello's ticket admits nobody (nullopt: it does, or the room takes no tickets). The
// judge's verdict first (signature, expiry, room, replay), then whether it fits this hello.
template <sim::Simulation G>
std::optional<ErrorCode> Room<G>::ticket_problem(const Hello& hello) const {
    if (!ticket_judge_) return std::nullopt;
    if (!hello.ticket) return ErrorCode::ticket_missing;
    if (const auto verdict = ticket_judge_->check(*hello.ticket)) return verdict;
    if (hello.ticket->role != hello.role) return ErrorCode::ticket_invalid;
    if (hello.ticket->player > seats_.size()) return ErrorCode::ticket_invalid;
    return std::nullopt;
}

template <sim::Simulation G>
typename Room<G>::SourceHold Room<G>::held_by(const SourceKey& source) const {
    const auto it = sources_.find(source);
    return it == sources_.end() ? SourceHold{} : it->second;
}

template <sim::Simulation G>
void Room<G>::hold(const SourceKey& source, Role role, int delta) {
    SourceHold& h = sources_[source];
    uint32_t& count = role == Role::play ? h.seats : h.watchers;
    count = delta > 0 ? count + 1 : (count > 0 ? count - 1 : 0);
    if (h.seats == 0 && h.watchers == 0) sources_.erase(source);
    stats_.sources = static_cast<uint32_t>(sources_.size());
}

// The client takes its place: a welcome (a player's with a fresh resume token when resume is
// on), then a baseline of the state now.
template <sim::Simulation G>
void Room<G>::admit(Client& c, Role role, uint32_t player) {
    c.stage = Client::Stage::admitted;
    c.admitted = true;
    c.role = role;
    c.player = player;
    Welcome w = welcome_for<G>(role, player, config_.input_delay_ticks, now_tick(), config_.max_players, config_.game);
    if (role == Role::play) w.resume = issue_token(player - 1);
    std::vector<uint8_t> welcome;
    encode(welcome, w);
    send(c, std::make_shared<const std::vector<uint8_t>>(std::move(welcome)));
    send_baseline(c);
}

// Equal without an early exit, so the time a comparison takes says nothing about where a
// guess first differs.
namespace detail {
inline bool same_token(const Sha256& a, const Sha256& b) {
    uint8_t diff = 0;
    for (uint32_t i = 0; i < sha256_bytes; ++i) diff = static_cast<uint8_t>(diff | (a[i] ^ b[i]));
    return diff == 0;
}
}  // namespace detail

template <sim::Simulation G>
void Room<G>::on_resume(Client& c, const ResumeToken& presented) {
    const Sha256 token = sha256(presented);
    uint32_t seat = UINT32_MAX;
    for (uint32_t i = 0; i < seats_.size(); ++i) {
        if (seat_tokens_[i] && detail::same_token(*seat_tokens_[i], token)) seat = i;
    }
    if (seat == UINT32_MAX) {
        ErrorCode why = ErrorCode::resume_unknown;
        for (const Retired& r : retired_) {
            if (detail::same_token(r.token, token)) why = r.why;
        }
        ++stats_.resumes_refused;
        const char* text = why == ErrorCode::resume_expired ? "this resume token's seat was given up: its grace period ended"
                           : why == ErrorCode::resume_used  ? "this resume token was already used"
                                                            : "no seat of this room has this resume token";
        refuse(c, why, text, CloseReason::resume_refused);
        return;
    }
    // The seat moves to the source the token comes back from (a phone changing networks), which
    // must have room for it: else a client could gather seats past its share by handing them
    // over from an address it then fills again.
    if (seat_sources_[seat] != c.source && config_.seats_per_source != 0 &&
        held_by(c.source).seats >= config_.seats_per_source) {
        ++stats_.seats_refused_per_source;
        refuse(c, ErrorCode::address_limit,
               "this address holds " + std::to_string(config_.seats_per_source) + " seats already: the seat stays kept for its token",
               CloseReason::address_limit);
        return;
    }
    if (seats_[seat] == seat_held_state) {
        --stats_.held_seats;
    } else {
        // The seat's connection is still open here (the client saw the drop first): the token's
        // holder takes it over, and the old connection goes without a leave.
        for (Client& old : clients_) {
            if (&old == &c || old.stage != Client::Stage::admitted || old.role != Role::play || old.player != seat + 1) continue;
            send(old, encoded(ErrorMsg{ErrorCode::resumed_elsewhere, "another connection took this seat back with its token"}));
            closes_.push_back(CloseRequest{old.id, CloseReason::resumed_elsewhere});
            ++stats_.closes[static_cast<std::size_t>(CloseReason::resumed_elsewhere)];
            --stats_.players;
            old.stage = Client::Stage::closed;
        }
    }
    retire_token(seat, ErrorCode::resume_used);
    seats_[seat] = 1;
    seats_changed_ = true;
    hold(seat_sources_[seat], Role::play, -1);
    seat_sources_[seat] = c.source;
    hold(c.source, Role::play, +1);
    ++stats_.players;
    ++stats_.resumes;
    admit(c, Role::play, seat + 1);
}

// A fresh token for the seat (none when resume is off, or the source gives only zeros, which
// mean "no token" nowhere but are refused anyway as a token nobody could tell from a default).
template <sim::Simulation G>
std::optional<ResumeToken> Room<G>::issue_token(uint32_t seat) {
    seat_tokens_[seat].reset();
    if (!resume_on()) return std::nullopt;
    for (int attempt = 0; attempt < 4; ++attempt) {
        const ResumeToken t = token_source_();
        bool zero = true;
        for (uint8_t b : t) zero = zero && b == 0;
        if (!zero) {
            seat_tokens_[seat] = sha256(t);
            seats_changed_ = true;
            return t;
        }
    }
    return std::nullopt;
}

// The seat's token is no longer good; remembered (the newest retired_tokens_kept) as `why`.
template <sim::Simulation G>
void Room<G>::retire_token(uint32_t seat, ErrorCode why) {
    if (!seat_tokens_[seat]) return;
    const Retired r{*seat_tokens_[seat], why};
    seat_tokens_[seat].reset();
    seats_changed_ = true;
    if (retired_.size() < retired_tokens_kept) {
        retired_.push_back(r);
    } else {
        retired_[retired_next_] = r;
    }
    retired_next_ = (retired_next_ + 1) % retired_tokens_kept;
}

// Seats whose grace has run out: the leave is the room's now, as a disconnect now would be.
template <sim::Simulation G>
void Room<G>::expire_held_seats() {
    for (uint32_t i = 0; i < seats_.size(); ++i) {
        if (seats_[i] != seat_held_state || seat_free_at_[i] > now_tick()) continue;
        --stats_.held_seats;
        ++stats_.seats_expired;
        retire_token(i, ErrorCode::resume_expired);
        hold(seat_sources_[i], Role::play, -1);
        const uint64_t lands = now_tick() + 1 + config_.input_delay_ticks;
        schedule(Applied<G>{sim::Input<G>{i + 1, sim::InputKind::leave, typename G::Command{}}, 0});
        seats_[i] = 2;
        seat_free_at_[i] = lands;
    }
}

template <sim::Simulation G>
void Room<G>::on_input(Client& c, const InputMsg& input) {
    if (c.role != Role::play) {
        refuse(c, ErrorCode::unexpected, "input from a watcher", CloseReason::protocol_error);
        return;
    }
    // The command is the game's: bytes it does not accept are a message that does not decode.
    const auto command = command_of<G>(input);
    if (!command.ok()) {
        refuse(c, ErrorCode::malformed,
               std::string("the command does not decode: ") + std::string(describe(command.error())),
               CloseReason::protocol_error);
        return;
    }
    const int64_t cost = tick_hz();
    if (c.tokens < cost) {
        ++stats_.inputs_dropped;
        c.flood_debt += cost;
        if (c.flood_debt > int64_t{flood_threshold_inputs} * cost) {
            refuse(c, ErrorCode::rate_limited,
                   "more than " + std::to_string(max_inputs_per_second) + " inputs per second for too long",
                   CloseReason::rate_limited);
        }
        return;
    }
    c.tokens -= cost;
    if (c.last_sequence != 0 && input.sequence <= c.last_sequence) {
        ++stats_.inputs_stale;
        return;
    }
    c.last_sequence = input.sequence;
    ++stats_.inputs_accepted;
    schedule(Applied<G>{sim::Input<G>{c.player, sim::InputKind::command, *command}, input.sequence});
}

// Every input lands on the tick after the next step's, delayed by input_delay_ticks: the
// timeline is the room's, never the arrival time's.
template <sim::Simulation G>
void Room<G>::schedule(const Applied<G>& input) {
    const uint64_t lands = now_tick() + 1 + config_.input_delay_ticks;
    if (input.sequence == 0) {
        seats_changed_ = true;  // the room's own: the seats record keeps it
    } else if (checkpoints_enabled()) {
        write_input_record(lands, input);
    }
    place(lands, input);
}

template <sim::Simulation G>
void Room<G>::write_input_record(uint64_t lands, const Applied<G>& input) {
    std::vector<uint8_t> record;
    ByteWriter w(record);
    w.u64(lands);
    w.u32(input.input.player);
    w.u32(input.sequence);
    sim::encode_command<G>(w, input.input.command);
    append_checkpoint_record(checkpoint_.bytes, CheckpointKind::input, record);
}

template <sim::Simulation G>
void Room<G>::place(uint64_t lands, const Applied<G>& input) {
    std::vector<Applied<G>>& slot = pending_[lands % pending_.size()];
    if (input.input.kind == sim::InputKind::command) {
        for (Applied<G>& held_input : slot) {
            if (held_input.input.player == input.input.player && held_input.input.kind == sim::InputKind::command) {
                held_input = input;  // the newest sequence wins
                return;
            }
        }
    }
    slot.push_back(input);
}

template <sim::Simulation G>
void Room<G>::on_ack(Client& c, const Ack& ack) {
    if (!ack.holds) {
        // The client dropped its state: a baseline, unless one sent within the last second is
        // still unanswered, which most likely answers this too (it was on its way).
        if (c.baseline_unacked && now_tick() - c.last_baseline_tick < baseline_repeat_ticks_) {
            c.wants_baseline = true;
        } else {
            send_baseline(c);
        }
        return;
    }
    if (ack.tick > c.sent_tick) {
        refuse(c, ErrorCode::unexpected, "an ack of tick " + std::to_string(ack.tick) + ", which this room never sent",
               CloseReason::protocol_error);
        return;
    }
    if (ack.tick < c.base_tick) return;  // older than its baseline or a newer ack: says nothing new
    const RingEntry* at = held(ack.tick);
    if (at != nullptr && at->digest != ack.digest) ++stats_.ack_mismatches;
    // What is still unacknowledged: the frames after the acked tick. The count is exact while
    // both ends of that span are in the ring; otherwise (a client that stalled past the ring)
    // the old count is kept, an over-estimate, and the baseline it gets next resets it.
    if (const RingEntry* last = held(c.sent_tick); at != nullptr && last != nullptr) {
        c.unacked_bytes = last->bytes_through - at->bytes_through;
    }
    c.base_tick = ack.tick;
    if (ack.tick >= c.last_baseline_tick) {
        c.baseline_unacked = false;
        c.wants_baseline = false;
    }
    stream(c);
}

// ---- Sending ------------------------------------------------------------------------------
template <sim::Simulation G>
void Room<G>::send(Client& c, const Bytes& bytes) {
    outbox_.push_back(Outgoing{c.id, bytes});
    ++stats_.messages_sent;
    stats_.bytes_sent += bytes->size();
}

// A pong or sections answer: dropped when it would overfill the client's window, so a client
// that sends pings and reads nothing cannot grow what the transport holds for it.
template <sim::Simulation G>
void Room<G>::reply(Client& c, std::vector<uint8_t> bytes) {
    if (c.unacked_bytes + bytes.size() > flow_window_bytes) {
        ++stats_.replies_dropped;
        return;
    }
    c.unacked_bytes += bytes.size();
    send(c, std::make_shared<const std::vector<uint8_t>>(std::move(bytes)));
}

template <sim::Simulation G>
const typename Room<G>::Bytes& Room<G>::baseline_now() {
    if (!baseline_ || baseline_tick_ != now_tick()) {
        baseline_tick_ = now_tick();
        baseline_ = encoded(Baseline{now_tick(), sim::encode_snapshot<G>(state_)});
    }
    return baseline_;
}

template <sim::Simulation G>
void Room<G>::send_baseline(Client& c) {
    const Bytes& bytes = baseline_now();
    send(c, bytes);
    ++stats_.baselines_sent;
    c.sent_tick = now_tick();
    c.base_tick = now_tick();
    c.unacked_bytes += bytes->size();  // what was in flight before is still in flight
    c.last_baseline_tick = now_tick();
    c.baseline_unacked = true;
    c.wants_baseline = false;
    c.paused = false;
}

// Sends the client every tick after the last one it was sent, in order, while its window
// allows: from the ring, or a baseline when the next tick has left it.
template <sim::Simulation G>
void Room<G>::stream(Client& c) {
    while (c.sent_tick < now_tick()) {
        const uint64_t next = c.sent_tick + 1;
        if (next - c.base_tick > window_ticks_) {
            if (!c.paused) ++stats_.flow_pauses;
            c.paused = true;
            return;
        }
        const RingEntry* e = held(next);
        if (e == nullptr || !e->frame) {
            send_baseline(c);
            return;
        }
        if (c.unacked_bytes + e->frame->size() > flow_window_bytes) {
            if (!c.paused) ++stats_.flow_pauses;
            c.paused = true;
            return;
        }
        send(c, e->frame);
        c.unacked_bytes += e->frame->size();
        c.sent_tick = next;
        c.paused = false;
    }
}

// ---- The tick -----------------------------------------------------------------------------
template <sim::Simulation G>
void Room<G>::tick(int64_t now_ns) {
    const Call call(*this);
    const int64_t tick_start = clock_ ? clock_() : 0;
    const uint64_t next = now_tick() + 1;
    std::vector<Applied<G>>& slot = pending_[next % pending_.size()];
    // Canonical order: the order step is given them and the order the frame must carry. The
    // keys are unique (one join, leave and command per player per tick), so no ties.
    std::sort(slot.begin(), slot.end(),
              [](const Applied<G>& a, const Applied<G>& b) { return sim::canonical_less<G>(a.input, b.input); });
    inputs_.clear();
    for (const Applied<G>& a : slot) inputs_.push_back(a.input);

    const int64_t step_start = clock_ ? clock_() : 0;
    stepper_.step(state_, std::span<const sim::Input<G>>(inputs_));
    if (clock_) stats_.last_step_ns = clock_() - step_start;

    RingEntry& entry = ring_[now_tick() % ring_ticks_];
    entry.tick = now_tick();
    const sim::Digests<G> d = sim::digests<G>(state_);
    entry.sections = d.sections;
    entry.digest = d.digest;
    auto frame = std::make_shared<std::vector<uint8_t>>();
    encode_frame<G>(*frame, now_tick(), entry.digest, std::span<const Applied<G>>(slot));
    entry.frame = std::move(frame);
    slot.clear();
    frame_bytes_total_ += entry.frame->size();
    entry.bytes_through = frame_bytes_total_;
    ++stats_.frames_encoded;
    stats_.tick = now_tick();

    if (checkpoints_enabled()) {
        append_checkpoint_record(checkpoint_.bytes, CheckpointKind::frame, *entry.frame);
        checkpoint_holds_ = true;
    }
    if (recording_) {
        append_replay_record(recorded_, *entry.frame);
        std::vector<uint8_t> sections;
        encode(sections, Sections{now_tick(), true, section_list<G>(entry.sections)});
        append_replay_record(recorded_, sections);
    }

    const int64_t refill = max_inputs_per_second;
    const int64_t bucket = int64_t{input_burst} * tick_hz();
    for (Client& c : clients_) {
        if (c.stage == Client::Stage::closed) continue;
        if (sat_sub(now_ns, c.last_heard_ns) >= config_.idle_timeout_ns) {  // times are the caller's: no overflow
            refuse(c, ErrorCode::idle,
                   "nothing received for " + std::to_string(config_.idle_timeout_ns / 1'000'000'000) + " s",
                   CloseReason::idle);
            continue;
        }
        if (c.stage != Client::Stage::admitted) continue;
        c.tokens = std::min(bucket, c.tokens + refill);
        c.flood_debt = std::max<int64_t>(0, c.flood_debt - refill);
        if (c.wants_baseline && now_tick() - c.last_baseline_tick >= baseline_repeat_ticks_) {
            send_baseline(c);
        } else {
            stream(c);
        }
    }
    expire_held_seats();
    if (checkpoints_enabled() && now_tick() - last_snapshot_tick_ >= checkpoint_every_) write_snapshot_record();
    if (clock_) stats_.last_tick_ns = clock_() - tick_start;
}

template <sim::Simulation G>
void Room<G>::take_outbox(std::vector<Outgoing>& sends, std::vector<CloseRequest>& closes) {
    // What waits for take_checkpoint stays, in order, at the front of the queues.
    const std::size_t sends_free = held_sends_from_ ? *held_sends_from_ : outbox_.size();
    const std::size_t closes_free = held_closes_from_ ? *held_closes_from_ : closes_.size();
    const auto sends_end = outbox_.begin() + static_cast<std::ptrdiff_t>(sends_free);
    sends.insert(sends.end(), std::make_move_iterator(outbox_.begin()), std::make_move_iterator(sends_end));
    outbox_.erase(outbox_.begin(), sends_end);
    const auto closes_end = closes_.begin() + static_cast<std::ptrdiff_t>(closes_free);
    closes.insert(closes.end(), closes_.begin(), closes_end);
    closes_.erase(closes_.begin(), closes_end);
    if (held_sends_from_) held_sends_from_ = 0;
    if (held_closes_from_) held_closes_from_ = 0;
}

// ---- Checkpoints --------------------------------------------------------------------------
template <sim::Simulation G>
void Room<G>::enable_checkpoints(uint32_t snapshot_every_ticks) {
    checkpoint_every_ = snapshot_every_ticks > 0 ? snapshot_every_ticks : default_checkpoint_seconds * tick_hz();
    // What was queued before this call owes nothing to the checkpoint; what comes after does.
    write_snapshot_record();
    if (!held_sends_from_) held_sends_from_ = outbox_.size();
    if (!held_closes_from_) held_closes_from_ = closes_.size();
}

template <sim::Simulation G>
void Room<G>::take_checkpoint(CheckpointBatch& out) {
    checkpoint_.through_tick = now_tick();
    out = std::move(checkpoint_);
    checkpoint_ = CheckpointBatch{};
    held_sends_from_.reset();
    held_closes_from_.reset();
    checkpoint_holds_ = false;
}

template <sim::Simulation G>
void Room<G>::end_call(std::size_t sends_before, std::size_t closes_before) {
    if (!checkpoints_enabled()) return;
    if (seats_changed_) {
        std::vector<uint8_t> seats;
        ByteWriter w(seats);
        write_seats(w);
        append_checkpoint_record(checkpoint_.bytes, CheckpointKind::seats, seats);
        seats_changed_ = false;
        checkpoint_holds_ = true;
    }
    if (!checkpoint_holds_) return;
    // Everything this call queued depends on what it wrote (a frame, a token, a seat).
    if (!held_sends_from_) held_sends_from_ = std::min(sends_before, outbox_.size());
    if (!held_closes_from_) held_closes_from_ = std::min(closes_before, closes_.size());
}

// A new segment: the records before it in this batch are superseded by the snapshot.
template <sim::Simulation G>
void Room<G>::write_snapshot_record() {
    std::vector<uint8_t> payload;
    ByteWriter w(payload);
    w.u16(checkpoint_format_version);
    w.u8(static_cast<uint8_t>(G::name.size()));
    w.bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(G::name.data()), G::name.size()));
    w.u64(sim::fingerprint_hash<G>());
    w.u32(config_.input_delay_ticks);
    w.u32(config_.max_players);
    w.u32(config_.max_watchers);
    w.i64(config_.idle_timeout_ns);
    w.i64(config_.resume_grace_ns);
    const std::vector<uint8_t> snapshot = sim::encode_snapshot<G>(state_);
    w.u32(static_cast<uint32_t>(snapshot.size()));
    w.bytes(snapshot);
    write_seats(w);
    checkpoint_.bytes.clear();
    checkpoint_.new_segment = true;
    append_checkpoint_record(checkpoint_.bytes, CheckpointKind::snapshot, payload);
    checkpoint_holds_ = true;
    last_snapshot_tick_ = now_tick();
    seats_changed_ = false;
    // The clients' commands accepted but not applied yet: the new segment must hold them too.
    for (uint64_t lands = now_tick() + 1; lands <= now_tick() + 1 + config_.input_delay_ticks; ++lands) {
        for (const Applied<G>& a : pending_[lands % pending_.size()]) {
            if (a.sequence != 0) write_input_record(lands, a);
        }
    }
}

template <sim::Simulation G>
void Room<G>::write_seats(ByteWriter& w) const {
    w.u32(static_cast<uint32_t>(seats_.size()));
    for (std::size_t i = 0; i < seats_.size(); ++i) {
        w.u8(seats_[i]);
        w.u64(seat_free_at_[i]);
        w.u8(seat_tokens_[i] ? 1 : 0);
        if (seat_tokens_[i]) w.bytes(*seat_tokens_[i]);
    }
    w.u32(static_cast<uint32_t>(retired_.size()));
    w.u32(retired_next_);
    for (const Retired& r : retired_) {
        w.bytes(r.token);
        w.u8(static_cast<uint8_t>(r.why));
    }
    // The room's own inputs still to land, by landing tick (the pending slots hold the next
    // delay + 1 ticks).
    std::vector<uint8_t> inputs;
    ByteWriter in(inputs);
    uint32_t count = 0;
    for (uint64_t lands = now_tick() + 1; lands <= now_tick() + 1 + config_.input_delay_ticks; ++lands) {
        for (const Applied<G>& a : pending_[lands % pending_.size()]) {
            if (a.sequence != 0) continue;
            in.u64(lands);
            in.u32(a.input.player);
            in.u8(static_cast<uint8_t>(a.input.kind));
            sim::encode_command<G>(in, a.input.command);
            ++count;
        }
    }
    w.u32(count);
    w.bytes(inputs);
}

// The seats a record holds replace the room's; the room's own pending inputs are replaced by
// the record's that land after the room's tick. False: the bytes do not parse or do not fit.
template <sim::Simulation G>
bool Room<G>::read_seats(ByteReader& r) {
    if (r.u32() != seats_.size()) return false;
    for (std::size_t i = 0; i < seats_.size(); ++i) {
        const uint8_t state = r.u8();
        const uint64_t free_at = r.u64();
        const uint8_t has = r.u8();
        if (!r.ok() || state > seat_held_state || has > 1) return false;
        seats_[i] = state;
        seat_free_at_[i] = free_at;
        seat_tokens_[i].reset();
        if (has) {
            const auto h = r.take(sha256_bytes);
            if (!r.ok()) return false;
            Sha256 token{};
            std::copy(h.begin(), h.end(), token.begin());
            seat_tokens_[i] = token;
        }
    }
    const uint32_t retired = r.u32();
    const uint32_t next = r.u32();
    if (!r.ok() || retired > retired_tokens_kept || next >= retired_tokens_kept) return false;
    retired_.clear();
    for (uint32_t i = 0; i < retired; ++i) {
        Retired t;
        const auto h = r.take(sha256_bytes);
        const uint8_t why = r.u8();
        if (!r.ok() || why < static_cast<uint8_t>(ErrorCode::resume_unknown) || why > static_cast<uint8_t>(ErrorCode::resume_used)) {
            return false;
        }
        std::copy(h.begin(), h.end(), t.token.begin());
        t.why = static_cast<ErrorCode>(why);
        retired_.push_back(t);
    }
    retired_next_ = next;
    for (auto& slot : pending_) {
        slot.erase(std::remove_if(slot.begin(), slot.end(), [](const Applied<G>& a) { return a.sequence == 0; }), slot.end());
    }
    const uint32_t count = r.u32();
    if (!r.ok() || count > 3 * seats_.size()) return false;
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t lands = r.u64();
        Applied<G> a;
        a.input.player = r.u32();
        const uint8_t kind = r.u8();
        if (!r.ok() || kind > static_cast<uint8_t>(sim::InputKind::command) || a.input.player < 1 ||
            a.input.player > seats_.size()) {
            return false;
        }
        a.input.kind = static_cast<sim::InputKind>(kind);
        auto command = sim::read_command<G>(r);
        if (!command.ok()) return false;
        a.input.command = *command;
        // Landed already (a later frame applied it) or beyond the delay: not pending.
        if (lands <= now_tick() || lands > now_tick() + 1 + config_.input_delay_ticks) continue;
        pending_[lands % pending_.size()].push_back(a);
    }
    return r.ok() && r.remaining() == 0;
}

template <sim::Simulation G>
Result<Room<G>, RestoreError> Room<G>::restore(std::span<const uint8_t> segment, RestoreReport* report,
                                               const std::function<void(uint64_t, uint64_t)>& each_tick) {
    CheckpointReader records(segment);
    const auto first = records.next();
    if (!first) return records.bad() ? RestoreError::damaged : RestoreError::empty;
    if (first->kind != CheckpointKind::snapshot) return RestoreError::no_snapshot;
    ByteReader r(first->payload);
    if (r.u16() != checkpoint_format_version) return r.ok() ? RestoreError::format_version : RestoreError::damaged;
    const uint8_t name_bytes = r.u8();
    const auto name = r.take(name_bytes);
    if (!r.ok()) return RestoreError::damaged;
    if (std::string_view(reinterpret_cast<const char*>(name.data()), name.size()) != G::name) return RestoreError::game_mismatch;
    if (r.u64() != sim::fingerprint_hash<G>()) return r.ok() ? RestoreError::fingerprint_mismatch : RestoreError::damaged;
    Config config;
    config.input_delay_ticks = r.u32();
    config.max_players = r.u32();
    config.max_watchers = r.u32();
    config.idle_timeout_ns = r.i64();
    config.resume_grace_ns = r.i64();
    const uint32_t snapshot_bytes = r.u32();
    const auto snapshot = r.take(snapshot_bytes);
    if (!r.ok()) return RestoreError::damaged;
    auto state = sim::decode_snapshot<G>(snapshot);
    if (!state.ok()) return RestoreError::snapshot;
    config.game = G::config_of(*state);
    if (config.input_delay_ticks > max_input_delay_ticks || config.max_players == 0 ||
        config.max_players > std::min<uint32_t>(G::max_players(config.game), max_players_per_room) ||
        config.max_watchers > max_watcher_limit || config.idle_timeout_ns < min_idle_timeout_ns || config.resume_grace_ns < 0 ||
        config.resume_grace_ns > max_resume_grace_ns) {
        return RestoreError::room_config;
    }
    Room room(config, std::move(state).value());
    if (!room.read_seats(r)) return RestoreError::damaged;
    RestoreReport done;
    done.snapshot_tick = room.now_tick();
    if (each_tick) each_tick(room.now_tick(), room.ring_[room.now_tick() % room.ring_ticks_].digest);

    std::vector<Applied<G>> applied;
    while (const auto record = records.next()) {
        if (record->kind == CheckpointKind::snapshot) return RestoreError::damaged;  // one per segment, first
        if (record->kind == CheckpointKind::seats) {
            ByteReader seats(record->payload);
            if (!room.read_seats(seats)) return RestoreError::damaged;
            continue;
        }
        if (record->kind == CheckpointKind::input) {
            ByteReader in(record->payload);
            const uint64_t lands = in.u64();
            Applied<G> a;
            a.input.player = in.u32();
            a.input.kind = sim::InputKind::command;
            a.sequence = in.u32();
            auto command = sim::read_command<G>(in);
            if (!in.ok() || !command.ok() || in.remaining() != 0 || a.sequence == 0 || a.input.player < 1 ||
                a.input.player > room.seats_.size()) {
                return RestoreError::damaged;
            }
            a.input.command = *command;
            // Written when accepted, so it lands within the delay of the tick it was written at.
            if (lands > room.now_tick() && lands <= room.now_tick() + 1 + room.config_.input_delay_ticks) room.place(lands, a);
            continue;
        }
        auto message = decode_server(record->payload);
        if (!message.ok() || !std::holds_alternative<Frame>(*message)) return RestoreError::damaged;
        const Frame& frame = std::get<Frame>(*message);
        if (frame.tick != room.now_tick() + 1) return RestoreError::frame_out_of_order;
        if (!decode_frame_inputs<G>(frame, applied).ok()) return RestoreError::damaged;
        room.inputs_.clear();
        for (const Applied<G>& a : applied) room.inputs_.push_back(a.input);
        room.stepper_.step(room.state_, std::span<const sim::Input<G>>(room.inputs_));
        // The room's own inputs a seats record left pending for this tick are in its frame.
        room.pending_[room.now_tick() % room.pending_.size()].clear();
        const sim::Digests<G> d = sim::digests<G>(room.state_);
        if (d.digest != frame.digest) return RestoreError::digest_mismatch;
        // The ring holds the recorded frames, so a desync report about them is answered.
        RingEntry& entry = room.ring_[room.now_tick() % room.ring_ticks_];
        entry.tick = room.now_tick();
        entry.sections = d.sections;
        entry.digest = d.digest;
        entry.frame = std::make_shared<const std::vector<uint8_t>>(record->payload.begin(), record->payload.end());
        room.frame_bytes_total_ += entry.frame->size();
        entry.bytes_through = room.frame_bytes_total_;
        ++done.frames_replayed;
        if (each_tick) each_tick(room.now_tick(), d.digest);
    }
    if (records.bad()) return RestoreError::damaged;
    done.torn_tail = records.torn();
    room.stats_.tick = room.now_tick();
    room.baseline_.reset();
    // The connections are gone: each taken seat is kept for its token, as a drop would keep it.
    for (uint32_t i = 0; i < room.seats_.size(); ++i) {
        if (room.seats_[i] != 1) continue;
        Client gone;
        gone.stage = Client::Stage::admitted;
        gone.role = Role::play;
        gone.player = i + 1;
        ++room.stats_.players;  // release() counts it out again
        room.release(gone, /*keep_seat=*/true);
    }
    for (uint32_t i = 0; i < room.seats_.size(); ++i) done.seats_kept += room.seats_[i] == seat_held_state ? 1 : 0;
    room.seats_changed_ = false;
    done.tick = room.now_tick();
    if (report) *report = done;
    return room;
}

template <sim::Simulation G>
std::optional<ClientFigures> Room<G>::client(uint32_t id) const {
    const Client* c = find(id);
    if (c == nullptr) return std::nullopt;
    ClientFigures f;
    f.admitted = c->admitted;
    f.closed = c->stage == Client::Stage::closed;
    f.role = c->role;
    f.player = c->player;
    f.paused = c->paused;
    f.sent_tick = c->sent_tick;
    f.base_tick = c->base_tick;
    f.unacked_bytes = c->unacked_bytes;
    f.held_bytes = sizeof(Client);
    for (const Outgoing& o : outbox_) {
        if (o.to == id) f.held_bytes += o.bytes->size();
    }
    return f;
}

// ---- Recording ----------------------------------------------------------------------------
template <sim::Simulation G>
void Room<G>::start_recording() {
    if (recording_started_) return;   // once: a second header after the end marker would be no file
    recording_started_ = true;
    recording_ = true;
    append_replay_header<G>(recorded_);
    std::vector<uint8_t> welcome;
    encode(welcome, welcome_for<G>(Role::watch, watcher_id, config_.input_delay_ticks, now_tick(), config_.max_players,
                                   config_.game));
    append_replay_record(recorded_, welcome);
    append_replay_record(recorded_, *baseline_now());
}

template <sim::Simulation G>
void Room<G>::end_recording() {
    if (!recording_) return;
    recording_ = false;
    append_replay_end(recorded_);
}

template <sim::Simulation G>
void Room<G>::take_recording(std::vector<uint8_t>& out) {
    out.insert(out.end(), recorded_.begin(), recorded_.end());
    recorded_.clear();
}

}  // namespace tandem::net
