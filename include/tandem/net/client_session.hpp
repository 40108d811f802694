// ClientSession: the browser's side of a lockstep match as pure C++ with time passed in. It
// holds the confirmed world and the frames received, applies them within a budget, checks the
// room's digest at every tick, heals a mismatch or a long absence with a baseline, acks what it
// verified, and keeps the figures and the render view a page shows. The page (through the ES
// module) only moves bytes and times in and out; every decision is made here.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/rate_meter.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/net/timeline.hpp"
#include "tandem/world/world.hpp"

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
// a default world's step in wasm. Decisions made with it are the same on every machine.
inline constexpr int64_t assumed_step_cost_ns = 1'000'000;
// Resume rule. Being behind by N ticks (frames queued, or after a suspend the ticks the room
// ran while the page was away, whichever is more), the session catches up when
// N x step cost <= catch_up_budget_ns, spending per advance call the caller's budget, but at
// least catch_up_slice_ns and at most catch_up_call_max_ns; otherwise it drops its world and
// acks "nothing held", which obliges the room to send a baseline. One second of stepping
// spread over 8 ms slices keeps a page at 60 Hz responsive and costs at most ~2 s of wall
// time; a baseline (tens of KiB) is cheaper beyond that. The caller's budget counts too: a
// page drawing few frames (software rendering, a busy machine) gives each frame more
// simulation time to keep up with live play, and a catch-up limited below that would fall
// further behind instead of catching up. No call steps more than catch_up_call_max_ns.
inline constexpr int64_t catch_up_budget_ns = 1'000'000'000;
inline constexpr int64_t catch_up_slice_ns = 8'000'000;
inline constexpr int64_t catch_up_call_max_ns = 32'000'000;
// A backlog above gap_threshold_ticks frames at an advance call (the page stopped calling
// advance without saying so) is treated as a resume: the same rule decides.
inline constexpr uint64_t gap_threshold_ticks = 30;
// Catch-up ends when no more than this many frames remain queued and the ticks the room ran
// meanwhile (its tick when the page went away plus the estimate) are verified.
inline constexpr uint64_t caught_up_ticks = 2;
// The most frames held unapplied; one more drops the world and the queue and acks "nothing
// held" (a minute at 60 Hz; bounds the memory of a page that keeps receiving but never steps).
inline constexpr uint64_t max_queued_frames = 3600;
// Steers are sent at most one per steer_interval_ticks ticks (the room applies one steer per
// player per tick); a newer target replaces an unsent one, an unchanged one is not resent.
inline constexpr uint32_t steer_interval_ticks = 1;
// A client's replay export stops growing past this many bytes (it is memory the page holds);
// what was recorded stays a valid replay.
inline constexpr uint64_t max_replay_bytes = 64ull << 20;
// Reconnect backoff, the transport's schedule: the first retry at once, then doubling from
// 250 ms up to 8 s. The attempt count resets when a tick is verified on the new connection.
inline constexpr int64_t reconnect_first_backoff_ns = 250'000'000;
inline constexpr int64_t reconnect_max_backoff_ns = 8'000'000'000;

// ---- What the session reports --------------------------------------------------------------
enum class ResumePath : uint8_t {
    none = 0,        // no resume decided yet
    caught_up = 1,   // stepped through the missed ticks (ResumeFigures::ticks)
    resync = 2,      // dropped the world and took a baseline (ResumeFigures::bytes)
    idle = 3,        // nothing to decide: no world held, or nothing missed
};
std::string_view resume_path_name(ResumePath path);   // "none", "catch_up", "resync", "idle"

struct ResumeFigures {
    int64_t away_ns = 0;              // suspend to resume (or since the previous advance, for a gap)
    ResumePath path = ResumePath::none;
    uint64_t behind_ticks = 0;        // the N the rule weighed
    uint64_t ticks = 0;               // catch-up: ticks stepped while catching up
    uint64_t bytes = 0;               // resync: bytes of the baseline that healed it
    int64_t until_verified_ns = -1;   // decision to the next verified tick (-1: not yet)
    int64_t dropped_ns = 0;           // resync: world time the baseline jumped over (last: positional initialisers stay valid)
};

