// Spending elapsed real time as whole fixed simulation steps (FixedTimestep), and firing
// something on a period (Periodic). Pure: time is always passed in, nothing here reads a
// clock, and all state is integer nanoseconds so every build pays out the same steps.
// Never zero the carried remainder and never let a caller step by the frame delta.
#pragma once

#include "tandem/core/fixed.hpp"
#include "tandem/core/result.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tandem {

// ---- Units -------------------------------------------------------------------------------
//
// Time is int64_t nanoseconds everywhere inside. Milliseconds are how the edges speak (the
// browser's performance.now(), a config file), so every entry point has an _ms twin that
// converts exactly (integer ms -> ns) and saturates instead of overflowing.

inline constexpr int64_t ns_per_ms = 1'000'000;
inline constexpr int64_t ns_per_second = 1'000'000'000;

// The longest step, interval or catch-up cap accepted: 2^60 ns, about 36 years. Bounding
// them keeps every accumulator below 2^61, so no sum of two of them can overflow.
inline constexpr int64_t longest_duration_ns = int64_t{1} << 60;

// The slowest and fastest rates from_hz accepts. Above 1000 Hz a step is shorter than the
// millisecond the browser reports elapsed time in, which is not a loop anyone can drive.
inline constexpr int32_t lowest_rate_hz = 1;
inline constexpr int32_t highest_rate_hz = 1000;

// Integer milliseconds to nanoseconds, saturating at the int64_t range.
constexpr int64_t ns_from_ms(int64_t ms) {
    if (ms > INT64_MAX / ns_per_ms) return INT64_MAX;
    if (ms < INT64_MIN / ns_per_ms) return INT64_MIN;
    return ms * ns_per_ms;
}

// Nanoseconds to whole milliseconds, rounded toward negative infinity (a count of time
// already spent, never rounded up into time that has not passed).
constexpr int64_t whole_ms_from_ns(int64_t ns) {
    const int64_t q = ns / ns_per_ms;
    return (ns % ns_per_ms < 0) ? q - 1 : q;
}

// The step of a rate, rounded to the nearest nanosecond (halves round up):
// (1e9 + hz/2) / hz. 60 Hz is 16'666'667 ns, 30 Hz is 33'333'333 ns. This one integer
// expression is the definition of "a rate" for every type in tandem, server and browser
// alike, so both ends of a wire agree on the step exactly as long as they agree on the rate.
// Total: a rate <= 0 gives 0, which every factory then refuses as a non-positive step.
constexpr int64_t step_ns_for_hz(int32_t hz) {
    if (hz <= 0) return 0;
    return (ns_per_second + hz / 2) / hz;
}
static_assert(step_ns_for_hz(60) == 16'666'667);
static_assert(step_ns_for_hz(30) == 33'333'333);
static_assert(step_ns_for_hz(1000) == 1'000'000);

// The one place a floating-point time enters: the browser hands elapsed milliseconds as a
// double. Rounded to the nearest nanosecond with basic IEEE operations only (identical on
// every build); NaN, negative and -0 become 0, anything past longest_duration_ns saturates.
// The result only decides how many steps a frame pays for, never what a step computes.
int64_t elapsed_ns_from_ms_f64(double elapsed_ms);

// ---- Refusals ----------------------------------------------------------------------------

// Why a factory or setter refused its input. A zero step is the classic one: every frame
// would become an infinite loop, so it is refused where it is made rather than hung on later.
enum class TimeError : uint8_t {
    step_not_positive,
    step_too_long,
    rate_out_of_range,
    max_frame_not_positive,
    max_frame_too_long,
    max_steps_zero,
    catch_up_zero,
    budget_not_positive,
    budget_window_out_of_range,
};

// The snake_case code ("step_not_positive", ...) and a sentence naming the rule that was
// broken. The factories and setters below return Result<T, TimeError> (core/result.hpp).
std::string_view error_name(TimeError error);
std::string_view describe(TimeError error);

// ---- FixedTimestep -----------------------------------------------------------------------

// The default catch-up cap: a quarter of a second, fifteen steps at 60 Hz. An ordinary
// hitch is caught up smoothly; a tab resumed after a minute skips ahead instead of grinding
// through the minute in one frame.
inline constexpr int64_t default_max_frame_ns = 250 * ns_per_ms;

// Every knob of a FixedTimestep in one place, with its default.
struct FixedTimestepConfig {
    // The fixed step. Required: there is no sensible default rate for someone else's world.
    int64_t step_ns = 0;
    // The most elapsed time one advance accepts; the rest is dropped and counted.
    int64_t max_frame_ns = default_max_frame_ns;
    // The most steps one advance pays out, if set. Unlike max_frame_ns it is counted in
    // steps, so it follows the step when set_step changes it (a 600 ms game tick fed by
    // 50 ms wakes wants "at most 3 ticks", not "at most 1800 ms").
    std::optional<uint32_t> max_steps = std::nullopt;
};

