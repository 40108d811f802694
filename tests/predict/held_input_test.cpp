// Properties of tandem/predict/held_input.hpp: the held input is dead reckoned, a sample is
// carried forward by its age before blending, and a sample past the threshold snaps.
#include "tandem/predict/held_input.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using Catch::Detail::Approx;
using tandem::predict::HeldInputConfig;
using tandem::predict::HeldInputPredictor;

namespace {
struct Stick {
    float vx = 0.0f;   // units per second while held
};
struct Ctx {
    float drift = 0.0f;
};
void advance_move(float& x, const Stick& s, float dt, const Ctx& c) { x += (s.vx + c.drift) * dt; }
float lerp(const float& a, const float& b, float t) { return a + (b - a) * t; }
using Predictor = HeldInputPredictor<float, Stick, Ctx>;
}  // namespace

TEST_CASE("the held input is integrated every frame") {
    Predictor p(0.0f, HeldInputConfig{}, advance_move, lerp);
    p.advance(1.0f);
    CHECK(p.logical() == 0.0f);   // nothing held yet: Stick{} is neutral
    p.hold(Stick{4.0f});
    p.advance(0.5f);
    p.advance(0.25f);
    CHECK(p.logical() == Approx(3.0f));
    CHECK(p.render() == p.logical());
}

TEST_CASE("a sample is carried forward by its age, then the blend closes its fraction of the gap") {
    Predictor p(10.0f, HeldInputConfig{0.25f}, advance_move, lerp);
    p.hold(Stick{2.0f});
    // Server: at 4.0 a tenth of a second ago, holding 2 u/s: now at 4.2. Gap 10 - 4.2 = 5.8.
    const auto c = p.reconcile(4.0f, 0.1f);
    CHECK(c.seen == Approx(10.0f));
    CHECK(c.settled == Approx(4.2f));
    CHECK(p.logical() == Approx(10.0f - 0.25f * 5.8f));
}

TEST_CASE("repeated samples converge geometrically by the blend") {
    Predictor p(0.0f, HeldInputConfig{0.5f}, advance_move, lerp);
    for (int i = 0; i < 10; ++i) p.reconcile(1.0f, 0.0f);
    CHECK(p.logical() == Approx(1.0f - std::pow(0.5f, 10.0f)));
}

TEST_CASE("a negative age counts as zero") {
    Predictor p(0.0f, HeldInputConfig{1.0f}, advance_move, lerp);
    p.hold(Stick{100.0f});
    p.reconcile(5.0f, -0.2f);
    CHECK(p.logical() == 5.0f);
}

TEST_CASE("past the teleport threshold a sample snaps instead of blending") {
    Predictor p = Predictor(0.0f, HeldInputConfig{0.25f}, advance_move, lerp)
                      .with_teleport([](const float& a, const float& b) { return std::fabs(a - b); }, 400.0f);
    p.reconcile(100.0f, 0.0f);
    CHECK(p.logical() == Approx(25.0f));
    CHECK(p.teleports() == 0);
    p.reconcile(1000.0f, 0.0f);
    CHECK(p.logical() == 1000.0f);
    CHECK(p.teleports() == 1);
}

TEST_CASE("while inactive neither frames nor samples are dead reckoned") {
    Predictor p(0.0f, HeldInputConfig{1.0f}, advance_move, lerp);
    p.hold(Stick{10.0f});
    p.set_active(false);
    p.advance(1.0f);
    CHECK(p.logical() == 0.0f);
    p.reconcile(3.0f, 0.5f);
    CHECK(p.logical() == 3.0f);
}

TEST_CASE("the rule reads the context given with set_context") {
    Predictor p(0.0f, HeldInputConfig{}, advance_move, lerp);
    p.set_context(Ctx{1.0f});
    p.advance(2.0f);
    CHECK(p.logical() == Approx(2.0f));
}
