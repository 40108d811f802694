// The in-process match over the second game: net::Match<ships::Sim> runs the harness's every
// scenario (match_harness.hpp: steady play verifying every tick, a 5 s suspend that catches up, a
// long one that resyncs, a client that stops reading, a rejoin, a late joiner, intruders that
// send garbage, a wrong fingerprint, a watcher's command and a second hello, a flooder, and a
// corrupted state named to its field and healed) with match_check.hpp's verdict, a 10-minute
// run, a page that stops reading and falls silent, which the room drops without any other
// client noticing, and a player's second hello, refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "net/match_check.hpp"
#include "net/match_harness.hpp"
#include "net/ships_match.hpp"
#include "ships/sim.hpp"
#include "tandem/net/match.hpp"

using namespace tandem;
using namespace tandem::net;
using namespace tandem::net::match;

namespace {

using Sim = ships::Sim;

// Seat 1 is the steady client's (the first hello, at tick 0), so the first ship is player 1's;
// the dump's path of a keyed list's element names its key.
const CorruptionExpected deaths{"scores", "ships[1].deaths"};

}  // namespace

TEST_CASE("ships: a match of 3,000 ticks with every scenario and every intruder: each client ends on the room's state", "[match][ships]") {
    check_match(ships_match_plan(), run_ships, deaths);
}

// 40,000 ticks at 60 Hz, so the long suspend lasts 10 simulated minutes.
TEST_CASE("ships: a match of 40,000 ticks with a 10 minute suspend: each client ends on the room's state", "[match][ships]") {
    check_match(MatchPlan{40'000, 36'000, true}, run_ships, deaths);
}

// A page whose tab froze mid-match: it stops reading its socket and sends nothing. The room
// pauses its stream at the flow window (its cost bounded meanwhile), drops it at the idle
// timeout and gives its seat back; the two players and the watcher verify every tick
// throughout and end on the room's state, and a new player then gets the freed seat.
TEST_CASE("ships: a page that stops reading and falls silent is dropped at the idle timeout and nobody else notices", "[match][ships]") {
    constexpr int64_t second = 1'000'000'000;
    RoomConfig<Sim> rc;
    rc.game = ships_match_config();
    rc.idle_timeout_ns = 5 * second;
    Match<Sim> m = Match<Sim>::create(rc).value();
    const uint32_t a = m.add_session(Role::play, 11, LinkSpec{40 * ms, 10 * ms}, 0);
    const uint32_t b = m.add_session(Role::play, 12, LinkSpec{70 * ms, 15 * ms}, 0);
    const uint32_t w = m.add_session(Role::watch, 13, LinkSpec{50 * ms, 5 * ms}, 0);
    const uint32_t dead = m.add_session(Role::play, 14, LinkSpec{60 * ms, 10 * ms}, 0);
    const uint32_t next = m.add_session(Role::play, 15, LinkSpec{60 * ms, 10 * ms}, 0);
    const std::vector<uint32_t> others{a, b, w};
    for (uint32_t e : {a, b, w, dead}) m.connect(e, 0);

    constexpr uint64_t freeze_at = 300, next_joins_at = 1000, ticks = 1500;
    uint64_t dead_player = 0, dropped_at = 0, max_unacked = 0, max_held = 0;
    for (uint64_t t = 0; t < ticks; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        if (t == freeze_at) {
            dead_player = m.session(dead).figures().player;
            m.set_reading(dead, false, now);
            m.suspend(dead, now);
        }
        if (t == next_joins_at) m.connect(next, now);
        m.deliver(now);
        for (uint32_t e : {a, b, dead, next}) {
            if (e == dead && t >= freeze_at) continue;   // a frozen page sends nothing
            if (t % 6 == e % 6 && m.open(e)) m.session(e).send_command(ships::Command{static_cast<uint8_t>((t / 6 + e) % 16)}, now);
        }
        for (uint32_t e = 0; e < m.endpoints(); ++e) m.advance(e, now, advance_budget_ns);
        m.tick(now);
        if (t > freeze_at && m.open(dead)) {
            const auto c = m.room().client(m.connection(dead));
            REQUIRE(c);
            max_unacked = std::max(max_unacked, c->unacked_bytes);
            max_held = std::max(max_held, c->held_bytes);
        }
        if (dropped_at == 0 && t > freeze_at && !m.open(dead)) dropped_at = t;
    }
    for (int64_t now = static_cast<int64_t>(ticks) * tick_ns, end = now + 2 * second; now <= end; now += tick_ns) {
        m.deliver(now);
        for (uint32_t e = 0; e < m.endpoints(); ++e) m.advance(e, now, 1000 * ms);
        m.route(now);
    }

    // Dropped by the room for its silence, 5 s after the last message it sent (one link's
    // latency before the freeze at most), and held at bounded cost until then.
    CHECK(m.closed_by_room(dead));
    CHECK(dropped_at >= freeze_at + 5 * 60);
    CHECK(dropped_at <= freeze_at + 5 * 60 + 10);
    CHECK(m.room().stats().closes[static_cast<size_t>(CloseReason::idle)] == 1);
    CHECK(m.room().stats().flow_pauses >= 1);
    CHECK(max_unacked <= flow_window_bytes);
    CHECK(max_held <= 4096);
    // Its seat was given back: the ship is gone and the next player sits in it.
    const ships::State& room = m.room().state();
    CHECK(m.room().stats().players == 3);
    CHECK(m.session(next).figures().player == dead_player);
    REQUIRE(room.ships.size() == 3);
    // The others never noticed: every tick verified from their one baseline, nothing else.
    for (uint32_t e : others) {
        INFO("endpoint " << e);
        const SessionFigures f = m.session(e).figures();
        CHECK(f.connected);
        CHECK(f.mismatches == 0);
        CHECK(f.resyncs == 0);
        CHECK(f.baselines == 1);
        CHECK(f.verified_tick == room.tick);
        CHECK(f.verified_ticks == room.tick - f.last_baseline_tick);
        REQUIRE(m.session(e).confirmed_state());
        CHECK(*m.session(e).confirmed_state() == room);
    }
    // Thawed, the page reads what waited in its socket: the refusal, then the close.
    m.resume(dead, static_cast<int64_t>(ticks) * tick_ns + 3 * second);
    m.set_reading(dead, true, static_cast<int64_t>(ticks) * tick_ns + 3 * second);
    CHECK(m.saw_close(dead));
    CHECK_FALSE(m.session(dead).figures().connected);
    CHECK(m.session(dead).figures().refused == net::ErrorCode::idle);
}

