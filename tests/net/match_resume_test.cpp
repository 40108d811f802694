// A match with resume on (net::Match over the arena, four players over 40-120 ms links, the
// room's tokens from a deterministic source): one player's socket drops for a second and its
// session reconnects with its token. It gets the same player id back and the same well with its
// score (no leave, no second join in any frame), the other three verify every tick of the match
// throughout, and the returner verifies every tick from the resume's baseline on.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/match.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {
using Sim = arena::Sim;
constexpr int64_t ms = 1'000'000;
constexpr int64_t tick_ns = 1'000'000'000 / 60;
constexpr uint32_t players = 4;
constexpr uint32_t dropper = 2;
constexpr uint64_t drop_at = 900, back_at = 960, end_at = 1500;  // away for one second

const arena::Well* well_of(const arena::World& w, uint32_t player) {
    for (const arena::Well& x : w.wells)
        if (x.player == player) return &x;
    return nullptr;
}
}  // namespace

TEST_CASE("a player whose socket drops for one second comes back with its token to the same seat, well and score, and every tick is verified by everyone", "[match]") {
    RoomConfig<Sim> config;
    config.game.pellet_count = 256;
    config.game.capture_radius = Fx::from_int(40);  // captures early, so a score is there to keep
    Match<Sim> m = Match<Sim>::create(config).value();
    uint64_t next = 1;
    m.room().set_token_source([&next] {
        ResumeToken t{};
        for (uint32_t i = 0; i < resume_token_bytes; ++i) t[i] = static_cast<uint8_t>((next * 131 + i * 7) | 1);
        ++next;
        return t;
    });
    for (uint32_t i = 0; i < players; ++i) m.add_session(Role::play, 10 + i, LinkSpec{(55 + 15 * int64_t{i}) * ms, 15 * ms}, 0);
    const uint32_t watcher = m.add_session(Role::watch, 20, LinkSpec{60 * ms, 10 * ms}, 0);

    // Every input any frame carried for the dropper's seat, as the watcher received them.
    std::vector<sim::InputKind> seat_inputs;
    std::vector<Applied<Sim>> applied;
    m.set_observer([&](uint32_t e, std::span<const uint8_t> b, int64_t) {
        if (e != watcher) return;
        auto msg = decode_server(b);
        if (!msg.ok()) return;
        if (auto* f = std::get_if<Frame>(&msg.value()); f && decode_frame_inputs<Sim>(*f, applied).ok()) {
            for (const auto& a : applied)
                if (a.input.player == 3 && a.input.kind != sim::InputKind::command) seat_inputs.push_back(a.input.kind);
        }
    });

    uint32_t player_before = watcher_id;
    uint32_t score_at_drop = 0;
    bool well_always_there = true;
    uint64_t verified_before_drop = 0;
    for (uint64_t t = 0; t < end_at; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        if (t < players) m.connect(static_cast<uint32_t>(t), now);
        if (t == players) m.connect(watcher, now);
        if (t == drop_at) {
            player_before = m.session(dropper).figures().player;
            score_at_drop = well_of(m.room().state(), player_before)->score;
            m.disconnect(dropper, 77, now);
            verified_before_drop = m.session(dropper).figures().verified_ticks;
        }
        if (t == back_at) m.connect(dropper, now);
        m.deliver(now);
        for (uint32_t i = 0; i < players; ++i) {
            if (t % 6 == i && m.session(i).figures().connected) {
                // Each well circles its own corner of the arena, sweeping pellets in.
                const int32_t r = static_cast<int32_t>((t * 3 + i * 90) % 360);
                const Vec2 target{Fx::from_int(200 + 600 * int32_t(i % 2) + (r % 120)), Fx::from_int(200 + 600 * int32_t(i / 2) + (r / 3))};
                m.send_command(i, arena::Steer{target}, now);
            }
            m.advance(i, now, 8 * ms);
        }
        m.advance(watcher, now, 8 * ms);
        m.tick(now);
        if (t > 60 && player_before != watcher_id) well_always_there = well_always_there && well_of(m.room().state(), player_before) != nullptr;
    }
    for (int64_t now = static_cast<int64_t>(end_at) * tick_ns, stop = now + 1000 * ms; now <= stop; now += tick_ns) {
        m.deliver(now);
        for (uint32_t e = 0; e < m.endpoints(); ++e) m.advance(e, now, 1000 * ms);
        m.route(now);
    }

    const uint64_t room_tick = Sim::tick(m.room().state());
    const uint64_t room_digest = sim::digest<Sim>(m.room().state());
    const SessionFigures back = m.session(dropper).figures();
    REQUIRE(player_before == 3);
    CHECK(score_at_drop > 0);
    CHECK(back.player == player_before);
    CHECK(back.resumed);
    CHECK(back.resumes == 1);
    CHECK(well_always_there);
    CHECK(well_of(m.room().state(), player_before)->score >= score_at_drop);
    // One join at the start, and never a leave or a second join for the seat.
    CHECK(seat_inputs == std::vector<sim::InputKind>{sim::InputKind::join});
    CHECK(m.room().stats().resumes == 1);
    CHECK(m.room().stats().held_seats == 0);

    for (uint32_t e = 0; e < m.endpoints(); ++e) {
        INFO("endpoint " << e);
        const SessionFigures f = m.session(e).figures();
        const auto& w = m.session(e).confirmed_state();
        REQUIRE(w);
        CHECK(Sim::tick(*w) == room_tick);
        CHECK(sim::digest<Sim>(*w) == room_digest);
        CHECK(f.mismatches == 0);
        CHECK(f.resyncs == 0);
        // Every tick from its last baseline to the end verified, one by one.
        if (e != dropper) {
            CHECK(f.baselines == 1);
            CHECK(f.verified_ticks == room_tick - f.last_baseline_tick);
        } else {
            CHECK(f.baselines == 2);  // the join's and the resume's
            CHECK(f.last_baseline_tick >= back_at);
            CHECK(f.verified_ticks - verified_before_drop == room_tick - f.last_baseline_tick);
        }
    }
}
