// The RollbackSession extensions a client whose inputs a server stamps onto frames relies on:
// hold_inputs off (an input is one frame's event), predict_input_at, adopt_confirmed_state,
// resimulate(max_frames) and retained_state. Every expected state is a plain re-run of the
// step over the inputs the test says each frame must have had, from the initial (or adopted)
// state: the reference never goes through the session.
#include "tandem/predict/rollback.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#include "predict/toy.hpp"
#include "tandem/core/random.hpp"

using tandem::mix64;
using tandem::predict::Frame;
using tandem::predict::RollbackConfig;
using tandem::predict::RollbackErrorCode;
using tandem::predict::RollbackSession;

namespace {
using toy::Stick;
using toy::Toy;
using toy::toy_digest;
using toy::toy_step;

using Session = RollbackSession<Toy, Stick>;
using Inputs = std::vector<std::vector<Stick>>;   // per frame, per player

Toy initial(uint32_t players) { return Toy{std::vector<int64_t>(players, 0), 0}; }

// The session steps through `steps` so a test can count the steps it ran.
Session make_session(uint32_t players, RollbackConfig config, std::shared_ptr<uint64_t> steps = std::make_shared<uint64_t>(0)) {
    auto made = Session::create(initial(players), std::vector<Stick>(players, 0), config,
                                [steps](Toy& t, std::span<const Stick> in) { ++*steps, toy_step(t, in); }, toy_digest);
    REQUIRE(made.ok());
    return std::move(made).value();
}

// The reference: `from` stepped over in[0..frames).
Toy rerun(Toy from, const Inputs& in, size_t frames) {
    for (size_t f = 0; f < frames; ++f) toy_step(from, in[f]);
    return from;
}
void advance(Session& s, uint32_t frames) {
    for (uint32_t i = 0; i < frames; ++i) REQUIRE(s.advance_frame().ok());
}
}  // namespace

TEST_CASE("hold_inputs off: an unconfirmed frame without a hint runs the default input, and a hint covers its own frame only", "[rollback]") {
    RollbackConfig config;
    config.hold_inputs = false;
    Session s = make_session(2, config);
    REQUIRE(s.confirm_remote_input(0, 0, 5).ok());
    REQUIRE(s.confirm_remote_input(1, 0, -2).ok());
    REQUIRE(s.predict_input_at(1, 2, 9).ok());
    advance(s, 5);
    // Frame 0 confirmed; later frames unconfirmed: player 0 has no input (0) after its 5, and
    // player 1's hint of 9 is frame 2's alone.
    const Inputs expected{{5, -2}, {0, 0}, {0, 9}, {0, 0}, {0, 0}};
    CHECK(s.state() == rerun(initial(2), expected, 5));

    // With holding (the default) the same calls repeat the last value instead: a different state.
    Session held = make_session(2, RollbackConfig{});
    REQUIRE(held.confirm_remote_input(0, 0, 5).ok());
    REQUIRE(held.confirm_remote_input(1, 0, -2).ok());
    REQUIRE(held.predict_input_at(1, 2, 9).ok());
    advance(held, 5);
    const Inputs expected_held{{5, -2}, {5, -2}, {5, 9}, {5, 9}, {5, 9}};
    CHECK(held.state() == rerun(initial(2), expected_held, 5));
}

TEST_CASE("predict_input_at: a guess for a future frame applies on that frame only (inputs not held)", "[rollback]") {
    RollbackConfig config;
    config.hold_inputs = false;
    Session s = make_session(1, config);
    REQUIRE(s.predict_input_at(0, 3, 4).ok());
    advance(s, 6);
    CHECK(s.rollbacks() == 0);
    CHECK(s.state() == rerun(initial(1), Inputs{{0}, {0}, {0}, {4}, {0}, {0}}, 6));
}

