// ClientSession<G> and Match<G> instantiated for the stub game (tests/net/stub_game.hpp, a
// counter per player): the session and the driver need nothing arena-shaped. Two players and a
// watcher over Match<stub::Game>: every tick verified, each client ends on the room's state
// (the reference: the counters the test's own commands add up to), and a corrupted counter is
// detected, its section and field named, and healed.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "net/stub_game.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/net/match.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {
constexpr int64_t ms = 1'000'000;
constexpr int64_t tick_ns = 1'000'000'000 / 60;
}  // namespace

TEST_CASE("ClientSession<stub> and Match<stub>: two players and a watcher verify every tick and end on the room's counters", "[client_session][match]") {
    RoomConfig<stub::Game> rc;
    rc.input_delay_ticks = 2;
    Match<stub::Game> m = Match<stub::Game>::create(rc).value();
    const uint32_t a = m.add_session(Role::play, 1, LinkSpec{30 * ms, 5 * ms}, 0);
    const uint32_t b = m.add_session(Role::play, 2, LinkSpec{50 * ms, 10 * ms}, 0);
    const uint32_t w = m.add_session(Role::watch, 3, LinkSpec{40 * ms, 0}, 0);
    for (uint32_t e : {a, b, w}) m.connect(e, 0);
    for (uint64_t t = 0; t < 600; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        m.deliver(now);
        if (t >= 60 && t < 500 && t % 4 == 0) {
            // A changed command each time (an unchanged one is not resent).
            const uint8_t inc_a = static_cast<uint8_t>(1 + (t / 4) % 2), inc_b = static_cast<uint8_t>(3 + (t / 4) % 2);
            m.session(a).send_command(stub::Command{inc_a}, now);
            m.session(b).send_command(stub::Command{inc_b}, now);
        }
        for (uint32_t e : {a, b, w}) m.advance(e, now, 16 * ms);
        m.tick(now);
    }
    for (int64_t now = 600 * tick_ns; now < 800 * tick_ns; now += tick_ns) {
        m.deliver(now);
        for (uint32_t e : {a, b, w}) m.advance(e, now, 100 * ms);
        m.route(now);
    }
    const stub::State& room = m.room().state();
    for (uint32_t e : {a, b, w}) {
        INFO("endpoint " << e);
        const SessionFigures f = m.session(e).figures();
        CHECK(f.mismatches == 0);
        CHECK(f.verified_tick == room.tick);
        CHECK(f.verified_ticks == room.tick - f.last_baseline_tick);
        REQUIRE(m.session(e).confirmed_state());
        CHECK(*m.session(e).confirmed_state() == room);
    }
    // The reference: a counter starts at 0 when its player joins (the stub's rule), then adds
    // every command its player sent.
    const uint32_t pa = m.session(a).figures().player, pb = m.session(b).figures().player;
    uint64_t expect_a = 0, expect_b = 0;
    for (uint64_t t = 60; t < 500; t += 4) {
        expect_a += 1 + (t / 4) % 2;
        expect_b += 3 + (t / 4) % 2;
    }
    REQUIRE(room.counters.size() == 2);
    CHECK(room.counters[0].player == pa);
    CHECK(room.counters[0].count == expect_a);
    CHECK(room.counters[1].player == pb);
    CHECK(room.counters[1].count == expect_b);
    CHECK(m.session(a).last_command_sent()->sequence == m.session(a).figures().inputs_sent);
}

TEST_CASE("ClientSession<stub>: a corrupted counter is detected, named by section and field, and healed", "[client_session][match]") {
    Match<stub::Game> m = Match<stub::Game>::create(RoomConfig<stub::Game>{}).value();
    const uint32_t a = m.add_session(Role::play, 5, LinkSpec{20 * ms, 0}, 0);
    m.connect(a, 0);
    uint64_t corrupted_at = 0;
    for (uint64_t t = 0; t < 400; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        m.deliver(now);
        m.advance(a, now, 16 * ms);
        if (t == 200) {
            corrupted_at = m.session(a).figures().verified_tick;
            m.session(a).corrupt_for_testing([](stub::State& s) { s.counters.at(0).count += 1000; });
        }
        m.tick(now);
    }
    for (int64_t now = 400 * tick_ns; now < 460 * tick_ns; now += tick_ns) {
        m.deliver(now);
        m.advance(a, now, 100 * ms);
        m.route(now);
    }
    const SessionFigures f = m.session(a).figures();
    CHECK(f.mismatches == 1);
    CHECK(f.last_mismatch_tick == corrupted_at + 1);
    CHECK(f.last_mismatch_sections_known);
    CHECK(f.last_mismatch_sections == std::vector<std::string_view>{"counters"});
    REQUIRE(f.last_mismatch_fields.has_value());
    REQUIRE(f.last_mismatch_fields->differences.size() == 1);
    const sim::FieldDifference& d = f.last_mismatch_fields->differences[0];
    const std::string player = std::to_string(m.session(a).figures().player);
    CHECK(d.path == "counters[" + player + "].count");
    CHECK(d.section == "counters");
    CHECK(std::stoull(*d.b) == std::stoull(*d.a) + 1000);
    CHECK(f.baselines == 2);
    REQUIRE(m.session(a).confirmed_state());
    CHECK(*m.session(a).confirmed_state() == m.room().state());
}
