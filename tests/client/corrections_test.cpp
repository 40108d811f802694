// Corrections<G> (tandem/client/corrections.hpp): the eased drawing of what a landed rollback
// moved, for any game, over its named list and Vec2 field. The points it reads are held to the
// state's own members (the reference: the game's structs, not the visitor walk under test); a
// rollback's correction becomes the drawn move as an offset that fades to nothing; a game that
// names no field has none.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "arena/sim.hpp"
#include "ships/sim.hpp"
#include "tandem/client/corrections.hpp"
#include "tandem/client/predicted.hpp"
#include "tandem/net/match.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {
constexpr int64_t ms = 1'000'000;

template <class G>
using Points = std::vector<typename client::KeyedPointVisitor<G>::Point>;

Match<arena::Sim> arena_match() {
    RoomConfig<arena::Sim> rc;
    rc.game.pellet_count = 64;
    return Match<arena::Sim>::create(rc).value();
}
// Two players joined over 50 ms links: the one whose client predicts, and the other whose
// steering that client must correct for.
struct Players {
    uint32_t me;
    uint32_t other;
};
Players join_two(Match<arena::Sim>& m) {
    const Players p{m.add_session(Role::play, 10, LinkSpec{50 * ms, 0}, 0), m.add_session(Role::play, 11, LinkSpec{50 * ms, 0}, 0)};
    m.connect(p.me, 0);
    m.connect(p.other, 0);
    return p;
}
arena::Steer point(int32_t x, int32_t y) { return arena::Steer{Vec2{Fx::from_int(x), Fx::from_int(y)}}; }
}  // namespace

TEST_CASE("keyed_points reads one Vec2 field of one list by key, as the state holds it, and walks no other list", "[corrections]") {
    arena::World w = arena::make_world(arena::WorldConfig{}).value();
    arena::Stepper stepper;
    const std::vector<arena::Input> joins{arena::join(3, Vec2{Fx::from_int(100), Fx::from_int(200)}),
                                          arena::join(7, Vec2{Fx::from_int(600), Fx::from_int(50)})};
    stepper.step(w, joins);
    for (int t = 0; t < 30; ++t) stepper.step(w, {});
    REQUIRE(w.wells.size() >= 2);
    Points<arena::Sim> wells;
    client::keyed_points<arena::Sim>(w, "wells", "pos", wells);
    REQUIRE(wells.size() == w.wells.size());
    for (std::size_t i = 0; i < wells.size(); ++i) {
        CHECK(wells[i].key == w.wells[i].player);
        CHECK(wells[i].value == w.wells[i].pos);
    }
    Points<arena::Sim> targets;
    client::keyed_points<arena::Sim>(w, "wells", "target", targets);
    REQUIRE(targets.size() == w.wells.size());
    CHECK(targets[1].value == w.wells[1].target);
    // A field that is not a Vec2, a list that does not exist, no list at all: nothing.
    Points<arena::Sim> none;
    client::keyed_points<arena::Sim>(w, "wells", "score", none);
    CHECK(none.empty());
    client::keyed_points<arena::Sim>(w, "wheels", "pos", none);
    CHECK(none.empty());
    client::keyed_points<arena::Sim>(w, "", "pos", none);
    CHECK(none.empty());

    // A SlotKey names ships' rocks: index in the high word, generation in the low one.
    ships::State s = ships::start(*ships::find_scenario("rockfield"));
    REQUIRE(!s.rocks.empty());
    Points<ships::Sim> rocks;
    client::keyed_points<ships::Sim>(s, "rocks", "pos", rocks);
    REQUIRE(rocks.size() == s.rocks.size());
    CHECK(rocks[0].key == ((uint64_t{s.rocks[0].key.index} << 32) | s.rocks[0].key.generation));
    CHECK(rocks[0].value == s.rocks[0].pos);
}

TEST_CASE("a rollback's correction of a well becomes an offset of the drawn move that fades to nothing, within the window", "[corrections]") {
    constexpr int64_t tick_ns = 1'000'000'000 / 60;
    Match<arena::Sim> m = arena_match();
    const auto [me, other] = join_two(m);
    auto p = client::PredictedClient<arena::Sim>::create().value();
    client::Corrections<arena::Sim> corrections(client::EasedField{"wells", "pos"});
    bool saw_offset = false;
    bool offset_was_the_move = false;
    for (uint64_t t = 0; t < 520; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        m.deliver(now);
        m.advance(me, now, 8 * ms);
        const uint64_t before = corrections.corrections();
        Points<arena::Sim> was, is;
        p.update(m.session(me), now);
        if (p.corrected_from() && p.state()) {
            client::keyed_points<arena::Sim>(*p.corrected_from(), "wells", "pos", was);
            client::keyed_points<arena::Sim>(*p.state(), "wells", "pos", is);
        }
        corrections.update(p, now);
        p.end_frame();
        // The first correction of all: the offsets are exactly where each well was drawn minus
        // where it is now, for every well the rollback moved and no other.
        if (before == 0 && corrections.corrections() > 0) {
            uint32_t moved = 0;
            for (const auto& a : was) {
                for (const auto& b : is) {
                    if (a.key != b.key || a.value == b.value) continue;
                    ++moved;
                    const double dx = to_f64(a.value.x) - to_f64(b.value.x);
                    const double dy = to_f64(a.value.y) - to_f64(b.value.y);
                    for (const auto& o : corrections.offsets()) {
                        if (o.key == a.key) offset_was_the_move = std::abs(o.dx - dx) < 1e-3 && std::abs(o.dy - dy) < 1e-3;
                    }
                }
            }
            CHECK(moved == corrections.offsets().size());
            CHECK(moved == corrections.corrections());
        }
        if (t < 400 && !corrections.offsets().empty()) saw_offset = true;
        CHECK(p.figures().depth_ticks <= p.config().window_ticks);
        CHECK(p.figures().resim_ticks_last <= p.config().resim_budget_ticks);
        if (t == 200) m.session(other).send_command(point(900, 900), now);
        m.advance(other, now, 8 * ms);
        m.tick(now);
    }
    CHECK(saw_offset);
    CHECK(offset_was_the_move);
    CHECK(corrections.corrections() > 0);
    CHECK(corrections.monitor_alarms() <= corrections.corrections());
    // Two seconds without corrections: every offset decayed below a hundredth of a unit and is gone.
    CHECK(corrections.offsets().empty());
    CHECK(p.figures().rollbacks >= 1);
}

TEST_CASE("Corrections eases nothing where no field is named, on the same rollbacks that move a named one", "[corrections]") {
    Match<arena::Sim> m = arena_match();
    const auto [me, other] = join_two(m);
    auto p = client::PredictedClient<arena::Sim>::create().value();
    client::Corrections<arena::Sim> none;
    client::Corrections<arena::Sim> eased(client::EasedField{"wells", "pos"});
    constexpr int64_t tick_ns = 1'000'000'000 / 60;
    for (uint64_t t = 0; t < 300; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        m.deliver(now);
        m.advance(me, now, 8 * ms);
        p.update(m.session(me), now);
        none.update(p, now);
        eased.update(p, now);
        p.end_frame();
        CHECK(none.offsets().empty());
        if (t % 20 == 0) m.session(other).send_command(point(100 + static_cast<int32_t>(t), 800), now);
        m.advance(other, now, 8 * ms);
        m.tick(now);
    }
    CHECK(none.corrections() == 0);
    CHECK(eased.corrections() > 0);
}
