// PredictedClient<G> as Match<G> drives it (Match::follow), for the arena and the stub game,
// over LatencyLinks of 100 ms round trip, steady and with jitter, beside a plain lockstep
// ClientSession<G>: the own command is drawn at once and reaches the confirmed state a round
// trip later; the other player's commands roll the prediction back; after a quiet second every
// predicted tick's state is the room's at that tick; and the confirmed state verifies every
// tick throughout. The room's state at each tick is the reference. Also the old predicted
// world's cases in their generic form: the config's refusals, a predicting and a lockstep
// client verifying the same ticks, and pages whose frames last 4 ticks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "arena/sim.hpp"
#include "net/stub_game.hpp"
#include "tandem/client/predicted.hpp"
#include "tandem/net/match.hpp"
#include "tandem/sim/state.hpp"

using namespace tandem;
using namespace tandem::net;
using client::PredictConfig;
using client::PredictConfigError;

namespace {
constexpr int64_t ms = 1'000'000;
constexpr int64_t tick_ns = 1'000'000'000 / 60;

// What a test needs of each game: a match, the own command and whether a state shows it, and
// the other player's commands (a different one each time: an unchanged one is not resent).
struct StubPlay {
    using G = stub::Game;
    static constexpr const char* name = "stub";
    static Match<G> match() { return Match<G>::create(RoomConfig<G>{}).value(); }
    static G::Command own() { return G::Command{50}; }
    static G::Command other(uint64_t t) { return G::Command{static_cast<uint8_t>(1 + t % 3)}; }
    static bool shows_own(const G::State& s, uint32_t player) {
        for (const stub::Counter& c : s.counters)
            if (c.player == player) return c.count == 50;
        return false;
    }
};
struct ArenaPlay {
    using G = arena::Sim;
    static constexpr const char* name = "arena";
    static Match<G> match() {
        RoomConfig<G> rc;
        rc.game.pellet_count = 64;
        return Match<G>::create(rc).value();
    }
    static arena::Steer point(int32_t x, int32_t y) { return arena::Steer{Vec2{Fx::from_int(x), Fx::from_int(y)}}; }
    static G::Command own() { return point(200, 800); }
    static G::Command other(uint64_t t) {
        return point(100 + static_cast<int32_t>((t * 37) % 800), 200 + static_cast<int32_t>((t * 53) % 600));
    }
    static bool shows_own(const G::State& s, uint32_t player) {
        for (const arena::Well& w : s.wells)
            if (w.player == player) return w.target == own().target;
        return false;
    }
};

template <class G>
using Predicted = client::PredictedClient<G>;

// The room's digest at each tick it reached: the reference.
template <class G>
struct RoomLog {
    std::map<uint64_t, uint64_t> digest;
    void record(const Match<G>& m) { digest[G::tick(m.room().state())] = sim::digest<G>(m.room().state()); }
};

// The confirmed state's verification: every tick from the baseline on verified, none wrong,
// and the state the room's at its tick.
template <class G>
void check_verified_every_tick(const Match<G>& m, uint32_t e, const RoomLog<G>& room) {
    const SessionFigures f = m.session(e).figures();
    CHECK(f.mismatches == 0);
    REQUIRE(m.session(e).confirmed_state());
    const auto& c = *m.session(e).confirmed_state();
    CHECK(f.verified_ticks == G::tick(c) - f.last_baseline_tick);
    REQUIRE(room.digest.count(G::tick(c)));
    CHECK(sim::digest<G>(c) == room.digest.at(G::tick(c)));
}

struct Observed {
    std::optional<uint64_t> predicted_saw, confirmed_saw;   // loop ticks the own command showed
    uint64_t compared = 0, equal = 0;                       // predicted ticks after the quiet second
    uint64_t confirmed_checked = 0, confirmed_wrong = 0;    // confirmed states checked every frame
    client::PredictionFigures figures;
};

// Me (predicting) and another player (lockstep), the other's link 30 +- 5 ms. I send one command
// at own_at; the other commands every 5 ticks in [300, last_other); then nobody does.
template <class Play>
Observed play_match(LinkSpec my_link, uint64_t ticks = 1000) {
    using G = typename Play::G;
    Match<G> m = Play::match();
    const uint32_t me = m.add_session(Role::play, 1, my_link, 0);
    const uint32_t other = m.add_session(Role::play, 2, LinkSpec{30 * ms, 5 * ms}, 0);
    Predicted<G>& p = m.follow(me, Predicted<G>::create().value());
    m.connect(me, 0);
    m.connect(other, 0);
    RoomLog<G> room;
    std::map<uint64_t, uint64_t> predicted;
    const uint64_t own_at = 200, last_other = 600;
    Observed o;
    for (uint64_t t = 0; t < ticks; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        m.deliver(now);
        if (t == own_at) m.send_command(me, Play::own(), now);
        if (t >= 300 && t < last_other && t % 5 == 0) m.send_command(other, Play::other(t), now);
        m.advance(me, now, 8 * ms);
        m.advance(other, now, 8 * ms);
        const uint32_t player = m.session(me).figures().player;
        if (const auto* s = p.state()) {
            predicted[G::tick(*s)] = sim::digest<G>(*s);
            if (!o.predicted_saw && t >= own_at && Play::shows_own(*s, player)) o.predicted_saw = t;
        }
        if (const auto& c = m.session(me).confirmed_state()) {
            if (!o.confirmed_saw && Play::shows_own(*c, player)) o.confirmed_saw = t;
            if (room.digest.count(G::tick(*c))) {
                ++o.confirmed_checked;
                if (sim::digest<G>(*c) != room.digest.at(G::tick(*c))) ++o.confirmed_wrong;
            }
        }
        m.tick(now);
        room.record(m);
    }
    for (const auto& [tick, digest] : predicted) {
        if (tick < last_other + 60 || !room.digest.count(tick)) continue;
        ++o.compared;
        if (digest == room.digest.at(tick)) ++o.equal;
    }
    o.figures = p.figures();
    check_verified_every_tick(m, me, room);
    check_verified_every_tick(m, other, room);
    return o;
}

template <class Play>
void check_match(LinkSpec my_link) {
    const Observed o = play_match<Play>(my_link);
    INFO(Play::name << ": own command drawn at loop tick " << (o.predicted_saw ? static_cast<int64_t>(*o.predicted_saw) : -1)
                    << ", confirmed at " << (o.confirmed_saw ? static_cast<int64_t>(*o.confirmed_saw) : -1) << "; rollbacks "
                    << o.figures.rollbacks << ", resets " << o.figures.resets << ", depth " << o.figures.depth_ticks
                    << "; converged " << o.equal << " of " << o.compared);
    REQUIRE(o.predicted_saw);
    REQUIRE(o.confirmed_saw);
    // Drawn on the first step after it was sent; confirmed a round trip (100 ms: 6 ticks) later.
    CHECK(*o.predicted_saw <= 201);
    CHECK(*o.confirmed_saw >= *o.predicted_saw + 5);
    // 60 commands of the other player, each contradicting the prediction.
    CHECK(o.figures.rollbacks > 20);
    CHECK(o.figures.resets == 1);   // the baseline only
    CHECK(o.figures.depth_ticks >= 5);
    CHECK(o.figures.depth_ticks <= client::PredictConfig{}.window_ticks);
    CHECK(o.compared > 200);
    CHECK(o.equal == o.compared);
    CHECK(o.confirmed_checked > 800);
    CHECK(o.confirmed_wrong == 0);
}
}  // namespace

