// The kit over the second game, unchanged: Room<ships::Sim> admits ScriptedBot<ships::Sim>
// players (ships::Sim::Bot's legs of held buttons), steps them, streams frames the bots ack with
// the room's own digests, and records a replay that check_replay<ships::Sim> re-runs to the same
// digests at every tick. With resume on, a dropped player's ship stays and lets go of its
// buttons (ships::Sim::idle_command) while its seat is kept.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "ships/sim.hpp"
#include "tandem/net/bot.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/net/room.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

using Sim = ships::Sim;
static_assert(HasBot<Sim>);
constexpr int64_t tick_ns = 1'000'000'000 / 30;

struct Match {
    Room<Sim> room;
    std::vector<ScriptedBot<Sim>> bots;
    std::vector<uint32_t> ids;

    static Room<Sim> make_room() {
        RoomConfig<Sim> c;
        c.game = ships::Config{};
        c.game.max_players = 4;
        Room<Sim> room = Room<Sim>::create(c).value();
        // Resume on: tokens from a counter (the bots ignore them).
        room.set_token_source([n = uint8_t{0}]() mutable {
            ResumeToken t{};
            t.fill(++n);
            return t;
        });
        return room;
    }

    explicit Match(std::vector<uint64_t> seeds) : room(make_room()) {
        for (uint64_t s : seeds) bots.emplace_back(s);
        for (ScriptedBot<Sim>& b : bots) {
            ids.push_back(room.connect(0));
            b.on_connected();
        }
        pump(0);
    }
    void pump(int64_t now) {
        std::vector<Outgoing> sends;
        std::vector<CloseRequest> closes;
        for (bool moved = true; moved;) {
            moved = false;
            for (size_t i = 0; i < bots.size(); ++i) {
                std::vector<std::vector<uint8_t>> out;
                bots[i].take_outgoing(out);
                for (const auto& m : out) room.receive(ids[i], m, now);
                moved = moved || !out.empty();
            }
            sends.clear();
            room.take_outbox(sends, closes);
            for (const Outgoing& o : sends) {
                for (size_t i = 0; i < bots.size(); ++i) {
                    if (ids[i] == o.to) bots[i].receive(*o.bytes);
                }
            }
            moved = moved || !sends.empty();
        }
        REQUIRE(closes.empty());
    }
    void run(uint64_t ticks) {
        for (uint64_t t = 0; t < ticks; ++t) {
            const int64_t now = static_cast<int64_t>(room.state().tick + 1) * tick_ns;
            room.tick(now);
            pump(now);
        }
    }
};

}  // namespace

TEST_CASE("ships bots play in a Room<ships::Sim>: admitted, flying, shooting, acking without a pause") {
    Match m({3, 4, 5});
    m.room.start_recording();
    m.run(900);
    const ships::State& s = m.room.state();
    CHECK(m.room.stats().players == 3);
    REQUIRE(s.ships.size() == 3);
    uint64_t moved = 0;
    for (const ships::Ship& ship : s.ships) moved += ship.deaths + (ship.vel == Vec2{} ? 0u : 1u);
    CHECK(moved > 0);
    CHECK(s.bullet_keys.next_generation > 20);   // fire is always held: shots every cooldown
    CHECK(m.room.stats().flow_pauses == 0);
    CHECK(m.room.stats().ack_mismatches == 0);
    for (const ScriptedBot<Sim>& b : m.bots) {
        CHECK(b.figures().welcomed);
        CHECK_FALSE(b.figures().refused);
        CHECK(b.figures().commands_sent >= 900 / 60);
    }

    std::vector<uint8_t> replay_bytes;
    m.room.take_recording(replay_bytes);
    const auto replay = read_replay<Sim>(replay_bytes);
    REQUIRE(replay.ok());
    const ReplayCheck check = check_replay<Sim>(*replay);
    CHECK_FALSE(check.divergence.has_value());
    CHECK(check.frames_checked == 900);
    CHECK(check.last_tick == s.tick);
}

TEST_CASE("a dropped ships player keeps its ship, and the room's neutral command lets go of every button while the seat is kept") {
    Match m({3, 4});
    m.run(120);
    const auto ship_of = [&](uint32_t player) -> const ships::Ship* {
        for (const ships::Ship& x : m.room.state().ships)
            if (x.player == player) return &x;
        return nullptr;
    };
    REQUIRE(ship_of(1) != nullptr);
    CHECK(ship_of(1)->buttons != 0);   // the bot holds fire at least
    m.room.disconnect(m.ids[0], static_cast<int64_t>(m.room.state().tick) * tick_ns);
    m.ids[0] = 0;   // nothing more reaches the dropped bot
    CHECK(m.room.seat_held(1));
    m.run(10);   // past the input delay
    REQUIRE(ship_of(1) != nullptr);
    CHECK(ship_of(1)->buttons == 0);
    CHECK(m.room.state().ships.size() == 2);
}
