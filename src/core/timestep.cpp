// FixedTimestep and Periodic: the accumulator arithmetic, in integer nanoseconds, with every
// sum bounded so it cannot overflow. Nothing here reads a clock or keeps a float.
#include "tandem/core/timestep.hpp"

namespace tandem {

namespace {

// a + b for non-negative a and b, saturating at INT64_MAX. Ledgers that run for a whole
// session use it: a total that stops growing is wrong by a little, one that wraps is
// wrong by everything.
int64_t saturating_add(int64_t a, int64_t b) {
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

Result<void, TimeError> check_step(int64_t step_ns) {
    if (step_ns <= 0) return TimeError::step_not_positive;
    if (step_ns > longest_duration_ns) return TimeError::step_too_long;
    return {};
}

Result<void, TimeError> check_max_frame(int64_t max_frame_ns) {
    if (max_frame_ns <= 0) return TimeError::max_frame_not_positive;
    if (max_frame_ns > longest_duration_ns) return TimeError::max_frame_too_long;
    return {};
}

bool rate_in_range(int32_t hz) { return hz >= lowest_rate_hz && hz <= highest_rate_hz; }

}  // namespace

int64_t elapsed_ns_from_ms_f64(double elapsed_ms) {
    // !(x > 0) also catches NaN. The multiply and the add are single IEEE operations, so
    // every build rounds them identically; the bound keeps the cast to int64_t defined.
    if (!(elapsed_ms > 0.0)) return 0;
    const double ns = elapsed_ms * 1e6;
    if (!(ns < static_cast<double>(longest_duration_ns))) return longest_duration_ns;
    return static_cast<int64_t>(ns + 0.5);
}

std::string_view error_name(TimeError error) {
    switch (error) {
        case TimeError::step_not_positive: return "step_not_positive";
        case TimeError::step_too_long: return "step_too_long";
        case TimeError::rate_out_of_range: return "rate_out_of_range";
        case TimeError::max_frame_not_positive: return "max_frame_not_positive";
        case TimeError::max_frame_too_long: return "max_frame_too_long";
        case TimeError::max_steps_zero: return "max_steps_zero";
        case TimeError::catch_up_zero: return "catch_up_zero";
        case TimeError::budget_not_positive: return "budget_not_positive";
        case TimeError::budget_window_out_of_range: return "budget_window_out_of_range";
    }
    return "unknown_time_error";
}

std::string_view describe(TimeError error) {
    switch (error) {
        case TimeError::step_not_positive:
            return "a fixed step must be longer than zero: a zero step would make every frame an infinite loop";
        case TimeError::step_too_long:
            return "a fixed step or interval must be at most 2^60 ns (about 36 years)";
        case TimeError::rate_out_of_range:
            return "a rate must be between 1 and 1000 Hz";
        case TimeError::max_frame_not_positive:
            return "the catch-up cap (max frame) must be longer than zero: a zero cap would drop every frame";
        case TimeError::max_frame_too_long:
            return "the catch-up cap (max frame) must be at most 2^60 ns (about 36 years)";
        case TimeError::max_steps_zero:
            return "the catch-up cap in steps must allow at least one step per advance";
        case TimeError::catch_up_zero:
            return "a tick loop must be allowed to execute at least one step per advance";
        case TimeError::budget_not_positive:
            return "a frame budget (p99 and hard max) must be longer than zero";
        case TimeError::budget_window_out_of_range:
            return "the frame budget window must hold between 1 and 1048576 step durations";
    }
    return "unknown time error";
}


// ---- FixedTimestep -----------------------------------------------------------------------

Result<FixedTimestep, TimeError> FixedTimestep::create(const FixedTimestepConfig& config) {
    if (auto checked = check_step(config.step_ns); !checked) return checked.error();
    if (auto checked = check_max_frame(config.max_frame_ns); !checked) return checked.error();
    if (config.max_steps && *config.max_steps == 0) return TimeError::max_steps_zero;
    return FixedTimestep(config);
}

Result<FixedTimestep, TimeError> FixedTimestep::from_step_ns(int64_t step_ns) {
    return create(FixedTimestepConfig{.step_ns = step_ns});
}

Result<FixedTimestep, TimeError> FixedTimestep::from_step_ms(int64_t step_ms) {
    return from_step_ns(ns_from_ms(step_ms));
}

Result<FixedTimestep, TimeError> FixedTimestep::from_hz(int32_t hz) {
    if (!rate_in_range(hz)) return TimeError::rate_out_of_range;
    return from_step_ns(step_ns_for_hz(hz));
}

// The copies keep the running state (pending, dropped): changing a cap is not a new session.
Result<FixedTimestep, TimeError> FixedTimestep::with_max_frame_ns(int64_t max_frame_ns) const {
    if (auto checked = check_max_frame(max_frame_ns); !checked) return checked.error();
    FixedTimestep copy = *this;
    copy.max_frame_ns_ = max_frame_ns;
    return copy;
}

Result<FixedTimestep, TimeError> FixedTimestep::with_max_frame_ms(int64_t max_frame_ms) const {
    return with_max_frame_ns(ns_from_ms(max_frame_ms));
}

Result<FixedTimestep, TimeError> FixedTimestep::with_max_steps(uint32_t max_steps) const {
    if (max_steps == 0) return TimeError::max_steps_zero;
    FixedTimestep copy = *this;
    copy.max_steps_ = max_steps;
    return copy;
}

Steps FixedTimestep::advance_ns(int64_t elapsed_ns) {
    if (elapsed_ns < 0) elapsed_ns = 0;

    // The time cap: refuse to owe more than max_frame of catch-up in one call.
    const int64_t accepted_ns = elapsed_ns < max_frame_ns_ ? elapsed_ns : max_frame_ns_;
    dropped_ns_ = saturating_add(dropped_ns_, elapsed_ns - accepted_ns);

    // pending <= longest_duration_ns (set_step may leave it above the new step, never above
    // the old one) and accepted <= longest_duration_ns, so the sum is below 2^61.
    pending_ns_ += accepted_ns;
    const uint64_t due = static_cast<uint64_t>(pending_ns_ / step_ns_);
    // Subtract, never zero: the remainder is what keeps the average rate exact.
    pending_ns_ -= static_cast<int64_t>(due) * step_ns_;

    // The step cap: whole steps beyond it are dropped, the sub-step remainder is kept.
    uint64_t paid = due;
    if (max_steps_ && paid > *max_steps_) {
        paid = *max_steps_;
        dropped_ns_ = saturating_add(dropped_ns_, static_cast<int64_t>(due - paid) * step_ns_);
    }
    return Steps(paid, step_ns_);
}

Result<void, TimeError> FixedTimestep::set_step_ns(int64_t step_ns) {
    auto checked = check_step(step_ns);
    if (checked) step_ns_ = step_ns;
    return checked;
}

Fx FixedTimestep::step_seconds() const {
    // step * 2^16 / 1e9, rounded to nearest (halves up). step <= 2^60 would overflow the
    // shift, so split the step into whole seconds and the sub-second rest first.
    const int64_t whole_seconds = step_ns_ / ns_per_second;
    const int64_t rest_ns = step_ns_ % ns_per_second;  // < 2^30, so rest << 16 < 2^46
    const int64_t rest_raw = ((rest_ns << Fx::frac_bits) + ns_per_second / 2) / ns_per_second;
    if (whole_seconds > 32767) return Fx::max();
    const int64_t raw = (whole_seconds << Fx::frac_bits) + rest_raw;
    return raw > INT32_MAX ? Fx::max() : Fx::from_raw(static_cast<int32_t>(raw));
}

Fx FixedTimestep::alpha() const {
    if (pending_ns_ >= step_ns_) return Fx::from_raw(Fx::one_raw - 1);
    // floor(pending * 2^16 / step) by binary long division: pending * 2^16 can exceed
    // int64_t for long steps, and 128-bit integers do not exist on every target (i686).
    // The remainder stays below step <= 2^60, so doubling it never overflows.
    int64_t remainder = pending_ns_;
    int32_t raw = 0;
    for (int bit = 0; bit < Fx::frac_bits; ++bit) {
        remainder <<= 1;
        raw <<= 1;
        if (remainder >= step_ns_) {
            remainder -= step_ns_;
            raw |= 1;
        }
    }
    return Fx::from_raw(raw);
}

float FixedTimestep::alpha_f32() const {
    // raw < 2^16 fits a float's 24-bit significand and the divide is by a power of two:
    // exact, so this can never round up to 1.0.
    return static_cast<float>(alpha().raw()) / 65536.0f;
}

// ---- Periodic ----------------------------------------------------------------------------

Result<Periodic, TimeError> Periodic::from_interval_ns(int64_t interval_ns) {
    if (auto checked = check_step(interval_ns); !checked) return checked.error();
    return Periodic(interval_ns);
}

Result<Periodic, TimeError> Periodic::from_interval_ms(int64_t interval_ms) {
    return from_interval_ns(ns_from_ms(interval_ms));
}

Result<Periodic, TimeError> Periodic::from_hz(int32_t hz) {
    if (!rate_in_range(hz)) return TimeError::rate_out_of_range;
    return from_interval_ns(step_ns_for_hz(hz));
}

void Periodic::accumulate(int64_t elapsed_ns) {
    if (elapsed_ns > 0) pending_ns_ = saturating_add(pending_ns_, elapsed_ns);
}

bool Periodic::due_ns(int64_t elapsed_ns) {
    accumulate(elapsed_ns);
    if (pending_ns_ < interval_ns_) return false;
    // One interval only: the rest is kept and repaid on later calls, so the phase holds.
    pending_ns_ -= interval_ns_;
    return true;
}

uint64_t Periodic::advance_ns(int64_t elapsed_ns) {
    accumulate(elapsed_ns);
    const int64_t count = pending_ns_ / interval_ns_;
    pending_ns_ -= count * interval_ns_;
    return static_cast<uint64_t>(count);
}

Result<void, TimeError> Periodic::set_interval_ns(int64_t interval_ns) {
    auto checked = check_step(interval_ns);
    if (checked) interval_ns_ = interval_ns;
    return checked;
}

}  // namespace tandem