TEMPLATE_TEST_CASE("PredictedClient in a Match: over a steady 100 ms round trip, the own command drawn at once and confirmed a round trip later, others' roll back, converges to the room's states, the confirmed state verifies every tick",
                   "[predicted][match]", StubPlay, ArenaPlay) {
    check_match<TestType>(LinkSpec{50 * ms, 0});
}

TEMPLATE_TEST_CASE("PredictedClient in a Match: over a 100 ms round trip with 10 ms of jitter, the own command drawn at once and confirmed a round trip later, others' roll back, converges to the room's states, the confirmed state verifies every tick",
                   "[predicted][match]", StubPlay, ArenaPlay) {
    check_match<TestType>(LinkSpec{50 * ms, 10 * ms});
}

TEST_CASE("PredictConfig: a window above 64, a budget below the window and a depth above the window are refused, typed", "[predicted]") {
    PredictConfig c;
    c.window_ticks = 65;
    c.resim_budget_ticks = 100;
    c.initial_depth_ticks = 0;
    CHECK(Predicted<stub::Game>::create(c).error() == PredictConfigError::window_too_large);
    c.window_ticks = 10;
    c.resim_budget_ticks = 9;
    CHECK(Predicted<stub::Game>::create(c).error() == PredictConfigError::budget_below_window);
    c.resim_budget_ticks = client::max_resim_budget_ticks + 1;
    CHECK(Predicted<stub::Game>::create(c).error() == PredictConfigError::budget_below_window);
    c.resim_budget_ticks = 10;
    c.initial_depth_ticks = 11;
    CHECK(Predicted<stub::Game>::create(c).error() == PredictConfigError::depth_above_window);
    c.initial_depth_ticks = 10;
    CHECK(Predicted<stub::Game>::create(c).ok());
    CHECK(client::error_name(PredictConfigError::depth_above_window) == "depth_above_window");
}