// A player that says hello a second time is refused (unexpected) and closed; its ship joins and
// leaves like any other's, its seat comes back, and the honest player never notices.
TEST_CASE("ships: a player's second hello is refused as unexpected and closed, the other player verifies every tick", "[match][ships]") {
    Match<Sim> m = Match<Sim>::create(ships_match().room).value();
    const uint32_t a = m.add_session(Role::play, 21, LinkSpec{40 * ms, 10 * ms}, 0);
    const uint32_t twice = m.add_raw(22, LinkSpec{50 * ms, 10 * ms});
    m.connect(a, 0);
    const auto hello = [] {
        Bytes b;
        encode(b, hello_for<Sim>(Role::play));
        return b;
    };
    constexpr uint64_t ticks = 600;
    for (uint64_t t = 0; t < ticks; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        if (t == 100) {
            m.connect(twice, now);
            m.send_raw(twice, hello(), now);
        }
        if (t == 200) m.send_raw(twice, hello(), now);
        m.deliver(now);
        if (t % 6 == 0) m.session(a).send_command(ships::Command{static_cast<uint8_t>((t / 6) % 16)}, now);
        m.advance(a, now, advance_budget_ns);
        m.tick(now);
    }
    for (int64_t now = static_cast<int64_t>(ticks) * tick_ns, end = now + 2'000'000'000; now <= end; now += tick_ns) {
        m.deliver(now);
        m.advance(a, now, 1000 * ms);
        m.route(now);
    }
    // Welcomed as player 2 at first, then refused for the second hello, then closed.
    const std::vector<Bytes>& got = m.received(twice);
    REQUIRE_FALSE(got.empty());
    const auto welcome = decode_server(got.front());
    REQUIRE(welcome.ok());
    REQUIRE(std::holds_alternative<Welcome>(*welcome));
    CHECK(std::get<Welcome>(*welcome).player == 2);
    const auto refusal = first_error(got);
    REQUIRE(refusal);
    CHECK(refusal->code == net::ErrorCode::unexpected);
    CHECK(m.saw_close(twice));
    CHECK(m.closed_by_room(twice));
    CHECK(m.room().stats().closes[static_cast<size_t>(CloseReason::protocol_error)] == 1);
    CHECK(m.room().stats().players == 1);
    REQUIRE(m.room().state().ships.size() == 1);
    CHECK(m.room().state().ships.front().player == m.session(a).figures().player);
    const SessionFigures f = m.session(a).figures();
    CHECK(f.mismatches == 0);
    CHECK(f.baselines == 1);
    CHECK(f.verified_tick == m.room().state().tick);
    CHECK(f.verified_ticks == m.room().state().tick - f.last_baseline_tick);
    REQUIRE(m.session(a).confirmed_state());
    CHECK(*m.session(a).confirmed_state() == m.room().state());
}
