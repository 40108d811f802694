// Properties of tandem/predict/predicted_player.hpp: inputs predict at once, reconciliation
// replays exactly the unacknowledged ones, corrections ease while teleports snap, and a
// one-shot effect fires once per press however many times its input is replayed.
#include "tandem/predict/predicted_player.hpp"

#include <catch2/catch.hpp>

using Catch::Detail::Approx;
using tandem::predict::PlayerConfig;
using tandem::predict::PredictedPlayer;
using tandem::predict::Seq16;

namespace {
struct Pos {
    int x = 0;   // integer positions: replay results compare exactly
    friend bool operator==(Pos, Pos) = default;
};
struct Move {
    int dx = 0;
    bool fire = false;
};
struct World {
    int wind = 0;
};

void apply_move(Pos& p, const Move& m, const World& w) { p.x += m.dx + w.wind; }
Pos lerp_pos(const Pos& a, const Pos& b, float t) {
    return Pos{a.x + static_cast<int>(static_cast<float>(b.x - a.x) * t)};
}

using Player = PredictedPlayer<Pos, Move, World>;
Player make(PlayerConfig config = {}) { return Player(Pos{}, config, apply_move, lerp_pos); }
}  // namespace

TEST_CASE("an input is predicted at once and numbered for the wire") {
    Player me = make();
    CHECK(me.input(Move{3}) == Seq16(1));
    CHECK(me.input(Move{4}) == Seq16(2));
    CHECK(me.logical().x == 7);
    CHECK(me.render().x == 7);
    CHECK(me.inputs().size() == 2);
}

TEST_CASE("reconciling replays exactly the inputs the server has not processed") {
    Player me = make();
    me.input(Move{1});
    me.input(Move{10});
    me.input(Move{100});
    // The server ran input 1 and agrees: 1. The client's 10 and 100 are replayed on top.
    const auto c = me.reconcile(Pos{1}, Seq16(1));
    CHECK(me.logical().x == 111);
    CHECK(c.seen.x == 111);
    CHECK(c.settled.x == 111);
    CHECK(me.inputs().size() == 2);
    CHECK(me.render().x == 111);
    // No correction, so no ease started: a new input shows at once instead of trailing.
    me.input(Move{9});
    CHECK(me.render().x == 120);
}

TEST_CASE("a misprediction is reported as seen and settled, and the drawing eases across it") {
    Player me = make(PlayerConfig{256, 0.1f});
    me.input(Move{5});
    me.input(Move{5});
    // The server says input 1 moved it by 25 (something the client did not know).
    const auto c = me.reconcile(Pos{25}, Seq16(1));
    CHECK(c.seen.x == 10);
    CHECK(c.settled.x == 30);
    CHECK(me.logical().x == 30);
    CHECK(me.render().x == 10);   // the eye starts where it was
    me.advance(0.05f);
    CHECK(me.render().x == 20);   // half way, linear
    me.advance(0.05f);
    CHECK(me.render().x == 30);
}

TEST_CASE("a one-shot in apply fires once per replay, under on_first once per press") {
    int fired_in_apply = 0;
    int fired_once = 0;
    auto apply_with_effect = [&](Pos& p, const Move& m, const World& w) {
        apply_move(p, m, w);
        if (m.fire) ++fired_in_apply;   // the mistake: an effect inside the replayed rule
    };
    PredictedPlayer<Pos, Move, World> me(Pos{}, PlayerConfig{}, apply_with_effect, lerp_pos);
    me.on_first([&](const Move& m, const World&) {
        if (m.fire) ++fired_once;
    });
    me.input(Move{0, true});   // the trigger pull
    const int packets_before_ack = 9;
    for (int i = 0; i < packets_before_ack; ++i) me.reconcile(Pos{}, Seq16(0));
    me.reconcile(Pos{}, Seq16(1));   // acknowledged: no longer replayed
    me.reconcile(Pos{}, Seq16(1));
    CHECK(fired_in_apply == 1 + packets_before_ack);
    CHECK(fired_once == 1);
}

TEST_CASE("while inactive inputs are numbered but not predicted, and nothing is replayed") {
    Player me = make();
    int fired = 0;
    me.on_first([&](const Move&, const World&) { ++fired; });
    me.set_active(false);
    CHECK(me.input(Move{5}) == Seq16(1));
    CHECK(me.logical().x == 0);
    me.reconcile(Pos{2}, Seq16(0));
    CHECK(me.logical().x == 2);   // the server's state as it is, no replay of the held input
    CHECK(fired == 0);
    me.set_active(true);
    me.input(Move{1});
    CHECK(me.logical().x == 3);
    CHECK(fired == 1);
}

TEST_CASE("a teleport snaps instead of easing") {
    Player me = make(PlayerConfig{256, 0.5f});
    me.input(Move{5});
    me.reconcile(Pos{50}, Seq16(1));   // a correction: an ease is running
    me.teleport(Pos{-100});
    CHECK(me.render().x == -100);
    CHECK(me.logical().x == -100);
}

TEST_CASE("the rule reads the context given with set_context") {
    Player me = make();
    me.set_context(World{2});
    me.input(Move{1});
    CHECK(me.logical().x == 3);
    me.reconcile(Pos{0}, Seq16(0));   // replay under the same context
    CHECK(me.logical().x == 3);
}

TEST_CASE("render never feeds the prediction: logical stays exact while the drawing eases") {
    Player me = make(PlayerConfig{256, 1.0f});
    me.input(Move{10});
    me.reconcile(Pos{0}, Seq16(1));   // server: the move did nothing
    me.advance(0.5f);
    CHECK(me.render().x == 5);
    me.input(Move{1});                // predicts from the exact 0, not from the drawn 5
    CHECK(me.logical().x == 1);
}
