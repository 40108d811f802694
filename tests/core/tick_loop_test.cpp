// Properties of src/core/tick_loop.*: fixed steps on a grid anchored at one wall-clock
// instant, a catch-up cap that drops whole steps without shifting the grid, a tick that
// never runs backwards, counted clock rollbacks, and the frame-budget check.
#include "tandem/core/tick_loop.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <utility>
#include <vector>

using tandem::FrameBudgetBreach;
using tandem::FrameViolation;
using tandem::TickAdvance;
using tandem::TickLoop;
using tandem::TickLoopConfig;
using tandem::TimeError;

namespace {

constexpr int64_t ms = tandem::ns_per_ms;
// An arbitrary wall-clock origin (2023-11-14 in Unix ns), as in a real server.
constexpr int64_t base = 1'700'000'000 * tandem::ns_per_second;

// A 30 Hz loop: a 33 ms step and a 50 ms hard ceiling (about 1.5 steps), the
// frame-budget table's round numbers, which keep the expected values readable.
TickLoopConfig loop_33ms(uint32_t max_catch_up) {
    return {.step_ns = 33 * ms,
            .max_catch_up_steps = max_catch_up,
            .budget_p99_ns = 33 * ms,
            .budget_hard_max_ns = 50 * ms};
}

TickLoop made(const TickLoopConfig& config, int64_t anchor_ns) {
    auto result = TickLoop::create(config, anchor_ns);
    INFO("refused: " << result.message());
    REQUIRE(result.ok());
    return std::move(result).value();
}

}  // namespace

// ---- Stepping on the grid ----------------------------------------------------------------

TEST_CASE("advance runs the fixed steps wall time has passed and keeps the remainder as drift") {
    TickLoop loop = made(loop_33ms(8), base);
    CHECK(loop.advance(base + 100 * ms) == TickAdvance{.executed = 3, .dropped = 0});
    CHECK(loop.tick() == 3);
    CHECK(loop.drift_ns(base + 100 * ms) == 1 * ms);
    CHECK(loop.last_drift_ns() == 1 * ms);
    CHECK(loop.last_boundary_ns() == base + 99 * ms);
    CHECK(loop.next_boundary_ns() == base + 132 * ms);
}

TEST_CASE("a single large delay under the cap is caught up in full") {
    // A 300 ms stall is nine 33 ms steps: below the cap of ten, so all of them run.
    TickLoop loop = made(loop_33ms(10), base);
    CHECK(loop.advance(base + 300 * ms) == TickAdvance{.executed = 9, .dropped = 0});
    CHECK(loop.tick() == 9);
    CHECK(loop.dropped_steps() == 0);
}

TEST_CASE("a delay over the catch-up cap drops the surplus steps and counts them") {
    // 500 ms is 15 steps; the cap allows 5 and discards 10, and all 15 boundaries are
    // consumed, leaving only the 5 ms remainder as drift.
    TickLoop loop = made(loop_33ms(5), base);
    CHECK(loop.advance(base + 500 * ms) == TickAdvance{.executed = 5, .dropped = 10});
    CHECK(loop.tick() == 5);
    CHECK(loop.dropped_steps() == 10);
    CHECK(loop.drift_ns(base + 500 * ms) == 5 * ms);
}