TEMPLATE_TEST_CASE("PredictedClient in a Match: it leaves the confirmed state untouched (the same match without it verifies the same ticks with the same states, frame by frame, and a lockstep client beside it verifies every tick too)",
                   "[predicted][match]", StubPlay, ArenaPlay) {
    using G = typename TestType::G;
    struct Run {
        std::vector<std::pair<uint64_t, uint64_t>> confirmed;   // a's confirmed tick and digest, each frame
        SessionFigures fa;
        uint64_t rollbacks = 0;
    };
    auto run = [](bool predict) {
        Match<G> m = TestType::match();
        const uint32_t a = m.add_session(Role::play, 1, LinkSpec{45 * ms, 8 * ms}, 0);
        const uint32_t b = m.add_session(Role::play, 2, LinkSpec{45 * ms, 8 * ms}, 0);
        if (predict) m.follow(a, Predicted<G>::create().value());
        m.connect(a, 0);
        m.connect(b, 0);
        RoomLog<G> room;
        Run r;
        for (uint64_t t = 0; t < 700; ++t) {
            const int64_t now = static_cast<int64_t>(t) * tick_ns;
            m.deliver(now);
            for (uint32_t e : {a, b})
                if (t >= 60 && t % 5 == e) m.send_command(e, TestType::other(t * 3 + e), now);
            m.advance(a, now, 8 * ms);
            m.advance(b, now, 8 * ms);
            if (const auto& c = m.session(a).confirmed_state()) r.confirmed.emplace_back(G::tick(*c), sim::digest<G>(*c));
            m.tick(now);
            room.record(m);
        }
        r.fa = m.session(a).figures();
        if (predict) r.rollbacks = m.template follower<Predicted<G>>(a)->figures().rollbacks;
        check_verified_every_tick(m, a, room);
        check_verified_every_tick(m, b, room);
        return r;
    };
    const Run with = run(true), without = run(false);
    CHECK(with.rollbacks > 0);   // it did predict, and was wrong at times
    CHECK(with.fa.verified_ticks > 600);
    CHECK(with.fa.verified_ticks == without.fa.verified_ticks);
    CHECK(with.fa.mismatches == 0);
    CHECK(with.confirmed.size() > 600);
    CHECK(with.confirmed == without.confirmed);
}