struct SessionFigures {
    bool connected = false;
    Role role = Role::play;
    uint32_t player = watcher_id;            // from the welcome
    bool has_world = false;
    uint64_t verified_tick = 0;              // newest tick whose digest agreed (or baseline tick)
    uint64_t verified_ticks = 0;             // ticks stepped whose digest agreed
    uint64_t server_tick = 0;                // newest tick the room announced (frame or pong)
    uint64_t lag_ticks = 0;                  // server_tick - verified_tick
    uint64_t queued_frames = 0;
    uint64_t mismatches = 0;
    uint64_t last_mismatch_tick = 0;
    // The sections the room's Sections answer showed differing ("scores", ...), in section order.
    std::vector<std::string_view> last_mismatch_sections;
    bool last_mismatch_sections_known = false;
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
    ResumeFigures last_resume;
};

struct RenderWell {
    uint32_t player = 0;
    Vec2 pos;
};
// What the page draws: the confirmed tick and the one before, and how far between them the
// render instant lies. Nothing here feeds back into the confirmed world.
struct RenderView {
    bool has_world = false;
    uint64_t tick = 0;
    Fx arena_size;
    Fx fraction;                            // in [0, 1]: 0 draws prev, 1 draws the confirmed tick
    std::vector<Vec2> pellets_prev, pellets;
    std::vector<RenderWell> wells_prev, wells;
    std::vector<world::Event> events;       // of the last step applied
};

// ---- The session -----------------------------------------------------------------------------
class ClientSession {
public:
    ClientSession(Role role, int64_t now);

    // Step cost measurement: a clock used only to time steps (a smoothed mean: the first
    // sample sets it, each later one moves it 1/8 of the way). Without one the cost is
    // assumed_step_cost_ns. The clock never decides anything else; tests pass a fake one.
    void set_clock(int64_t (*now_ns)());

    // The socket opened: queues a Hello (the room then sends Welcome, Baseline, Frames).
    void on_connected(int64_t now);
    // One whole server message. Frames are queued (applied by advance); everything else is
    // handled at once. A message that does not decode is counted and ignored.
    void receive(std::span<const uint8_t> message, int64_t now);
    void on_disconnected(int64_t now);
    // Whether the socket should be reopened: false after a refusal retrying cannot cure
    // (version or fingerprint mismatch, malformed, unexpected, rate_limited).
    bool should_reconnect() const;
    // The delay before the next attempt (0, then 250 ms doubling to 8 s).
    int64_t reconnect_delay_ns() const;

    // Appends each queued outgoing message and empties the queue.
    void take_outgoing(std::vector<std::vector<uint8_t>>& out);

    // Applies due frames in order within the budget: at most budget_ns / step cost steps (at
    // least one when a frame is due, so a page always makes progress); while catching up the
    // budget clamped to [catch_up_slice_ns, catch_up_call_max_ns]. Checks every applied tick's digest; sends acks, pings and
    // pending steers. Returns the number of ticks applied.
    uint32_t advance(int64_t now, int64_t budget_ns);

    void on_suspend(int64_t now);
    void on_resume(int64_t now);

    // The person's steer target; sent as an InputMsg (next sequence) at most once per
    // steer_interval_ticks ticks. Ignored for a watcher and before the welcome.
    void steer(Vec2 target, int64_t now);

    RenderView render_view(int64_t now) const;
    SessionFigures figures() const;
    // The replay file of what this session received: header, Welcome, Baselines and Frames
    // in order, Sections. Frames discarded while waiting for a baseline are not in it, so a
    // gap in its frames is always followed by a Baseline.
    std::vector<uint8_t> export_replay() const;

    // Debug: flips the low bit of the world's capture count, so the next applied tick's
    // digest (its scores section) disagrees with the room's.
    void corrupt_once_for_testing();
    const std::optional<world::World>& confirmed_world() const { return world_; }

