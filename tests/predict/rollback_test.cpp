// Properties of tandem/predict/rollback.hpp: whatever order and delay confirmations arrive
// in, every confirmed state equals a straight simulation of the true inputs; mispredictions
// roll back exactly to their frame; the window bounds how far prediction runs; SyncTest
// catches a step that is not deterministic. Also run over the real World.
#include "tandem/predict/rollback.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <deque>
#include <vector>

#include "predict/toy.hpp"
#include "tandem/core/random.hpp"
#include "arena/sim.hpp"

using tandem::mix64;
using tandem::XorShift;
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

Session make_session(uint32_t players, RollbackConfig config = {}) {
    auto made = Session::create(Toy{std::vector<int64_t>(players, 0), 0}, std::vector<Stick>(players, 0), config,
                                toy_step, toy_digest);
    REQUIRE(made.ok());
    return std::move(made).value();
}

// The true inputs: each player holds a random stick for a random few frames.
std::vector<std::vector<Stick>> true_inputs(uint64_t seed, uint32_t players, uint32_t frames) {
    XorShift rng(seed);
    std::vector<std::vector<Stick>> in(frames, std::vector<Stick>(players));
    for (uint32_t p = 0; p < players; ++p) {
        Stick held = 0;
        for (uint32_t f = 0; f < frames; ++f) {
            if (rng.below(4) == 0) held = static_cast<Stick>(rng.below(21)) - 10;
            in[f][p] = held;
        }
    }
    return in;
}

// The reference: a straight simulation of the true inputs, every state kept.
std::vector<Toy> reference_states(const std::vector<std::vector<Stick>>& in, uint32_t players) {
    std::vector<Toy> states{Toy{std::vector<int64_t>(players, 0), 0}};
    for (const auto& frame : in) {
        Toy next = states.back();
        toy_step(next, frame);
        states.push_back(next);
    }
    return states;
}
}  // namespace

TEST_CASE("create refuses no players, a missing callable and a config past the limits") {
    const Toy start{{0}, 0};
    CHECK(Session::create(start, {}, {}, toy_step, toy_digest).code() == "no_players");
    CHECK(Session::create(start, {0}, {}, nullptr, toy_digest).code() == "missing_callable");
    CHECK(Session::create(start, {0}, {}, toy_step, nullptr).code() == "missing_callable");
    RollbackConfig too_wide;
    too_wide.prediction_window = tandem::predict::max_rollback_frames + 1;
    CHECK(Session::create(start, {0}, too_wide, toy_step, toy_digest).code() == "config_out_of_range");
    RollbackConfig delay_past_ahead;
    delay_past_ahead.input_delay = 10;
    delay_past_ahead.max_frames_ahead = 5;
    CHECK(Session::create(start, {0}, delay_past_ahead, toy_step, toy_digest).code() == "config_out_of_range");
}

TEST_CASE("unknown inputs are predicted as the player's last input, and a confirmation that agrees rolls nothing back") {
    Session s = make_session(2);
    REQUIRE(s.queue_local_input(0, 1).ok());
    REQUIRE(s.confirm_remote_input(1, 0, 5).ok());
    REQUIRE(s.advance_frame().ok());
    for (int f = 1; f < 6; ++f) {
        REQUIRE(s.queue_local_input(0, 1).ok());
        REQUIRE(s.advance_frame().ok());
    }
    CHECK(s.state().pos == std::vector<int64_t>{6, 30});   // remote held at 5 for frames 1..5
    CHECK(s.prediction_depth() == 5);
    for (Frame f = 1; f < 6; ++f) REQUIRE(s.confirm_remote_input(1, f, 5).ok());
    CHECK(s.state().pos == std::vector<int64_t>{6, 30});
    CHECK(s.rollbacks() == 0);
    CHECK(s.resimulated_frames() == 0);
    CHECK(s.confirmed_frame() == 6);
}

TEST_CASE("a contradicted prediction rolls back to its frame and re-simulates to the true state") {
    auto in = true_inputs(7, 2, 12);
    in[3][1] = in[2][1] + 1;   // the remote changes its stick at frame 3
    const auto truth = reference_states(in, 2);
    Session s = make_session(2);
    for (uint32_t f = 0; f < 10; ++f) {
        REQUIRE(s.queue_local_input(0, in[f][0]).ok());
        if (f < 3) REQUIRE(s.confirm_remote_input(1, f, in[f][1]).ok());
        REQUIRE(s.advance_frame().ok());
    }
    // Remote frames 3..9 arrive late, all at once; frame 3 contradicts the held prediction.
    for (uint32_t f = 3; f < 10; ++f) REQUIRE(s.confirm_remote_input(1, f, in[f][1]).ok());
    CHECK(s.pending_rollback() == Frame{3});
    CHECK(s.state() == truth[10]);
    CHECK(s.rollbacks() == 1);
    CHECK(s.resimulated_frames() == 10 - 3);
    CHECK(s.confirmed_frame() == 10);
}

