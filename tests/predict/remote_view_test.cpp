// Properties of tandem/predict/remote_view.hpp: interpolation between bracketing samples,
// capped dead reckoning past the newest, holding when both are off, and a Hermite curve that
// reproduces any cubic exactly from its samples and derivatives.
#include "tandem/predict/remote_view.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using Catch::Detail::Approx;
using tandem::predict::HermiteView;
using tandem::predict::RemoteView;
using tandem::predict::RenderOpts;
using tandem::predict::SnapshotBuffer;
using V2 = tandem::predict::Float2;

TEST_CASE("nothing is drawn before the first sample") {
    RemoteView<V2, V2> view(12, 500);
    CHECK_FALSE(view.render(0).has_value());
}

TEST_CASE("a target between two samples is interpolated between them") {
    RemoteView<V2, V2> view(12, 500);
    view.push(100, V2{0, 0}, V2{});
    view.push(200, V2{10, -4}, V2{});
    const auto s = view.render(125);
    REQUIRE(s);
    CHECK(s->x == Approx(2.5f));
    CHECK(s->y == Approx(-1.0f));
    CHECK(view.over_extrapolations() == 0);
}

TEST_CASE("past the newest sample the view dead reckons along its velocity, up to the coast cap") {
    RemoteView<V2, V2> view(12, 500);
    view.push(0, V2{0, 0}, V2{});
    view.push(100, V2{1, 0}, V2{10, 0});   // 10 units per second
    CHECK(view.render(300)->x == Approx(3.0f));
    CHECK(view.render(2000)->x == Approx(6.0f));   // 500 ms at most
    CHECK(view.over_extrapolations() == 2);
    CHECK(view.coast_capped() == 1);
}

TEST_CASE("with both options off the view holds the newest sample at or before the target") {
    RemoteView<V2, V2> view(12, 500);
    view.push(0, V2{0, 0}, V2{1, 0});
    view.push(100, V2{1, 0}, V2{1, 0});
    const RenderOpts raw{false, false};
    CHECK(view.render(50, raw)->x == 0.0f);
    CHECK(view.render(100, raw)->x == 1.0f);
    CHECK(view.render(900, raw)->x == 1.0f);
    CHECK(view.over_extrapolations() == 1);   // counted whatever the options: it is the clock
}

TEST_CASE("a target before the oldest sample holds the oldest") {
    RemoteView<V2, V2> view(12, 500);
    view.push(100, V2{5, 0}, V2{1, 0});
    view.push(200, V2{6, 0}, V2{1, 0});
    CHECK(view.render(0)->x == 5.0f);
}

TEST_CASE("the buffer keeps at most its capacity and refuses samples that are not newer") {
    SnapshotBuffer<int> buffer(3);
    CHECK(buffer.push(1, 10));
    CHECK(buffer.push(2, 20));
    CHECK_FALSE(buffer.push(2, 99));   // duplicate time
    CHECK_FALSE(buffer.push(1.5, 99));  // older
    CHECK_FALSE(buffer.push(std::nan(""), 99));
    CHECK(buffer.push(3, 30));
    CHECK(buffer.push(4, 40));
    CHECK(buffer.size() == 3);
    CHECK(buffer.oldest()->value == 20);
    CHECK(buffer.stale_pushes() == 3);
    const auto at = buffer.at(3.25);
    REQUIRE(at);
    CHECK(at->before->value == 30);
    CHECK(at->after->value == 40);
    CHECK(at->alpha == Approx(0.25f));
}

TEST_CASE("a Hermite curve through samples of a cubic reproduces the cubic exactly") {
    // p(t) = 2 + 3t - 4t^2 + t^3 (t in seconds), p'(t) = 3 - 8t + 3t^2: a cubic Hermite segment
    // is exact for cubics, whatever the sample spacing.
    auto p = [](double t) { return 2.0 + 3.0 * t - 4.0 * t * t + t * t * t; };
    auto dp = [](double t) { return 3.0 - 8.0 * t + 3.0 * t * t; };
    HermiteView<float, float> view(8);
    for (double t : {0.0, 0.1, 0.35, 0.5, 1.2})
        view.push(t * 1000.0, static_cast<float>(p(t)), static_cast<float>(dp(t)));
    for (double ms = 0.0; ms <= 1200.0; ms += 7.0) {
        INFO("t = " << ms << " ms");
        REQUIRE(*view.render(ms) == Approx(p(ms / 1000.0)).margin(1e-4));
    }
}

TEST_CASE("on a circle the Hermite curve stays far closer than the chord") {
    // Radius 10, half a turn per second, sampled at 10 Hz with exact velocities.
    const double r = 10.0, w = 3.14159265358979323846;
    auto at = [&](double t) { return V2{static_cast<float>(r * std::cos(w * t)), static_cast<float>(r * std::sin(w * t))}; };
    auto vel = [&](double t) {
        return V2{static_cast<float>(-r * w * std::sin(w * t)), static_cast<float>(r * w * std::cos(w * t))};
    };
    HermiteView<V2, V2> spline(64);
    RemoteView<V2, V2> chord(64, 0);
    for (int i = 0; i <= 20; ++i) {
        spline.push(i * 100.0, at(i / 10.0), vel(i / 10.0));
        chord.push(i * 100.0, at(i / 10.0), vel(i / 10.0));
    }
    double worst_spline = 0.0, worst_chord = 0.0;
    for (double ms = 0.0; ms <= 2000.0; ms += 1.0) {
        const V2 truth = at(ms / 1000.0);
        const V2 s = *spline.render(ms);
        const V2 c = *chord.render(ms);
        worst_spline = std::max(worst_spline, std::hypot(double(s.x - truth.x), double(s.y - truth.y)));
        worst_chord = std::max(worst_chord, std::hypot(double(c.x - truth.x), double(c.y - truth.y)));
    }
    // The chord's worst is the sagitta of a pi/10 arc: r (1 - cos(pi/20)).
    CHECK(worst_chord == Approx(r * (1.0 - std::cos(w / 20.0))).epsilon(1e-3));
    CHECK(worst_spline < worst_chord / 100.0);
}
