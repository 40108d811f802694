// PredictedWorld over real ClientSessions and a real Room, in process over LatencyLinks (time
// is the simulated tick): the predicted world runs ahead with the own steers, rolls back when
// someone else's input arrives, converges to the room's world when inputs stop changing, and
// never disturbs the confirmed world, which keeps verifying every tick. The room's world at
// each tick is the independent reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "tandem/client/predicted_world.hpp"
#include "tandem/net/latency_link.hpp"
#include "tandem/net/room.hpp"

using namespace tandem;
using namespace tandem::net;
using tandem::client::PredictConfig;
using tandem::client::PredictConfigError;
using tandem::client::PredictedWorld;

namespace {

using Bytes = std::vector<uint8_t>;
constexpr int64_t ms = 1'000'000;
constexpr int64_t tick_ns = 1'000'000'000 / 60;

struct Peer {
    ClientSession session;
    std::optional<PredictedWorld> predicted;
    LatencyLink<Bytes> up, down;
    int64_t latency, jitter;
    uint32_t id = 0;
    // Room ticks per page frame: the peer advances (and steers) only on every frame_ticks-th
    // tick, as a page whose frames last several ticks (messages still arrive every tick).
    uint64_t frame_ticks = 1;
    std::map<uint64_t, uint64_t> predicted_digest;   // predicted tick -> digest, as drawn
    // Loop tick at which the own well's target first equalled the steered one, per world.
    std::optional<uint64_t> predicted_saw, confirmed_saw;
    Peer(bool predict, uint64_t seed, int64_t latency_ns, int64_t jitter_ns, PredictConfig config)
        : session(Role::play, 0), up(seed * 2 + 1), down(seed * 2 + 2), latency(latency_ns), jitter(jitter_ns) {
        if (predict) predicted.emplace(PredictedWorld::create(config).value());
    }
    void update(int64_t now) {
        if (predicted) predicted->update(session, now);
    }
};

struct Match {
    Room room;
    std::vector<std::unique_ptr<Peer>> peers;
    std::map<uint64_t, uint64_t> room_digest;   // tick -> the room's digest

    explicit Match(uint32_t pellets) : room(make_room(pellets)) {}
    static Room make_room(uint32_t pellets) {
        RoomConfig rc;
        rc.world = world::default_config();
        rc.world.pellet_count = pellets;
        return Room::create(rc).value();
    }
    Peer& add(bool predict, int64_t latency, int64_t jitter, PredictConfig config = {}) {
        peers.push_back(std::make_unique<Peer>(predict, 10 + peers.size(), latency, jitter, config));
        return *peers.back();
    }

    // One room tick: deliver, let each peer steer (steer(t, index) -> a target or nothing),
    // advance, send; the room ticks; its frames go out. `check` runs after each peer's update.
    void run(uint64_t from, uint64_t to, const std::function<std::optional<Vec2>(uint64_t, size_t)>& steer,
             const std::function<void(uint64_t, Peer&)>& check = {}) {
        for (uint64_t t = from; t < to; ++t) {
            const int64_t now = static_cast<int64_t>(t) * tick_ns;
            for (size_t i = 0; i < peers.size(); ++i) {
                Peer& p = *peers[i];
                if (t == 0) {
                    p.id = room.connect(now);
                    p.session.on_connected(now);
                }
                for (Bytes& b : p.down.drain_due(now)) p.session.receive(b, now);
                for (Bytes& b : p.up.drain_due(now)) room.receive(p.id, b, now);
                if (t % p.frame_ticks != 0) continue;
                if (auto target = steer(t, i)) {
                    p.session.steer(*target, now);
                    p.update(now);
                }
                p.session.advance(now, 8 * ms);
                p.update(now);
                if (p.predicted) p.predicted->end_frame();
                if (p.predicted && p.predicted->world()) p.predicted_digest[p.predicted->world()->tick] = world::digest(*p.predicted->world());
                if (check) check(t, p);
                std::vector<Bytes> out;
                p.session.take_outgoing(out);
                for (Bytes& b : out) p.up.send(now, std::move(b), p.latency, p.jitter, Fx::zero());
            }
            room.tick(now);
            room_digest[room.world().tick] = world::digest(room.world());
            std::vector<Outgoing> sends;
            std::vector<CloseRequest> closes;
            room.take_outbox(sends, closes);
            for (const Outgoing& o : sends)
                for (auto& p : peers)
                    if (p->id == o.to) p->down.send(now, *o.bytes, p->latency, p->jitter, Fx::zero());
            REQUIRE(closes.empty());
        }
    }
};

Vec2 point(int32_t x, int32_t y) { return Vec2{Fx::from_int(x), Fx::from_int(y)}; }

const world::Well* well_of(const world::World& w, uint32_t player) {
    for (const world::Well& well : w.wells)
        if (well.player == player) return &well;
    return nullptr;
}

}  // namespace