TEST_CASE("several confirmations between advances cost one rollback from the earliest frame") {
    RollbackConfig config;
    config.prediction_window = 16;
    Session s = make_session(2, config);
    for (int f = 0; f < 8; ++f) {
        REQUIRE(s.queue_local_input(0, 0).ok());
        REQUIRE(s.advance_frame().ok());
    }
    REQUIRE(s.confirm_remote_input(1, 5, 3).ok());
    REQUIRE(s.confirm_remote_input(1, 2, 4).ok());
    const auto report = s.advance_frame();
    REQUIRE(report.ok());
    CHECK(report->resimulated == 8 - 2);
    CHECK(s.rollbacks() == 1);
    // Frames 2..4 held 4, 5..8 held 3 (frame 8 predicted from frame 5's).
    CHECK(s.state().pos[1] == 3 * 4 + 4 * 3);
}

TEST_CASE("the prediction window refuses to run further ahead, typed, until a confirmation frees it") {
    RollbackConfig config;
    config.prediction_window = 3;
    Session s = make_session(2, config);
    for (int f = 0; f < 3; ++f) {
        REQUIRE(s.queue_local_input(0, 1).ok());
        REQUIRE(s.advance_frame().ok());
    }
    REQUIRE(s.queue_local_input(0, 1).ok());
    const auto refused = s.advance_frame();
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == RollbackErrorCode::prediction_window_full);
    CHECK(refused.error().frame == 3);
    CHECK(refused.code() == "prediction_window_full");
    CHECK(s.current_frame() == 3);   // nothing was stepped
    REQUIRE(s.confirm_remote_input(1, 0, 0).ok());
    CHECK(s.advance_frame().ok());
    CHECK(s.prediction_depth() == 3);
}

TEST_CASE("a window of zero is lockstep: a frame is stepped only once all its inputs are confirmed") {
    RollbackConfig config;
    config.prediction_window = 0;
    Session s = make_session(2, config);
    REQUIRE(s.queue_local_input(0, 2).ok());
    CHECK_FALSE(s.advance_frame().ok());
    REQUIRE(s.confirm_remote_input(1, 0, 3).ok());
    REQUIRE(s.advance_frame().ok());
    CHECK(s.state().pos == std::vector<int64_t>{2, 3});
    CHECK(s.rollbacks() == 0);
}

TEST_CASE("state_at gives confirmed states and refuses unconfirmed, unreached and forgotten ones") {
    const auto in = true_inputs(11, 2, 40);
    const auto truth = reference_states(in, 2);
    RollbackConfig config;
    config.confirmed_history = 4;
    Session s = make_session(2, config);
    for (uint32_t f = 0; f < 30; ++f) {
        REQUIRE(s.queue_local_input(0, in[f][0]).ok());
        if (f >= 2) REQUIRE(s.confirm_remote_input(1, f - 2, in[f - 2][1]).ok());   // two frames late
        REQUIRE(s.advance_frame().ok());
    }
    REQUIRE(s.confirmed_frame() == 28);
    const auto at = s.state_at(28);
    REQUIRE(at.ok());
    CHECK(**at == truth[28]);
    CHECK(*s.state_at(24).value() == truth[24]);
    CHECK(s.state_at(29).code() == "frame_not_confirmed");
    CHECK(s.state_at(23).code() == "frame_too_old");   // beyond the confirmed history of 4
}

TEST_CASE("a local input lands input_delay frames ahead, after frames where every player holds its default") {
    RollbackConfig config;
    config.input_delay = 2;
    Session s = make_session(2, config);
    CHECK(s.confirmed_frame() == 2);   // frames 0 and 1: the defaults, on every peer alike
    const auto landed = s.queue_local_input(0, 7);
    REQUIRE(landed.ok());
    CHECK(*landed == 2);
    REQUIRE(s.confirm_remote_input(1, 2, 1).ok());
    CHECK(s.confirmed_frame() == 3);
    CHECK(s.state_at(3).code() == "frame_not_simulated");
    for (int f = 0; f < 3; ++f) REQUIRE(s.advance_frame().ok());
    CHECK(s.state().pos == std::vector<int64_t>{7, 1});
    CHECK(*s.state_at(3).value() == s.state());
}