TEST_CASE("predict_input_at: a different guess for a frame already simulated re-simulates from it, the same guess or a confirmed frame does not", "[rollback]") {
    RollbackConfig config;
    config.hold_inputs = false;
    auto steps = std::make_shared<uint64_t>(0);
    Session s = make_session(1, config, steps);
    REQUIRE(s.predict_input_at(0, 2, 4).ok());
    advance(s, 6);

    SECTION("a different guess") {
        REQUIRE(s.predict_input_at(0, 2, 7).ok());
        CHECK(s.pending_rollback() == Frame{2});
        *steps = 0;
        CHECK(s.state() == rerun(initial(1), Inputs{{0}, {0}, {7}, {0}, {0}, {0}}, 6));
        CHECK(*steps == 4);   // frames 2..5 again
        CHECK(s.rollbacks() == 1);
        CHECK(s.resimulated_frames() == 4);
    }
    SECTION("the guess it already ran") {
        REQUIRE(s.predict_input_at(0, 2, 4).ok());
        CHECK_FALSE(s.pending_rollback());
        CHECK(s.rollbacks() == 0);
    }
    SECTION("a confirmed frame keeps its confirmed input") {
        REQUIRE(s.confirm_remote_input(0, 1, 3).ok());
        CHECK(s.pending_rollback() == Frame{1});
        (void)s.state();
        REQUIRE(s.predict_input_at(0, 1, 8).ok());
        CHECK_FALSE(s.pending_rollback());
        CHECK(s.state() == rerun(initial(1), Inputs{{0}, {3}, {4}, {0}, {0}, {0}}, 6));
    }
}

TEST_CASE("predict_input_at refuses an unknown player and a frame too old or too far ahead, typed, changing nothing", "[rollback]") {
    RollbackConfig config;
    config.hold_inputs = false;
    config.confirmed_history = 2;
    config.max_frames_ahead = 10;
    Session s = make_session(1, config);
    for (Frame f = 0; f < 8; ++f) REQUIRE(s.confirm_remote_input(0, f, 1).ok());
    advance(s, 8);
    const Toy before = s.state();
    CHECK(s.predict_input_at(1, 9, 1).error().code == RollbackErrorCode::unknown_player);
    CHECK(s.predict_input_at(0, 0, 1).error().code == RollbackErrorCode::frame_too_old);
    CHECK(s.predict_input_at(0, 8 + 11, 1).error().code == RollbackErrorCode::frame_too_far_ahead);
    CHECK(s.predict_input_at(0, 8 + 10, 1).ok());
    CHECK_FALSE(s.pending_rollback());
    CHECK(s.state() == before);
}

TEST_CASE("adopt_confirmed_state: a re-simulation pending from before the adopted frame starts from the adopted state, stepping none of the frames before it", "[rollback]") {
    auto steps = std::make_shared<uint64_t>(0);
    RollbackConfig config;
    config.hold_inputs = false;
    Session s = make_session(1, config, steps);
    advance(s, 8);   // predicted with no input
    // The true inputs of frames 0..4 arrive: frame 1 contradicts the prediction.
    const Inputs truth{{0}, {3}, {0}, {2}, {0}};
    for (Frame f = 0; f < 5; ++f) REQUIRE(s.confirm_remote_input(0, f, truth[f][0]).ok());
    REQUIRE(s.pending_rollback() == Frame{1});
    // A state at frame 5 known from elsewhere; marked so that it cannot be mistaken for a
    // re-run of frames 1..4 (a server's verified state is the same one; the mark proves use).
    Toy adopted = rerun(initial(1), truth, 5);
    adopted.history ^= 0xadad;
    auto used = s.adopt_confirmed_state(5, adopted);
    REQUIRE(used.ok());
    CHECK(used.value());
    CHECK(s.pending_rollback() == Frame{5});
    *steps = 0;
    CHECK(s.state() == rerun(adopted, Inputs{{0}, {0}, {0}}, 3));
    CHECK(*steps == 3);   // frames 5..7, not 1..4
    REQUIRE(s.state_at(5).ok());
    CHECK(*s.state_at(5).value() == adopted);
}

