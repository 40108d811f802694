// PredictedClient<arena::Sim> over Match<arena::Sim> (time is the simulated tick): today's
// predicted-world properties for the arena. With only its own inputs on a steady link the
// prediction is exact (no rollback after the first echoes); with a clock making a step cost
// 1 ms, a rollback past the time budget is spread over frames, the picture never goes back,
// the depth holds, and it converges to the room's world once inputs stop (the room's world at
// each tick is the reference).
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <optional>

#include "arena/sim.hpp"
#include "tandem/client/predicted.hpp"
#include "tandem/net/match.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {
using Sim = arena::Sim;
constexpr int64_t ms = 1'000'000;
constexpr int64_t tick_ns = 1'000'000'000 / 60;

Match<Sim> small_match() {
    RoomConfig<Sim> rc;
    rc.game.pellet_count = 64;
    return Match<Sim>::create(rc).value();
}
arena::Steer point(int32_t x, int32_t y) { return arena::Steer{Vec2{Fx::from_int(x), Fx::from_int(y)}}; }

int64_t slow_ns = 0;
int64_t slow_clock() { return slow_ns += 1'000'000; }
}  // namespace

TEST_CASE("PredictedClient<arena>: with only its own inputs on a steady link, the prediction is exact (no rollback after the first echoes)", "[predicted]") {
    Match<Sim> m = small_match();
    const uint32_t me = m.add_session(Role::play, 10, LinkSpec{40 * ms, 0}, 0);
    m.connect(me, 0);
    auto& p = m.follow(me, client::PredictedClient<Sim>::create().value());
    uint64_t rollbacks_at_warm = 0;
    for (uint64_t t = 0; t < 900; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        m.deliver(now);
        if (t >= 120 && t < 840 && t % 3 == 0)
            m.send_command(me, point(100 + static_cast<int32_t>(t % 700), 300 + static_cast<int32_t>(t % 200)), now);
        m.advance(me, now, 8 * ms);
        if (t == 300) rollbacks_at_warm = p.figures().rollbacks;
        m.tick(now);
    }
    const auto f = p.figures();
    INFO("rollbacks " << f.rollbacks << " (after warm-up " << f.rollbacks - rollbacks_at_warm << "), depth " << f.depth_ticks << ", leads " << f.lead_samples);
    CHECK(f.lead_samples > 100);
    CHECK(f.rollbacks - rollbacks_at_warm == 0);
    CHECK(m.session(me).figures().mismatches == 0);
}

TEST_CASE("PredictedClient<arena>: with a clock, a rollback past the time budget is spread over frames: the depth holds, the picture never goes back, and it converges once inputs stop", "[predicted]") {
    Match<Sim> m = small_match();
    const uint32_t me = m.add_session(Role::play, 10, LinkSpec{50 * ms, 0}, 0);
    const uint32_t other = m.add_session(Role::play, 11, LinkSpec{50 * ms, 0}, 0);
    m.connect(me, 0);
    m.connect(other, 0);
    client::PredictConfig config;
    config.resim_budget_ns = 3'000'000;
    auto& p = m.follow(me, client::PredictedClient<Sim>::create(config).value());
    p.set_clock(&slow_clock);
    std::map<uint64_t, uint64_t> room_digest, predicted_digest;
    uint32_t most = 0, most_spread = 0;
    uint64_t shown = 0, went_back = 0, frames_short = 0, rollbacks_before = 0, overdue_landings = 0;
    const uint64_t last_steer = 400;
    for (uint64_t t = 0; t < 700; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        m.deliver(now);
        m.advance(me, now, 8 * ms);
        const auto f = p.figures();
        most = std::max(most, f.resim_ticks_last);
        // A frame where a rollback in flight for longer than the window landed runs it whole;
        // every other frame spreads it within the time budget.
        const bool overdue_landing = f.rollbacks > rollbacks_before && f.rollback_updates_last > p.config().window_ticks;
        if (overdue_landing) ++overdue_landings;
        else most_spread = std::max(most_spread, f.resim_ticks_last);
        rollbacks_before = f.rollbacks;
        if (f.predicted_tick < shown) ++went_back;
        shown = f.predicted_tick;
        if (t >= 150 && t < last_steer && f.depth_ticks + 1 < f.target_depth_ticks) ++frames_short;
        if (const arena::World* w = p.state()) predicted_digest[w->tick] = arena::digest(*w);
        if (t >= 100 && t < last_steer && t % 2 == 0)
            m.session(other).send_command(point(100 + static_cast<int32_t>((t * 11) % 800), 500), now);
        m.advance(other, now, 8 * ms);
        m.tick(now);
        room_digest[m.room().state().tick] = arena::digest(m.room().state());
    }
    const auto f = p.figures();
    INFO("rollbacks " << f.rollbacks << " (landed overdue " << overdue_landings << "), most re-simulated in a frame " << most
                      << " (spread " << most_spread << "), updates a rollback took at most "
                      << f.rollback_updates_max << ", frames short " << frames_short);
    CHECK(f.rollbacks > 10);
    // Spread: a rollback adds 5 steps to the frame's one (a depth of 6), 5 ms at 1 ms a step,
    // over the 3 ms, so it is spread: within 3 ms after the picture's step, at most 4
    // re-simulated steps a frame (PredictedWorld's old bound, which still holds for these
    // frames). The engine restarts a re-simulation in flight from each tick a frame
    // contradicts (here every other tick), so a spread one cannot land while the other player
    // commands: after more updates than the window it runs whole, in the one frame it lands
    // in, re-running the ticks on screen (at most the depth, 6; 5 here). PredictedWorld landed
    // its catch-up instead, known to be stale, and rolled back again; that is why the bound of
    // 4 holds for the spread frames alone and the landing frames are bounded by the depth.
    CHECK(most >= 1);
    CHECK(most_spread <= 4);
    CHECK(most <= f.target_depth_ticks);
    CHECK(overdue_landings > 0);
    CHECK(f.rollback_updates_max > 1);
    CHECK(went_back == 0);
    CHECK(frames_short == 0);
    uint64_t compared = 0;
    for (const auto& [tick, digest] : predicted_digest) {
        if (tick < last_steer + 60 || !room_digest.count(tick)) continue;
        CHECK(digest == room_digest.at(tick));
        ++compared;
    }
    CHECK(compared > 150);
    CHECK(f.depth_ticks == f.target_depth_ticks);
}