TEST_CASE("a second local input for the same frame is refused, typed, and changes nothing") {
    Session s = make_session(2);
    REQUIRE(s.queue_local_input(0, 3).ok());
    const auto again = s.queue_local_input(0, 4);
    CHECK(again.code() == "input_already_queued");
    CHECK(again.error().frame == 0);
    CHECK(s.queue_local_input(0, 3).code() == "input_already_queued");
    REQUIRE(s.confirm_remote_input(1, 0, 0).ok());
    REQUIRE(s.advance_frame().ok());
    CHECK(s.state().pos[0] == 3);
    CHECK(s.queue_local_input(0, 4).ok());   // the next frame takes a new one
}

TEST_CASE("refusals: an unknown player, a frame too far ahead or too old, and a conflicting confirmation") {
    RollbackConfig config;
    config.max_frames_ahead = 10;
    config.confirmed_history = 0;
    Session s = make_session(2, config);
    CHECK(s.queue_local_input(2, 1).code() == "unknown_player");
    CHECK(s.confirm_remote_input(7, 0, 1).code() == "unknown_player");
    CHECK(s.predict_input(2, 1).code() == "unknown_player");
    CHECK(s.confirm_remote_input(1, 11, 1).code() == "frame_too_far_ahead");
    REQUIRE(s.confirm_remote_input(1, 10, 1).ok());
    REQUIRE(s.confirm_remote_input(1, 0, 4).ok());
    CHECK(s.confirm_remote_input(1, 0, 4).ok());   // the same again is harmless
    const auto conflict = s.confirm_remote_input(1, 0, 5);
    CHECK(conflict.code() == "input_conflict");
    CHECK(conflict.error().frame == 0);
    for (int f = 0; f < 5; ++f) {
        REQUIRE(s.queue_local_input(0, 0).ok());
        REQUIRE(s.confirm_remote_input(1, static_cast<Frame>(f), 4).ok());
        REQUIRE(s.advance_frame().ok());
    }
    CHECK(s.confirm_remote_input(1, 1, 4).code() == "frame_too_old");
}

TEST_CASE("an input confirmed for a future frame is used when that frame is reached") {
    Session s = make_session(2);
    REQUIRE(s.confirm_remote_input(1, 3, 9).ok());
    for (int f = 0; f < 5; ++f) {
        REQUIRE(s.queue_local_input(0, 0).ok());
        REQUIRE(s.advance_frame().ok());
    }
    CHECK(s.state().pos[1] == 9 + 9);   // frames 3 and 4 (4 predicted from 3)
    CHECK(s.rollbacks() == 0);
}

TEST_CASE("a hint predicts a player's unconfirmed frames until a confirmation says otherwise") {
    Session s = make_session(2);
    REQUIRE(s.predict_input(0, 5).ok());   // a server will stamp it on some frame; show it now
    REQUIRE(s.confirm_remote_input(1, 0, 0).ok());
    for (int f = 0; f < 3; ++f) REQUIRE(s.advance_frame().ok());
    CHECK(s.state().pos[0] == 15);
    CHECK(s.confirmed_frame() == 0);
    // The server put the input on frame 1: frame 0 held the default.
    REQUIRE(s.confirm_remote_input(0, 0, 0).ok());
    REQUIRE(s.confirm_remote_input(0, 1, 5).ok());
    CHECK(s.state().pos[0] == 10);
    CHECK(s.rollbacks() == 1);
}