TEST_CASE("adopt_confirmed_state at the current frame ends the pending re-simulation with the adopted state itself", "[rollback]") {
    RollbackConfig config;
    config.hold_inputs = false;
    Session s = make_session(1, config);
    advance(s, 4);
    for (Frame f = 0; f < 4; ++f) REQUIRE(s.confirm_remote_input(0, f, 1).ok());
    REQUIRE(s.pending_rollback() == Frame{0});
    const Toy adopted = rerun(initial(1), Inputs{{1}, {1}, {1}, {1}}, 4);
    REQUIRE(s.adopt_confirmed_state(4, adopted).value());
    CHECK_FALSE(s.pending_rollback());
    REQUIRE(s.retained_state(4));
    CHECK(*s.retained_state(4) == adopted);
    CHECK(s.resimulate() == 0);
}

TEST_CASE("adopt_confirmed_state without a re-simulation pending from before the frame changes nothing and says so", "[rollback]") {
    RollbackConfig config;
    config.hold_inputs = false;
    Session s = make_session(1, config);
    advance(s, 6);
    for (Frame f = 0; f < 4; ++f) REQUIRE(s.confirm_remote_input(0, f, 0).ok());   // as predicted
    Toy marked = s.state();
    marked.history ^= 1;
    auto none = s.adopt_confirmed_state(3, marked);
    REQUIRE(none.ok());
    CHECK_FALSE(none.value());
    CHECK(*s.retained_state(3) == rerun(initial(1), Inputs{{0}, {0}, {0}}, 3));

    // Pending from the adopted frame itself or later: the adopted state would replace no
    // re-simulated frame.
    REQUIRE(s.predict_input_at(0, 4, 7).ok());   // frame 4 ran 0: pending from 4
    REQUIRE(s.pending_rollback() == Frame{4});
    const Toy at4 = *s.retained_state(4);
    CHECK_FALSE(s.adopt_confirmed_state(4, marked).value());
    CHECK(*s.retained_state(4) == at4);
    CHECK(s.pending_rollback() == Frame{4});
}

TEST_CASE("adopt_confirmed_state refuses a frame not retained, not confirmed or not reached, typed", "[rollback]") {
    RollbackConfig config;
    config.hold_inputs = false;
    config.confirmed_history = 2;
    Session s = make_session(1, config);
    for (Frame f = 0; f < 10; ++f) REQUIRE(s.confirm_remote_input(0, f, 0).ok());
    advance(s, 8);
    const Toy any = s.state();
    CHECK(s.adopt_confirmed_state(2, any).error().code == RollbackErrorCode::frame_too_old);
    CHECK(s.adopt_confirmed_state(9, any).error().code == RollbackErrorCode::frame_not_simulated);
    Session unconfirmed = make_session(1, config);
    advance(unconfirmed, 4);
    REQUIRE(unconfirmed.confirm_remote_input(0, 0, 0).ok());
    CHECK(unconfirmed.adopt_confirmed_state(3, any).error().code == RollbackErrorCode::frame_not_confirmed);
}

TEST_CASE("SyncTest after an adopted state checks from it on, not the old prediction's frames before it", "[rollback]") {
    RollbackConfig config;
    config.hold_inputs = false;
    config.sync_test_frames = 6;
    config.prediction_window = 16;
    Session s = make_session(1, config);
    advance(s, 8);
    const Inputs truth{{0}, {3}, {0}, {2}, {0}};
    for (Frame f = 0; f < 5; ++f) REQUIRE(s.confirm_remote_input(0, f, truth[f][0]).ok());
    REQUIRE(s.adopt_confirmed_state(5, rerun(initial(1), truth, 5)).value());
    for (int i = 0; i < 4; ++i) {
        auto r = s.advance_frame();
        INFO("advance " << i << ": " << (r.ok() ? "ok" : tandem::predict::error_name(r.error())));
        REQUIRE(r.ok());
    }
    CHECK(s.sync_test_checks() >= 4);
}