// The steps one advance paid for. Iterating yields the step duration in nanoseconds, which
// is what the simulation must advance by: taking it from here is what stops a caller from
// stepping by the frame delta, and two sides stepping by different deltas are not running
// the same simulation even with identical code.
class Steps {
public:
    constexpr Steps(uint64_t count, int64_t step_ns) : count_(count), step_ns_(step_ns) {}

    constexpr uint64_t count() const { return count_; }
    constexpr bool empty() const { return count_ == 0; }
    constexpr int64_t step_ns() const { return step_ns_; }
    // The simulated time these steps cover (count * step; bounded by the caps, cannot overflow).
    constexpr int64_t total_ns() const { return static_cast<int64_t>(count_) * step_ns_; }

    class iterator {
    public:
        using value_type = int64_t;
        using difference_type = std::ptrdiff_t;
        constexpr iterator() = default;
        constexpr iterator(uint64_t index, int64_t step_ns) : index_(index), step_ns_(step_ns) {}
        constexpr int64_t operator*() const { return step_ns_; }
        constexpr iterator& operator++() { ++index_; return *this; }
        constexpr iterator operator++(int) { iterator before = *this; ++index_; return before; }
        friend constexpr bool operator==(iterator a, iterator b) { return a.index_ == b.index_; }

    private:
        uint64_t index_ = 0;
        int64_t step_ns_ = 0;
    };
    constexpr iterator begin() const { return {0, step_ns_}; }
    constexpr iterator end() const { return {count_, step_ns_}; }

private:
    uint64_t count_;
    int64_t step_ns_;
};

// Turns elapsed real time into a whole number of fixed-size steps.
//
//     auto ticker = FixedTimestep::from_hz(60).value();
//     for (int64_t step_ns : ticker.advance_ms(elapsed_ms)) world.step(step_ns);
//     render(blend(previous, current, ticker.alpha()));
//
// It exists for the three things a hand-written accumulator keeps getting wrong: the
// remainder is carried (zeroing it makes every period slightly long, one-directionally, so
// the error accumulates); the catch-up is capped (a resumed tab or a debugger break
// otherwise asks for seconds of simulation in one frame, which takes longer than a frame,
// which makes the next delta bigger still); and the time the cap refused is counted in
// dropped_ns, because a world quietly behind wall time is worth being able to see.
class FixedTimestep {
public:
    static Result<FixedTimestep, TimeError> create(const FixedTimestepConfig& config);
    static Result<FixedTimestep, TimeError> from_step_ns(int64_t step_ns);
    static Result<FixedTimestep, TimeError> from_step_ms(int64_t step_ms);
    // A step of 1/hz seconds to the nearest nanosecond (step_ns_for_hz); 1..1000 Hz.
    static Result<FixedTimestep, TimeError> from_hz(int32_t hz);

    // Copies with a different cap. Lower catches up less and skips more after a stall;
    // higher catches up more and risks a visible hitch doing it.
    Result<FixedTimestep, TimeError> with_max_frame_ns(int64_t max_frame_ns) const;
    Result<FixedTimestep, TimeError> with_max_frame_ms(int64_t max_frame_ms) const;
    Result<FixedTimestep, TimeError> with_max_steps(uint32_t max_steps) const;

    // Adds elapsed time and returns the steps it pays for. The time is spent here, not as
    // the steps are iterated, so it is spent whether or not the caller runs every step.
    // Elapsed time beyond max_frame is dropped first; whole steps beyond max_steps are
    // dropped next, keeping the sub-step remainder so the step phase does not shift.
    // Negative elapsed time is treated as zero: the accumulator never runs backwards.
    Steps advance_ns(int64_t elapsed_ns);
    Steps advance_ms(int64_t elapsed_ms) { return advance_ns(ns_from_ms(elapsed_ms)); }

    // Changes the step live, keeping what has accumulated, so dragging a rate slider does
    // not stall the simulation; if the carry already covers the new step, the next advance
    // (even of zero) pays it. The step is part of the rule, though: two peers integrating
    // at different steps diverge, so change it only to a rate both sides agree on.
    // On refusal nothing changes.
    Result<void, TimeError> set_step_ns(int64_t step_ns);
    Result<void, TimeError> set_step_ms(int64_t step_ms) { return set_step_ns(ns_from_ms(step_ms)); }

