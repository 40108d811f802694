// Properties of src/core/timestep.*: elapsed time paid out as whole fixed steps with the
// remainder carried, the catch-up caps and their dropped-time ledger, rates exact to the
// nanosecond, Periodic's two questions, and refusal (not a crash) of every invalid input.
#include "tandem/core/timestep.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

using tandem::FixedTimestep;
using tandem::FixedTimestepConfig;
using tandem::Fx;
using tandem::Periodic;
using tandem::TimeError;

namespace {

constexpr int64_t ms = tandem::ns_per_ms;

// Tests build from known-good inputs; a refusal here is a test bug, so fail loudly.
template <class T>
T made(tandem::Result<T, TimeError> result) {
    INFO("refused: " << result.message());
    REQUIRE(result.ok());
    return std::move(result).value();
}

FixedTimestep step_ms(int64_t step) { return made(FixedTimestep::from_step_ms(step)); }
FixedTimestep step_ms_capped(int64_t step, int64_t max_frame) {
    return made(step_ms(step).with_max_frame_ms(max_frame));
}

}  // namespace

// ---- Paying out steps --------------------------------------------------------------------

TEST_CASE("elapsed time is spent in whole steps and the leftover is kept") {
    FixedTimestep t = step_ms(16);
    CHECK(t.advance_ms(33).count() == 2);  // 33 ms buys two 16 ms steps
    CHECK(t.pending_ns() == 1 * ms);       // and keeps the leftover
    CHECK(t.advance_ms(15).count() == 1);  // which the next frame spends
    CHECK(t.pending_ns() == 0);
}

TEST_CASE("a step yields the duration to advance by, not just a count") {
    // Two simulations running the same rule at different step sizes are not the same
    // simulation, so the step comes from the timestep, never from the frame delta.
    FixedTimestep t = step_ms(16);
    std::vector<int64_t> yielded;
    for (int64_t step_ns : t.advance_ms(50)) yielded.push_back(step_ns);
    CHECK(yielded == std::vector<int64_t>{16 * ms, 16 * ms, 16 * ms});
    CHECK(t.step_ns() == 16 * ms);
    // 0.016 s * 65536 = 1048.576, rounded to nearest.
    CHECK(t.step_seconds().raw() == 1049);
}

TEST_CASE("a 60 Hz step is 16666667 ns, so 50 ms pays two steps, not three") {
    // The later guide wins over the first version: from_hz is exact to the nanosecond
    // (1e9 / 60 = 16666666.67 -> 16666667), not truncated to 16 whole milliseconds.
    FixedTimestep t = made(FixedTimestep::from_hz(60));
    CHECK(t.step_ns() == 16'666'667);
    const tandem::Steps steps = t.advance_ms(50);
    CHECK(steps.count() == 2);
    CHECK(steps.step_ns() == 16'666'667);
    CHECK(steps.total_ns() == 33'333'334);
    CHECK(t.pending_ns() == 50 * ms - 33'333'334);
    // 1/60 s * 65536 = 1092.27
    CHECK(t.step_seconds().raw() == 1092);
}

