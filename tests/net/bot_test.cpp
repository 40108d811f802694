// Properties of ScriptedBot<G> (tandem/net/bot.hpp) with the arena's policy (arena::Sim::Bot)
// against the real Room<arena::Sim>: bots are admitted as players, steer along seeded paths
// that stay inside the arena's margin, ack so the room never pauses or closes them, and the
// same seeds drive the same match (different seeds, different paths). The first waypoints of a
// seed are drawn here from XorShift by the documented rule, independently of the policy.
#include "tandem/net/bot.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/room.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

using Sim = arena::Sim;
constexpr int64_t tick_ns = 1'000'000'000 / 60;

struct Match {
    Room<Sim> room;
    std::vector<ScriptedBot<Sim>> bots;
    std::vector<uint32_t> ids;
    std::vector<std::vector<Vec2>> targets;   // each bot's waypoints, in order

    static Room<Sim> make_room() {
        RoomConfig<Sim> c;
        c.game = arena::default_config();
        c.game.pellet_count = 64;
        return Room<Sim>::create(c).value();
    }

    explicit Match(std::vector<uint64_t> seeds) : room(make_room()) {
        for (uint64_t s : seeds) bots.emplace_back(s);
        targets.resize(bots.size());
        for (ScriptedBot<Sim>& b : bots) {
            ids.push_back(room.connect(0));
            b.on_connected();
        }
        pump(0);
    }

    // Moves every queued message both ways until nothing is left.
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
                    if (ids[i] != o.to) continue;
                    const uint32_t steers = bots[i].figures().commands_sent;
                    bots[i].receive(*o.bytes);
                    if (bots[i].figures().commands_sent != steers || targets[i].empty()) targets[i].push_back(bots[i].command().target);
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

TEST_CASE("three bots are admitted as players 1..3 and the room sees them join, steer and ack without a pause") {
    Match m({11, 22, 33});
    m.run(900);   // 15 s: several legs each
    const RoomStats& s = m.room.stats();
    CHECK(s.players == 3);
    CHECK(m.room.state().wells.size() == 3);
    for (size_t i = 0; i < m.bots.size(); ++i) {
        const BotFigures& f = m.bots[i].figures();
        CHECK(f.welcomed);
        CHECK(f.player == i + 1);
        CHECK(f.tick == 900);
        CHECK_FALSE(f.refused);
        // A leg lasts 2 to 5 s: 900 ticks hold at least 3 legs plus the first, at most 8.
        CHECK(f.commands_sent >= 4);
        CHECK(f.commands_sent <= 9);
        // An ack every 6 ticks.
        CHECK(f.acks_sent >= 900 / 6 - 2);
        const auto client = m.room.client(m.ids[i]);
        REQUIRE(client.has_value());
        CHECK_FALSE(client->paused);
    }
    CHECK(s.flow_pauses == 0);
    CHECK(s.ack_mismatches == 0);
    CHECK(s.inputs_accepted == m.bots[0].figures().commands_sent + m.bots[1].figures().commands_sent +
                                   m.bots[2].figures().commands_sent);
}

TEST_CASE("every waypoint lies inside the arena at least an eighth of its side from each wall, and the wells follow") {
    Match m({5, 6, 7});
    m.run(600);
    const int32_t side = m.room.state().config.arena_size.raw();
    for (const auto& waypoints : m.targets) {
        REQUIRE(waypoints.size() >= 2);
        for (const Vec2& p : waypoints) {
            CHECK(p.x.raw() >= side / 8);
            CHECK(p.x.raw() < side - side / 8);
            CHECK(p.y.raw() >= side / 8);
            CHECK(p.y.raw() < side - side / 8);
        }
    }
    // The room's world holds each bot's newest waypoint as its well's target.
    for (size_t i = 0; i < m.bots.size(); ++i) {
        const auto& wells = m.room.state().wells;
        REQUIRE(i < wells.size());
        CHECK(wells[i].target == m.bots[i].command().target);
    }
}

TEST_CASE("the same seeds drive the same match, another seed takes another path") {
    Match a({1, 2, 3}), b({1, 2, 3}), c({1, 2, 4});
    a.run(400);
    b.run(400);
    c.run(400);
    CHECK(arena::digest(a.room.state()) == arena::digest(b.room.state()));
    CHECK(a.targets == b.targets);
    CHECK(a.targets[2] != c.targets[2]);
    CHECK(arena::digest(a.room.state()) != arena::digest(c.room.state()));
}

TEST_CASE("a seed's first waypoint and leg are today's draws: x, y in the margin, then the leg's length") {
    // By hand from the rule: an arena of 1024 units has side 1024 << 16 raw, margin side / 8,
    // span side - 2 * margin; x and y are margin + below(span), the leg 120 + below(180).
    Match m({42});
    m.run(1);
    tandem::XorShift rng(42);
    const int32_t side = 1024 << 16;
    const int32_t margin = side / 8;
    const uint32_t span = static_cast<uint32_t>(side - 2 * margin);
    const int32_t x = margin + static_cast<int32_t>(rng.below(span));
    const int32_t y = margin + static_cast<int32_t>(rng.below(span));
    const uint64_t leg = 120 + rng.below(180);
    REQUIRE(!m.targets[0].empty());
    CHECK(m.targets[0][0] == Vec2{Fx::from_raw(x), Fx::from_raw(y)});
    // The second waypoint comes at the first frame at or past the leg's end (the welcome's tick 0).
    m.run(leg - 2);
    CHECK(m.bots[0].figures().commands_sent == 1);
    m.run(1);
    CHECK(m.bots[0].figures().commands_sent == 2);
}