    int64_t step_ns() const { return step_ns_; }
    // The step in seconds as Q16.16, rounded to nearest, for integrators that take seconds.
    Fx step_seconds() const;
    int64_t max_frame_ns() const { return max_frame_ns_; }
    std::optional<uint32_t> max_steps() const { return max_steps_; }

    // Time carried toward the next step; less than one step after every advance.
    int64_t pending_ns() const { return pending_ns_; }
    int64_t pending_ms() const { return whole_ms_from_ns(pending_ns_); }

    // Elapsed time the caps refused, in total for the session: real time the simulation
    // never ran. Non-zero after a backgrounded tab, a sleeping laptop or a pathological
    // frame, and worth surfacing: it explains "it fell behind and nobody knows when".
    // Saturates at INT64_MAX (292 years) rather than wrapping.
    int64_t dropped_ns() const { return dropped_ns_; }
    int64_t dropped_ms() const { return whole_ms_from_ns(dropped_ns_); }

    // How far from the last step to the next, in [0, 1): the blend factor for drawing
    // between two simulated states, which is the real cure for the stutter a fixed step
    // shows when the step rate and the refresh rate disagree. Rounded down, so it never
    // reads 1; clamped just below 1 if set_step left more than a step pending.
    Fx alpha() const;
    // The same value as a float, exactly (alpha().raw() / 65536). Rendering only.
    float alpha_f32() const;

    // Discards the carried remainder, for a world that has been rebuilt. The dropped
    // ledger is a session total, not a per-world figure, so it stays.
    void reset() { pending_ns_ = 0; }

    friend bool operator==(const FixedTimestep&, const FixedTimestep&) = default;

private:
    explicit FixedTimestep(const FixedTimestepConfig& config)
        : step_ns_(config.step_ns), max_frame_ns_(config.max_frame_ns), max_steps_(config.max_steps) {}
    FixedTimestepConfig config() const { return {step_ns_, max_frame_ns_, max_steps_}; }

    int64_t step_ns_;
    int64_t max_frame_ns_;
    std::optional<uint32_t> max_steps_;
    int64_t pending_ns_ = 0;
    int64_t dropped_ns_ = 0;
};

// ---- Periodic ----------------------------------------------------------------------------

// Something that should happen every interval, driven by elapsed time. The accumulator of
// FixedTimestep with a different question: a fixed step asks "how much simulation does
// this frame pay for", where every step must run; a period asks "is it time yet", where
// the work (a keepalive, a retarget) is usually idempotent and doing it twice in one frame
// is waste. Hence due(), at most once per call, and advance(), every occurrence for work
// where each one counts (a wave, a shot). No cap: time beyond one interval is kept, so a
// long frame is repaid on the following ones instead of resetting the phase.
class Periodic {
public:
    static Result<Periodic, TimeError> from_interval_ns(int64_t interval_ns);
    static Result<Periodic, TimeError> from_interval_ms(int64_t interval_ms);
    // An interval of 1/hz seconds, the same expression as FixedTimestep::from_hz.
    static Result<Periodic, TimeError> from_hz(int32_t hz);

    // Adds elapsed time and says whether the period elapsed, at most once.
    bool due_ns(int64_t elapsed_ns);
    bool due_ms(int64_t elapsed_ms) { return due_ns(ns_from_ms(elapsed_ms)); }

    // Adds elapsed time and returns how many whole periods it covers.
    uint64_t advance_ns(int64_t elapsed_ns);
    uint64_t advance_ms(int64_t elapsed_ms) { return advance_ns(ns_from_ms(elapsed_ms)); }

    // Changes the interval live, keeping what has accumulated (a send-rate slider must not
    // stall the stream while someone drags it). On refusal nothing changes.
    Result<void, TimeError> set_interval_ns(int64_t interval_ns);
    Result<void, TimeError> set_interval_ms(int64_t interval_ms) { return set_interval_ns(ns_from_ms(interval_ms)); }

    int64_t interval_ns() const { return interval_ns_; }
    // Time carried toward the next occurrence; may exceed one interval after due().
    int64_t pending_ns() const { return pending_ns_; }
    // How long until the period next elapses; 0 if it is already owed.
    int64_t remaining_ns() const { return pending_ns_ >= interval_ns_ ? 0 : interval_ns_ - pending_ns_; }

    // Restarts the period from now.
    void reset() { pending_ns_ = 0; }

    friend bool operator==(const Periodic&, const Periodic&) = default;

private:
    explicit Periodic(int64_t interval_ns) : interval_ns_(interval_ns) {}
    void accumulate(int64_t elapsed_ns);

    int64_t interval_ns_;
    int64_t pending_ns_ = 0;  // saturates at INT64_MAX if due() is starved for centuries
};

}  // namespace tandem
