// PredictedWorld: predict-and-rollback drawn over a ClientSession. It runs a copy of the
// confirmed world ahead of the confirmed tick with this player's own steers applied at once
// (on the tick they are expected to land on) and everybody else's held (the world keeps each
// well's last target), and when verified ticks arrive whose inputs differ from what it
// predicted, it rolls back to the newest confirmed world and re-simulates up to the predicted
// tick, over as many updates as its time budget needs while the old prediction stays on
// screen. The confirmed world stays the only verified one; nothing here goes on the wire (the
// session sends the steers). Wells' visible corrections are eased with AdaptiveDecay (floats,
// presentation only) and judged by a CorrectionMonitor.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/net/rate_meter.hpp"
#include "tandem/predict/smoothing.hpp"
#include "tandem/world/world.hpp"

namespace tandem::client {

struct PredictConfig {
    // The most ticks the predicted world may run ahead of the confirmed one.
    uint32_t window_ticks = 12;
    // The most predicted-world steps one update may run (a rollback's re-simulation plus the
    // steps forward): bounds a frame's cost. At least window_ticks, so that a rollback always
    // reaches the tick that was on screen and the picture never goes back in time.
    uint32_t resim_budget_ticks = 16;
    // With a clock set (set_clock), a rollback's re-simulation stops before the next step would
    // take the update's predicted steps (forward and re-simulation) past this (0: no time
    // limit), judged by the measured cost of a step; a rollback that can land in this update
    // is judged by the steps it adds to those the shown world would make anyway (it replaces
    // them) and then runs whole. A rollback that does not fit is spread over
    // several updates: the old prediction stays on screen (and keeps its depth) while a copy of
    // the confirmed world catches up with it, and replaces it when it reaches the shown tick. Without a clock only
    // the tick budget holds, so a run without a clock decides the same everywhere.
    int64_t resim_budget_ns = 2'500'000;
    // The depth used until the first own input comes back in a frame (then measured).
    uint32_t initial_depth_ticks = 6;
    // The corrections' decay (arena units): a small offset fades slowly, a large one fast.
    predict::AdaptiveDecay decay{2.0f, 0.95f, 16.0f, 0.85f};
};

inline constexpr uint32_t max_window_ticks = 64;
inline constexpr uint32_t max_resim_budget_ticks = 1024;

enum class PredictConfigError : uint8_t {
    window_too_large,      // window_ticks above max_window_ticks
    budget_below_window,   // resim_budget_ticks below window_ticks (or above the maximum)
    depth_above_window,    // initial_depth_ticks above window_ticks
};
std::string_view error_name(PredictConfigError e);
std::string_view describe(PredictConfigError e);

// How many samples of lead (sent-to-landed ticks) the depth is the median of, and how many
// frames the per-frame re-simulation percentile covers.
inline constexpr uint32_t lead_samples = 9;
inline constexpr uint32_t resim_history = 256;

struct PredictionFigures {
    bool active = false;               // a predicted world is held
    uint64_t predicted_tick = 0;
    uint64_t confirmed_tick = 0;
    uint32_t depth_ticks = 0;          // predicted_tick - confirmed_tick
    uint32_t target_depth_ticks = 0;   // the depth it aims at: the measured lead, within the window
    uint32_t lead_samples = 0;         // own inputs seen landing (what the depth is measured from)
    uint64_t rollbacks = 0;            // verified ticks that contradicted the prediction
    uint64_t rollbacks_per_sec = 0;    // over the session clock's last 8 s
    uint64_t resimulated_ticks = 0;    // steps re-run by rollbacks (ticks already shown), in all
    uint32_t resim_ticks_last = 0;     // in the last frame (see end_frame)
    uint32_t resim_ticks_p99 = 0;      // over the last resim_history frames
    int64_t resim_ns_p99 = -1;         // the same, timed (-1 without a clock)
    int64_t resim_ns_max = -1;
    // Every predicted step of a frame (forward and re-simulation), timed: p99 and the largest
    // over the last resim_history frames (-1 without a clock).
    int64_t steps_ns_p99 = -1;
    int64_t steps_ns_max = -1;
    uint64_t budget_cuts = 0;          // updates that stopped short of the target tick
    bool catching_up = false;          // a rollback's re-simulation is in flight
    uint32_t rollback_updates_last = 0;   // updates the last rollback's re-simulation took
    uint32_t rollback_updates_max = 0;
    uint64_t resets = 0;               // the predicted world rebuilt from a new or lost world
    // Of the resets, those because the confirmed world had gone past the prediction (a frame
    // verified more ticks than the depth), and the most ticks it was past by.
    uint64_t resets_behind = 0;
    uint32_t behind_ticks_max = 0;
    uint64_t rollbacks_dropped = 0;    // re-simulations abandoned before landing (restarted or reset)
    uint64_t corrections = 0;          // wells drawn somewhere else after a rollback
    uint64_t monitor_alarms = 0;       // corrections the CorrectionMonitor called abnormal
    float last_correction = 0.0f;      // arena units
    uint32_t pending_inputs = 0;       // own steers sent and not yet verified
};

// A well's drawn offset from its predicted position (arena units, presentation only): draw
// the view's position plus this.
struct WellOffset {
    uint32_t player = 0;
    float dx = 0.0f, dy = 0.0f;
};

struct PredictedView {
    net::RenderView view;              // the predicted world, exact (Fx), with the confirmed events
    std::vector<WellOffset> offsets;   // the corrections still being eased
    uint64_t confirmed_tick = 0;
};

class PredictedWorld {
public:
    static Result<PredictedWorld, PredictConfigError> create(PredictConfig config = {});