TEST_CASE("PredictConfig: a window above 64, a budget below the window and a depth above the window are refused") {
    PredictConfig c;
    c.window_ticks = 65;
    c.resim_budget_ticks = 100;
    c.initial_depth_ticks = 0;
    CHECK(PredictedWorld::create(c).error() == PredictConfigError::window_too_large);
    c.window_ticks = 10;
    c.resim_budget_ticks = 9;
    CHECK(PredictedWorld::create(c).error() == PredictConfigError::budget_below_window);
    c.resim_budget_ticks = 10;
    c.initial_depth_ticks = 11;
    CHECK(PredictedWorld::create(c).error() == PredictConfigError::depth_above_window);
    c.initial_depth_ticks = 10;
    CHECK(PredictedWorld::create(c).ok());
}

TEST_CASE("PredictedWorld: the own steer reaches the predicted world several ticks before the confirmed one") {
    Match m(64);
    Peer& me = m.add(true, 50 * ms, 0);
    const Vec2 target = point(200, 800);
    const uint64_t steer_at = 240;
    auto check = [&](uint64_t t, Peer& p) {
        if (t < steer_at || !p.predicted->world() || !p.session.confirmed_world()) return;
        const uint32_t player = p.session.figures().player;
        const world::Well* pw = well_of(*p.predicted->world(), player);
        const world::Well* cw = well_of(*p.session.confirmed_world(), player);
        if (pw && pw->target == target && !p.predicted_saw) p.predicted_saw = t;
        if (cw && cw->target == target && !p.confirmed_saw) p.confirmed_saw = t;
    };
    m.run(0, 600, [&](uint64_t t, size_t) -> std::optional<Vec2> {
        if (t == steer_at) return target;
        return std::nullopt;
    }, check);
    REQUIRE(me.predicted_saw);
    REQUIRE(me.confirmed_saw);
    // 100 ms of round trip is 6 ticks; the prediction shows the steer at the first step after
    // it was sent, the confirmed world a round trip (plus the room's input delay) later.
    INFO("predicted at " << *me.predicted_saw << ", confirmed at " << *me.confirmed_saw);
    CHECK(*me.predicted_saw <= steer_at + 1);
    CHECK(*me.confirmed_saw >= *me.predicted_saw + 5);
    const auto f = me.predicted->figures();
    CHECK(f.depth_ticks >= 5);
    CHECK(f.depth_ticks <= me.predicted->config().window_ticks);
}

TEST_CASE("PredictedWorld: with only its own inputs on a steady link, the prediction is exact (no rollback after the first echoes)") {
    Match m(64);
    Peer& me = m.add(true, 40 * ms, 0);
    uint64_t rollbacks_at_warm = 0;
    m.run(0, 300, [&](uint64_t t, size_t) -> std::optional<Vec2> {
        if (t >= 120 && t % 3 == 0) return point(100 + static_cast<int32_t>(t % 700), 300);
        return std::nullopt;
    });
    rollbacks_at_warm = me.predicted->figures().rollbacks;
    m.run(300, 900, [&](uint64_t t, size_t) -> std::optional<Vec2> {
        if (t % 3 == 0 && t < 840) return point(100 + static_cast<int32_t>(t % 700), 300 + static_cast<int32_t>(t % 200));
        return std::nullopt;
    });
    const auto f = me.predicted->figures();
    INFO("rollbacks " << f.rollbacks << " (after warm-up " << f.rollbacks - rollbacks_at_warm << "), depth " << f.depth_ticks
                      << ", leads " << f.lead_samples);
    CHECK(f.lead_samples > 100);
    CHECK(f.rollbacks - rollbacks_at_warm == 0);
    CHECK(me.session.figures().mismatches == 0);
}