namespace {
// slow_clock moves 1 ms each time it is read: a predicted step (timed by two reads) "costs"
// 1 ms, which leaves a 2.5 ms budget room for two steps beyond what a frame of 4 ticks spends
// anyway; slower_clock moves 2 ms a read, and not even those two fit.
int64_t slow_ns = 0;
int64_t slow_clock() { return slow_ns += 1'000'000; }
int64_t slower_ns = 0;
int64_t slower_clock() { return slower_ns += 2'000'000; }

struct LongFrames {
    uint64_t rollbacks_while_steering = 0;
    uint64_t compared = 0, equal = 0;
    client::PredictionFigures f;
};

// A predicting page whose frames last 4 ticks (67 ms, as a software-WebGL page on a small
// machine) at 50 ms each way, while another player commands every tick until last_other.
// Messages still arrive every tick; the page advances (and its prediction updates) only on
// every 4th.
template <class Play>
LongFrames run_long_frames(int64_t (*clock)()) {
    using G = typename Play::G;
    Match<G> m = Play::match();
    const uint32_t me = m.add_session(Role::play, 1, LinkSpec{50 * ms, 0}, 0);
    const uint32_t other = m.add_session(Role::play, 2, LinkSpec{50 * ms, 0}, 0);
    Predicted<G>& p = m.follow(me, Predicted<G>::create().value());
    p.set_clock(clock);
    m.connect(me, 0);
    m.connect(other, 0);
    RoomLog<G> room;
    std::map<uint64_t, uint64_t> predicted;
    const uint64_t last_other = 500;
    LongFrames r;
    for (uint64_t t = 0; t < 800; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        m.deliver(now);
        if (t % 4 == 0) {
            m.advance(me, now, 8 * ms);
            if (const auto* s = p.state()) predicted[G::tick(*s)] = sim::digest<G>(*s);
            if (t == last_other) r.rollbacks_while_steering = p.figures().rollbacks;
        }
        if (t >= 100 && t < last_other) m.send_command(other, Play::other(t), now);
        m.advance(other, now, 8 * ms);
        m.tick(now);
        room.record(m);
    }
    r.f = p.figures();
    for (const auto& [tick, digest] : predicted) {
        if (tick < last_other + 60 || !room.digest.count(tick)) continue;
        ++r.compared;
        if (digest == room.digest.at(tick)) ++r.equal;
    }
    check_verified_every_tick(m, me, room);
    return r;
}
}  // namespace

TEMPLATE_TEST_CASE("PredictedClient in a Match: with frames of 4 ticks and a step costing 1 ms, a rollback lands in the frame it starts (it replaces the frame's forward steps), never dropped, and the prediction converges",
                   "[predicted][match]", StubPlay, ArenaPlay) {
    slow_ns = 0;
    const LongFrames r = run_long_frames<TestType>(&slow_clock);
    INFO(TestType::name << ": rollbacks " << r.f.rollbacks << " (while steering " << r.rollbacks_while_steering << "), dropped "
                        << r.f.rollbacks_dropped << ", resets " << r.f.resets << " (behind " << r.f.resets_behind
                        << "), updates a rollback took at most " << r.f.rollback_updates_max << ", re-simulated ticks "
                        << r.f.resimulated_ticks << ", p99 a frame " << r.f.resim_ticks_p99);
    // 100 frames of commands, each verifying 4 contradicted ticks: a rollback each (from the
    // first contradiction's arrival on).
    CHECK(r.rollbacks_while_steering >= 60);
    CHECK(r.f.rollbacks_dropped == 0);
    CHECK(r.f.rollback_updates_max == 1);
    CHECK(r.f.resets == 1);   // the baseline only
    // Only the ticks that were on screen are re-run (2 a frame: a depth of 6 less the 4 new).
    CHECK(r.f.resim_ticks_p99 <= 2);
    CHECK(r.compared > 40);   // a frame's predicted tick, every 4th tick
    CHECK(r.equal == r.compared);
}