TEST_CASE("whatever the order and delay of confirmations, every confirmed state equals the straight simulation") {
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        const uint32_t players = 3;
        const uint32_t frames = 120;
        const auto in = true_inputs(seed, players, frames + 20);
        const auto truth = reference_states(in, players);
        RollbackConfig config;
        config.prediction_window = 8;
        Session s = make_session(players, config);
        XorShift rng(seed * 977);
        struct Message {
            uint32_t due;
            uint32_t player;
            Frame frame;
        };
        std::vector<Message> in_flight;
        uint32_t now = 0;
        while (s.current_frame() < frames) {
            // Remote players' inputs leave at their frame and arrive 0..7 frames later, any order.
            for (uint32_t p = 1; p < players; ++p)
                if (now < frames + 20) in_flight.push_back({now + rng.below(8), p, now});
            for (size_t i = 0; i < in_flight.size();) {
                if (in_flight[i].due <= now) {
                    const Message m = in_flight[i];
                    REQUIRE(s.confirm_remote_input(m.player, m.frame, in[m.frame][m.player]).ok());
                    in_flight[i] = in_flight.back();
                    in_flight.pop_back();
                } else {
                    ++i;
                }
            }
            const Frame frame = s.current_frame();
            if (frame < frames + 20) REQUIRE(s.queue_local_input(0, in[frame][0]).ok());
            const auto stepped = s.advance_frame();
            if (!stepped) REQUIRE(stepped.error().code == RollbackErrorCode::prediction_window_full);
            const Frame confirmed = s.confirmed_frame();
            if (confirmed <= s.current_frame()) {
                INFO("seed " << seed << " confirmed frame " << confirmed);
                REQUIRE(*s.state_at(confirmed).value() == truth[confirmed]);
            }
            ++now;
        }
        CHECK(s.rollbacks() > 0);
    }
}

TEST_CASE("two peers exchanging inputs over a delay agree on every confirmed frame") {
    const uint32_t frames = 200;
    const uint32_t latency = 3;   // frames each way
    auto in = true_inputs(99, 2, frames + 10);
    in[0] = {0, 0};   // the input delay's first frame: both hold their defaults
    const auto truth = reference_states(in, 2);
    RollbackConfig config;
    config.input_delay = 1;
    Session peer[2] = {make_session(2, config), make_session(2, config)};
    struct Message {
        uint32_t due;
        Frame frame;
        Stick stick;
    };
    std::deque<Message> wire[2];   // wire[i]: to peer i
    for (uint32_t now = 0; peer[0].current_frame() < frames || peer[1].current_frame() < frames; ++now) {
        REQUIRE(now < 2 * frames);
        for (int me = 0; me < 2; ++me) {
            Session& s = peer[me];
            while (!wire[me].empty() && wire[me].front().due <= now) {
                REQUIRE(s.confirm_remote_input(1 - me, wire[me].front().frame, wire[me].front().stick).ok());
                wire[me].pop_front();
            }
            // Queue and send this frame's input once, then step if the window allows.
            const Frame lands = s.current_frame() + config.input_delay;
            const auto queued = s.queue_local_input(me, in[lands][me]);
            if (queued) wire[1 - me].push_back({now + latency, *queued, in[lands][me]});
            else REQUIRE(queued.error().code == RollbackErrorCode::input_already_queued);
            const auto stepped = s.advance_frame();
            if (!stepped) REQUIRE(stepped.error().code == RollbackErrorCode::prediction_window_full);
        }
    }
    const Frame both = std::min(peer[0].confirmed_frame(), peer[1].confirmed_frame());
    REQUIRE(both > frames - 10);
    for (Frame f = both - 8; f <= both; ++f) {
        REQUIRE(*peer[0].state_at(f).value() == truth[f]);
        REQUIRE(*peer[1].state_at(f).value() == truth[f]);
    }
    CHECK(peer[0].rollbacks() > 0);
}

namespace {
int32_t hidden_noise = 0;   // what a non-deterministic step reads: state outside the state
void leaky_step(Toy& t, std::span<const Stick> in) {
    toy_step(t, in);
    t.pos[0] += hidden_noise;
}
}  // namespace

TEST_CASE("SyncTest re-simulates every frame and finds nothing wrong with a deterministic step") {
    RollbackConfig config;
    config.sync_test_frames = 4;
    Session s = make_session(2, config);
    const auto in = true_inputs(5, 2, 300);
    for (uint32_t f = 0; f < 300; ++f) {
        REQUIRE(s.queue_local_input(0, in[f][0]).ok());
        REQUIRE(s.queue_local_input(1, in[f][1]).ok());
        REQUIRE(s.advance_frame().ok());
    }
    CHECK(s.sync_test_checks() == 300);
    CHECK(s.state() == reference_states(in, 2)[300]);
}

TEST_CASE("SyncTest catches a step that reads state outside the state, naming the frame") {
    RollbackConfig config;
    config.sync_test_frames = 2;
    auto made = Session::create(Toy{{0, 0}, 0}, {0, 0}, config, leaky_step, toy_digest);
    REQUIRE(made.ok());
    Session s = std::move(made).value();
    hidden_noise = 0;
    for (int f = 0; f < 40; ++f) {
        REQUIRE(s.queue_local_input(0, 1).ok());
        REQUIRE(s.queue_local_input(1, 2).ok());
        REQUIRE(s.advance_frame().ok());
    }
    hidden_noise = 1;   // from now on re-running frame 39 gives another state 40
    REQUIRE(s.queue_local_input(0, 1).ok());
    REQUIRE(s.queue_local_input(1, 2).ok());
    const auto caught = s.advance_frame();
    hidden_noise = 0;
    REQUIRE_FALSE(caught.ok());
    CHECK(caught.code() == "sync_test_mismatch");
    CHECK(caught.error().frame == 40);
    CHECK(caught.error().expected_digest != caught.error().actual_digest);
}