    // The clock that times re-simulation (the figures' resim_ns); it decides nothing.
    void set_clock(int64_t (*now_ns)()) { clock_ = now_ns; }

    // After every call that may have changed the session (advance, steer, receive): follows
    // the ticks it verified and the steer it sent, rolls back when the prediction was wrong,
    // and runs forward toward the confirmed tick plus the depth, within the budget.
    void update(net::ClientSession& session, int64_t now);
    // Closes one frame of the page (after the update that follows advance): the re-simulation
    // since the previous call becomes one sample of the per-frame figures.
    void end_frame();

    PredictedView render_view(const net::ClientSession& session, int64_t now) const;
    PredictionFigures figures() const;
    const std::optional<world::World>& world() const { return shown_.world; }
    const PredictConfig& config() const { return config_; }

private:
    explicit PredictedWorld(PredictConfig config) : config_(config) {}

    struct Pending {   // an own steer sent, not yet in a verified tick
        uint32_t sequence;
        Vec2 target;
        uint64_t lands;            // the predicted step it is applied on (the tick it produces)
        uint64_t confirmed_at_send;
    };
    struct Used {      // the inputs a predicted tick was stepped with
        uint64_t tick;
        std::vector<world::Input> inputs;
    };

    // A predicted world and what goes with it: the inputs each unverified tick was stepped
    // with, the newest own steer applied, and the positions before its last step (drawn).
    struct Line {
        std::optional<world::World> world;
        std::deque<Used> used;             // ticks confirmed_tick + 1 .. world->tick
        uint32_t applied_sequence = 0;
        std::vector<Vec2> pellets_prev;
        std::vector<net::RenderWell> wells_prev;
        int64_t last_step_at = 0;
    };

    void reset_to(Line& line, const world::World& confirmed, uint32_t own_sequence);
    int64_t step_line(Line& line, int64_t now);   // returns the step's time (0 without a clock)
    uint32_t target_depth() const;
    void ease(int64_t now);

    PredictConfig config_;
    int64_t (*clock_)() = nullptr;
    int64_t step_cost_ns_ = 0;         // a predicted step's measured cost (moving average)
    world::Stepper stepper_;
    Line shown_;                       // the predicted world drawn
    // A rollback's re-simulation in flight: a copy of a confirmed world stepped toward the
    // shown tick; it becomes shown_ when it gets there. Its storage is reused.
    Line catchup_;
    bool catching_up_ = false;
    bool catchup_stale_ = false;       // a verified tick since it started contradicts it too
    bool shown_wrong_ = false;         // a verified tick contradicted shown_: a rollback is due
    uint32_t catchup_updates_ = 0;
    std::vector<Pending> pending_;
    uint32_t verified_sequence_ = 0;   // the newest own steer a verified tick carried
    uint32_t last_seen_sent_ = 0;
    uint64_t epoch_ = 0;
    bool following_ = false;
    uint32_t player_ = net::watcher_id;
    std::vector<net::ClientSession::VerifiedTick> verified_;   // reused

    // Depth: the median of the last lead samples (landed tick - confirmed tick at send).
    std::array<uint32_t, lead_samples> leads_{};
    uint32_t lead_count_ = 0;

    // Corrections.
    struct Offset {
        uint32_t player;
        float dx, dy;
    };
    std::vector<Offset> offsets_;
    int64_t last_update_at_ = 0;
    bool updated_once_ = false;
    predict::CorrectionMonitor monitor_ = predict::CorrectionMonitor().with_floor(0.01f);

    // Figures.
    net::RateMeter rollback_rate_;
    std::array<uint32_t, resim_history> resim_ticks_{};
    std::array<int64_t, resim_history> resim_ns_{};
    uint32_t resim_count_ = 0;
    uint32_t frame_resim_ticks_ = 0;
    int64_t frame_resim_ns_ = 0;
    std::array<int64_t, resim_history> steps_ns_{};
    int64_t frame_steps_ns_ = 0;
    PredictionFigures figures_;
};

}  // namespace tandem::client
