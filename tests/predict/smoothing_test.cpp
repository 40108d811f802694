// Properties of tandem/predict/smoothing.hpp: an ease finishes within its duration, a rate
// sheds a fixed fraction per 60 Hz frame whatever the frame rate, repeated corrections pile
// up to the closed-form steady state, and the monitor judges nothing until it has learnt.
#include "tandem/predict/smoothing.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using Catch::Detail::Approx;
using tandem::predict::AdaptiveDecay;
using tandem::predict::CorrectionMonitor;
using tandem::predict::ErrorSmoother;

namespace {
float lerp(const float& a, const float& b, float t) { return a + (b - a) * t; }
constexpr float frame = 1.0f / 60.0f;
}  // namespace

TEST_CASE("with no ease running the smoother draws the logical state") {
    ErrorSmoother<float> s(0.1f);
    CHECK(s.sample(7.0f, lerp) == 7.0f);
    CHECK_FALSE(s.in_progress());
}

TEST_CASE("a linear ease travels in proportion to time and lands exactly on the logical state") {
    ErrorSmoother<float> s(0.1f);
    s.begin_from(0.0f);
    s.advance(0.025f);
    CHECK(s.sample(2.0f, lerp) == Approx(0.5f));
    s.advance(0.025f);
    CHECK(s.sample(2.0f, lerp) == Approx(1.0f));
    s.advance(0.05f);
    CHECK_FALSE(s.in_progress());
    CHECK(s.sample(2.0f, lerp) == 2.0f);
}

TEST_CASE("the ease follows the logical state while it moves") {
    ErrorSmoother<float> s(0.1f);
    s.begin_from(0.0f);
    s.advance(0.05f);
    CHECK(s.sample(10.0f, lerp) == Approx(5.0f));   // half way from 0 to wherever logical is now
}

TEST_CASE("an easing function shapes the ease") {
    ErrorSmoother<float> s = ErrorSmoother<float>(0.1f).with_easing(tandem::predict::ease_out_cubic);
    s.begin_from(0.0f);
    s.advance(0.05f);
    CHECK(s.sample(1.0f, lerp) == Approx(1.0f - 0.125f));   // 1 - (1 - 0.5)^3
}

TEST_CASE("a zero duration snaps and reset drops an ease in progress") {
    ErrorSmoother<float> snap(0.0f);
    snap.begin_from(-5.0f);
    CHECK(snap.sample(3.0f, lerp) == 3.0f);
    ErrorSmoother<float> s(0.1f);
    s.begin_from(-5.0f);
    s.reset();
    CHECK(s.sample(3.0f, lerp) == 3.0f);
}

TEST_CASE("at_rate keeps its fraction of the error per 60 Hz frame, whatever the frame rate") {
    ErrorSmoother<float> at60 = ErrorSmoother<float>::at_rate(0.85f);
    at60.begin_from(2.0f);
    at60.advance(frame);
    CHECK(at60.sample(0.0f, lerp) == Approx(1.7f));

    ErrorSmoother<float> at144 = ErrorSmoother<float>::at_rate(0.85f);
    at144.begin_from(2.0f);
    for (int i = 0; i < 144; ++i) at144.advance(1.0f / 144.0f);
    ErrorSmoother<float> at30 = ErrorSmoother<float>::at_rate(0.85f);
    at30.begin_from(2.0f);
    for (int i = 0; i < 30; ++i) at30.advance(1.0f / 30.0f);
    const double reference = 2.0 * std::pow(0.85, 60.0);   // one second is sixty 60 Hz frames
    CHECK(at144.sample(0.0f, lerp) == Approx(reference).epsilon(1e-3));
    CHECK(at30.sample(0.0f, lerp) == Approx(reference).epsilon(1e-3));
}

namespace {
// Corrects the logical state by +2 units and then advances one 60 Hz frame, `frames` times;
// returns the largest drawn error measured after an advance.
template <class Smoother>
float worst_error_of_corrections_every_frame(Smoother s, int frames) {
    float logical = 0.0f;
    float worst = 0.0f;
    for (int i = 0; i < frames; ++i) {
        const float drawn = s.sample(logical, lerp);
        logical += 2.0f;
        s.begin_from(drawn);
        s.advance(frame);
        worst = std::max(worst, std::fabs(s.sample(logical, lerp) - logical));
    }
    return worst;
}
}  // namespace

