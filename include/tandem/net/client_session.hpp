// ClientSession<G>: the browser's side of a lockstep match of any game G, as pure C++ with time
// passed in. It holds the confirmed state and the frames received, applies them within a
// budget, checks the room's digest at every tick, heals a mismatch or a long absence with a
// baseline, acks what it verified, and keeps the figures a page shows and what it draws from
// (the confirmed state, the one before, the fraction between, the last step's events). The
// page (through the ES module) only moves bytes and times in and out; every decision is made
// here. Nothing in it names a game: G reaches it through tandem/sim/simulation.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/link_arith.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/rate_meter.hpp"
#include "tandem/net/resume_rule.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/net/room.hpp"   // the room's flow window and ring, which the resume rule weighs
#include "tandem/net/timeline.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::net {

// ---- The rules' constants ----------------------------------------------------------------
// Acks: the newest verified tick at most every ack_interval_ns (10 a second: the room's flow
// control sees progress well inside its stall limit of about 2 s), and a repeat of the same
// ack every ack_keepalive_ns even without progress, so a stream the room paused resumes.
inline constexpr int64_t ack_interval_ns = 100'000'000;
inline constexpr int64_t ack_keepalive_ns = 1'000'000'000;
// A ping (round-trip probe) every ping_interval_ns; at most max_probes_in_flight unanswered
// probes are kept (older ones are forgotten: their answer is a measurement of a stall).
inline constexpr int64_t ping_interval_ns = 2'000'000'000;
inline constexpr uint32_t max_probes_in_flight = 4;
// The step cost assumed until one is measured, and always when no clock is set: 1 ms, about
// a default arena's step in wasm. Decisions made with it are the same on every machine.
inline constexpr int64_t assumed_step_cost_ns = 1'000'000;
// Resume rule (tandem/net/resume_rule.hpp). Being behind by N ticks (frames queued, or after a
// suspend the ticks the room ran while the page was away, whichever is more), the session takes
// the faster path by its own measurements: catching up costs N steps, and the ticks that arrive
// meanwhile, at the measured step cost and the share of wall time its host gives stepping
// (the spend per advance call over the measured interval between calls); a baseline costs the
// measured fetch (the last "nothing held" ack, or hello, to its baseline: the round trip and the
// bytes at the link's throughput), its measured decode, and stepping what the room ran during the
// fetch. Catching up spends per advance call the caller's budget, but at least
// catch_up_slice_ns and at most catch_up_call_max_ns: a page drawing few frames (software
// rendering, a busy machine) gives each frame more simulation time to keep up with live play,
// and a catch-up limited below that would fall further behind instead of catching up.
inline constexpr int64_t catch_up_slice_ns = 8'000'000;
inline constexpr int64_t catch_up_call_max_ns = 32'000'000;
// What a page frame may spend on simulation (the budget it passes to advance): the catch-up
// slice, or half the gap since its previous frame when frames come slower (a slow phone,
// software rendering on a busy machine, a worker's timer), never past catch_up_call_max_ns, so
// a page drawing few frames still steps the tick rate and no frame grows past what a person
// notices. A gap of 0 (unknown) or of a second or more (the page was away) gives the slice.
// The one rule for every page: the ES module hands it to JavaScript (frameBudgetMs).
constexpr int64_t frame_budget_ns(int64_t gap_ns) {
    if (gap_ns <= 0 || gap_ns >= 1'000'000'000) return catch_up_slice_ns;
    return std::clamp<int64_t>(gap_ns / 2, catch_up_slice_ns, catch_up_call_max_ns);
}
// What an advance of a session in a thread that draws nothing (a page's session worker) may
// spend: all the time since its previous advance, at least the catch-up slice and at most
// catch_up_call_max_ns (a frame request waits behind it). The resume rule reads the share of
// wall time this gives stepping, all of it, and prices a catch-up by it. Unlike a page frame's
// budget it does not fall back to the slice after a long gap: a worker held up a second or more
// could then step little more than the tick rate and would fall further behind.
constexpr int64_t worker_budget_ns(int64_t since_last_ns) {
    return std::clamp<int64_t>(since_last_ns, catch_up_slice_ns, catch_up_call_max_ns);
}
// Until measured: advance called at 60 Hz, and a baseline decoded in what a step costs.
inline constexpr int64_t assumed_advance_interval_ns = 16'666'667;
inline constexpr int64_t assumed_baseline_decode_ns = assumed_step_cost_ns;
// A backlog above gap_threshold_ticks frames at an advance call (the page stopped calling
// advance without saying so) is treated as a resume: the same rule decides.
inline constexpr uint64_t gap_threshold_ticks = 30;
// Catch-up ends when no more than this many frames remain queued and the ticks the room ran
// meanwhile (its tick when the page went away plus the estimate) are verified.
inline constexpr uint64_t caught_up_ticks = 2;
// The most frames held unapplied; one more drops the state and the queue and acks "nothing
// held" (a minute at 60 Hz; bounds the memory of a page that keeps receiving but never steps).
inline constexpr uint64_t max_queued_frames = 3600;
// Commands are sent at most one per command_interval_ticks ticks (the room applies one command
// per player per tick); a newer command replaces an unsent one, an unchanged one is not resent.
inline constexpr uint32_t command_interval_ticks = 1;
// A client's replay export stops growing past this many bytes (it is memory the page holds);
// what was recorded stays a valid replay.
inline constexpr uint64_t max_replay_bytes = 64ull << 20;
// Reconnect backoff, the transport's schedule: the first retry at once, then doubling from
// 250 ms up to 8 s. The attempt count resets when a tick is verified on the new connection.
inline constexpr int64_t reconnect_first_backoff_ns = 250'000'000;
inline constexpr int64_t reconnect_max_backoff_ns = 8'000'000'000;
// room_moved: the session reconnects at once to the URL it names, at most this many times
// before a tick is verified again. Enough for a room handed on while its new owner is itself
// being replaced; a loop between processes that each say the other ends as a final refusal.
inline constexpr uint32_t max_room_moves = 4;
// The longest URL a room_moved may name (the ErrorMsg's text): what a WebSocket URL of a host,
// a port and a room's id takes, with room to spare.
inline constexpr uint32_t max_moved_url_bytes = 200;
// The fleet's other addresses a session may be given (set_fleet): where it tries when a
// connection does not open (the room's process died, and its only URL now refuses). Any
// process of the fleet serves the room or names its owner (room_moved), so a few suffice.
inline constexpr uint32_t max_fleet_urls = 8;
// A room_moved that names the process whose connection just failed to open: the fleet still
// holds that dead owner's lease, and a peer adopts the room once it lapses (a lease's TTL and a
// scan: 1.5 s with tandem serve's). The session then waits reconnect_first_backoff_ns and asks
// again, neither following the dead URL nor counting a move, at most this many times between
// verified ticks (4 s of asking), after which such a room_moved counts as any other.
inline constexpr uint32_t max_owner_waits = 16;
// A mismatch's field diff: the session keeps its own (wrong) state of the mismatched tick and
// the inputs of the frames that follow it until the healing baseline, steps that state to the
// baseline's tick and diffs the two. At most mismatch_diff_seconds of ticks are followed
// (two seconds: a round trip plus the room's input delay with room to spare), so a diff costs
// at most that many steps once per mismatch and bounded memory; a baseline further on names
// the sections only.
inline constexpr uint32_t mismatch_diff_seconds = 2;
// The most differing fields a mismatch's diff lists (FieldDiff::total counts them all).
inline constexpr uint32_t mismatch_diff_fields = 32;

// ---- What the session reports --------------------------------------------------------------
enum class ResumePath : uint8_t {
    none = 0,        // no resume decided yet
    caught_up = 1,   // stepped through the missed ticks (ResumeFigures::ticks)
    resync = 2,      // dropped the state and took a baseline (ResumeFigures::bytes)
    idle = 3,        // nothing to decide: no state held, or nothing missed
};
std::string_view resume_path_name(ResumePath path);   // "none", "catch_up", "resync", "idle"

struct ResumeFigures {
    int64_t away_ns = 0;              // suspend to resume (or since the previous advance, for a gap)
    ResumePath path = ResumePath::none;
    uint64_t behind_ticks = 0;        // the N the rule weighed
    uint64_t ticks = 0;               // catch-up: ticks stepped while catching up
    uint64_t bytes = 0;               // resync: bytes of the baseline that healed it
    int64_t until_verified_ns = -1;   // decision to the next verified tick (-1: not yet)
    int64_t dropped_ns = 0;           // resync: world time the baseline jumped over
    // The two sides the rule weighed (resume_rule.hpp; never_ns: that path could not finish).
    int64_t catch_up_estimate_ns = 0;
    int64_t baseline_estimate_ns = 0;
};

struct SessionFigures {
    bool connected = false;
    Role role = Role::play;
    uint32_t player = watcher_id;            // from the welcome
    bool has_world = false;                  // a confirmed state is held
    uint64_t verified_tick = 0;              // newest tick whose digest agreed (or baseline tick)
    uint64_t verified_ticks = 0;             // ticks stepped whose digest agreed
    uint64_t server_tick = 0;                // newest tick the room announced (frame or pong)
    uint64_t lag_ticks = 0;                  // server_tick - verified_tick
    uint64_t queued_frames = 0;
    uint64_t mismatches = 0;
    uint64_t last_mismatch_tick = 0;
    // The sections the room's Sections answer showed differing (the game's names), in section order.
    std::vector<std::string_view> last_mismatch_sections;
    bool last_mismatch_sections_known = false;
    // The fields of the last mismatch: the room's state (a) against this session's own
    // (b), both at last_mismatch_fields_tick (the healing baseline's tick, the own state
    // stepped there from the mismatched tick with the frames that followed). Empty until the
    // baseline arrives, and when it lies past mismatch_diff_seconds or a frame between was
    // missed (the sections still name what differed).
    std::optional<sim::FieldDiff> last_mismatch_fields;
    uint64_t last_mismatch_fields_tick = 0;
    uint64_t catch_ups = 0;
    uint64_t resyncs = 0;                    // "nothing held" acks sent (resume, gap, mismatch)
    uint64_t baselines = 0;                  // baselines applied
    uint64_t last_baseline_tick = 0;
    uint64_t bytes_in = 0;
    uint64_t bytes_out = 0;
    uint64_t bytes_in_per_sec = 0;           // rolling 8 s window
    uint64_t bytes_out_per_sec = 0;          // rolling 8 s window
    // World time jumped over by baselines instead of stepped (from the newest verified tick to
    // the baseline's), summed over the session: what a resync skipped.
    int64_t dropped_ns = 0;
    uint64_t malformed_in = 0;               // server messages that did not decode (ignored)
    uint64_t frames_ignored = 0;             // duplicates, or frames while waiting for a baseline
    int64_t rtt_ns = -1;                     // -1 until a ping is answered
    int64_t jitter_ns = -1;
    int64_t step_cost_ns = assumed_step_cost_ns;
    uint32_t inputs_sent = 0;
    uint32_t inputs_applied = 0;             // newest own sequence a frame carried
    std::optional<ErrorCode> refused;        // the room's last ErrorMsg code
    std::string refused_text;
    // Resume: the session holds a token for its seat (it sends it on its next connection), and
    // whether the newest welcome gave back the seat of the token sent (the page says
    // "reconnected as player N"); resumes counts such welcomes. The token itself is never shown.
    bool resumable = false;
    bool resumed = false;
    uint32_t resumes = 0;
    ResumeFigures last_resume;
};

// The newest command sent, with its sequence (the room echoes it in the frame it lands on).
template <class G>
struct SentCommand {
    uint32_t sequence = 0;
    typename G::Command command{};
    friend bool operator==(const SentCommand&, const SentCommand&) = default;
};

// One verified tick's inputs, for a predicting layer drawn over the confirmed state.
template <class G>
struct VerifiedTick {
    uint64_t tick = 0;
    std::vector<Applied<G>> inputs;
};

namespace detail {
// What does not depend on the game: the reconnect schedule, a refusal's permanence, the fraction
// of a tick elapsed, the budget rule's step count.
int64_t reconnect_delay(uint32_t attempts);
bool refusal_is_final(ErrorCode code);
// "ws://" or "wss://", a host, and only characters a URL is written with: what a room_moved may
// send a session to (anything else is not followed).
bool is_websocket_url(std::string_view text);

// Where a session's next connection goes. A room_moved names the room's process, and
// connections go there while they open. One that never opens moves on: from a moved-to URL
// back to the entry it was reached from, from an entry to the next of the entries round the
// list (the transport's own URL, then the fleet's, set_fleet). Pure: the session calls it, the
// tests drive it alone.
class Destinations {
public:
    // own: the URL the transport opened first ("" when it is not a WebSocket URL: then next()
    // says "" for it, the transport's own). others: the fleet's other WebSocket URLs, in order;
    // what is not a WebSocket URL, a repeat or past max_fleet_urls is left out. Returns how many
    // of them were kept. Starts again at the own URL.
    uint32_t set_fleet(std::string_view own, std::span<const std::string> others);
    // A room_moved naming `url` (a WebSocket URL, already checked): the next connection goes there.
    void moved(std::string_view url);
    // The connection to next() closed without ever opening. Returns whether the next attempt goes
    // to a process not yet tried in this round of the entries (the entry a moved-to URL came
    // from, or the next entry but the first): false once the round is over.
    bool failed();
    // Whether `url` is where the newest connection that failed to open went (a dead process a
    // peer may still name as the room's owner until its lease lapses).
    bool failed_last(std::string_view url) const { return last_failed_ && *last_failed_ == url; }
    // A tick verified: whatever failed before is forgotten.
    void verified() { last_failed_.reset(); }
    const std::string& next() const { return moved_.empty() ? entry_url() : moved_; }
    std::span<const std::string> fleet() const { return fleet_; }

private:
    const std::string& entry_url() const { return entry_ == 0 ? own_ : fleet_[entry_ - 1]; }
    std::vector<std::string> fleet_;
    uint32_t entry_ = 0;                        // 0: the transport's own URL; i: fleet_[i - 1]
    std::string moved_;                         // a room_moved's URL, while connections there open
    std::optional<std::string> last_failed_;    // where the newest unopened connection went
    std::string own_;                           // the transport's own URL, or "" for it
};

Fx tick_fraction(int64_t since_step_ns, int64_t tick_ns);
uint64_t steps_allowed(bool catching_up, int64_t budget_ns, int64_t step_cost_ns);

// The typical value of a wall time measured over and over (a step's cost, the interval between
// advance calls): the median of the last `window` samples, the first sample setting it. A host
// descheduled in the middle of one measurement (a loaded machine, a browser holding up a worker
// for half a second) gives one sample tens of times the others; a smoothed mean would carry it
// for dozens of calls, and the resume rule would price stepping as hopeless and drop the world
// for a baseline. A lasting change moves the median within window / 2 + 1 samples.
class RecentMedian {
public:
    static constexpr uint32_t window = 15;
    explicit RecentMedian(int64_t assumed) : value_(assumed) {}
    void add(int64_t sample);
    int64_t value() const { return value_; }

private:
    std::array<int64_t, window> samples_{};
    uint32_t held_ = 0;
    uint32_t next_ = 0;
    int64_t value_;
};
}  // namespace detail

// ---- The session -----------------------------------------------------------------------------
template <sim::Simulation G>
class ClientSession {
public:
    using State = typename G::State;
    using Command = typename G::Command;
    using Event = typename G::Event;

    ClientSession(Role role, int64_t now) : role_(role), last_advance_at_(now) {
        figures_.role = role;
        append_replay_header<G>(replay_);
        in_rate_.elapsed(now);
        out_rate_.elapsed(now);
    }

    // Step cost measurement: a clock used only to time steps (the median of the recent ones,
    // detail::RecentMedian: the first sample sets it). Without one the cost is
    // assumed_step_cost_ns. The clock never decides anything else; tests pass a fake one.
    void set_clock(int64_t (*now_ns)()) { clock_ = now_ns; }

    // The socket opened: queues a Hello (the room then sends Welcome, Baseline, Frames).
    void on_connected(int64_t now);
    // A ticket from the room's lobby, for a room that requires one (protocol.hpp's Ticket, as
    // decode_ticket reads it): sent with every hello that asks for a new seat or place, never
    // beside a resume token (the token is the ticketed player's own way back). A player's
    // ticket admits once; a watcher's admits one connection at a time until it expires.
    void set_ticket(Ticket ticket) { ticket_ = std::move(ticket); }
    // One whole server message. Frames are queued (applied by advance); everything else is
    // handled at once. A message that does not decode (for the protocol or for the game) is
    // counted and ignored.
    void receive(std::span<const uint8_t> message, int64_t now);
    void on_disconnected(int64_t now);
    // The socket closed without ever opening (refused, unreachable, a failed handshake, a room
    // the process does not know yet): the next attempt goes elsewhere (Destinations), from a
    // room_moved's URL back to the entry, or to the fleet's next one, after the first backoff;
    // once a whole round of the entries has failed, one more attempt on the backoff. So a fleet
    // whose room is between owners is asked every 250 ms at first, and a dead fleet (or a lone
    // server) is backed off from as before.
    void on_connect_failed(int64_t now);
    // The URL the transport opens first, and the fleet's other WebSocket URLs for this room (a
    // page's ?fleet=), tried in turn when a connection does not open. Returns how many of the
    // others were kept (detail::Destinations::set_fleet).
    uint32_t set_fleet(std::string_view own, std::span<const std::string> others) { return destinations_.set_fleet(own, others); }
    // Whether the socket should be reopened: false after a refusal retrying cannot cure
    // (version or fingerprint mismatch, malformed, unexpected, rate_limited, and
    // resumed_elsewhere: another connection holds the seat, and fighting it back would only
    // pass the seat to and fro). A refused resume token is not final: the session drops the
    // token and its next connection asks for a new seat.
    bool should_reconnect() const { return !refused_for_good_; }
    // The delay before the next attempt: 0, then 250 ms doubling to 8 s; 0 after room_moved;
    // 250 ms while a peer still names a dead owner (max_owner_waits), or before the next of the
    // fleet's entries within a round.
    int64_t reconnect_delay_ns() const {
        if (move_pending_) return 0;
        if (owner_wait_pending_ || next_entry_pending_) return reconnect_first_backoff_ns;
        return detail::reconnect_delay(reconnect_attempts_);
    }
    // Where the next connection goes: a room_moved's URL, the transport's own URL ("" before
    // set_fleet) or one of the fleet's (detail::Destinations). The transport opens its next
    // socket there; the session keeps its resume token, so a player takes its seat back from the
    // room's new process.
    const std::string& next_url() const { return destinations_.next(); }

    // Appends each queued outgoing message and empties the queue.
    void take_outgoing(std::vector<std::vector<uint8_t>>& out) {
        for (auto& bytes : outgoing_) out.push_back(std::move(bytes));
        outgoing_.clear();
    }

    // Applies due frames in order within the budget: at most budget_ns / step cost steps (at
    // least one when a frame is due, so a page always makes progress); while catching up the
    // budget clamped to [catch_up_slice_ns, catch_up_call_max_ns]. Checks every applied tick's digest; sends acks, pings and
    // pending commands. Returns the number of ticks applied.
    uint32_t advance(int64_t now, int64_t budget_ns);

    void on_suspend(int64_t now);
    void on_resume(int64_t now);

    // The person's command (a steer, the buttons held); sent as an InputMsg (next sequence) at
    // most once per command_interval_ticks ticks. Ignored for a watcher and before the welcome.
    void send_command(const Command& command, int64_t now) {
        if (role_ != Role::play || !welcomed_ || !connected_) return;
        pending_command_ = command;
        maybe_send_command(now);
    }

    // What the page draws from. The confirmed state (none while waiting for a baseline); the
    // state before the last step of the last advance call that stepped (none before any step
    // on this state: a fresh baseline draws the confirmed state twice); how far the render
    // instant lies between the two (in [0, 1]: 0 draws the previous, 1 the confirmed); the
    // events of the last step applied (empty after a baseline). Nothing here feeds back into
    // the confirmed state.
    const std::optional<State>& confirmed_state() const { return state_; }
    const State* previous_state() const { return state_ && has_previous_ ? &previous_ : nullptr; }
    Fx render_fraction(int64_t now) const {
        return detail::tick_fraction(std::max<int64_t>(0, sat_sub(now, last_step_at_)), tick_ns());
    }
    std::span<const Event> last_events() const {
        if (!events_valid_) return {};
        return stepper_.events();
    }

    SessionFigures figures() const;
    // The replay file of what this session received: header, Welcome, Baselines and Frames
    // in order, Sections. Frames discarded while waiting for a baseline are not in it, so a
    // gap in its frames is always followed by a Baseline.
    std::vector<uint8_t> export_replay() const {
        // The export is the match as received so far, finished here: it ends with the end
        // marker, unless records were dropped at the cap (then it reads as cut short, which it is).
        std::vector<uint8_t> file = replay_;
        if (!replay_full_) append_replay_end(file);
        return file;
    }

    // Debug: changes the held state as `corrupt` says (the game's side knows what to break),
    // so the next applied tick's digest disagrees with the room's. Nothing when no state is held.
    void corrupt_for_testing(const std::function<void(State&)>& corrupt) {
        if (state_ && corrupt) corrupt(*state_);
    }

    // For a predicting layer drawn over the confirmed state (tandem/client/predicted.hpp).
    // Once asked to, the session keeps each verified tick's inputs until take_verified()
    // collects them, in tick order; a dropped or replaced state empties the list and bumps
    // world_epoch(), so a reader knows the ticks it followed no longer lead to this state.
    void keep_verified(bool on) {
        keep_verified_ = on;
        if (!on) verified_.clear();
    }
    void take_verified(std::vector<VerifiedTick<G>>& out) {
        for (auto& v : verified_) out.push_back(std::move(v));
        verified_.clear();
    }
    uint64_t world_epoch() const { return world_epoch_; }
    // The newest command sent, with its sequence (the room echoes it in the frame it lands on).
    std::optional<SentCommand<G>> last_command_sent() const { return last_command_sent_; }
    int64_t step_cost_ns() const { return step_cost_.value(); }

private:
    struct PendingFrame {
        uint64_t tick = 0;
        uint64_t digest = 0;
        std::vector<Applied<G>> inputs;
        uint64_t bytes = 0;
    };
    void queue(std::vector<uint8_t> bytes) {
        figures_.bytes_out += bytes.size();
        out_rate_.add(bytes.size());
        outgoing_.push_back(std::move(bytes));
    }
    template <class M>
    void send(const M& message) {
        std::vector<uint8_t> bytes;
        encode(bytes, message);
        queue(std::move(bytes));
    }
    void on_frame(const Frame& frame, std::span<const uint8_t> bytes, int64_t now);
    void on_baseline(const Baseline& baseline, std::span<const uint8_t> bytes, int64_t now);
    void on_sections(const Sections& sections, std::span<const uint8_t> bytes);
    void record(std::span<const uint8_t> bytes) {
        if (replay_full_) return;
        if (replay_.size() + 4 + bytes.size() > max_replay_bytes) {
            replay_full_ = true;
            return;
        }
        append_replay_record(replay_, bytes);
    }
    void drop_world_and_resync(int64_t now);
    void close_resume(int64_t now) {
        figures_.last_resume.until_verified_ns = sat_sub(now, resume_decided_at_);
        resume_open_ = false;
    }
    void decide_resume(int64_t now, int64_t away_ns, uint64_t missed_estimate);
    ResumeCosts resume_costs(uint64_t behind) const;
    bool step_one(int64_t now);
    void diff_mismatch(const State& room, uint64_t tick);
    void maybe_ack(int64_t now);
    void send_ack(int64_t now);
    void maybe_ping(int64_t now);
    void maybe_send_command(int64_t now);
    uint32_t tick_hz() const { return G::tick_hz(config_); }
    int64_t tick_ns() const {
        const int64_t hz = tick_hz() == 0 ? 1 : static_cast<int64_t>(tick_hz());
        return 1'000'000'000 / hz;
    }

    Role role_;
    int64_t (*clock_)() = nullptr;
    detail::RecentMedian step_cost_{assumed_step_cost_ns};

    bool connected_ = false;
    bool welcomed_ = false;
    bool awaiting_baseline_ = false;
    uint32_t player_ = watcher_id;
    typename G::Config config_{};
    std::optional<State> state_;
    typename G::Stepper stepper_;
    std::deque<PendingFrame> frames_;
    std::vector<Applied<G>> decoded_;   // a frame's inputs, decoded (reused)
    std::vector<sim::Input<G>> step_inputs_;   // likewise, as the step takes them
    uint64_t last_queued_tick_ = 0;   // the tick the next frame must follow (state or queue)
    uint64_t verified_digest_ = 0;    // the room's digest at figures_.verified_tick
    bool events_valid_ = false;       // the stepper's events belong to the state held
    bool keep_verified_ = false;
    std::vector<VerifiedTick<G>> verified_;
    uint64_t world_epoch_ = 0;
    std::optional<SentCommand<G>> last_command_sent_;

    // Render: the state before the last step of an advance call and when a step was applied.
    State previous_{};
    bool has_previous_ = false;
    int64_t last_step_at_ = 0;

    // Acks and probes.
    int64_t last_ack_at_ = 0;
    bool acked_once_ = false;
    uint64_t last_acked_tick_ = 0;
    bool last_ack_held_ = false;
    Timeline timeline_;
    std::deque<Probe> probes_;
    int64_t last_ping_at_ = 0;
    bool pinged_once_ = false;

    // Commands.
    uint32_t next_sequence_ = 1;
    std::optional<Command> pending_command_;
    int64_t last_command_sent_at_ = 0;
    bool commanded_once_ = false;

    // Resume and mismatch state.
    bool suspended_ = false;
    int64_t suspended_at_ = 0;
    bool catching_up_ = false;
    uint64_t catch_up_target_tick_ = 0;
    uint64_t suspend_server_tick_ = 0;
    bool resume_open_ = false;          // a decision whose "until verified" is still running
    int64_t resume_decided_at_ = 0;
    int64_t last_advance_at_ = 0;
    // What the resume rule weighs, measured as the session runs.
    detail::RecentMedian advance_interval_{assumed_advance_interval_ns};   // between advance calls
    bool advanced_once_ = false;
    int64_t last_budget_ns_ = catch_up_slice_ns;
    int64_t baseline_requested_at_ = -1;     // the hello or "nothing held" ack awaiting its baseline
    int64_t baseline_fetch_ns_ = 0;          // the last request to its baseline
    int64_t baseline_decode_ns_ = assumed_baseline_decode_ns;
    std::optional<Desync> pending_desync_;
    // The own state of the last mismatched tick and the inputs of the ticks after it, until the
    // baseline that heals it (see mismatch_diff_seconds).
    std::optional<State> mismatch_state_;
    std::vector<std::vector<sim::Input<G>>> mismatch_follow_;

    // Reconnect.
    uint32_t reconnect_attempts_ = 0;
    bool refused_for_good_ = false;
    detail::Destinations destinations_;
    bool move_pending_ = false;  // a room_moved not yet followed (the next attempt goes at once)
    uint32_t moves_ = 0;         // room_moved followed since the last verified tick
    bool owner_wait_pending_ = false;   // a room_moved named a dead owner: ask again shortly
    bool next_entry_pending_ = false;   // a connection failed: the next entry of this round is tried shortly
    uint32_t owner_waits_ = 0;          // such waits since the last verified tick
    // The seat's resume token from the newest welcome, sent in the next connection's hello;
    // whether the hello of this connection carried it.
    std::optional<ResumeToken> resume_token_;
    bool sent_token_ = false;
    std::optional<Ticket> ticket_;

    std::vector<std::vector<uint8_t>> outgoing_;
    std::vector<uint8_t> replay_;
    bool replay_full_ = false;
    bool welcome_recorded_ = false;
    RateMeter in_rate_;
    RateMeter out_rate_;
    SessionFigures figures_;
};

// ---- Connection ----------------------------------------------------------------------------

template <sim::Simulation G>
void ClientSession<G>::on_connected(int64_t now) {
    if (connected_) return;
    // A new socket: probes sent on the old one measure the gap, not the link.
    if (pinged_once_) timeline_.on_reconnect();
    probes_.clear();
    connected_ = true;
    move_pending_ = false;
    owner_wait_pending_ = false;
    next_entry_pending_ = false;
    welcomed_ = false;
    awaiting_baseline_ = true;
    frames_.clear();
    Hello hello = hello_for<G>(role_);
    // A player that held a seat asks for it back; the room refuses a token it no longer honours
    // (then the token is dropped, and the next connection asks for a new seat).
    if (role_ == Role::play) hello.resume = resume_token_;
    if (!hello.resume) hello.ticket = ticket_;
    sent_token_ = hello.resume.has_value();
    send(hello);
    baseline_requested_at_ = now;
}

template <sim::Simulation G>
void ClientSession<G>::on_disconnected(int64_t now) {
    (void)now;
    if (!connected_) return;
    connected_ = false;
    welcomed_ = false;
    // Whatever was in flight is lost with the socket; the state stays drawable until the next
    // connection's baseline replaces it, but no frame applies to it before that.
    awaiting_baseline_ = true;
    catching_up_ = false;
    frames_.clear();
    probes_.clear();
    outgoing_.clear();
    pending_command_.reset();
    ++reconnect_attempts_;
}

template <sim::Simulation G>
void ClientSession<G>::on_connect_failed(int64_t now) {
    (void)now;
    if (connected_) return;   // an open socket's close is on_disconnected
    move_pending_ = false;
    owner_wait_pending_ = false;
    next_entry_pending_ = destinations_.failed();
    if (!next_entry_pending_) ++reconnect_attempts_;
}

// ---- Receiving -------------------------------------------------------------------------------

template <sim::Simulation G>
void ClientSession<G>::receive(std::span<const uint8_t> message, int64_t now) {
    figures_.bytes_in += message.size();
    in_rate_.add(message.size());
    auto decoded = decode_server(message);
    if (!decoded.ok()) {
        ++figures_.malformed_in;
        return;
    }
    ServerMessage& m = decoded.value();
    if (auto* w = std::get_if<Welcome>(&m)) {
        // A welcome for another game, or with a config this game refuses, is not for us.
        auto config = config_of<G>(*w);
        if (w->game != G::name || !config.ok()) {
            ++figures_.malformed_in;
            return;
        }
        // Only the first welcome goes into the replay: a reconnect's baseline restarts the
        // stream the replay checks, under the same config. Never with the token: a replay is
        // shared, the token is the seat.
        if (!welcome_recorded_) {
            if (w->resume) {
                Welcome plain = *w;
                plain.resume.reset();
                std::vector<uint8_t> bytes;
                encode(bytes, plain);
                record(bytes);
            } else {
                record(message);
            }
        }
        welcome_recorded_ = true;
        figures_.resumed = sent_token_;
        if (sent_token_) ++figures_.resumes;
        sent_token_ = false;
        resume_token_ = w->resume;
        welcomed_ = true;
        player_ = w->player;
        figures_.player = w->player;
        config_ = *config;
        figures_.server_tick = std::max(figures_.server_tick, w->server_tick);
        awaiting_baseline_ = true;
        frames_.clear();
    } else if (auto* f = std::get_if<Frame>(&m)) {
        on_frame(*f, message, now);
    } else if (auto* b = std::get_if<Baseline>(&m)) {
        on_baseline(*b, message, now);
    } else if (auto* p = std::get_if<Pong>(&m)) {
        figures_.server_tick = std::max(figures_.server_tick, p->server_tick);
        for (auto it = probes_.begin(); it != probes_.end(); ++it) {
            if (it->sent_at != p->client_time_ns) continue;
            timeline_.complete(*it, now, p->server_time_ns);
            probes_.erase(probes_.begin(), it + 1);   // older probes were overtaken: forget them
            break;
        }
    } else if (auto* s = std::get_if<Sections>(&m)) {
        on_sections(*s, message);
    } else if (auto* e = std::get_if<ErrorMsg>(&m)) {
        figures_.refused = e->code;
        figures_.refused_text = e->text;
        // A token refused (or taken over by another connection) is no longer the seat's.
        if (e->code == ErrorCode::resume_unknown || e->code == ErrorCode::resume_expired ||
            e->code == ErrorCode::resume_used || e->code == ErrorCode::resumed_elsewhere) {
            resume_token_.reset();
        }
        // Retrying repeats some refusals (another build, a client bug, abuse); the others are
        // temporary (the room may have a seat or be back later).
        if (detail::refusal_is_final(e->code)) refused_for_good_ = true;
        if (e->code == ErrorCode::room_moved) {
            // Followed a bounded number of times; a URL that is not a WebSocket's is not followed.
            // One naming where the last connection failed to open is a peer that has not yet
            // seen the owner's lease lapse: asked again shortly, not followed.
            if (!detail::is_websocket_url(e->text)) {
                refused_for_good_ = true;
            } else if (destinations_.failed_last(e->text) && owner_waits_ < max_owner_waits) {
                ++owner_waits_;
                owner_wait_pending_ = true;
            } else if (++moves_ > max_room_moves) {
                refused_for_good_ = true;
            } else {
                destinations_.moved(e->text);
                move_pending_ = true;
            }
        }
    }
}

template <sim::Simulation G>
void ClientSession<G>::on_frame(const Frame& frame, std::span<const uint8_t> bytes, int64_t now) {
    if (!decode_frame_inputs<G>(frame, decoded_).ok()) {
        ++figures_.malformed_in;   // a frame whose inputs are not this game's
        return;
    }
    figures_.server_tick = std::max(figures_.server_tick, frame.tick);
    if (awaiting_baseline_ || !state_ || frame.tick <= last_queued_tick_) {
        // Waiting for a baseline (frames for a state not held), or a frame already held
        // (the room replaying its ring after an ack).
        ++figures_.frames_ignored;
        // The ticks after a mismatch, for its field diff: consecutive, within the bound.
        if (mismatch_state_ && frame.tick == G::tick(*mismatch_state_) + mismatch_follow_.size() + 1 &&
            mismatch_follow_.size() < uint64_t{mismatch_diff_seconds} * tick_hz()) {
            std::vector<sim::Input<G>> inputs;
            inputs.reserve(decoded_.size());
            for (const Applied<G>& a : decoded_) inputs.push_back(a.input);
            mismatch_follow_.push_back(std::move(inputs));
        }
        return;
    }
    if (frame.tick != last_queued_tick_ + 1 || frames_.size() >= max_queued_frames) {
        // A hole in the stream cannot be stepped over, and a backlog past the bound is not
        // kept: either way the state goes and a baseline replaces it.
        figures_.last_resume = ResumeFigures{0, ResumePath::resync, frame.tick - last_queued_tick_, 0, 0, -1};
        resume_open_ = true;
        resume_decided_at_ = now;
        drop_world_and_resync(now);
        return;
    }
    for (const Applied<G>& a : decoded_) {
        if (a.input.player == player_ && a.sequence != 0)
            figures_.inputs_applied = std::max(figures_.inputs_applied, a.sequence);
    }
    record(bytes);
    last_queued_tick_ = frame.tick;
    frames_.push_back(PendingFrame{frame.tick, frame.digest, decoded_, bytes.size()});
}

template <sim::Simulation G>
void ClientSession<G>::on_baseline(const Baseline& baseline, std::span<const uint8_t> bytes, int64_t now) {
    const int64_t t0 = clock_ ? clock_() : 0;
    auto decoded = sim::decode_snapshot<G>(baseline.snapshot);
    if (!decoded.ok() || G::tick(decoded.value()) != baseline.tick) {
        ++figures_.malformed_in;
        return;
    }
    if (clock_) baseline_decode_ns_ = std::max<int64_t>(1, sat_sub(clock_(), t0));
    if (baseline_requested_at_ >= 0) {
        // The last fetch, not a mean: a link's throughput changes with the network, and a
        // baseline is rare enough that the newest is the best guess at the next.
        baseline_fetch_ns_ = std::max<int64_t>(0, sat_sub(now, baseline_requested_at_));
        baseline_requested_at_ = -1;
    }
    record(bytes);
    // World time jumped over instead of stepped: from the newest verified tick to the
    // baseline's. A first join jumps over nothing, nor does a restarted room's lower tick.
    const uint64_t skipped = figures_.baselines > 0 && baseline.tick > figures_.verified_tick
                                 ? baseline.tick - figures_.verified_tick
                                 : 0;
    state_ = std::move(decoded.value());
    ++world_epoch_;
    verified_.clear();
    config_ = G::config_of(*state_);
    if (mismatch_state_) diff_mismatch(*state_, baseline.tick);
    const int64_t skipped_ns = mul_div_round(static_cast<int64_t>(std::min<uint64_t>(skipped, INT64_MAX)), tick_ns(), 1);
    figures_.dropped_ns = sat_add(figures_.dropped_ns, skipped_ns);
    awaiting_baseline_ = false;
    catching_up_ = false;
    frames_.clear();
    last_queued_tick_ = baseline.tick;
    figures_.verified_tick = baseline.tick;
    verified_digest_ = sim::digest<G>(*state_);
    ++figures_.baselines;
    figures_.last_baseline_tick = baseline.tick;
    has_previous_ = false;
    events_valid_ = false;
    last_step_at_ = now;
    if (resume_open_) {
        // A catch-up the room answered with a baseline (what was missed had left its ring)
        // ends as a resync: the baseline's bytes, verified again at the next tick.
        figures_.last_resume.path = ResumePath::resync;
        figures_.last_resume.bytes = bytes.size();
        figures_.last_resume.dropped_ns = skipped_ns;
    }
    // Tell the room at once which tick is held: its flow control counts from here.
    if (welcomed_ && connected_) send_ack(now);
}

// The own state of the mismatched tick, stepped with the frames that followed to the room's
// state's tick, against the room's state there. Only when every tick between was received.
template <sim::Simulation G>
void ClientSession<G>::diff_mismatch(const State& room, uint64_t tick) {
    State own = std::move(*mismatch_state_);
    mismatch_state_.reset();
    std::vector<std::vector<sim::Input<G>>> follow = std::move(mismatch_follow_);
    mismatch_follow_.clear();
    const uint64_t from = G::tick(own);
    if (tick < from || tick - from > follow.size()) return;
    typename G::Stepper stepper;
    for (uint64_t t = from; t < tick; ++t) stepper.step(own, follow[static_cast<std::size_t>(t - from)]);
    figures_.last_mismatch_fields = sim::diff<G>(room, own, mismatch_diff_fields);
    figures_.last_mismatch_fields_tick = tick;
}

template <sim::Simulation G>
void ClientSession<G>::on_sections(const Sections& sections, std::span<const uint8_t> bytes) {
    record(bytes);
    if (!pending_desync_ || pending_desync_->tick != sections.tick) return;
    if (sections.held) {
        figures_.last_mismatch_sections = sim::differing_sections<G>(std::span<const uint64_t>(pending_desync_->sections),
                                                                     std::span<const uint64_t>(sections.sections));
        figures_.last_mismatch_sections_known = true;
    }
    pending_desync_.reset();
}

template <sim::Simulation G>
void ClientSession<G>::drop_world_and_resync(int64_t now) {
    state_.reset();
    ++world_epoch_;
    verified_.clear();
    frames_.clear();
    awaiting_baseline_ = true;
    catching_up_ = false;
    events_valid_ = false;
    has_previous_ = false;
    ++figures_.resyncs;
    send(Ack{false, 0, 0});
    baseline_requested_at_ = now;
    last_ack_at_ = now;
    acked_once_ = true;
    last_ack_held_ = false;
}

// ---- Stepping ---------------------------------------------------------------------------------

template <sim::Simulation G>
bool ClientSession<G>::step_one(int64_t now) {
    const PendingFrame& frame = frames_.front();
    step_inputs_.clear();
    for (const Applied<G>& a : frame.inputs) step_inputs_.push_back(a.input);

    const int64_t t0 = clock_ ? clock_() : 0;
    stepper_.step(*state_, std::span<const sim::Input<G>>(step_inputs_));
    if (clock_) {
        step_cost_.add(std::max<int64_t>(1, sat_sub(clock_(), t0)));
    }
    events_valid_ = true;
    last_step_at_ = now;

    const uint64_t tick = frame.tick;
    const sim::Digests<G> digests = sim::digests<G>(*state_);
    if (digests.digest != frame.digest) {
        ++figures_.mismatches;
        figures_.last_mismatch_tick = tick;
        figures_.last_mismatch_sections.clear();
        figures_.last_mismatch_sections_known = false;
        figures_.last_mismatch_fields.reset();
        figures_.last_mismatch_fields_tick = 0;
        pending_desync_ = Desync{tick, section_list<G>(digests.sections)};
        send(*pending_desync_);
        // The own state of this tick stays for the field diff against the healing baseline,
        // with the inputs of the frames already queued behind it.
        mismatch_state_ = std::move(*state_);
        mismatch_follow_.clear();
        const uint64_t follow_max = uint64_t{mismatch_diff_seconds} * tick_hz();
        for (std::size_t i = 1; i < frames_.size() && mismatch_follow_.size() < follow_max; ++i) {
            std::vector<sim::Input<G>> inputs;
            for (const Applied<G>& a : frames_[i].inputs) inputs.push_back(a.input);
            mismatch_follow_.push_back(std::move(inputs));
        }
        drop_world_and_resync(now);
        return false;
    }
    ++figures_.verified_ticks;
    figures_.verified_tick = tick;
    verified_digest_ = frame.digest;
    reconnect_attempts_ = 0;
    moves_ = 0;
    owner_waits_ = 0;
    destinations_.verified();
    if (catching_up_) ++figures_.last_resume.ticks;
    // A resync is over at the first tick verified on its baseline (a catch-up when it ends).
    if (resume_open_ && figures_.last_resume.path == ResumePath::resync) close_resume(now);
    if (keep_verified_) verified_.push_back(VerifiedTick<G>{tick, std::move(frames_.front().inputs)});
    frames_.pop_front();
    return true;
}

template <sim::Simulation G>
void ClientSession<G>::decide_resume(int64_t now, int64_t away_ns, uint64_t missed_estimate) {
    const uint64_t behind = std::max<uint64_t>(frames_.size(), missed_estimate);
    ResumeFigures r;
    r.away_ns = away_ns;
    r.behind_ticks = behind;
    if (!state_ || awaiting_baseline_ || behind == 0) {
        r.path = ResumePath::idle;
        figures_.last_resume = r;
        return;
    }
    ResumeCosts costs = resume_costs(behind);
    costs.undelivered_ticks = missed_estimate > frames_.size() ? missed_estimate - frames_.size() : 0;
    const ResumeEstimate estimate = weigh_resume(costs);
    r.catch_up_estimate_ns = estimate.catch_up_ns;
    r.baseline_estimate_ns = estimate.baseline_ns;
    resume_open_ = true;
    resume_decided_at_ = now;
    if (estimate.catch_up) {
        r.path = ResumePath::caught_up;
        figures_.last_resume = r;
        ++figures_.catch_ups;
        catching_up_ = true;
        // Caught up once the ticks the room ran meanwhile are verified: from what it had sent
        // when the page went away (a suspend) or what has arrived (a gap), plus the estimate.
        catch_up_target_tick_ = (missed_estimate > 0 ? suspend_server_tick_ : last_queued_tick_) + missed_estimate;
    } else {
        r.path = ResumePath::resync;
        figures_.last_resume = r;
        drop_world_and_resync(now);
    }
}

template <sim::Simulation G>
ResumeCosts ClientSession<G>::resume_costs(uint64_t behind) const {
    ResumeCosts c;
    c.behind_ticks = behind;
    c.tick_hz = tick_hz();
    c.step_cost_ns = step_cost_.value();
    // What a catching-up call may spend, over how often the host calls.
    const int64_t spend = std::clamp(last_budget_ns_, catch_up_slice_ns, catch_up_call_max_ns);
    c.step_share_permille = static_cast<uint32_t>(std::min<int64_t>(1000, mul_div_round(spend, 1000, std::max<int64_t>(1, advance_interval_.value()))));
    c.baseline_fetch_ns = baseline_fetch_ns_;
    c.baseline_decode_ns = baseline_decode_ns_;
    // The room's flow control and ring, in this game's ticks (tandem/net/room.hpp).
    const auto hz = static_cast<uint64_t>(tick_hz());
    c.window_ticks = flow_window_seconds * hz;
    c.ring_ticks = ring_seconds * hz;
    c.round_trip_ns = timeline_.rtt().value_or(baseline_fetch_ns_);
    return c;
}

template <sim::Simulation G>
void ClientSession<G>::on_suspend(int64_t now) {
    if (suspended_) return;
    suspended_ = true;
    suspended_at_ = now;
    suspend_server_tick_ = std::max(figures_.server_tick, last_queued_tick_);
}

template <sim::Simulation G>
void ClientSession<G>::on_resume(int64_t now) {
    if (!suspended_) return;
    suspended_ = false;
    const int64_t away = std::max<int64_t>(0, sat_sub(now, suspended_at_));
    timeline_.on_resume();
    probes_.clear();
    // The room kept ticking while the page was away: that many frames are due, whether or
    // not they have arrived yet.
    const uint64_t missed = static_cast<uint64_t>(mul_div_round(away, static_cast<int64_t>(tick_hz()), 1'000'000'000));
    decide_resume(now, away, missed);
    last_advance_at_ = now;
}

template <sim::Simulation G>
uint32_t ClientSession<G>::advance(int64_t now, int64_t budget_ns) {
    in_rate_.elapsed(now);
    out_rate_.elapsed(now);
    if (suspended_) return 0;
    const int64_t since_last = std::max<int64_t>(0, sat_sub(now, last_advance_at_));
    last_advance_at_ = now;
    last_budget_ns_ = budget_ns;
    // How often the host calls, the median of the recent intervals like the step cost; a pause
    // past gap_threshold_ticks is an absence the rule weighs, not the host's rhythm.
    if (advanced_once_ && since_last > 0 && since_last <= static_cast<int64_t>(gap_threshold_ticks) * tick_ns()) {
        advance_interval_.add(since_last);
    }
    advanced_once_ = true;
    if (state_ && !awaiting_baseline_ && !catching_up_ && frames_.size() > gap_threshold_ticks) {
        if (resume_open_) {
            // The backlog behind a resync's baseline (the room's baseline may be up to
            // baseline_repeat_seconds old, and it streams the ticks since at once): part of the
            // same resume, caught up within it. Another baseline would come with a backlog of
            // its own, and a new decision here would replace the resync in the figures before
            // its first verified tick closed it. max_queued_frames still bounds it.
            catching_up_ = true;
            catch_up_target_tick_ = last_queued_tick_;
        } else {
            decide_resume(now, since_last, 0);
        }
    }

    uint32_t applied = 0;
    if (state_ && !awaiting_baseline_ && !frames_.empty()) {
        const uint64_t n = std::min<uint64_t>(detail::steps_allowed(catching_up_, budget_ns, step_cost_.value()), frames_.size());
        for (uint64_t i = 0; i < n; ++i) {
            if (i + 1 == n) {
                // The state before the last step of this call: what the render interpolates
                // from (assignment reuses the storage of the last one).
                previous_ = *state_;
                has_previous_ = true;
            }
            if (!step_one(now)) break;
            ++applied;
        }
        if (catching_up_ && frames_.size() <= caught_up_ticks && figures_.verified_tick >= catch_up_target_tick_) {
            catching_up_ = false;
            if (resume_open_) close_resume(now);
        }
    }
    maybe_send_command(now);
    maybe_ack(now);
    maybe_ping(now);
    return applied;
}

// ---- Sending ------------------------------------------------------------------------------------

template <sim::Simulation G>
void ClientSession<G>::send_ack(int64_t now) {
    send(Ack{true, figures_.verified_tick, verified_digest_});
    last_ack_at_ = now;
    acked_once_ = true;
    last_acked_tick_ = figures_.verified_tick;
    last_ack_held_ = true;
}

template <sim::Simulation G>
void ClientSession<G>::maybe_ack(int64_t now) {
    // Without a state the "nothing held" ack was sent when it was dropped; a baseline answers
    // it (the socket is ordered and lossless, so it is not repeated).
    if (!connected_ || !welcomed_ || !state_ || awaiting_baseline_) return;
    const int64_t since = sat_sub(now, last_ack_at_);
    const bool progress = !last_ack_held_ || figures_.verified_tick != last_acked_tick_;
    if (!acked_once_ || (progress && since >= ack_interval_ns) || since >= ack_keepalive_ns) send_ack(now);
}

template <sim::Simulation G>
void ClientSession<G>::maybe_ping(int64_t now) {
    if (!connected_ || !welcomed_) return;
    if (pinged_once_ && sat_sub(now, last_ping_at_) < ping_interval_ns) return;
    const Probe probe = timeline_.begin(now);
    send(Ping{probe.sent_at});
    probes_.push_back(probe);
    if (probes_.size() > max_probes_in_flight) probes_.pop_front();
    pinged_once_ = true;
    last_ping_at_ = now;
}

template <sim::Simulation G>
void ClientSession<G>::maybe_send_command(int64_t now) {
    if (!pending_command_ || !connected_ || !welcomed_) return;
    if (last_command_sent_ && last_command_sent_->command == *pending_command_) {
        pending_command_.reset();
        return;
    }
    if (commanded_once_ && sat_sub(now, last_command_sent_at_) < tick_ns() * command_interval_ticks) return;
    last_command_sent_ = SentCommand<G>{next_sequence_++, *pending_command_};
    send(input_message<G>(last_command_sent_->sequence, last_command_sent_->command));
    ++figures_.inputs_sent;
    pending_command_.reset();
    commanded_once_ = true;
    last_command_sent_at_ = now;
}

// ---- Reading ------------------------------------------------------------------------------------

template <sim::Simulation G>
SessionFigures ClientSession<G>::figures() const {
    SessionFigures f = figures_;
    f.connected = connected_;
    f.has_world = state_.has_value();
    f.queued_frames = frames_.size();
    f.lag_ticks = f.server_tick > f.verified_tick ? f.server_tick - f.verified_tick : 0;
    f.rtt_ns = timeline_.rtt().value_or(-1);
    f.jitter_ns = timeline_.jitter().value_or(-1);
    f.step_cost_ns = step_cost_.value();
    f.bytes_in_per_sec = in_rate_.per_sec();
    f.bytes_out_per_sec = out_rate_.per_sec();
    f.resumable = resume_token_.has_value();
    return f;
}

}  // namespace tandem::net
