// Properties of src/net/bot.cpp against the real Room: bots are admitted as players, steer
// along seeded paths that stay inside the arena's margin, ack so the room never pauses or
// closes them, and the same seeds drive the same match (different seeds, different paths).
#include "tandem/net/bot.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "tandem/net/room.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

constexpr int64_t tick_ns = 1'000'000'000 / 60;

struct Match {
    Room room;
    std::vector<ScriptedBot> bots;
    std::vector<uint32_t> ids;
    std::vector<std::vector<Vec2>> targets;   // each bot's waypoints, in order

    static Room make_room() {
        RoomConfig c;
        c.world = world::default_config();
        c.world.pellet_count = 64;
        c.max_players = c.world.max_players;
        return Room::create(c).value();
    }

    explicit Match(std::vector<uint64_t> seeds) : room(make_room()) {
        for (uint64_t s : seeds) bots.emplace_back(s);
        targets.resize(bots.size());
        for (ScriptedBot& b : bots) {
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
                    const uint32_t steers = bots[i].figures().steers_sent;
                    bots[i].receive(*o.bytes);
                    if (bots[i].figures().steers_sent != steers || targets[i].empty()) targets[i].push_back(bots[i].target());
                }
            }
            moved = moved || !sends.empty();
        }
        REQUIRE(closes.empty());
    }

    void run(uint64_t ticks) {
        for (uint64_t t = 0; t < ticks; ++t) {
            const int64_t now = static_cast<int64_t>(room.world().tick + 1) * tick_ns;
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
    CHECK(m.room.world().wells.size() == 3);
    for (size_t i = 0; i < m.bots.size(); ++i) {
        const BotFigures& f = m.bots[i].figures();
        CHECK(f.welcomed);
        CHECK(f.player == i + 1);
        CHECK(f.tick == 900);
        CHECK_FALSE(f.refused);
        // A leg lasts 2 to 5 s: 900 ticks hold at least 3 legs plus the first, at most 8.
        CHECK(f.steers_sent >= 4);
        CHECK(f.steers_sent <= 9);
        // An ack every 6 ticks.
        CHECK(f.acks_sent >= 900 / 6 - 2);
        const auto client = m.room.client(m.ids[i]);
        REQUIRE(client.has_value());
        CHECK_FALSE(client->paused);
    }
    CHECK(s.flow_pauses == 0);
    CHECK(s.ack_mismatches == 0);
    CHECK(s.inputs_accepted == m.bots[0].figures().steers_sent + m.bots[1].figures().steers_sent +
                                   m.bots[2].figures().steers_sent);
}

TEST_CASE("every waypoint lies inside the arena at least an eighth of its side from each wall, and the wells follow") {
    Match m({5, 6, 7});
    m.run(600);
    const int32_t side = m.room.world().config.arena_size.raw();
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
        const auto& wells = m.room.world().wells;
        REQUIRE(i < wells.size());
        CHECK(wells[i].target == m.bots[i].target());
    }
}

TEST_CASE("the same seeds drive the same match; another seed takes another path") {
    Match a({1, 2, 3}), b({1, 2, 3}), c({1, 2, 4});
    a.run(400);
    b.run(400);
    c.run(400);
    CHECK(world::digest(a.room.world()) == world::digest(b.room.world()));
    CHECK(a.targets == b.targets);
    CHECK(a.targets[2] != c.targets[2]);
    CHECK(world::digest(a.room.world()) != world::digest(c.room.world()));
}