TEST_CASE("without SyncTest the same non-deterministic step goes unnoticed") {
    auto made = Session::create(Toy{{0, 0}, 0}, {0, 0}, RollbackConfig{}, leaky_step, toy_digest);
    REQUIRE(made.ok());
    Session s = std::move(made).value();
    hidden_noise = 1;
    for (int f = 0; f < 10; ++f) {
        REQUIRE(s.queue_local_input(0, 1).ok());
        REQUIRE(s.queue_local_input(1, 2).ok());
        REQUIRE(s.advance_frame().ok());
    }
    hidden_noise = 0;
    CHECK(s.sync_test_checks() == 0);
}

// ---- Over the real World ------------------------------------------------------------------

namespace {


arena::World joined_world() {
    arena::WorldConfig c = arena::default_config();
    c.pellet_count = 48;   // small: the sanitizer build steps it a few hundred times
    arena::World w = arena::make_world(c).value();
    const arena::Input joins[] = {{1, tandem::sim::InputKind::join, arena::Steer{tandem::Vec2{tandem::Fx::from_int(100), tandem::Fx::from_int(100)}}},
                                  {2, tandem::sim::InputKind::join, arena::Steer{tandem::Vec2{tandem::Fx::from_int(900), tandem::Fx::from_int(900)}}}};
    arena::step(w, joins);
    return w;
}

arena::Input steer(uint32_t player, int32_t x, int32_t y) {
    return {player, tandem::sim::InputKind::command, arena::Steer{tandem::Vec2{tandem::Fx::from_int(x), tandem::Fx::from_int(y)}}};
}

void world_step(arena::World& w, std::span<const arena::Input> in) { arena::step(w, in); }
uint64_t world_digest(const arena::World& w) { return arena::digest(w); }
}  // namespace

TEST_CASE("over the real World, late confirmations converge on the lockstep world's digest") {
    const arena::World start = joined_world();
    auto made = RollbackSession<arena::World, arena::Input>::create(start, {steer(1, 100, 100), steer(2, 900, 900)},
                                                                    RollbackConfig{}, world_step, world_digest);
    REQUIRE(made.ok());
    auto s = std::move(made).value();
    arena::World lockstep = start;
    const uint32_t frames = 60;
    auto remote_at = [](uint32_t f) { return steer(2, 900 - static_cast<int32_t>(f / 10) * 40, 500); };
    for (uint32_t f = 0; f < frames; ++f) {
        const arena::Input mine = steer(1, 100 + static_cast<int32_t>(f) * 5, 300);
        REQUIRE(s.queue_local_input(0, mine).ok());
        if (f >= 4) REQUIRE(s.confirm_remote_input(1, f - 4, remote_at(f - 4)).ok());   // four frames late
        REQUIRE(s.advance_frame().ok());
        const arena::Input both[] = {mine, remote_at(f)};
        arena::step(lockstep, both);
    }
    for (uint32_t f = frames - 4; f < frames; ++f) REQUIRE(s.confirm_remote_input(1, f, remote_at(f)).ok());
    CHECK(arena::digest(s.state()) == arena::digest(lockstep));
    CHECK(*s.state_at(frames).value() == lockstep);
    CHECK(s.rollbacks() > 0);
}

TEST_CASE("SyncTest over the real World finds its step deterministic") {
    RollbackConfig config;
    config.sync_test_frames = 3;
    auto made = RollbackSession<arena::World, arena::Input>::create(joined_world(), {steer(1, 100, 100), steer(2, 900, 900)},
                                                                    config, world_step, world_digest);
    REQUIRE(made.ok());
    auto s = std::move(made).value();
    for (int32_t f = 0; f < 40; ++f) {
        REQUIRE(s.queue_local_input(0, steer(1, 100 + f * 7, 200)).ok());
        REQUIRE(s.queue_local_input(1, steer(2, 900 - f * 3, 700)).ok());
        REQUIRE(s.advance_frame().ok());
    }
    CHECK(s.sync_test_checks() == 40);
}