TEST_CASE("PredictedWorld: another player's steer rolls the prediction back; the predicted world then equals the room's at its tick") {
    Match m(128);
    Peer& me = m.add(true, 60 * ms, 10 * ms);
    m.add(false, 30 * ms, 5 * ms);   // the other player, in lockstep
    const uint64_t last_steer = 500;
    m.run(0, 900, [&](uint64_t t, size_t i) -> std::optional<Vec2> {
        if (t >= 100 && t < last_steer && t % 7 == (i == 0 ? 0 : 3))
            return point(100 + static_cast<int32_t>((t * (i + 3)) % 800), 900 - static_cast<int32_t>(t % 600));
        return std::nullopt;
    });
    const auto f = me.predicted->figures();
    INFO("rollbacks " << f.rollbacks << " resimulated " << f.resimulated_ticks << " corrections " << f.corrections);
    CHECK(f.rollbacks > 20);
    CHECK(f.resimulated_ticks >= f.rollbacks);
    CHECK(f.corrections > 0);
    // Convergence: a second after the last input landed, every predicted tick is the room's.
    uint64_t compared = 0;
    for (const auto& [tick, digest] : me.predicted_digest) {
        if (tick < last_steer + 60 || !m.room_digest.count(tick)) continue;
        CHECK(digest == m.room_digest.at(tick));
        ++compared;
    }
    CHECK(compared > 200);
    CHECK(me.session.figures().mismatches == 0);
}

TEST_CASE("PredictedWorld: a correction's drawn offset fades to nothing and rollbacks stay within the window") {
    Match m(64);
    Peer& me = m.add(true, 50 * ms, 0);
    m.add(false, 50 * ms, 0);
    bool saw_offset = false;
    m.run(0, 400, [&](uint64_t t, size_t i) -> std::optional<Vec2> {
        if (i == 1 && t == 200) return point(900, 900);
        return std::nullopt;
    }, [&](uint64_t, Peer& p) {
        if (!p.predicted) return;
        const auto v = p.predicted->render_view(p.session, 0);
        if (!v.offsets.empty()) saw_offset = true;
        const auto f = p.predicted->figures();
        CHECK(f.depth_ticks <= p.predicted->config().window_ticks);
        CHECK(f.resim_ticks_last <= p.predicted->config().resim_budget_ticks);
    });
    CHECK(saw_offset);
    // Two seconds later the offset has decayed below a hundredth of a unit and is gone.
    m.run(400, 520, [](uint64_t, size_t) { return std::optional<Vec2>{}; });
    CHECK(me.predicted->render_view(me.session, 0).offsets.empty());
    CHECK(me.predicted->figures().rollbacks >= 1);
}

TEST_CASE("PredictedWorld: the confirmed world is untouched by prediction: a predicting and a lockstep client verify the same ticks") {
    Match m(128);
    Peer& a = m.add(true, 45 * ms, 8 * ms);
    Peer& b = m.add(false, 45 * ms, 8 * ms);
    m.run(0, 700, [](uint64_t t, size_t i) -> std::optional<Vec2> {
        if (t >= 60 && t % 5 == i) return point(50 + static_cast<int32_t>((t * 13) % 900), 80 + static_cast<int32_t>((t * 7) % 800));
        return std::nullopt;
    });
    const auto fa = a.session.figures(), fb = b.session.figures();
    CHECK(fa.mismatches == 0);
    CHECK(fb.mismatches == 0);
    CHECK(fa.verified_ticks > 600);
    REQUIRE(a.session.confirmed_world());
    // Every tick from the baseline on was verified: none skipped.
    CHECK(fa.verified_ticks == a.session.confirmed_world()->tick - fa.last_baseline_tick);
    CHECK(world::digest(*a.session.confirmed_world()) == m.room_digest.at(a.session.confirmed_world()->tick));
}

namespace {
// A clock that moves 1 ms each time it is read: a predicted step (timed by two reads) "costs"
// 1 ms, and with the budget's own reads a frame's steps cost more still.
int64_t slow_ns = 0;
int64_t slow_clock() { return slow_ns += 1'000'000; }
}  // namespace