TEMPLATE_TEST_CASE("PredictedClient in a Match: with frames of 4 ticks and a step costing 2 ms, a rollback spread over frames still lands (restarted from the newer confirmed state, it keeps its age and outruns the frames)",
                   "[predicted][match]", StubPlay, ArenaPlay) {
    slower_ns = 0;
    const LongFrames r = run_long_frames<TestType>(&slower_clock);
    INFO(TestType::name << ": rollbacks " << r.f.rollbacks << " (while steering " << r.rollbacks_while_steering << "), dropped "
                        << r.f.rollbacks_dropped << ", resets " << r.f.resets << " (behind " << r.f.resets_behind
                        << "), updates a rollback took at most " << r.f.rollback_updates_max);
    CHECK(r.rollbacks_while_steering >= 3);
    CHECK(r.f.resets == 1);
    CHECK(r.compared > 40);   // a frame's predicted tick, every 4th tick
    CHECK(r.equal == r.compared);
}

namespace {
// A clock of its own (1 ms a read, like slow_clock), so the test does not depend on the order
// the cases run in.
int64_t budget_ns = 0;
int64_t budget_clock() { return budget_ns += 1'000'000; }
}  // namespace

TEMPLATE_TEST_CASE("PredictedClient in a Match: with a step costing 1 ms past a 3 ms budget and another player commanding every other tick, each rollback lands within the window plus one update, the picture never goes back, and it converges",
                   "[predicted][match]", StubPlay, ArenaPlay) {
    using G = typename TestType::G;
    budget_ns = 0;
    Match<G> m = TestType::match();
    const uint32_t me = m.add_session(Role::play, 1, LinkSpec{50 * ms, 0}, 0);
    const uint32_t other = m.add_session(Role::play, 2, LinkSpec{50 * ms, 0}, 0);
    PredictConfig config;
    config.resim_budget_ns = 3'000'000;
    Predicted<G>& p = m.follow(me, Predicted<G>::create(config).value());
    p.set_clock(&budget_clock);
    m.connect(me, 0);
    m.connect(other, 0);
    RoomLog<G> room;
    std::map<uint64_t, uint64_t> predicted;
    uint64_t shown = 0, went_back = 0;
    uint32_t most = 0;
    const uint64_t last_other = 400;
    for (uint64_t t = 0; t < 700; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        m.deliver(now);
        m.advance(me, now, 8 * ms);
        const client::PredictionFigures f = p.figures();
        if (f.predicted_tick < shown) ++went_back;
        shown = f.predicted_tick;
        most = std::max(most, f.resim_ticks_last);
        if (const auto* s = p.state()) predicted[G::tick(*s)] = sim::digest<G>(*s);
        if (t >= 100 && t < last_other && t % 2 == 0) m.send_command(other, TestType::other(t), now);
        m.advance(other, now, 8 * ms);
        m.tick(now);
        room.record(m);
    }
    const client::PredictionFigures f = p.figures();
    INFO(TestType::name << ": rollbacks " << f.rollbacks << ", updates a rollback took at most " << f.rollback_updates_max
                        << ", most re-simulated in a frame " << most << ", dropped " << f.rollbacks_dropped);
    CHECK(f.rollbacks > 10);
    // One in flight for longer than the window runs whole: it lands on the next update.
    CHECK(f.rollback_updates_max <= p.config().window_ticks + 1);
    CHECK(most <= f.target_depth_ticks);
    CHECK(went_back == 0);
    uint64_t compared = 0, equal = 0;
    for (const auto& [tick, digest] : predicted) {
        if (tick < last_other + 60 || !room.digest.count(tick)) continue;
        ++compared;
        if (digest == room.digest.at(tick)) ++equal;
    }
    CHECK(compared > 150);
    CHECK(equal == compared);
    check_verified_every_tick(m, me, room);
}