TEST_CASE("every rate from 1 to 1000 Hz is the nearest whole nanosecond, by one expression") {
    // The same integer expression on every build and in every type, so server and browser
    // agree on the step exactly as long as they agree on the rate.
    for (int32_t hz = tandem::lowest_rate_hz; hz <= tandem::highest_rate_hz; ++hz) {
        const int64_t step = tandem::step_ns_for_hz(hz);
        INFO("hz " << hz << " step " << step);
        // |step * hz - 1e9| <= hz / 2: no whole nanosecond is closer to 1e9 / hz.
        const int64_t error = step * hz - tandem::ns_per_second;
        REQUIRE(2 * (error < 0 ? -error : error) <= hz);
        REQUIRE(made(FixedTimestep::from_hz(hz)).step_ns() == step);
        REQUIRE(made(Periodic::from_hz(hz)).interval_ns() == step);
    }
    CHECK(tandem::step_ns_for_hz(30) == 33'333'333);
    CHECK(tandem::step_ns_for_hz(144) == 6'944'444);
    // 1e9 / 1024 = 976562.5 exactly: halves round up.
    CHECK(tandem::step_ns_for_hz(1000) == 1'000'000);
    CHECK((tandem::ns_per_second + 512) / 1024 == 976'563);
}

TEST_CASE("at 60 Hz the sixtieth step lands 20 ns after one second, not before") {
    // The price of a whole-nanosecond step: 60 * 16666667 = 1000000020 ns. Known, exact
    // and the same everywhere, which is what matters for two ends of a wire.
    FixedTimestep t = made(FixedTimestep::from_hz(60));
    uint64_t steps = 0;
    for (int frame = 0; frame < 1000; ++frame) steps += t.advance_ms(1).count();
    CHECK(steps == 59);
    CHECK(t.pending_ns() == tandem::ns_per_second - 59 * 16'666'667);
    CHECK(t.advance_ns(19).count() == 0);
    CHECK(t.advance_ns(1).count() == 1);
    CHECK(t.pending_ns() == 0);
}

TEST_CASE("the remainder carries so the average rate is exact") {
    // Zeroing the accumulator instead makes every period slightly long, in one direction,
    // so the error accumulates rather than averaging out.
    FixedTimestep t = step_ms(16);
    uint64_t steps = 0;
    for (int frame = 0; frame < 600; ++frame) steps += t.advance_ms(17).count();
    // 600 frames of 17 ms is 10200 ms: 637 whole 16 ms steps.
    CHECK(steps == 637);
}

TEST_CASE("steps plus the carried remainder sum exactly to the elapsed time over many frames") {
    // Not "close": exact to the nanosecond, with a step that divides nothing evenly.
    FixedTimestep t = made(FixedTimestep::from_hz(60));
    int64_t wall_ns = 0;
    int64_t simulated_ns = 0;
    uint32_t lcg = 12345;
    for (int frame = 0; frame < 100'000; ++frame) {
        lcg = lcg * 1664525u + 1013904223u;
        const int64_t dt = 1 + static_cast<int64_t>(lcg % (40 * ms));  // 1 ns .. 40 ms
        wall_ns += dt;
        simulated_ns += t.advance_ns(dt).total_ns();
        REQUIRE(simulated_ns + t.pending_ns() == wall_ns);
        REQUIRE(t.pending_ns() < t.step_ns());
    }
    CHECK(t.dropped_ns() == 0);
}

TEST_CASE("simulated time tracks wall time when nothing stalls") {
    // Summing the steps must equal the elapsed time, or a timestamp on a packet stops
    // describing when its state is from. Jittery frame times that do not divide the step
    // are what break a naive accumulator.
    FixedTimestep t = step_ms(16);
    int64_t simulated = 0;
    int64_t wall = 0;
    for (int64_t frame = 0; frame < 1000; ++frame) {
        const int64_t dt = 14 + frame % 7;
        wall += dt * ms;
        for (int64_t step_ns : t.advance_ms(dt)) simulated += step_ns;
    }
    INFO("simulated " << simulated << " ns against wall " << wall << " ns");
    CHECK(wall - simulated < 16 * ms);
    CHECK(wall - simulated == t.pending_ns());
    CHECK(t.dropped_ns() == 0);
}

TEST_CASE("zero elapsed time produces no steps") {
    // A paused simulation is fed zero and must neither advance nor spin.
    FixedTimestep t = step_ms(16);
    CHECK(t.advance_ms(0).count() == 0);
    CHECK(t.advance_ms(0).empty());
    CHECK(t.pending_ns() == 0);
}

TEST_CASE("negative elapsed time is treated as zero, never as time running backwards") {
    FixedTimestep t = step_ms(16);
    t.advance_ms(10);
    CHECK(t.advance_ms(-5).count() == 0);
    CHECK(t.advance_ns(INT64_MIN).count() == 0);
    CHECK(t.pending_ns() == 10 * ms);
    CHECK(t.dropped_ns() == 0);
}

// ---- The catch-up caps -------------------------------------------------------------------

TEST_CASE("a backgrounded tab cannot dump a burst of steps on resume") {
    // A tab asleep for a minute returns an enormous delta; uncapped, the loop would try to
    // pay for all of it in one frame, which takes longer than a frame, which makes the
    // next delta larger still.
    FixedTimestep t = step_ms_capped(16, 100);
    const uint64_t steps = t.advance_ms(60'000).count();
    INFO("a minute asleep produced " << steps << " steps in one frame");
    CHECK(steps == 6);
    CHECK(t.dropped_ms() == 59'900);  // and the refused time is visible, not silent
    CHECK(t.dropped_ns() == 59'900 * ms);
    CHECK(t.pending_ns() == 4 * ms);
}

TEST_CASE("the default catch-up cap is a quarter of a second") {
    FixedTimestep t = step_ms(16);
    CHECK(t.max_frame_ns() == 250 * ms);
    CHECK(t.advance_ms(10'000).count() == 15);  // 250 / 16
    CHECK(t.dropped_ms() == 9'750);
}

TEST_CASE("ordinary frames are never clamped") {
    // The cap must not touch a hitch a game should genuinely catch up on.
    FixedTimestep t = step_ms(16);
    for (int frame = 0; frame < 100; ++frame) t.advance_ms(33);
    CHECK(t.dropped_ns() == 0);  // a doubled frame time is not a stall
}

TEST_CASE("a time cap shorter than the step still makes progress across frames") {
    // Each frame is paid up to the cap and the carry accumulates, so the world is slowed,
    // not frozen.
    FixedTimestep t = step_ms_capped(16, 10);
    uint64_t steps = 0;
    for (int frame = 0; frame < 8; ++frame) steps += t.advance_ms(17).count();
    CHECK(steps == 5);  // 8 * 10 ms accepted = 80 ms = five 16 ms steps
    CHECK(t.dropped_ms() == 8 * 7);
    CHECK(t.pending_ns() == 0);
}

TEST_CASE("a steps cap bounds catch-up in whole steps and the surplus goes to the ledger") {
    // A slow tick over a fast driver (a 600 ms game tick fed by 50 ms wakes) caps in steps;
    // the time cap is raised so the steps cap is the policy.
    FixedTimestep t = made(made(step_ms(600).with_max_steps(2)).with_max_frame_ms(3'600'000));
    CHECK(t.max_steps() == std::optional<uint32_t>{2});
    CHECK(t.advance_ms(50).count() == 0);
    // A 4-second stall on top of the 50 ms carried owes six whole ticks and 450 ms: two
    // run, four are dropped, and the 450 ms sub-step remainder is kept so the tick phase
    // does not shift.
    CHECK(t.advance_ms(4'000).count() == 2);
    CHECK(t.dropped_ms() == 4 * 600);
    CHECK(t.pending_ns() == 450 * ms);
}

TEST_CASE("a steps cap follows a live step change, unlike a time cap") {
    FixedTimestep t = made(made(step_ms(100).with_max_steps(3)).with_max_frame_ms(3'600'000));
    CHECK(t.advance_ms(1'000).count() == 3);
    CHECK(t.dropped_ms() == 700);
    REQUIRE(t.set_step_ms(50));
    // Three steps is now 150 ms, not the 300 ms a time cap would still have allowed.
    CHECK(t.advance_ms(1'000).count() == 3);
    CHECK(t.dropped_ms() == 700 + 850);
    CHECK(t.pending_ns() == 0);
}

TEST_CASE("the time cap is applied before the steps cap") {
    // 10 s elapsed, 250 ms accepted (15 steps of 16 ms + 10 ms), then 4 of the 15 paid.
    FixedTimestep t = made(step_ms(16).with_max_steps(4));
    CHECK(t.advance_ms(10'000).count() == 4);
    CHECK(t.dropped_ns() == 9'750 * ms + 11 * 16 * ms);
    CHECK(t.pending_ns() == 10 * ms);
}

TEST_CASE("a reset drops the remainder but keeps the ledger") {
    FixedTimestep t = step_ms_capped(16, 50);
    // 50 ms of the 1000 is accepted, three steps run, and 2 ms carries.
    CHECK(t.advance_ms(1'000).count() == 3);
    t.advance_ms(10);
    CHECK(t.pending_ms() == 12);
    t.reset();
    CHECK(t.pending_ns() == 0);        // a rebuilt world starts from a clean step
    CHECK(t.dropped_ms() == 950);      // but dropped time is a session figure
}

TEST_CASE("changing a cap keeps the running accumulator and ledger") {
    FixedTimestep t = step_ms_capped(16, 50);
    t.advance_ms(1'000);
    t.advance_ms(10);
    const FixedTimestep raised = made(t.with_max_frame_ms(500));
    CHECK(raised.pending_ns() == t.pending_ns());
    CHECK(raised.dropped_ns() == t.dropped_ns());
    CHECK(raised.max_frame_ns() == 500 * ms);
}

TEST_CASE("enormous elapsed times saturate the ledger instead of overflowing") {
    FixedTimestep t = step_ms(16);
    CHECK(t.advance_ms(INT64_MAX).count() == 15);  // 250 ms accepted, 10 ms carried
    CHECK(t.advance_ns(INT64_MAX).count() == 16);  // 260 ms
    CHECK(t.dropped_ns() == INT64_MAX);  // stuck at the top, never wrapped negative
    CHECK(t.pending_ns() < t.step_ns());
}

// ---- Changing the step -------------------------------------------------------------------

TEST_CASE("changing the step takes effect without restarting it") {
    // A live server-rate slider: restarting on every change would stall the simulation for
    // as long as somebody keeps dragging.
    FixedTimestep t = step_ms(100);
    t.advance_ms(90);
    CHECK(t.pending_ns() == 90 * ms);
    REQUIRE(t.set_step_ms(50));
    CHECK(t.advance_ms(0).count() == 1);  // already past the new step, so one is owed
    CHECK(t.pending_ns() == 40 * ms);
    CHECK(t.step_ns() == 50 * ms);
}

TEST_CASE("a refused step change leaves the timestep untouched") {
    FixedTimestep t = step_ms(16);
    t.advance_ms(10);
    const FixedTimestep before = t;
    CHECK(t.set_step_ms(0).error() == TimeError::step_not_positive);
    CHECK(t.set_step_ns(-1).error() == TimeError::step_not_positive);
    CHECK(t.set_step_ns(tandem::longest_duration_ns + 1).error() == TimeError::step_too_long);
    CHECK(t == before);
}

// ---- Alpha -------------------------------------------------------------------------------

TEST_CASE("alpha is the fraction of a step left over") {
    // For interpolating the drawn state between fixed steps, the real answer to the stutter
    // usually blamed on the step rate.
    FixedTimestep t = step_ms(20);
    t.advance_ms(30);
    CHECK(t.alpha() == Fx::from_raw(Fx::one_raw / 2));
    CHECK(t.alpha_f32() == 0.5f);
    t.advance_ms(10);
    CHECK(t.alpha() == Fx::zero());
    CHECK(t.alpha_f32() == 0.0f);
}

TEST_CASE("alpha is rounded down, never reaches one, and the float is the same value") {
    FixedTimestep t = made(FixedTimestep::from_hz(60));
    t.advance_ns(16'666'666);  // one nanosecond short of a step
    CHECK(t.alpha().raw() == 65535);
    CHECK(t.alpha_f32() < 1.0f);
    CHECK(t.alpha_f32() == static_cast<float>(t.alpha().raw()) / 65536.0f);
    // Exhaustive over a small step: floor(pending * 65536 / step) for every pending value.
    FixedTimestep small = made(FixedTimestep::from_step_ns(7'919));
    for (int64_t pending = 0; pending < 7'919; ++pending) {
        small.reset();
        small.advance_ns(pending);
        REQUIRE(small.alpha().raw() == (pending * 65536) / 7'919);
    }
}

TEST_CASE("alpha is exact for the longest step, where pending * 65536 would overflow int64") {
    FixedTimestep t = made(made(FixedTimestep::from_step_ns(tandem::longest_duration_ns))
                               .with_max_frame_ns(tandem::longest_duration_ns));
    t.advance_ns(tandem::longest_duration_ns / 4 * 3);
    CHECK(t.alpha().raw() == 3 * 65536 / 4);
}

TEST_CASE("alpha stays below one when a step change leaves more than a step pending") {
    FixedTimestep t = step_ms(100);
    t.advance_ms(90);
    REQUIRE(t.set_step_ms(50));
    CHECK(t.alpha().raw() == 65535);
    t.advance_ms(0);
    CHECK(t.alpha().raw() == 65536 * 40 / 50);
}

// ---- Refusals ----------------------------------------------------------------------------

TEST_CASE("zero, negative and out-of-range rates and steps are refused with a reason") {
    CHECK(FixedTimestep::from_hz(0).error() == TimeError::rate_out_of_range);
    CHECK(FixedTimestep::from_hz(-60).error() == TimeError::rate_out_of_range);
    CHECK(FixedTimestep::from_hz(1001).error() == TimeError::rate_out_of_range);
    CHECK(FixedTimestep::from_step_ms(0).error() == TimeError::step_not_positive);
    CHECK(FixedTimestep::from_step_ms(-16).error() == TimeError::step_not_positive);
    CHECK(FixedTimestep::from_step_ns(0).error() == TimeError::step_not_positive);
    CHECK(FixedTimestep::from_step_ns(tandem::longest_duration_ns + 1).error() == TimeError::step_too_long);
    CHECK(FixedTimestep::from_step_ms(INT64_MAX).error() == TimeError::step_too_long);
    CHECK_FALSE(FixedTimestep::from_hz(0));
    CHECK(FixedTimestep::from_hz(0).message() == "a rate must be between 1 and 1000 Hz");
    CHECK(FixedTimestep::from_step_ms(0).message().find("zero") != std::string_view::npos);
}

TEST_CASE("caps that would stop the world are refused") {
    const FixedTimestep t = step_ms(16);
    CHECK(t.with_max_frame_ms(0).error() == TimeError::max_frame_not_positive);
    CHECK(t.with_max_frame_ms(-1).error() == TimeError::max_frame_not_positive);
    CHECK(t.with_max_frame_ns(tandem::longest_duration_ns + 1).error() == TimeError::max_frame_too_long);
    CHECK(t.with_max_steps(0).error() == TimeError::max_steps_zero);
    CHECK(FixedTimestep::create({.step_ns = 16 * ms, .max_frame_ns = 0}).error() ==
          TimeError::max_frame_not_positive);
    CHECK(FixedTimestep::create({.step_ns = 16 * ms, .max_steps = 0u}).error() == TimeError::max_steps_zero);
}

TEST_CASE("a refusal falls back to value_or and every error has its own code and a sentence") {
    const FixedTimestep fallback = step_ms(16);
    CHECK(FixedTimestep::from_hz(0).value_or(fallback) == fallback);
    CHECK(FixedTimestep::from_hz(0).code() == "rate_out_of_range");
    std::set<std::string_view> codes;
    for (int e = 0; e <= static_cast<int>(TimeError::budget_window_out_of_range); ++e) {
        const std::string_view text = tandem::describe(static_cast<TimeError>(e));
        CHECK(text.size() > 20);
        CHECK(text != "unknown time error");
        const std::string_view code = tandem::error_name(static_cast<TimeError>(e));
        CHECK(code.find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789") == std::string_view::npos);
        CHECK(code != "unknown_time_error");
        codes.insert(code);
    }
    CHECK(codes.size() == static_cast<size_t>(TimeError::budget_window_out_of_range) + 1);
    CHECK(step_ms(16).with_max_frame_ms(100).message().empty());
}

TEST_CASE("the config struct and the builders make the same timestep") {
    const FixedTimestep built = made(made(step_ms(16).with_max_frame_ms(100)).with_max_steps(4));
    const FixedTimestep configured =
        made(FixedTimestep::create({.step_ns = 16 * ms, .max_frame_ns = 100 * ms, .max_steps = 4u}));
    CHECK(built == configured);
}

// ---- Units at the edge -------------------------------------------------------------------

TEST_CASE("milliseconds convert exactly and saturate instead of overflowing") {
    CHECK(tandem::ns_from_ms(16) == 16'000'000);
    CHECK(tandem::ns_from_ms(-3) == -3'000'000);
    CHECK(tandem::ns_from_ms(INT64_MAX) == INT64_MAX);
    CHECK(tandem::ns_from_ms(INT64_MIN) == INT64_MIN);
    CHECK(tandem::whole_ms_from_ns(16'999'999) == 16);
    CHECK(tandem::whole_ms_from_ns(-1) == -1);
    CHECK(tandem::whole_ms_from_ns(-1'000'000) == -1);
}

TEST_CASE("the browser's double milliseconds enter as whole nanoseconds, and junk as zero") {
    CHECK(tandem::elapsed_ns_from_ms_f64(16.5) == 16'500'000);
    CHECK(tandem::elapsed_ns_from_ms_f64(16.6666666) == 16'666'667);
    CHECK(tandem::elapsed_ns_from_ms_f64(0.0000004) == 0);
    CHECK(tandem::elapsed_ns_from_ms_f64(0.0) == 0);
    CHECK(tandem::elapsed_ns_from_ms_f64(-0.0) == 0);
    CHECK(tandem::elapsed_ns_from_ms_f64(-16.0) == 0);
    CHECK(tandem::elapsed_ns_from_ms_f64(__builtin_nan("")) == 0);
    CHECK(tandem::elapsed_ns_from_ms_f64(__builtin_inf()) == tandem::longest_duration_ns);
    CHECK(tandem::elapsed_ns_from_ms_f64(1e300) == tandem::longest_duration_ns);
}

// ---- Periodic ----------------------------------------------------------------------------

TEST_CASE("a period fires at most once per advance and carries the rest") {
    // For idempotent work: retargeting twice in one frame is waste, and dropping the
    // remainder would make the period drift long.
    Periodic p = made(Periodic::from_interval_ms(100));
    CHECK_FALSE(p.due_ms(60));
    CHECK(p.due_ms(60));  // 120 ms covers the period
    CHECK(p.remaining_ns() == 80 * ms);  // the extra 20 ms carried
    CHECK_FALSE(p.due_ms(70));
    CHECK(p.due_ms(10));
}

TEST_CASE("a period can report every occurrence when each one matters") {
    // A wave or a shot is not idempotent: three intervals in one frame is three of them.
    Periodic p = made(Periodic::from_interval_ms(100));
    CHECK(p.advance_ms(350) == 3);
    CHECK(p.remaining_ns() == 50 * ms);
}

TEST_CASE("changing the interval takes effect without restarting it") {
    // A send-rate slider: restarting the period on every change would stall the stream for
    // as long as somebody keeps dragging.
    Periodic p = made(Periodic::from_interval_ms(100));
    CHECK_FALSE(p.due_ms(90));
    REQUIRE(p.set_interval_ms(50));
    CHECK(p.due_ms(0));  // already past the new interval, so it is due immediately
    CHECK(p.interval_ns() == 50 * ms);
}

TEST_CASE("a period keeps its phase across a long frame") {
    // Time beyond one interval is kept, so a stall is repaid on the following frames
    // instead of resetting the phase.
    Periodic p = made(Periodic::from_interval_ms(100));
    CHECK(p.due_ms(250));
    CHECK(p.remaining_ns() == 0);  // 150 ms of the stall is still owed
    CHECK(p.due_ms(0));
    CHECK(p.remaining_ns() == 50 * ms);
    CHECK(p.pending_ns() == 50 * ms);
}

TEST_CASE("due and advance count the same occurrences over a long run") {
    // due() only defers occurrences, it never loses them: fed the same time, it has fired
    // exactly as often as advance() counted once the backlog is drained.
    Periodic by_due = made(Periodic::from_hz(60));
    Periodic by_advance = made(Periodic::from_hz(60));
    uint64_t fired = 0;
    uint64_t counted = 0;
    for (int frame = 0; frame < 10'000; ++frame) {
        const int64_t dt = (frame % 10 == 0) ? 50 * ms : 7 * ms;
        fired += by_due.due_ns(dt) ? 1 : 0;
        counted += by_advance.advance_ns(dt);
    }
    while (by_due.due_ns(0)) ++fired;
    CHECK(fired == counted);
    CHECK(by_due.pending_ns() == by_advance.pending_ns());
}

TEST_CASE("a period refuses zero and invalid intervals and ignores negative time") {
    CHECK(Periodic::from_interval_ms(0).error() == TimeError::step_not_positive);
    CHECK(Periodic::from_interval_ns(-1).error() == TimeError::step_not_positive);
    CHECK(Periodic::from_hz(0).error() == TimeError::rate_out_of_range);
    CHECK(Periodic::from_hz(2000).error() == TimeError::rate_out_of_range);
    Periodic p = made(Periodic::from_interval_ms(100));
    CHECK(p.set_interval_ns(0).error() == TimeError::step_not_positive);
    CHECK(p.interval_ns() == 100 * ms);
    CHECK_FALSE(p.due_ms(-500));
    CHECK(p.advance_ms(-500) == 0);
    CHECK(p.pending_ns() == 0);
}

TEST_CASE("a starved period saturates instead of overflowing") {
    Periodic p = made(Periodic::from_interval_ns(1));
    CHECK(p.due_ns(INT64_MAX));
    CHECK(p.due_ns(INT64_MAX));
    CHECK(p.pending_ns() == INT64_MAX - 1);
    CHECK(p.advance_ns(0) == static_cast<uint64_t>(INT64_MAX - 1));
    CHECK(p.pending_ns() == 0);
}

TEST_CASE("a period reset restarts it from now") {
    Periodic p = made(Periodic::from_interval_ms(100));
    p.due_ms(70);
    p.reset();
    CHECK(p.remaining_ns() == 100 * ms);
}

// ---- Cross-build agreement ---------------------------------------------------------------

TEST_CASE("a scripted run of frames pays out the same steps on every build") {
    // A golden fold of (steps, pending, dropped) over frames from a fixed LCG, with every
    // cap in play. Any build (native, wasm32, i686, s390x) must print the same number.
    FixedTimestep t = made(FixedTimestep::create({.step_ns = tandem::step_ns_for_hz(60),
                                                  .max_frame_ns = 100 * ms,
                                                  .max_steps = 5u}));
    Periodic p = made(Periodic::from_hz(20));
    uint64_t fold = 1469598103934665603ull;
    const auto mix = [&fold](uint64_t v) { fold = (fold ^ v) * 1099511628211ull; };
    uint32_t lcg = 2024;
    const auto next = [&lcg] { return lcg = lcg * 1664525u + 1013904223u; };
    for (int frame = 0; frame < 20'000; ++frame) {
        const bool stall = (next() >> 28) == 0;  // one frame in 16
        const uint32_t magnitude = next();
        // Mostly 0..33 ms frames, with an occasional stall of up to 6.5 s.
        const int64_t dt = stall ? static_cast<int64_t>(magnitude >> 16) * 100'000
                                 : static_cast<int64_t>(magnitude % 33'000'000u);
        mix(t.advance_ns(dt).count());
        mix(static_cast<uint64_t>(t.pending_ns()));
        mix(p.advance_ns(dt));
        if (frame % 1000 == 999) REQUIRE(t.set_step_ns(tandem::step_ns_for_hz(30 + frame / 1000)));
    }
    mix(static_cast<uint64_t>(t.dropped_ns()));
    INFO("fold = " << fold << "  dropped_ns = " << t.dropped_ns());
    CHECK(fold == 3625581676477198425ull);
}