TEST_CASE("corrections every frame pile up to the geometric steady state 2r/(1-r)") {
    // Each frame keeps a fraction r of (previous error + 2): error = 2r / (1 - r) in the limit.
    // Linear 0.1 s ease: r = 1 - (1/60)/0.1 = 5/6, limit 10. Rate 0.85: limit 1.7/0.15 = 11.33.
    CHECK(worst_error_of_corrections_every_frame(ErrorSmoother<float>(0.1f), 600) == Approx(10.0f).epsilon(1e-3));
    CHECK(worst_error_of_corrections_every_frame(ErrorSmoother<float>::at_rate(0.85f), 600) ==
          Approx(1.7f / 0.15f).epsilon(1e-3));
}

TEST_CASE("adaptive decay keeps 0.95 under a quarter unit, 0.85 over one, linearly between") {
    const AdaptiveDecay d;
    CHECK(d.keep_per_frame(0.1f) == Approx(0.95f));
    CHECK(d.keep_per_frame(0.25f) == Approx(0.95f));
    CHECK(d.keep_per_frame(0.625f) == Approx(0.90f));
    CHECK(d.keep_per_frame(1.0f) == Approx(0.85f));
    CHECK(d.keep_per_frame(-40.0f) == Approx(0.85f));   // a size, whatever the sign
    CHECK(d.retain(0.1f, frame) == Approx(0.95f));
}

namespace {
float decay_for_one_second(float error, int fps) {
    const AdaptiveDecay d;
    const float dt = 1.0f / static_cast<float>(fps);
    for (int i = 0; i < fps; ++i) error *= d.retain(error, dt);
    return error;
}
}  // namespace

TEST_CASE("a 30 fps client and a 144 fps one shed the same error over the same wall time") {
    // Wholly inside one band the rate is constant, so the reference is exact: keep^60 per second.
    CHECK(decay_for_one_second(0.2f, 30) == Approx(0.2 * std::pow(0.95, 60.0)).epsilon(1e-3));
    CHECK(decay_for_one_second(0.2f, 144) == Approx(0.2 * std::pow(0.95, 60.0)).epsilon(1e-3));
    // Crossing the bands the rate follows the shrinking error, sampled once per frame, so the
    // two agree closely rather than exactly. A per-frame (unnormalised) rate would differ 4.8x
    // in frames shed, which is orders of magnitude in error left.
    const float slow = decay_for_one_second(3.0f, 30);
    const float fast = decay_for_one_second(3.0f, 144);
    CHECK(slow == Approx(fast).epsilon(0.05));
    CHECK(fast < 3.0f * std::pow(0.95f, 60.0f));
}

TEST_CASE("the correction monitor raises nothing during its warm-up of 32 samples") {
    CorrectionMonitor m;
    for (int i = 0; i < 31; ++i) CHECK_FALSE(m.record(i % 2 == 0 ? 0.0f : 1000.0f));
    CHECK_FALSE(m.warmed_up());
    CHECK_FALSE(m.record(1.0f));
    CHECK(m.warmed_up());
    CHECK(m.alarms() == 0);
}

TEST_CASE("after warm-up a steady stream raises nothing and an outlier alarms") {
    CorrectionMonitor m;
    for (int i = 0; i < 200; ++i) REQUIRE_FALSE(m.record(i % 2 == 0 ? 1.0f : 1.2f));
    CHECK(m.threshold() > 1.2f);
    CHECK(m.threshold() < 2.0f);
    CHECK(m.record(10.0f));
    CHECK(m.alarms() == 1);
}

TEST_CASE("with_warmup changes how long the monitor learns before judging") {
    CorrectionMonitor m = CorrectionMonitor().with_warmup(64);
    for (int i = 0; i < 63; ++i) m.record(1.0f);
    CHECK_FALSE(m.record(50.0f));   // the 64th sample is still learning
    CorrectionMonitor short_warmup = CorrectionMonitor().with_warmup(4);
    for (int i = 0; i < 4; ++i) short_warmup.record(1.0f);
    CHECK(short_warmup.record(50.0f));
}

TEST_CASE("a lasting change of conditions stops alarming once it is the new normal") {
    // A long calm history must not anchor the baseline: it follows recent corrections.
    CorrectionMonitor m;
    for (int i = 0; i < 1000; ++i) m.record(1.0f + 0.1f * static_cast<float>(i % 3));
    int alarms_early = 0;
    for (int i = 0; i < 200; ++i) {
        const bool alarm = m.record(30.0f + static_cast<float>(i % 3));
        if (i < 10) alarms_early += alarm ? 1 : 0;
        if (i >= 150) REQUIRE_FALSE(alarm);
    }
    CHECK(alarms_early > 0);
}

TEST_CASE("a non-finite correction alarms without poisoning the baseline") {
    CorrectionMonitor m;
    for (int i = 0; i < 40; ++i) m.record(1.0f);
    CHECK(m.record(std::nanf("")));
    CHECK(std::isfinite(m.threshold()));
    CHECK_FALSE(m.record(1.0f));
}