    // For a predicting layer drawn over the confirmed world (tandem/client/predicted_world.hpp).
    // Once asked to, the session keeps each verified tick's inputs until take_verified()
    // collects them, in tick order; a dropped or replaced world empties the list and bumps
    // world_epoch(), so a reader knows the ticks it followed no longer lead to this world.
    struct VerifiedTick {
        uint64_t tick = 0;
        std::vector<AppliedInput> inputs;
    };
    void keep_verified(bool on);
    void take_verified(std::vector<VerifiedTick>& out);
    uint64_t world_epoch() const { return world_epoch_; }
    // The newest steer sent, with its sequence (the room echoes it in the frame it lands on).
    std::optional<InputMsg> last_input_sent() const { return last_input_sent_; }
    int64_t step_cost_ns() const { return step_cost_ns_; }

private:
    struct PendingFrame {
        Frame frame;
        uint64_t bytes;
    };
    void queue(std::vector<uint8_t> bytes);
    template <class M>
    void send(const M& message);
    void on_frame(Frame&& frame, std::span<const uint8_t> bytes, int64_t now);
    void on_baseline(const Baseline& baseline, std::span<const uint8_t> bytes, int64_t now);
    void on_sections(const Sections& sections, std::span<const uint8_t> bytes);
    void record(std::span<const uint8_t> bytes);
    void drop_world_and_resync(int64_t now);
    void close_resume(int64_t now);
    void decide_resume(int64_t now, int64_t away_ns, uint64_t missed_estimate);
    bool step_one(int64_t now);
    void maybe_ack(int64_t now);
    void send_ack(int64_t now);
    void maybe_ping(int64_t now);
    void maybe_send_steer(int64_t now);
    int64_t tick_ns() const;

    Role role_;
    int64_t (*clock_)() = nullptr;
    int64_t step_cost_ns_ = assumed_step_cost_ns;
    bool cost_measured_ = false;

    bool connected_ = false;
    bool welcomed_ = false;
    bool awaiting_baseline_ = false;
    uint32_t player_ = watcher_id;
    world::WorldConfig config_ = world::default_config();
    std::optional<world::World> world_;
    world::Stepper stepper_;
    std::deque<PendingFrame> frames_;
    uint64_t last_queued_tick_ = 0;   // the tick the next frame must follow (world or queue)
    uint64_t verified_digest_ = 0;    // the room's digest at figures_.verified_tick
    bool events_valid_ = false;       // the stepper's events belong to the world held
    bool keep_verified_ = false;
    std::vector<VerifiedTick> verified_;
    uint64_t world_epoch_ = 0;
    std::optional<InputMsg> last_input_sent_;

    // Render: the positions before the last step and when it was applied.
    std::vector<Vec2> pellets_prev_;
    std::vector<RenderWell> wells_prev_;
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

    // Steering.
    uint32_t next_sequence_ = 1;
    std::optional<Vec2> pending_steer_;
    std::optional<Vec2> last_sent_steer_;
    int64_t last_steer_sent_at_ = 0;
    bool steered_once_ = false;

    // Resume and mismatch state.
    bool suspended_ = false;
    int64_t suspended_at_ = 0;
    bool catching_up_ = false;
    uint64_t catch_up_target_tick_ = 0;
    uint64_t suspend_server_tick_ = 0;
    bool resume_open_ = false;          // a decision whose "until verified" is still running
    int64_t resume_decided_at_ = 0;
    int64_t last_advance_at_ = 0;
    std::optional<Desync> pending_desync_;

    // Reconnect.
    uint32_t reconnect_attempts_ = 0;
    bool refused_for_good_ = false;

    std::vector<std::vector<uint8_t>> outgoing_;
    std::vector<uint8_t> replay_;
    bool replay_full_ = false;
    bool welcome_recorded_ = false;
    RateMeter in_rate_;
    RateMeter out_rate_;
    SessionFigures figures_;
};

}  // namespace tandem::net