TEST_CASE("the step phase is stable after drops: boundaries stay on the anchored grid") {
    // Dropping steps without consuming their boundaries would leave a backlog that every
    // later advance re-discovers, and re-anchoring at "now" would shift every later step
    // by the remainder. Consumed, the grid is anchor + k * step for ever.
    TickLoop loop = made(loop_33ms(5), base);
    loop.advance(base + 500 * ms);
    CHECK((loop.last_boundary_ns() - base) % (33 * ms) == 0);
    CHECK(loop.advance(base + 527 * ms).executed == 0);  // 528 is the next boundary
    CHECK(loop.advance(base + 528 * ms) == TickAdvance{.executed = 1, .dropped = 0});
    CHECK(loop.drift_ns(base + 528 * ms) == 0);
    // A second stall: still on the grid, whatever the cap dropped.
    loop.advance(base + 10'007 * ms);
    CHECK((loop.last_boundary_ns() - base) % (33 * ms) == 0);
    CHECK(loop.last_drift_ns() == 10'007 * ms % (33 * ms));
    // Every boundary passed is either executed or dropped: none is lost or run twice.
    CHECK(loop.tick() + loop.dropped_steps() == static_cast<uint64_t>(10'007 / 33));
}

TEST_CASE("drift is carried across advances so irregular wake-ups lose no time") {
    // The loop does not sleep a full step from each wake-up; it measures from the last
    // boundary, so a 50 ms wake then a 70 ms wake is the same two steps as one 70 ms wake.
    TickLoop split = made(loop_33ms(8), base);
    CHECK(split.advance(base + 50 * ms).executed == 1);
    CHECK(split.last_drift_ns() == 17 * ms);
    CHECK(split.advance(base + 70 * ms).executed == 1);
    CHECK(split.last_drift_ns() == 4 * ms);
    TickLoop whole = made(loop_33ms(8), base);
    CHECK(whole.advance(base + 70 * ms).executed == 2);
    CHECK(whole.last_boundary_ns() == split.last_boundary_ns());

    // Over many jittery wake-ups that never hit the cap, ticks = floor(elapsed / step).
    TickLoop jittery = made(loop_33ms(8), base);
    int64_t now = base;
    uint32_t lcg = 7;
    for (int wake = 0; wake < 50'000; ++wake) {
        lcg = lcg * 1664525u + 1013904223u;
        now += static_cast<int64_t>(lcg % (100 * ms));  // 0 .. 100 ms, below 8 steps
        const TickAdvance step = jittery.advance(now);
        REQUIRE(step.dropped == 0);
        REQUIRE(jittery.last_drift_ns() < 33 * ms);
    }
    CHECK(jittery.tick() == static_cast<uint64_t>((now - base) / (33 * ms)));
}

TEST_CASE("advancing to the same instant twice executes nothing") {
    TickLoop loop = made(loop_33ms(8), base);
    loop.advance(base + 100 * ms);
    CHECK(loop.advance(base + 100 * ms) == TickAdvance{});
    CHECK(loop.tick() == 3);
    CHECK(loop.clock_rollbacks() == 0);
}

TEST_CASE("catch_up_steps_for answers what an elapsed time is worth without moving the loop") {
    const TickLoop loop = made(loop_33ms(5), base);
    CHECK(loop.catch_up_steps_for(0) == 0);
    CHECK(loop.catch_up_steps_for(-100 * ms) == 0);
    CHECK(loop.catch_up_steps_for(100 * ms) == 3);
    CHECK(loop.catch_up_steps_for(500 * ms) == 5);
    CHECK(loop.tick() == 0);
    CHECK(loop.last_boundary_ns() == base);
}

// ---- Clocks that misbehave ---------------------------------------------------------------

TEST_CASE("a clock rollback does not rewind the tick and is counted") {
    TickLoop loop = made(loop_33ms(8), base + 200 * ms);
    CHECK(loop.advance(base + 266 * ms).executed == 2);
    const uint64_t before = loop.tick();
    const TickAdvance back = loop.advance(base + 100 * ms);
    CHECK(back == TickAdvance{.executed = 0, .dropped = 0, .clock_went_back = true});
    CHECK(loop.tick() == before);
    CHECK(loop.clock_rollbacks() == 1);
    CHECK(loop.last_drift_ns() == 0);
    // The loop re-anchored at the new instant and advances normally from there.
    CHECK(loop.last_boundary_ns() == base + 100 * ms);
    CHECK(loop.advance(base + 133 * ms).executed == 1);
    CHECK(loop.tick() == before + 1);
}

TEST_CASE("every clock rollback is counted and the tick never moves backwards") {
    // A clock that mostly moves forward and sometimes jumps back by up to a second.
    TickLoop loop = made(loop_33ms(4), base);
    int64_t now = base;
    uint64_t jumps_back = 0;
    uint64_t last_tick = 0;
    uint32_t lcg = 99;
    const auto next = [&lcg] { return lcg = lcg * 1664525u + 1013904223u; };
    for (int wake = 0; wake < 20'000; ++wake) {
        const bool jump_back = (next() >> 28) == 0;  // one wake in 16
        const uint32_t magnitude = next();
        if (jump_back) {
            now -= 1 + static_cast<int64_t>(magnitude % (1000 * ms));
        } else {
            now += static_cast<int64_t>(magnitude % (200 * ms));
        }
        // A rollback is an instant before the loop's last boundary, which trails the
        // previous instant by the drift: a jump back smaller than the drift is not one.
        const bool crosses_back = now < loop.last_boundary_ns();
        jumps_back += crosses_back ? 1 : 0;
        const TickAdvance step = loop.advance(now);
        REQUIRE(step.clock_went_back == crosses_back);
        REQUIRE(loop.tick() >= last_tick);
        last_tick = loop.tick();
    }
    CHECK(jumps_back > 0);
    CHECK(loop.clock_rollbacks() == jumps_back);
}

TEST_CASE("drift is zero for an instant before the last boundary") {
    TickLoop loop = made(loop_33ms(8), base);
    loop.advance(base + 100 * ms);
    CHECK(loop.drift_ns(base + 50 * ms) == 0);
    CHECK(loop.drift_ns(base + 99 * ms) == 0);
    CHECK(loop.drift_ns(base + 110 * ms) == 11 * ms);
}

TEST_CASE("anchors anywhere in the int64 range step without overflow") {
    TickLoop low = made(loop_33ms(8), INT64_MIN);
    CHECK(low.advance(INT64_MAX) == TickAdvance{.executed = 8,
                                                .dropped = UINT64_MAX / static_cast<uint64_t>(33 * ms) - 8});
    CHECK(low.last_drift_ns() == static_cast<int64_t>(UINT64_MAX % static_cast<uint64_t>(33 * ms)));
    CHECK(low.next_boundary_ns() == INT64_MAX);  // last + step is past the range: saturated

    TickLoop high = made(loop_33ms(8), INT64_MAX - 10 * ms);
    CHECK(high.advance(INT64_MAX).executed == 0);
    CHECK(high.next_boundary_ns() == INT64_MAX);  // saturated, not wrapped negative
    CHECK(high.drift_ns(INT64_MAX) == 10 * ms);
}

// ---- Configuration -----------------------------------------------------------------------

TEST_CASE("the default loop is 30 Hz to the nanosecond with a budget of one and two steps") {
    const TickLoop loop = made(TickLoopConfig{}, 0);
    CHECK(loop.step_ns() == 33'333'333);
    CHECK(loop.max_catch_up_steps() == 8);
    CHECK(loop.budget() == tandem::FrameBudget{.p99_ns = 33'333'333, .hard_max_ns = 66'666'666});
}

TEST_CASE("a loop with a zero step, no catch-up or no budget is refused with a reason") {
    CHECK(TickLoop::create({.step_ns = 0}, base).error() == TimeError::step_not_positive);
    CHECK(TickLoop::create({.step_ns = -33 * ms}, base).error() == TimeError::step_not_positive);
    CHECK(TickLoop::create({.step_ns = tandem::longest_duration_ns + 1}, base).error() == TimeError::step_too_long);
    CHECK(TickLoop::create({.max_catch_up_steps = 0}, base).error() == TimeError::catch_up_zero);
    CHECK(TickLoop::create({.budget_p99_ns = 0}, base).error() == TimeError::budget_not_positive);
    CHECK(TickLoop::create({.budget_hard_max_ns = -1}, base).error() == TimeError::budget_not_positive);
    CHECK(TickLoop::create({.budget_window = 0}, base).error() == TimeError::budget_window_out_of_range);
    CHECK(TickLoop::create({.budget_window = tandem::largest_budget_window + 1}, base).error() ==
          TimeError::budget_window_out_of_range);
    CHECK(TickLoop::create({.max_catch_up_steps = 0}, base).message().find("at least one step") !=
          std::string_view::npos);
}

// ---- The frame budget --------------------------------------------------------------------

TEST_CASE("steps within budget report no violations") {
    TickLoop loop = made(loop_33ms(8), base);
    CHECK(loop.frame_violations().empty());  // nothing recorded, nothing to judge
    for (int i = 0; i < 200; ++i) loop.record_step_duration_ns(20 * ms);
    loop.record_step_duration_ns(33 * ms);  // exactly at budget is within it
    loop.record_step_duration_ns(50 * ms);  // exactly at the hard max is within it
    CHECK(loop.frame_violations().empty());
    CHECK(loop.frame_stats() == tandem::FrameStats{.samples = 202, .p99_ns = 20 * ms, .worst_ns = 50 * ms});
}

TEST_CASE("a step over the hard max is a violation even when the p99 is fine") {
    // The hard ceiling is per step: one 60 ms step is a hitch a player sees, however fast
    // the other 99 were.
    TickLoop loop = made(loop_33ms(8), base);
    for (int i = 0; i < 99; ++i) loop.record_step_duration_ns(10 * ms);
    loop.record_step_duration_ns(60 * ms);
    const std::vector<FrameViolation> violations = loop.frame_violations();
    REQUIRE(violations.size() == 1);
    CHECK(violations[0] == FrameViolation{.breach = FrameBudgetBreach::step_over_hard_max,
                                          .observed_ns = 60 * ms,
                                          .limit_ns = 50 * ms,
                                          .step_sequence = 99});
}

TEST_CASE("a p99 over budget is a violation even when no step breaks the hard max") {
    // Slow on average is the other failure: 40 ms steps on a 33 ms tick cannot keep up,
    // though none of them is a visible hitch by itself.
    TickLoop loop = made(loop_33ms(8), base);
    for (int i = 0; i < 199; ++i) loop.record_step_duration_ns(10 * ms);
    loop.record_step_duration_ns(40 * ms);
    CHECK(loop.frame_violations().empty());  // 1 in 200 over: the p99 is still 10 ms
    loop.record_step_duration_ns(40 * ms);
    loop.record_step_duration_ns(40 * ms);
    // 202 samples, nearest rank ceil(0.99 * 202) = 200: the first of the three 40 ms steps.
    const std::vector<FrameViolation> violations = loop.frame_violations();
    REQUIRE(violations.size() == 1);
    CHECK(violations[0] == FrameViolation{.breach = FrameBudgetBreach::p99_over_budget,
                                          .observed_ns = 40 * ms,
                                          .limit_ns = 33 * ms,
                                          .step_sequence = 201});
}

TEST_CASE("the p99 is the nearest-rank percentile of the window") {
    TickLoop loop = made(loop_33ms(8), base);
    // 1..100 ms recorded in a scrambled order: nearest rank 99 of 100 is 99 ms.
    for (int i = 0; i < 100; ++i) loop.record_step_duration_ns(((i * 37) % 100 + 1) * ms);
    CHECK(loop.frame_stats() == tandem::FrameStats{.samples = 100, .p99_ns = 99 * ms, .worst_ns = 100 * ms});
    // Hard-max breaches come oldest first, then the p99 breach.
    const std::vector<FrameViolation> violations = loop.frame_violations();
    REQUIRE(violations.size() == 51);
    for (size_t i = 0; i + 1 < violations.size(); ++i) {
        CHECK(violations[i].breach == FrameBudgetBreach::step_over_hard_max);
        CHECK(violations[i].observed_ns > 50 * ms);
        if (i > 0) CHECK(violations[i].step_sequence > violations[i - 1].step_sequence);
    }
    CHECK(violations.back().breach == FrameBudgetBreach::p99_over_budget);
    CHECK(violations.back().observed_ns == 99 * ms);

    TickLoop single = made(loop_33ms(8), base);
    single.record_step_duration_ns(7 * ms);
    CHECK(single.frame_stats() == tandem::FrameStats{.samples = 1, .p99_ns = 7 * ms, .worst_ns = 7 * ms});
}

TEST_CASE("the budget window is bounded and forgets the oldest steps") {
    // A server lives for weeks: the check looks at recent steps and its memory stays fixed.
    TickLoopConfig config = loop_33ms(8);
    config.budget_window = 10;
    TickLoop loop = made(config, base);
    loop.record_step_duration_ns(80 * ms);  // step 0: a breach, soon forgotten
    for (int i = 0; i < 14; ++i) loop.record_step_duration_ns(5 * ms);
    loop.record_step_duration_ns(70 * ms);  // step 15: a breach inside the window
    CHECK(loop.recorded_steps() == 16);
    CHECK(loop.frame_stats().samples == 10);
    CHECK(loop.frame_stats().worst_ns == 70 * ms);
    const std::vector<FrameViolation> violations = loop.frame_violations();
    REQUIRE(violations.size() == 2);
    CHECK(violations[0].breach == FrameBudgetBreach::step_over_hard_max);
    CHECK(violations[0].step_sequence == 15);  // numbered across the session, not the window
    CHECK(violations[1].breach == FrameBudgetBreach::p99_over_budget);  // 1 in 10 is over 1%
}

TEST_CASE("a negative step duration is recorded as zero") {
    TickLoop loop = made(loop_33ms(8), base);
    loop.record_step_duration_ns(-5 * ms);
    CHECK(loop.frame_stats() == tandem::FrameStats{.samples = 1, .p99_ns = 0, .worst_ns = 0});
}

// ---- Cross-build agreement ---------------------------------------------------------------

TEST_CASE("a scripted wall clock produces the same ticks on every build") {
    // A golden fold over a clock with jitter, stalls and rollbacks, at the exact 30 Hz step.
    TickLoop loop = made(TickLoopConfig{.max_catch_up_steps = 5}, base);
    uint64_t fold = 1469598103934665603ull;
    const auto mix = [&fold](uint64_t v) { fold = (fold ^ v) * 1099511628211ull; };
    int64_t now = base;
    uint32_t lcg = 31337;
    const auto next = [&lcg] { return lcg = lcg * 1664525u + 1013904223u; };
    for (int wake = 0; wake < 20'000; ++wake) {
        const uint32_t kind = next() >> 28;
        const uint32_t magnitude = next();
        if (kind == 0) now -= static_cast<int64_t>(magnitude % (500 * ms));           // rollback
        else if (kind == 1) now += static_cast<int64_t>(magnitude >> 16) * 50'000;   // stall, up to 3.3 s
        else now += static_cast<int64_t>(magnitude % (40 * ms));                      // jitter
        const TickAdvance step = loop.advance(now);
        mix(step.executed);
        mix(step.dropped);
        mix(static_cast<uint64_t>(loop.last_drift_ns()));
    }
    mix(loop.tick());
    mix(loop.clock_rollbacks());
    INFO("fold = " << fold << "  tick = " << loop.tick() << "  dropped = " << loop.dropped_steps()
                   << "  rollbacks = " << loop.clock_rollbacks());
    CHECK(fold == 13859442441397210971ull);
}
