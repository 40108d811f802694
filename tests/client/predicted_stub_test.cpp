// PredictedClient<G> over the stub game (tests/net/stub_game.hpp) and Match<stub::Game>: the
// own command reaches the predicted state before the confirmed one, another player's command
// rolls the prediction back, and once nobody sends, every predicted tick's state is the room's
// at that tick (the room's states are the reference). Nothing arena-shaped is needed.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <optional>

#include "net/stub_game.hpp"
#include "tandem/client/predicted.hpp"
#include "tandem/net/match.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {
constexpr int64_t ms = 1'000'000;
constexpr int64_t tick_ns = 1'000'000'000 / 60;

uint64_t count_of(const stub::State& s, uint32_t player) {
    for (const stub::Counter& c : s.counters)
        if (c.player == player) return c.count;
    return 0;
}
}  // namespace

TEST_CASE("PredictedClient<stub>: the own command shows early, others' roll back, and the prediction converges to the room's states", "[predicted]") {
    Match<stub::Game> m = Match<stub::Game>::create(RoomConfig<stub::Game>{}).value();
    const uint32_t me = m.add_session(Role::play, 1, LinkSpec{50 * ms, 0}, 0);
    const uint32_t other = m.add_session(Role::play, 2, LinkSpec{30 * ms, 5 * ms}, 0);
    m.connect(me, 0);
    m.connect(other, 0);
    // Match drives it as a page would: after the command is sent and after each advance.
    auto& predicted = m.follow(me, client::PredictedClient<stub::Game>::create().value());
    std::map<uint64_t, stub::State> room_states, predicted_states;
    std::optional<uint64_t> predicted_saw, confirmed_saw;
    const uint64_t my_command_at = 200, last_other = 400;
    for (uint64_t t = 0; t < 700; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        m.deliver(now);
        if (t == my_command_at) m.send_command(me, stub::Command{50}, now);
        if (t >= 250 && t < last_other && t % 5 == 0) m.session(other).send_command(stub::Command{static_cast<uint8_t>(1 + t % 3)}, now);
        m.advance(me, now, 16 * ms);
        m.advance(other, now, 16 * ms);
        const uint32_t player = m.session(me).figures().player;
        if (const stub::State* p = predicted.state()) {
            predicted_states[p->tick] = *p;
            if (!predicted_saw && t >= my_command_at && count_of(*p, player) == 50) predicted_saw = t;
        }
        if (const auto& c = m.session(me).confirmed_state(); c && !confirmed_saw && count_of(*c, player) == 50) confirmed_saw = t;
        m.tick(now);
        room_states[m.room().state().tick] = m.room().state();
    }
    REQUIRE(predicted_saw);
    REQUIRE(confirmed_saw);
    CHECK(*predicted_saw <= my_command_at + 1);
    CHECK(*confirmed_saw >= *predicted_saw + 5);
    const client::PredictionFigures f = predicted.figures();
    INFO("rollbacks " << f.rollbacks << " resimulated " << f.resimulated_ticks << " resets " << f.resets);
    CHECK(f.rollbacks > 10);
    CHECK(f.resets == 1);
    CHECK(f.depth_ticks <= predicted.config().window_ticks);
    uint64_t compared = 0;
    for (const auto& [tick, state] : predicted_states) {
        if (tick < last_other + 60 || !room_states.count(tick)) continue;
        CHECK(state == room_states.at(tick));
        ++compared;
    }
    CHECK(compared > 200);
    CHECK(m.session(me).figures().mismatches == 0);
}
