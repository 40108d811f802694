// Properties of src/net/interpolation_clock.*: no target before the first observe, later
// observes ignored, advance by wall time exact at any frame rate, position steering moves a
// stated fraction of the error, rate steering stays within its bound, glides without ever
// running backward and is exact at any frame rate; bad delays refused with a code.
#include "tandem/net/interpolation_clock.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

using tandem::Fx;
using tandem::ratio;
using tandem::net::InterpolationClock;
using tandem::net::LinkError;

namespace {

constexpr int64_t ms = 1'000'000;

InterpolationClock clock_with_delay(int64_t delay) {
    auto made = InterpolationClock::create(delay);
    INFO("refused: " << made.message());
    REQUIRE(made.ok());
    return std::move(made).value();
}

// Frame boundaries of a caller at `fps` over one second: floor(i * 1e9 / fps), so the dts
// differ from frame to frame (33333333 or 33333334 at 30 fps) and sum to exactly 1 s.
std::vector<int64_t> frame_dts(int64_t fps, int64_t seconds) {
    std::vector<int64_t> dts;
    int64_t last = 0;
    for (int64_t i = 1; i <= fps * seconds; ++i) {
        const int64_t at = i * 1'000'000'000 / fps;
        dts.push_back(at - last);
        last = at;
    }
    return dts;
}

}  // namespace

TEST_CASE("a negative or absurd delay is refused with a code, zero is allowed") {
    CHECK(InterpolationClock::create(-1).code() == "delay_negative");
    CHECK(InterpolationClock::create((int64_t{1} << 60) + 1).code() == "delay_too_long");
    CHECK(InterpolationClock::create(0).ok());
    auto clock = clock_with_delay(100 * ms);
    CHECK(clock.set_delay(-5).code() == "delay_negative");
    CHECK(clock.delay_ns() == 100 * ms);  // a refused change changes nothing
}

TEST_CASE("there is no target before the first observe, the first starts the clock, later ones are ignored") {
    auto clock = clock_with_delay(100 * ms);
    CHECK_FALSE(clock.started());
    CHECK(clock.target() == std::nullopt);
    CHECK(clock.position() == std::nullopt);
    clock.advance(50 * ms);  // nothing to advance yet
    CHECK(clock.target() == std::nullopt);
    clock.observe(1000 * ms);
    CHECK(clock.target() == 900 * ms);
    clock.observe(5000 * ms);  // arrival never steers a free-running clock
    CHECK(clock.target() == 900 * ms);
    clock.advance(16 * ms);
    CHECK(clock.target() == 916 * ms);
    CHECK(clock.position() == 1016 * ms);
}

TEST_CASE("advance moves the target by wall time, a zero or negative dt moves nothing") {
    auto clock = clock_with_delay(0);
    clock.observe(0);
    clock.advance(0);
    clock.advance(-30 * ms);
    CHECK(clock.target() == 0);
    clock.advance(7);
    CHECK(clock.target() == 7);
}

TEST_CASE("changing the delay moves the target at once") {
    auto clock = clock_with_delay(100 * ms);
    clock.observe(1000 * ms);
    REQUIRE(clock.set_delay(250 * ms).ok());
    CHECK(clock.target() == 750 * ms);
}