TEST_CASE("PredictedWorld: with a clock, a rollback past the time budget is spread over frames: the depth holds, the picture never goes back, and it converges once inputs stop") {
    Match m(64);
    PredictConfig config;
    config.resim_budget_ns = 3'000'000;
    Peer& me = m.add(true, 50 * ms, 0, config);
    me.predicted->set_clock(&slow_clock);
    m.add(false, 50 * ms, 0);
    uint32_t most = 0;
    uint64_t shown = 0, went_back = 0, frames_short = 0, frames = 0;
    const uint64_t last_steer = 400;
    m.run(0, 700, [&](uint64_t t, size_t i) -> std::optional<Vec2> {
        if (i == 1 && t >= 100 && t < last_steer && t % 2 == 0) return point(100 + static_cast<int32_t>((t * 11) % 800), 500);
        return std::nullopt;
    }, [&](uint64_t t, Peer& p) {
        if (!p.predicted) return;
        const auto f = p.predicted->figures();
        most = std::max(most, f.resim_ticks_last);
        if (f.predicted_tick < shown) ++went_back;
        shown = f.predicted_tick;
        if (t >= 150 && t < last_steer) {
            ++frames;
            if (f.depth_ticks + 1 < f.target_depth_ticks) ++frames_short;
        }
    });
    const auto f = me.predicted->figures();
    INFO("rollbacks " << f.rollbacks << ", most re-simulated in a frame " << most << ", updates a rollback took at most "
                      << f.rollback_updates_max << ", frames more than a tick short of the target depth " << frames_short << " of " << frames);
    CHECK(f.rollbacks > 10);
    // A rollback adds 5 steps to the frame's one (a depth of 6), 5 ms at 1 ms a step: over
    // the 3 ms, so it is spread; within 3 ms after the shown world's step, few re-simulated
    // steps a frame.
    CHECK(most >= 1);
    CHECK(most <= 4);
    CHECK(f.rollback_updates_max > 1);
    // The shown world moves on while a re-simulation catches up with it: never backwards and
    // never held back from the measured depth.
    CHECK(went_back == 0);
    CHECK(frames_short == 0);
    uint64_t compared = 0;
    for (const auto& [tick, digest] : me.predicted_digest) {
        if (tick < last_steer + 60 || !m.room_digest.count(tick)) continue;
        CHECK(digest == m.room_digest.at(tick));
        ++compared;
    }
    CHECK(compared > 150);
    CHECK(me.predicted->figures().depth_ticks == me.predicted->figures().target_depth_ticks);
}

namespace {
// slow_clock (1 ms a step) leaves a 2.5 ms budget room for two steps beyond what a frame of
// 4 ticks spends anyway; 2 ms a read, not even those two fit.
int64_t slower_ns = 0;
int64_t slower_clock() { return slower_ns += 2'000'000; }

struct LongFrames {
    uint64_t rollbacks_while_steering = 0;
    uint64_t compared = 0, equal = 0;
    client::PredictionFigures f;
};

// A predicting page whose frames last 4 ticks (67 ms, as a software-WebGL page on a small
// machine), at 50 ms each way, while another player steers every tick until last_steer.
LongFrames run_long_frames(int64_t (*clock)()) {
    Match m(64);
    Peer& me = m.add(true, 50 * ms, 0);
    me.frame_ticks = 4;
    me.predicted->set_clock(clock);
    m.add(false, 50 * ms, 0);
    const uint64_t last_steer = 500;
    LongFrames r;
    m.run(0, 800, [&](uint64_t t, size_t i) -> std::optional<Vec2> {
        if (i == 1 && t >= 100 && t < last_steer) return point(100 + static_cast<int32_t>((t * 37) % 800), 200 + static_cast<int32_t>((t * 53) % 600));
        return std::nullopt;
    }, [&](uint64_t t, Peer& p) {
        if (p.predicted && t == last_steer) r.rollbacks_while_steering = p.predicted->figures().rollbacks;
    });
    r.f = me.predicted->figures();
    for (const auto& [tick, digest] : me.predicted_digest) {
        if (tick < last_steer + 60 || !m.room_digest.count(tick)) continue;
        ++r.compared;
        if (digest == m.room_digest.at(tick)) ++r.equal;
    }
    CHECK(me.session.figures().mismatches == 0);
    return r;
}
}  // namespace

TEST_CASE("PredictedWorld: with frames of 4 ticks and a step costing 1 ms, a rollback lands in the frame it starts (it replaces the frame's forward steps), never dropped, and the prediction converges") {
    const LongFrames r = run_long_frames(&slow_clock);
    INFO("rollbacks " << r.f.rollbacks << " (while steering " << r.rollbacks_while_steering << "), dropped " << r.f.rollbacks_dropped << ", resets "
                      << r.f.resets << " (behind " << r.f.resets_behind << "), updates a rollback took at most " << r.f.rollback_updates_max
                      << ", re-simulated ticks " << r.f.resimulated_ticks);
    // 100 frames of steering, each verifying 4 contradicted ticks: a rollback each (from the
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

TEST_CASE("PredictedWorld: with frames of 4 ticks and a step costing 2 ms, a rollback spread over frames still lands (restarted from the newer confirmed world, it keeps its age and outruns the frames)") {
    const LongFrames r = run_long_frames(&slower_clock);
    INFO("rollbacks " << r.f.rollbacks << " (while steering " << r.rollbacks_while_steering << "), dropped " << r.f.rollbacks_dropped << ", resets "
                      << r.f.resets << " (behind " << r.f.resets_behind << "), updates a rollback took at most " << r.f.rollback_updates_max);
    CHECK(r.rollbacks_while_steering >= 3);
    CHECK(r.f.resets == 1);
    CHECK(r.compared > 40);   // a frame's predicted tick, every 4th tick
    CHECK(r.equal == r.compared);
}
