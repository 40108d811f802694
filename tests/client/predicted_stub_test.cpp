// PredictedClient<G> over the stub game (tests/net/stub_game.hpp) and Match<stub::Game>: the
// own command reaches the predicted state before the confirmed one, another player's command
// rolls the prediction back, and once nobody sends, every predicted tick's state is the room's
// at that tick (the room's states are the reference); with a clock, a prediction from a new world
// grows to its depth within the time budget. Nothing arena-shaped is needed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

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

namespace {
// Clocks for the growth test: one that moves 1 ms at every read (a predicted step, timed by two
// reads, costs 1 ms, and after one of them the 2.5 ms budget has no room for another), and one
// that never moves (every step is free, so the budget never binds).
int64_t dear_ns = 0;
int64_t dear_clock() { return dear_ns += ms; }
int64_t free_clock() { return 0; }

// The depth of the picture at each update from the first that holds one, for a player whose
// prediction follows its session with `clock` (none: nullptr). The room's input delay is 8
// ticks: the player's own join, which the prediction cannot know, lands 9 ticks after the
// baseline, and its rollback (which runs whole) comes after the growth this test watches.
std::vector<uint32_t> depths_after_join(int64_t (*clock)()) {
    RoomConfig<stub::Game> config;
    config.input_delay_ticks = 8;
    Match<stub::Game> m = Match<stub::Game>::create(config).value();
    const uint32_t me = m.add_session(Role::play, 1, LinkSpec{50 * ms, 0}, 0);
    m.connect(me, 0);
    auto& predicted = m.follow(me, client::PredictedClient<stub::Game>::create().value());
    if (clock) predicted.set_clock(clock);
    std::vector<uint32_t> depths;
    for (uint64_t t = 0; t < 120; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        m.deliver(now);
        m.advance(me, now, 16 * ms);
        if (predicted.state()) depths.push_back(predicted.figures().depth_ticks);
        m.tick(now);
    }
    CHECK(m.session(me).figures().mismatches == 0);
    return depths;
}
}  // namespace

TEST_CASE("PredictedClient<stub>: a prediction from a new world grows to its depth by at least a tick an update when its steps outrun the time budget, and is at its depth at once when they fit or no clock is set", "[predicted]") {
    const uint32_t depth = client::PredictConfig{}.initial_depth_ticks;
    REQUIRE(depth == 6);
    dear_ns = 0;
    const std::vector<uint32_t> dear = depths_after_join(&dear_clock);
    const std::vector<uint32_t> free = depths_after_join(&free_clock);
    const std::vector<uint32_t> none = depths_after_join(nullptr);
    for (const auto* d : {&dear, &free, &none}) REQUIRE(d->size() > 60);
    // A step costs 1 ms and the budget is 2.5 ms: one step an update beyond the ticks the
    // confirmed state moved, the depth one more at each update until it is reached, then kept.
    CHECK(std::vector<uint32_t>(dear.begin(), dear.begin() + 8) == std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 6, 6});
    CHECK(std::count(dear.begin(), dear.end(), depth) == static_cast<std::ptrdiff_t>(dear.size()) - 5);
    // Free steps, or no clock (the tick budget only): the whole depth in the first update.
    CHECK(std::count(free.begin(), free.end(), depth) == static_cast<std::ptrdiff_t>(free.size()));
    CHECK(none == free);
}
