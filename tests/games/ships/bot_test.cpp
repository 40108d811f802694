// Properties of ships/bot.hpp (Sim::Bot, what ScriptedBot plays ships with): the shape the kit's
// bots expect (made from the config and a player; next(tick, rng) returns a command or none),
// legs of buttons worked out by hand from the documented draws, and a seed that decides all.
#include <catch2/catch.hpp>
#include <concepts>
#include <optional>
#include <vector>

#include "ships/sim.hpp"

using namespace ships;

static_assert(std::constructible_from<Sim::Bot, const Sim::Config&, uint32_t>);
static_assert(std::same_as<decltype(std::declval<Sim::Bot&>().next(uint64_t{}, std::declval<tandem::XorShift&>())),
                           std::optional<Sim::Command>>);

TEST_CASE("the bot draws a leg's buttons (turn of 3, thrust of 3, then its length) and holds them for the leg") {
    Sim::Bot bot(Config{}, 4);
    tandem::XorShift rng(77), expected(77);
    uint64_t tick = 10;
    for (int leg = 0; leg < 20; ++leg) {
        const auto first = bot.next(tick, rng);
        REQUIRE(first.has_value());
        uint8_t buttons = fire;
        const uint32_t turn = expected.below(3);
        if (turn == 1) buttons |= turn_left;
        if (turn == 2) buttons |= turn_right;
        if (expected.below(3) == 0) buttons |= thrust;
        const uint64_t length = bot_leg_min_ticks + expected.below(bot_leg_spread_ticks);
        CHECK(first->buttons == buttons);
        CHECK(rng == expected);
        for (uint64_t t = tick + 1; t < tick + length; ++t) REQUIRE_FALSE(bot.next(t, rng).has_value());
        CHECK(rng == expected);   // no draws while a leg runs
        tick += length;
    }
}

TEST_CASE("two bots with one seed fly the same, another seed flies otherwise") {
    auto flight = [](uint64_t seed) {
        Sim::Bot bot(Config{}, 1);
        tandem::XorShift rng(seed);
        std::vector<int> out;
        for (uint64_t t = 0; t < 2000; ++t) {
            const auto c = bot.next(t, rng);
            out.push_back(c ? c->buttons : -1);
        }
        return out;
    };
    CHECK(flight(5) == flight(5));
    CHECK(flight(5) != flight(6));
}
