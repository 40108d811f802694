// TickLoop: the grid arithmetic and the frame-budget check. Wall-clock instants are
// arbitrary int64_t values, so differences are taken in uint64_t where they cannot
// overflow; every ordered container here is a vector with an order we choose.
#include "tandem/core/tick_loop.hpp"

#include <algorithm>

namespace tandem {

Result<TickLoop, TimeError> TickLoop::create(const TickLoopConfig& config, int64_t anchor_ns) {
    if (config.step_ns <= 0) return TimeError::step_not_positive;
    if (config.step_ns > longest_duration_ns) return TimeError::step_too_long;
    if (config.max_catch_up_steps == 0) return TimeError::catch_up_zero;
    if (config.budget_window == 0 || config.budget_window > largest_budget_window) {
        return TimeError::budget_window_out_of_range;
    }
    const FrameBudget budget{
        .p99_ns = config.budget_p99_ns.value_or(config.step_ns),
        // step <= 2^60, so two steps cannot overflow.
        .hard_max_ns = config.budget_hard_max_ns.value_or(2 * config.step_ns),
    };
    if (budget.p99_ns <= 0 || budget.hard_max_ns <= 0) return TimeError::budget_not_positive;
    return TickLoop(config, budget, anchor_ns);
}

TickLoop::TickLoop(const TickLoopConfig& config, FrameBudget budget, int64_t anchor_ns)
    : step_ns_(config.step_ns),
      max_catch_up_steps_(config.max_catch_up_steps),
      budget_(budget),
      budget_window_(config.budget_window),
      last_boundary_ns_(anchor_ns) {}

TickAdvance TickLoop::advance(int64_t now_ns) {
    if (now_ns < last_boundary_ns_) {
        // Running the world in reverse is never right, and quietly waiting for the clock
        // to catch up again would freeze the server for as long as the jump was. Re-anchor
        // at the new instant and count it, so the jump is visible rather than lost time.
        ++clock_rollbacks_;
        last_boundary_ns_ = now_ns;
        last_drift_ns_ = 0;
        return TickAdvance{.clock_went_back = true};
    }

    // now >= last, so the difference fits in uint64_t whatever the two values are.
    const uint64_t elapsed = static_cast<uint64_t>(now_ns) - static_cast<uint64_t>(last_boundary_ns_);
    const uint64_t step = static_cast<uint64_t>(step_ns_);
    const uint64_t due = elapsed / step;

    TickAdvance result;
    result.executed = std::min<uint64_t>(due, max_catch_up_steps_);
    result.dropped = due - result.executed;

    // Consume every due boundary, dropped ones included: only the sub-step remainder is
    // left as drift, so the grid stays anchor + k * step and a backlog never shifts it.
    // last + due * step lies in [last, now], so the sum is exact in two's complement.
    last_boundary_ns_ = static_cast<int64_t>(static_cast<uint64_t>(last_boundary_ns_) + due * step);
    last_drift_ns_ = static_cast<int64_t>(elapsed - due * step);

    // Saturate rather than wrap: at 2^64 ticks the tick must still not move backwards.
    tick_ = tick_ > UINT64_MAX - result.executed ? UINT64_MAX : tick_ + result.executed;
    dropped_steps_ = dropped_steps_ > UINT64_MAX - result.dropped ? UINT64_MAX : dropped_steps_ + result.dropped;
    return result;
}

uint64_t TickLoop::catch_up_steps_for(int64_t elapsed_ns) const {
    if (elapsed_ns <= 0) return 0;
    return std::min<uint64_t>(static_cast<uint64_t>(elapsed_ns / step_ns_), max_catch_up_steps_);
}

int64_t TickLoop::saturating_next_boundary() const {
    return last_boundary_ns_ > INT64_MAX - step_ns_ ? INT64_MAX : last_boundary_ns_ + step_ns_;
}

int64_t TickLoop::drift_ns(int64_t now_ns) const {
    if (now_ns <= last_boundary_ns_) return 0;
    const uint64_t drift = static_cast<uint64_t>(now_ns) - static_cast<uint64_t>(last_boundary_ns_);
    return drift > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(drift);
}

void TickLoop::record_step_duration_ns(int64_t duration_ns) {
    const int64_t recorded = duration_ns < 0 ? 0 : duration_ns;
    if (durations_ns_.size() < budget_window_) {
        durations_ns_.push_back(recorded);
    } else {
        durations_ns_[next_slot_] = recorded;
    }
    next_slot_ = next_slot_ + 1 == budget_window_ ? 0 : next_slot_ + 1;
    ++recorded_steps_;
}

std::vector<int64_t> TickLoop::window_oldest_first() const {
    std::vector<int64_t> ordered;
    ordered.reserve(durations_ns_.size());
    if (durations_ns_.size() < budget_window_) {
        // Not yet wrapped: insertion order is age order.
        ordered = durations_ns_;
    } else {
        ordered.insert(ordered.end(), durations_ns_.begin() + next_slot_, durations_ns_.end());
        ordered.insert(ordered.end(), durations_ns_.begin(), durations_ns_.begin() + next_slot_);
    }
    return ordered;
}

FrameStats TickLoop::frame_stats() const {
    FrameStats stats;
    stats.samples = durations_ns_.size();
    if (durations_ns_.empty()) return stats;
    std::vector<int64_t> sorted = durations_ns_;
    // Plain integers: equal values are indistinguishable, so the unstable sort cannot
    // leave a library-chosen order anywhere that matters.
    std::sort(sorted.begin(), sorted.end());
    // Nearest rank: the ceil(0.99 * n)-th smallest, 1-based.
    const uint64_t n = sorted.size();
    const uint64_t rank = (99 * n + 99) / 100;
    stats.p99_ns = sorted[static_cast<uint32_t>(rank - 1)];
    stats.worst_ns = sorted.back();
    return stats;
}

std::vector<FrameViolation> TickLoop::frame_violations() const {
    std::vector<FrameViolation> violations;
    const std::vector<int64_t> window = window_oldest_first();
    const uint64_t first_sequence = recorded_steps_ - window.size();
    for (uint32_t i = 0; i < window.size(); ++i) {
        if (window[i] > budget_.hard_max_ns) {
            violations.push_back({FrameBudgetBreach::step_over_hard_max, window[i], budget_.hard_max_ns,
                                  first_sequence + i});
        }
    }
    const FrameStats stats = frame_stats();
    if (stats.samples > 0 && stats.p99_ns > budget_.p99_ns) {
        violations.push_back({FrameBudgetBreach::p99_over_budget, stats.p99_ns, budget_.p99_ns,
                              recorded_steps_ - 1});
    }
    return violations;
}

}  // namespace tandem
