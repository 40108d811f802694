// The server's tick clock: turns wall-clock instants (passed in, never read here) into a
// count of fixed simulation steps on a grid anchored at one instant, and judges how long
// each step took against a frame budget. It must never run the world backwards, never let
// a backlog shift the step grid, and never hide a stall, a drop or a clock jump.
#pragma once

#include "tandem/core/timestep.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace tandem {

// The step durations kept for the budget check, at most. The check is over a recent
// window, not the whole run: a server lives for weeks and its memory must stay bounded.
inline constexpr uint32_t largest_budget_window = uint32_t{1} << 20;

// Every knob of a TickLoop in one place, with its default.
struct TickLoopConfig {
    // The fixed step: 30 Hz by default, to the nanosecond (step_ns_for_hz).
    int64_t step_ns = step_ns_for_hz(30);
    // The most steps one advance may ask the caller to execute. A stall longer than this
    // is not worked off in one burst (that burst would itself overrun, and the next one
    // more so); the surplus steps are dropped and counted.
    uint32_t max_catch_up_steps = 8;
    // The frame budget each executed step is judged against. Defaults: the 99th percentile
    // must fit in one step (or the loop cannot keep up on average), and no single step may
    // take more than two (past that a player sees the hitch).
    std::optional<int64_t> budget_p99_ns = std::nullopt;
    std::optional<int64_t> budget_hard_max_ns = std::nullopt;
    // How many recent step durations the budget check looks at.
    uint32_t budget_window = 1024;
};

// What one advance decided.
struct TickAdvance {
    uint64_t executed = 0;        // steps the caller must now simulate, in order
    uint64_t dropped = 0;         // due steps skipped because they exceeded the catch-up cap
    bool clock_went_back = false; // now was before the anchor: nothing ran, the loop re-anchored
    friend bool operator==(const TickAdvance&, const TickAdvance&) = default;
};

struct FrameBudget {
    int64_t p99_ns = 0;
    int64_t hard_max_ns = 0;
    friend bool operator==(const FrameBudget&, const FrameBudget&) = default;
};

enum class FrameBudgetBreach : uint8_t {
    step_over_hard_max,  // one step took longer than the hard max
    p99_over_budget,     // the window's 99th percentile is over the p99 budget
};

struct FrameViolation {
    FrameBudgetBreach breach = FrameBudgetBreach::step_over_hard_max;
    int64_t observed_ns = 0;
    int64_t limit_ns = 0;
    // For step_over_hard_max, which recorded step it was (0 = the first of the session);
    // for p99_over_budget, the newest step in the window the percentile was taken over.
    uint64_t step_sequence = 0;
    friend bool operator==(const FrameViolation&, const FrameViolation&) = default;
};

// The window's figures. p99 is nearest-rank: the smallest recorded duration that at least
// 99% of the window is at or below.
struct FrameStats {
    uint64_t samples = 0;
    int64_t p99_ns = 0;
    int64_t worst_ns = 0;
    friend bool operator==(const FrameStats&, const FrameStats&) = default;
};

// Wall-clock anchored fixed steps. `advance(now)` answers "which step boundaries has wall
// time passed since last time", unlike sleeping a step per loop (which drifts by however
// long each step and each wake-up took) or counting elapsed / step from the previous call
// (which loses the remainder every time). The grid is anchor + k * step, forever:
//  - every due boundary is consumed, even the dropped ones, so only the sub-step remainder
//    survives as drift and a backlog never shifts the phase of later steps;
//  - the logical tick only counts executed steps and never decreases;
//  - a clock that jumps back does not run the world in reverse: the loop re-anchors at the
//    new instant and counts the rollback, so a caller can alert instead of losing time.
class TickLoop {
public:
    // A loop whose step grid starts at anchor_ns (any monotonic or wall-clock origin).
    static Result<TickLoop, TimeError> create(const TickLoopConfig& config, int64_t anchor_ns);

    // Moves the loop up to wall-clock instant now_ns.
    TickAdvance advance(int64_t now_ns);

    // How many steps an elapsed duration is worth under the catch-up cap, without moving
    // the loop: a what-if for schedulers and tests.
    uint64_t catch_up_steps_for(int64_t elapsed_ns) const;

    // The logical world tick: steps executed since the anchor. Never moves backwards.
    uint64_t tick() const { return tick_; }
    // Steps dropped by the catch-up cap, in total.
    uint64_t dropped_steps() const { return dropped_steps_; }
    // Times the clock was seen to jump backwards.
    uint64_t clock_rollbacks() const { return clock_rollbacks_; }

    // The start of the next unexecuted step on the grid; a server sleeps until this.
    int64_t next_boundary_ns() const { return saturating_next_boundary(); }
    // The last consumed boundary: the anchor plus every due step, run or dropped.
    int64_t last_boundary_ns() const { return last_boundary_ns_; }
    // From the last consumed boundary to now: in [0, step) right after advance(now). Zero
    // if now is before it (that is a rollback, which the next advance will count).
    int64_t drift_ns(int64_t now_ns) const;
    // The drift the last advance left; what the next advance carries instead of a fresh
    // interval, which is why the loop does not slip by a remainder per call.
    int64_t last_drift_ns() const { return last_drift_ns_; }

    int64_t step_ns() const { return step_ns_; }
    uint32_t max_catch_up_steps() const { return max_catch_up_steps_; }
    FrameBudget budget() const { return budget_; }

    // Feeds one measured step duration (the caller times its own step; this file reads no
    // clock). Negative durations, from a clock that jumped mid-step, are recorded as zero.
    void record_step_duration_ns(int64_t duration_ns);
    // Step durations recorded in the session, including those that left the window.
    uint64_t recorded_steps() const { return recorded_steps_; }

    FrameStats frame_stats() const;
    // Every step in the window over the hard max, oldest first, then the p99 breach if the
    // window's percentile is over budget. Empty when the loop is within budget.
    std::vector<FrameViolation> frame_violations() const;

private:
    TickLoop(const TickLoopConfig& config, FrameBudget budget, int64_t anchor_ns);
    int64_t saturating_next_boundary() const;
    // The window's durations, oldest first.
    std::vector<int64_t> window_oldest_first() const;

    int64_t step_ns_;
    uint32_t max_catch_up_steps_;
    FrameBudget budget_;
    uint32_t budget_window_;

    int64_t last_boundary_ns_;
    int64_t last_drift_ns_ = 0;
    uint64_t tick_ = 0;
    uint64_t dropped_steps_ = 0;
    uint64_t clock_rollbacks_ = 0;

    // A ring of the last budget_window_ durations; next_slot_ is where the next one goes.
    std::vector<int64_t> durations_ns_;
    uint32_t next_slot_ = 0;
    uint64_t recorded_steps_ = 0;
};

}  // namespace tandem