TEST_CASE("resimulate(max_frames) runs at most that many, leaves the rest pending with the old prediction readable past it, and counts one rollback", "[rollback]") {
    RollbackConfig config;
    config.hold_inputs = false;
    Session s = make_session(1, config);
    advance(s, 8);
    std::vector<Toy> old;
    for (Frame f = 0; f <= 8; ++f) old.push_back(*s.retained_state(f));
    REQUIRE(s.confirm_remote_input(0, 1, 5).ok());
    const Inputs truth{{0}, {5}, {0}, {0}, {0}, {0}, {0}, {0}};

    CHECK(s.resimulate(3) == 3);   // frames 1, 2, 3
    CHECK(s.pending_rollback() == Frame{4});
    CHECK(*s.retained_state(4) == rerun(initial(1), truth, 4));
    for (Frame f = 5; f <= 8; ++f) CHECK(*s.retained_state(f) == old[f]);
    CHECK(s.rollbacks() == 1);

    CHECK(s.resimulate(2) == 2);
    CHECK(s.pending_rollback() == Frame{6});
    CHECK(s.resimulate() == 2);
    CHECK_FALSE(s.pending_rollback());
    CHECK(s.rollbacks() == 1);   // one re-simulation in three calls
    CHECK(s.resimulated_frames() == 7);
    CHECK(*s.retained_state(8) == rerun(initial(1), truth, 8));
    CHECK(s.resimulate() == 0);

    // The next contradiction is a new rollback.
    REQUIRE(s.confirm_remote_input(0, 2, 1).ok());
    CHECK(s.resimulate(1) == 1);
    CHECK(s.rollbacks() == 2);
}

TEST_CASE("a contradiction before a partly run re-simulation restarts it from the earlier frame", "[rollback]") {
    RollbackConfig config;
    config.hold_inputs = false;
    Session s = make_session(1, config);
    advance(s, 8);
    REQUIRE(s.confirm_remote_input(0, 4, 2).ok());
    CHECK(s.resimulate(2) == 2);   // frames 4, 5
    REQUIRE(s.confirm_remote_input(0, 1, 3).ok());
    CHECK(s.pending_rollback() == Frame{1});
    CHECK(s.state() == rerun(initial(1), Inputs{{0}, {3}, {0}, {0}, {2}, {0}, {0}, {0}}, 8));
    CHECK(s.rollbacks() == 1);   // still the one in flight
}

TEST_CASE("retained_state reads what was last simulated without re-simulating, and nothing for frames not retained or not reached", "[rollback]") {
    auto steps = std::make_shared<uint64_t>(0);
    RollbackConfig config;
    config.hold_inputs = false;
    config.confirmed_history = 2;
    Session s = make_session(1, config, steps);
    for (Frame f = 0; f < 6; ++f) REQUIRE(s.confirm_remote_input(0, f, 1).ok());
    advance(s, 10);
    const Inputs truth{{1}, {1}, {1}, {1}, {1}, {1}, {0}, {0}, {0}, {0}};
    CHECK(s.retained_state(11) == nullptr);
    CHECK(s.retained_state(3) == nullptr);   // trimmed: 2 frames behind the confirmed frame 6
    REQUIRE(s.retained_state(4));
    CHECK(*s.retained_state(4) == rerun(initial(1), truth, 4));
    CHECK(*s.retained_state(10) == rerun(initial(1), truth, 10));
    // A contradiction pending: the retained state is still the old prediction, no step run.
    const Toy old = *s.retained_state(10);
    REQUIRE(s.confirm_remote_input(0, 7, 4).ok());
    *steps = 0;
    CHECK(*s.retained_state(10) == old);
    CHECK(*steps == 0);
    CHECK(s.pending_rollback() == Frame{7});
}