TEST_CASE("a 30 fps and a 144 fps caller reach the same target") {
    auto at30 = clock_with_delay(100 * ms);
    auto at144 = clock_with_delay(100 * ms);
    at30.observe(0);
    at144.observe(0);
    for (int64_t dt : frame_dts(30, 10)) at30.advance(dt);
    for (int64_t dt : frame_dts(144, 10)) at144.advance(dt);
    CHECK(at30.target() == 10'000 * ms - 100 * ms);
    CHECK(at144.target() == at30.target());
}

TEST_CASE("position steering moves a fraction of the error, rounded to the nearest nanosecond") {
    auto clock = clock_with_delay(0);
    clock.observe(0);
    // ratio(1, 10) is raw 6554 (6553.6 rounded); 100 ms * 6554 / 65536 = 10000610.35 ns.
    clock.resync(100 * ms, ratio(1, 10));
    CHECK(clock.position() == 10'000'610);
    // A negative error moves it back by the same rule: -10000610.35 rounds to -10000610.
    clock.resync(-100 * ms + 10'000'610, ratio(1, 10));
    CHECK(clock.position() == 0);
    // One snaps; more than one is clamped to a snap; zero or less moves nothing.
    clock.resync(123 * ms, Fx::one());
    CHECK(clock.position() == 123 * ms);
    clock.resync(200 * ms, Fx::from_int(3));
    CHECK(clock.position() == 200 * ms);
    clock.resync(900 * ms, -Fx::one());
    CHECK(clock.position() == 200 * ms);
}

TEST_CASE("either steering starts a clock that has not started") {
    auto by_resync = clock_with_delay(10 * ms);
    by_resync.resync(500 * ms, ratio(1, 10));
    CHECK(by_resync.target() == 490 * ms);
    auto by_rate = clock_with_delay(10 * ms);
    by_rate.observe_rate(500 * ms, ratio(1, 10));
    CHECK(by_rate.target() == 490 * ms);
    CHECK(by_rate.playback_rate() == Fx::one());
}

TEST_CASE("rate steering sets the rate from the error and clamps it to the bound") {
    auto clock = clock_with_delay(0);
    clock.observe(0);
    // 50 ms behind over a 1 s horizon: 0.05, raw 3276.8 rounded to 3277.
    clock.observe_rate(50 * ms, ratio(1, 10));
    CHECK(clock.playback_rate().raw() == 65536 + 3277);
    // 300 ms ahead would be 0.7; the bound holds it at 1 - 0.1 (raw 6554).
    clock.observe_rate(-300 * ms, ratio(1, 10));
    CHECK(clock.playback_rate().raw() == 65536 - 6554);
    // A bound above one is clamped to one: the rate never goes negative.
    clock.observe_rate(-5000 * ms, Fx::from_int(2));
    CHECK(clock.playback_rate() == Fx::zero());
}

TEST_CASE("at a steady rate a 30 fps and a 144 fps caller advance exactly the same") {
    // The sub-nanosecond remainder is carried, so the total is floor(1e9 * rate) however the
    // second is split: 1e9 * 68813 / 65536 = 1050003051.76 -> 1050003051.
    auto at30 = clock_with_delay(0);
    auto at144 = clock_with_delay(0);
    for (auto* clock : {&at30, &at144}) {
        clock->observe(0);
        clock->observe_rate(50 * ms, ratio(1, 10));
        REQUIRE(clock->playback_rate().raw() == 68813);
    }
    for (int64_t dt : frame_dts(30, 1)) at30.advance_scaled(dt);
    for (int64_t dt : frame_dts(144, 1)) at144.advance_scaled(dt);
    CHECK(at30.position() == 1'050'003'051);
    CHECK(at144.position() == 1'050'003'051);
}

namespace {

// A clock that starts 300 ms ahead of a 20 Hz stream whose newest stamp is the true server
// time, steered on every packet, at 60 fps for `seconds`. Records every target.
struct SteeringRun {
    std::vector<int64_t> targets;
    std::vector<int64_t> errors;  // position - true server time, after each frame
    int64_t largest_step_deviation = 0;  // |advance - dt| over frames, ns
};

template <class Steer, class Advance>
SteeringRun steer_run(int64_t seconds, Steer steer, Advance advance) {
    auto clock = clock_with_delay(100 * ms);
    clock.observe(300 * ms);
    SteeringRun run;
    int64_t now = 0, next_packet = 0;
    for (int64_t dt : frame_dts(60, seconds)) {
        const int64_t before = *clock.position();
        advance(clock, dt);
        const int64_t moved = *clock.position() - before;
        now += dt;
        while (next_packet <= now) {
            steer(clock, next_packet);
            next_packet += 50 * ms;
        }
        const int64_t deviation = moved > dt ? moved - dt : dt - moved;
        if (deviation > run.largest_step_deviation) run.largest_step_deviation = deviation;
        run.targets.push_back(*clock.target());
        run.errors.push_back(*clock.position() - now);
    }
    return run;
}

}  // namespace

TEST_CASE("rate steering glides into alignment within its bound and never runs the target backward") {
    const SteeringRun run = steer_run(
        10, [](InterpolationClock& c, int64_t newest) { c.observe_rate(newest, ratio(1, 10)); },
        [](InterpolationClock& c, int64_t dt) { c.advance_scaled(dt); });
    for (size_t i = 1; i < run.targets.size(); ++i) REQUIRE(run.targets[i] >= run.targets[i - 1]);
    // At most the bound off real time per frame: the bound ratio(1, 10) is raw 6554, so a
    // frame of at most 16666667 ns deviates by at most 16666667 * 6554 / 65536 = 1666768.6,
    // rounded up, plus a nanosecond of carried remainder.
    CHECK(run.largest_step_deviation <= 1'666'769 + 1);
    // 300 ms of error closed at no more than 10% of real time takes at least 3 s ...
    CHECK(run.errors[60 * 2] > 50 * ms);
    // ... and within 10 s the clock sits within a packet interval of the stream.
    CHECK(std::abs(run.errors.back()) < 50 * ms);
}

TEST_CASE("position steering aligns by nudges that can run the target backward") {
    // The contrast that makes rate steering worth having: the same 300 ms lead, corrected by
    // position, steps the target back.
    const SteeringRun run = steer_run(
        10, [](InterpolationClock& c, int64_t newest) { c.resync(newest, ratio(1, 10)); },
        [](InterpolationClock& c, int64_t dt) { c.advance(dt); });
    bool ran_backward = false;
    for (size_t i = 1; i < run.targets.size(); ++i) ran_backward = ran_backward || run.targets[i] < run.targets[i - 1];
    CHECK(ran_backward);
    CHECK(std::abs(run.errors.back()) < 50 * ms);
}
