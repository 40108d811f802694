// Properties of src/games/arena/step.cpp, one documented rule of Stepper::step per test: input order,
// membership (joins, leaves, refusals, leave-then-join), the last steer, target clamps, the
// well spring and its acceleration clamp, walls, the pellet speed clamp, captures (nearest,
// ties to the lower id, the inclusive radius, respawns in pellet order) and the events. The
// expected values are worked out by hand in exact arithmetic: at tick_hz 64 the step is
// 1/64 = 1024 raw exactly, so every product below is a dyadic number Q16.16 holds exactly.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <thread>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/sim/codec.hpp"

using namespace tandem;
using namespace arena;

namespace {

// A value Q16.16 holds exactly (the tests only write such values), as Fx.
Fx q(double v) {
    const double scaled = v * 65536.0;
    REQUIRE(scaled == std::floor(scaled));
    return Fx::from_raw(static_cast<int32_t>(scaled));
}
Vec2 at(double x, double y) { return {q(x), q(y)}; }

// Nothing pulls (both strengths zero), so pellets move only by their own velocity, and
// dt = 1/64 exactly. Arena 1024, capture radius 12, wall restitution 0.75 as the defaults.
WorldConfig still_config(uint32_t pellets = 0) {
    WorldConfig c = default_config();
    c.tick_hz = 64;
    c.pellet_count = pellets;
    c.well_strength = Fx::zero();
    c.pellet_strength = Fx::zero();
    return c;
}

World world_of(const WorldConfig& c) { return make_world(c).value(); }

// A well that stays put: at rest and aimed at where it stands (the spring's force is zero).
Well resting_well(uint32_t player, Vec2 pos) { return Well{player, pos, {}, pos, 0}; }

// Pellets parked at rest far from (500, 500), where the tests put their wells.
void park_pellets(World& w) {
    for (uint32_t i = 0; i < w.pellets.size(); ++i) {
        w.pellets[i].pos = at(20.0 + 10.0 * i, 20.0);
        w.pellets[i].vel = {};
    }
}

std::vector<uint32_t> players(const World& w) {
    std::vector<uint32_t> out;
    for (const Well& well : w.wells) out.push_back(well.player);
    return out;
}

// The point random_point draws next: x, then y, each below(arena raw) of the world's rng.
Vec2 next_spawn(XorShift& rng, Fx arena) {
    const int32_t x = static_cast<int32_t>(rng.below(static_cast<uint32_t>(arena.raw())));
    const int32_t y = static_cast<int32_t>(rng.below(static_cast<uint32_t>(arena.raw())));
    return {Fx::from_raw(x), Fx::from_raw(y)};
}

Event joined(uint32_t p) { return {EventKind::joined, p, 0}; }
Event left(uint32_t p) { return {EventKind::left, p, 0}; }
Event refused(uint32_t p) { return {EventKind::join_refused, p, 0}; }
Event captured(uint32_t p, uint32_t pellet) { return {EventKind::captured, p, pellet}; }

std::vector<Event> events_of(std::span<const Event> e) { return {e.begin(), e.end()}; }

}  // namespace

// ---- Inputs --------------------------------------------------------------------------------

TEST_CASE("the order inputs arrive in does not change the tick") {
    std::vector<Input> inputs{{3, InputKind::join, at(10, 10)},    {1, InputKind::join, at(500, 500)},
                              {1, InputKind::command, at(20, 30)},   {2, InputKind::join, at(700, 100)},
                              {1, InputKind::command, at(25, 30)},   {3, InputKind::leave, {}},
                              {9, InputKind::command, at(1, 1)},     {2, InputKind::command, at(700, 100)}};
    WorldConfig c = default_config();
    c.pellet_count = 256;
    World reference = world_of(c);
    Stepper stepper;
    const std::vector<Event> reference_events = events_of(stepper.step(reference, inputs));
    std::sort(inputs.begin(), inputs.end(), tandem::sim::canonical_less<Sim>);
    uint32_t seen = 0;
    do {
        World w = world_of(c);
        const std::vector<Event> events = events_of(stepper.step(w, inputs));
        REQUIRE(w == reference);
        REQUIRE(events == reference_events);
        ++seen;
    } while (std::next_permutation(inputs.begin(), inputs.end(), tandem::sim::canonical_less<Sim>) && seen < 2000);
    CHECK(seen == 2000);
}

TEST_CASE("a player's last steer in canonical order wins: the greatest target, not the last to arrive") {
    World w = world_of(still_config());
    w.wells.push_back(resting_well(1, at(500, 500)));
    // Arrival order ends with (100, 700); canonical order sorts by (x, y) and ends with (900, 10).
    const std::vector<Input> steers{{1, InputKind::command, at(900, 10)},
                                    {1, InputKind::command, at(100, 800)},
                                    {1, InputKind::command, at(100, 700)}};
    Stepper stepper;
    CHECK(stepper.step(w, steers).empty());  // steers change no membership: no events
    CHECK(w.wells[0].target == at(900, 10));
    // Equal x: the greater y is later.
    stepper.step(w, std::vector<Input>{{1, InputKind::command, at(300, 900)}, {1, InputKind::command, at(300, 899)}});
    CHECK(w.wells[0].target == at(300, 900));
}

TEST_CASE("targets outside the arena are clamped into it, for joins and steers alike") {
    World w = world_of(still_config());
    Stepper stepper;
    stepper.step(w, std::vector<Input>{{1, InputKind::join, at(-50, 5000)},
                                       {2, InputKind::join, {Fx::from_raw(INT32_MIN), Fx::from_raw(INT32_MAX)}}});
    REQUIRE(players(w) == std::vector<uint32_t>{1, 2});
    CHECK(w.wells[0].target == at(0, 1024));
    CHECK(w.wells[1].target == at(0, 1024));
    stepper.step(w, std::vector<Input>{{1, InputKind::command, at(2000, -0.5)}, {2, InputKind::command, at(1023.5, 3)}});
    CHECK(w.wells[0].target == at(1024, 0));
    CHECK(w.wells[1].target == at(1023.5, 3));  // inside: unchanged
}

// ---- Membership ------------------------------------------------------------------------------

TEST_CASE("joins past max_players are refused in canonical order and draw nothing from the rng") {
    WorldConfig c = still_config();
    c.max_players = 2;
    World w = world_of(c);
    w.wells.push_back(resting_well(4, at(300, 300)));
    XorShift expected_rng = w.rng;
    const Vec2 spawn_of_2 = next_spawn(expected_rng, c.arena_size);
    // Canonical order: 2 joins (the second place), 4 is a member (nothing), 7 and 9 are refused.
    const std::vector<Input> joins{{9, InputKind::join, at(1, 1)},
                                   {2, InputKind::join, at(2, 2)},
                                   {7, InputKind::join, at(3, 3)},
                                   {4, InputKind::join, at(4, 4)}};
    Stepper stepper;
    const std::vector<Event> events = events_of(stepper.step(w, joins));
    CHECK(players(w) == std::vector<uint32_t>{2, 4});
    CHECK(events == std::vector<Event>{joined(2), refused(7), refused(9)});
    // The one join drew one spawn point (x then y); the refusals drew nothing. The well moved
    // this tick from its spawn point, so its start is checked through the rng and the target.
    CHECK(w.rng == expected_rng);
    CHECK(w.wells[0].target == at(2, 2));
    CHECK(w.wells[1].target == at(300, 300));  // the member's join changed nothing
    CHECK(w.wells[0].pos != spawn_of_2);        // a spring toward (2, 2) moved it
}

TEST_CASE("a joining well appears at the rng's next point and starts moving the same tick") {
    WorldConfig c = still_config();
    c.steer_gain = Fx::zero();     // no spring: a joined well stays where it spawned
    c.steer_damping = Fx::zero();
    World w = world_of(c);
    XorShift rng = w.rng;
    const Vec2 spawn = next_spawn(rng, c.arena_size);
    Stepper stepper;
    stepper.step(w, std::vector<Input>{{5, InputKind::join, at(10, 10)}});
    REQUIRE(w.wells.size() == 1);
    CHECK(w.wells[0].pos == spawn);
    CHECK(w.wells[0].vel == Vec2{});
    CHECK(w.wells[0].score == 0u);
}

TEST_CASE("a leave and a join of one player in one tick leave it absent, whichever came first") {
    World w = world_of(still_config());
    w.wells.push_back(resting_well(3, at(300, 300)));
    const XorShift before = w.rng;
    Stepper stepper;
    // A member: join sorts before leave, so the join meets a member (nothing) and the leave
    // removes it. Nothing drawn from the rng.
    std::vector<Event> events = events_of(stepper.step(w, std::vector<Input>{{3, InputKind::leave, {}},
                                                                              {3, InputKind::join, at(9, 9)}}));
    CHECK(w.wells.empty());
    CHECK(events == std::vector<Event>{left(3)});
    CHECK(w.rng == before);
    // A non-member: the join adds it (drawing its spawn point), the leave removes it again.
    XorShift expected = w.rng;
    next_spawn(expected, w.config.arena_size);
    events = events_of(stepper.step(w, std::vector<Input>{{5, InputKind::leave, {}}, {5, InputKind::join, at(9, 9)}}));
    CHECK(w.wells.empty());
    CHECK(events == std::vector<Event>{joined(5), left(5)});
    CHECK(w.rng == expected);
}

TEST_CASE("inputs that change no membership report nothing") {
    World w = world_of(still_config());
    w.wells.push_back(resting_well(3, at(300, 300)));
    Stepper stepper;
    const std::vector<Input> idle{{3, InputKind::join, at(1, 1)},   // already a member
                                  {3, InputKind::join, at(2, 2)},   // twice
                                  {8, InputKind::leave, {}},        // not a member
                                  {8, InputKind::command, at(5, 5)},  // not a member
                                  {3, InputKind::command, at(6, 6)}};
    CHECK(stepper.step(w, idle).empty());
    CHECK(stepper.events().empty());
    CHECK(players(w) == std::vector<uint32_t>{3});
    CHECK(w.wells[0].target == at(6, 6));
}

TEST_CASE("two joins of one absent player in one tick: the first in canonical order counts") {
    WorldConfig c = still_config();
    c.max_players = 1;
    World w = world_of(c);
    Stepper stepper;
    const std::vector<Event> events = events_of(
        stepper.step(w, std::vector<Input>{{6, InputKind::join, at(700, 1)}, {6, InputKind::join, at(100, 2)}}));
    CHECK(events == std::vector<Event>{joined(6)});  // the second meets a member, not a full world
    REQUIRE(w.wells.size() == 1);
    CHECK(w.wells[0].target == at(100, 2));
}

TEST_CASE("a leaving player's score leaves with it") {
    World w = world_of(still_config());
    w.wells.push_back(Well{2, at(100, 100), {}, at(100, 100), 17});
    w.captures = 17;
    Stepper stepper;
    stepper.step(w, std::vector<Input>{{2, InputKind::leave, {}}});
    CHECK(w.wells.empty());
    CHECK(w.captures == 17u);  // the world's count is history, not membership
    stepper.step(w, std::vector<Input>{{2, InputKind::join, at(100, 100)}});
    REQUIRE(w.wells.size() == 1);
    CHECK(w.wells[0].score == 0u);
}

// ---- Wells -----------------------------------------------------------------------------------

TEST_CASE("a well springs toward its target with its acceleration clamped per axis") {
    // gain 4, damping 3, clamp 400 (the defaults). From rest at (100, 100) toward (1000, 92):
    //   x: a = 4 * 900 = 3600, clamped to 400; v = 400/64 = 6.25; p = 100 + 6.25/64 = 100.09765625
    //   y: a = 4 * -8 = -32 (inside the clamp); v = -0.5; p = 100 - 0.5/64 = 99.9921875
    // Second tick, x: a = 4 * (1000 - 100.09765625) - 3 * 6.25 = 3580.859375 -> 400;
    //   v = 6.25 + 6.25 = 12.5; p = 100.09765625 + 12.5/64 = 100.29296875
    // Second tick, y: a = 4 * (92 - 99.9921875) - 3 * -0.5 = -30.46875; v = -0.5 - 30.46875/64
    //   = -0.97607421875; p = 99.9921875 - 0.97607421875/64, where the quotient is -999.5 raw
    //   (see below).
    World w = world_of(still_config());
    w.wells.push_back(Well{1, at(100, 100), {}, at(1000, 92), 0});
    Stepper stepper;
    stepper.step(w, {});
    CHECK(w.wells[0].vel == at(6.25, -0.5));
    CHECK(w.wells[0].pos == at(100.09765625, 99.9921875));
    stepper.step(w, {});
    CHECK(w.wells[0].vel.x == q(12.5));
    CHECK(w.wells[0].pos.x == q(100.29296875));
    CHECK(w.wells[0].vel.y == q(-0.97607421875));
    // -0.97607421875 / 64 = -0.0152511596679688 = -999.5 raw, a tie: to even, -1000 raw.
    CHECK(w.wells[0].pos.y.raw() == q(99.9921875).raw() - 1000);
}

TEST_CASE("the acceleration clamp holds on each axis, in each direction, and admits max_well_accel itself") {
    WorldConfig c = still_config();
    c.max_well_accel = q(64);
    World w = world_of(c);
    // Well 1, x: a = 4 * -500 = -2000 -> -64; v = -1; p = 600 - 1/64. y: a = 4 * 16 = 64,
    // exactly the clamp: v = 1; p = 600 + 1/64.
    w.wells.push_back(Well{1, at(600, 600), {}, at(100, 616), 0});
    // Well 2, the axes swapped: x: a = 4 * -16 = -64, exactly; y: a = 4 * 500 = 2000 -> 64.
    w.wells.push_back(Well{2, at(300, 300), {}, at(284, 800), 0});
    step(w, {});
    CHECK(w.wells[0].vel == at(-1, 1));
    CHECK(w.wells[0].pos == at(600 - 0.015625, 600 + 0.015625));
    CHECK(w.wells[1].vel == at(-1, 1));
    CHECK(w.wells[1].pos == at(300 - 0.015625, 300 + 0.015625));
}

TEST_CASE("a well bounces off the walls keeping wall_restitution of its speed") {
    WorldConfig c = still_config();
    c.steer_gain = Fx::zero();  // no spring, no damping: the well coasts
    c.steer_damping = Fx::zero();
    World w = world_of(c);
    // x: 1020 + 512/64 = 1028, 4 past the wall at 1024: back to 1020, v = -512 * 0.75 = -384.
    // y: 4 - 8 = -4, 4 past the wall at 0: back to 4, v = +384.
    w.wells.push_back(Well{1, at(1020, 4), at(512, -512), at(1020, 4), 0});
    step(w, {});
    CHECK(w.wells[0].pos == at(1020, 4));
    CHECK(w.wells[0].vel == at(-384, 384));
}

TEST_CASE("a well whose move ends exactly on a wall keeps its velocity") {
    WorldConfig c = still_config();
    c.steer_gain = Fx::zero();  // no spring, no damping: the well coasts
    c.steer_damping = Fx::zero();
    World w = world_of(c);
    // x: 1020 + 256/64 = 1024, exactly the wall; y: 4 - 256/64 = 0, exactly the wall.
    w.wells.push_back(Well{1, at(1020, 4), at(256, -256), at(1020, 4), 0});
    step(w, {});
    CHECK(w.wells[0].pos == at(1024, 0));
    CHECK(w.wells[0].vel == at(256, -256));
}

// ---- Pellets ---------------------------------------------------------------------------------

TEST_CASE("a pellet bounces off the walls, then its speed is clamped, after this tick's move") {
    WorldConfig c = still_config(3);
    c.max_pellet_speed = q(300);
    World w = world_of(c);
    // Pellet 0 coasts: 500 + 512/64 = 508, 500 - 8 = 492; the move used 512, then the clamp.
    w.pellets[0].pos = at(500, 500);
    w.pellets[0].vel = at(512, -512);
    // Pellet 1 bounces as the well above: (1020, 4), v (-384, 384), then clamped to 300.
    w.pellets[1].pos = at(1020, 4);
    w.pellets[1].vel = at(512, -512);
    // Pellet 2 is slow: nothing clamps. 200 + 64/64 = 201.
    w.pellets[2].pos = at(200, 200);
    w.pellets[2].vel = at(64, -64);
    step(w, {});
    CHECK(w.pellets[0].pos == at(508, 492));
    CHECK(w.pellets[0].vel == at(300, -300));
    CHECK(w.pellets[1].pos == at(1020, 4));
    CHECK(w.pellets[1].vel == at(-300, 300));
    CHECK(w.pellets[2].pos == at(201, 199));
    CHECK(w.pellets[2].vel == at(64, -64));
}

TEST_CASE("a move longer than the arena is reflected, then clamped to the wall") {
    WorldConfig c = still_config(1);
    c.arena_size = q(64);
    c.max_pellet_speed = q(30000);
    World w = world_of(c);
    // 10 - 30000/64 = -458.75: reflected to 458.75, beyond 64: clamped to 64;
    // v = 30000 * 0.75 = 22500.
    w.pellets[0].pos = at(10, 32);
    w.pellets[0].vel = at(-30000, 0);
    step(w, {});
    CHECK(w.pellets[0].pos == at(64, 32));
    CHECK(w.pellets[0].vel == at(22500, 0));
}

TEST_CASE("a pellet whose move ends exactly on a wall is not past it: it keeps its velocity") {
    // The walls reflect a coordinate past 0 or arena_size; one that lands exactly on 0 or
    // 1024 is inside, so nothing reverses. Pellets 0-3 move 64/64 = 1 unit onto a wall;
    // pellet 4 sits on the left wall and slides along it.
    World w = world_of(still_config(5));
    w.pellets[0].pos = at(1, 500);
    w.pellets[0].vel = at(-64, 0);
    w.pellets[1].pos = at(1023, 500);
    w.pellets[1].vel = at(64, 0);
    w.pellets[2].pos = at(500, 1);
    w.pellets[2].vel = at(0, -64);
    w.pellets[3].pos = at(300, 1023);
    w.pellets[3].vel = at(0, 64);
    w.pellets[4].pos = at(0, 700);
    w.pellets[4].vel = at(0, 64);
    Stepper stepper;
    stepper.step(w, {});
    CHECK(w.pellets[0].pos == at(0, 500));
    CHECK(w.pellets[0].vel == at(-64, 0));
    CHECK(w.pellets[1].pos == at(1024, 500));
    CHECK(w.pellets[1].vel == at(64, 0));
    CHECK(w.pellets[2].pos == at(500, 0));
    CHECK(w.pellets[2].vel == at(0, -64));
    CHECK(w.pellets[3].pos == at(300, 1024));
    CHECK(w.pellets[3].vel == at(0, 64));
    CHECK(w.pellets[4].pos == at(0, 701));
    CHECK(w.pellets[4].vel == at(0, 64));
    // The next tick takes each one unit past its wall: reflected back to 1 unit inside, the
    // speed reversed and scaled by 0.75 (64 * 0.75 = 48).
    stepper.step(w, {});
    CHECK(w.pellets[0].pos == at(1, 500));
    CHECK(w.pellets[0].vel == at(48, 0));
    CHECK(w.pellets[1].pos == at(1023, 500));
    CHECK(w.pellets[1].vel == at(-48, 0));
    CHECK(w.pellets[2].pos == at(500, 1));
    CHECK(w.pellets[2].vel == at(0, 48));
    CHECK(w.pellets[3].pos == at(300, 1023));
    CHECK(w.pellets[3].vel == at(0, -48));
}

// ---- Captures --------------------------------------------------------------------------------

TEST_CASE("a pellet at equal distance from two wells goes to the lower player id") {
    for (const bool low_id_on_the_left : {true, false}) {
        World w = world_of(still_config(4));
        park_pellets(w);
        w.pellets[1].pos = at(500, 500);
        // Players 3 and 7, 10 units either side of the pellet (radius 12).
        w.wells.push_back(resting_well(3, low_id_on_the_left ? at(490, 500) : at(510, 500)));
        w.wells.push_back(resting_well(7, low_id_on_the_left ? at(510, 500) : at(490, 500)));
        Stepper stepper;
        const std::vector<Event> events = events_of(stepper.step(w, {}));
        INFO("player 3 on the " << (low_id_on_the_left ? "left" : "right"));
        CHECK(w.wells[0].score == 1u);
        CHECK(w.wells[1].score == 0u);
        CHECK(events == std::vector<Event>{captured(3, 1)});
    }
}

TEST_CASE("a strictly nearer well takes the pellet whatever its id") {
    World w = world_of(still_config(4));
    park_pellets(w);
    w.pellets[2].pos = at(500, 500);
    w.wells.push_back(resting_well(3, at(490, 500)));     // 10 away
    w.wells.push_back(resting_well(7, at(509.5, 500)));   // 9.5 away
    w.wells.push_back(resting_well(9, at(500, 509.75)));  // 9.75 away
    Stepper stepper;
    CHECK(events_of(stepper.step(w, {})) == std::vector<Event>{captured(7, 2)});
    CHECK(w.wells[1].score == 1u);
    CHECK(w.wells[0].score + w.wells[2].score == 0u);
}

TEST_CASE("capture_radius is inclusive: exactly at the radius falls in, one raw unit beyond does not") {
    for (const int32_t beyond : {0, 1}) {
        World w = world_of(still_config(1));
        w.pellets[0].pos = at(500, 500);
        w.wells.push_back(resting_well(1, {Fx::from_raw(q(512).raw() + beyond), q(500)}));  // radius 12
        step(w, {});
        INFO("raw units beyond the radius: " << beyond);
        CHECK(w.captures == (beyond == 0 ? 1u : 0u));
    }
}

TEST_CASE("captured pellets respawn at rest, re-keyed, at the rng's next points in pellet order") {
    World w = world_of(still_config(5));
    park_pellets(w);
    w.wells.push_back(resting_well(4, at(500, 500)));
    w.pellets[3].pos = at(505, 500);
    w.pellets[0].pos = at(500, 495);
    w.pellets[0].vel = {};
    const uint32_t gen0 = w.pellets[0].key.generation, gen3 = w.pellets[3].key.generation;
    XorShift rng = w.rng;
    const Vec2 first = next_spawn(rng, w.config.arena_size);
    const Vec2 second = next_spawn(rng, w.config.arena_size);
    Stepper stepper;
    const std::vector<Event> events = events_of(stepper.step(w, {}));
    CHECK(events == std::vector<Event>{captured(4, 0), captured(4, 3)});
    CHECK(w.pellets[0].pos == first);
    CHECK(w.pellets[3].pos == second);
    CHECK(w.pellets[0].vel == Vec2{});
    CHECK(w.pellets[0].key == SlotKey{0, gen0 + 1});
    CHECK(w.pellets[3].key == SlotKey{3, gen3 + 1});
    CHECK(w.rng == rng);
    CHECK(w.wells[0].score == 2u);
    CHECK(w.captures == 2u);
}

// ---- Events and the Stepper -------------------------------------------------------------------

TEST_CASE("a tick's events list the inputs' changes in canonical order, then the captures by pellet") {
    WorldConfig c = still_config(3);
    c.max_players = 3;
    World w = world_of(c);
    park_pellets(w);
    w.wells.push_back(resting_well(2, at(500, 500)));
    w.wells.push_back(resting_well(6, at(800, 800)));
    w.pellets[2].pos = at(500, 503);
    w.pellets[1].pos = at(800, 796);
    const std::vector<Input> inputs{{9, InputKind::join, at(10, 10)},  {6, InputKind::command, at(800, 800)},
                                    {1, InputKind::join, at(20, 20)},  {5, InputKind::leave, {}},
                                    {2, InputKind::leave, {}},         {2, InputKind::join, at(1, 1)},
                                    {4, InputKind::join, at(30, 30)}};
    // Canonical: 1 joins (3 members), 2's join meets a member, 2 leaves (2 members), 4 joins
    // (3 members), 5's leave and 6's steer change nothing, 9 is refused. Captures: pellet 1 by
    // 6; pellet 2's well (player 2) has left.
    Stepper stepper;
    const std::vector<Event> events = events_of(stepper.step(w, inputs));
    CHECK(events == std::vector<Event>{joined(1), left(2), joined(4), refused(9), captured(6, 1)});
    CHECK(events_of(stepper.events()) == events);
    CHECK(event_name(EventKind::join_refused) == "join_refused");
    CHECK(event_name(EventKind::captured) == "captured");
}

TEST_CASE("events are not state: the next step replaces them and they never reach the world") {
    World a = world_of(still_config(2));
    park_pellets(a);
    World b = a;
    Stepper first, second;
    first.step(a, std::vector<Input>{{1, InputKind::join, at(5, 5)}});
    second.step(b, std::vector<Input>{{1, InputKind::join, at(5, 5)}});
    REQUIRE(first.events().size() == 1);
    first.step(a, {});
    CHECK(first.events().empty());  // replaced, not appended
    second.step(b, {});
    CHECK(a == b);
    CHECK(digest(a) == digest(b));
    CHECK(encode(a) == encode(b));
}

TEST_CASE("a Stepper's history never shows: any Stepper steps any world to the same bits") {
    WorldConfig big = default_config();
    big.pellet_count = 2048;
    WorldConfig small = default_config();
    small.pellet_count = 100;
    small.seed = 5;
    const std::vector<Input> join{{1, InputKind::join, at(300, 300)}, {2, InputKind::join, at(700, 600)}};
    World fresh_world = world_of(small);
    Stepper fresh;
    World used_world = world_of(small);
    Stepper used;
    World other = world_of(big);
    for (int t = 0; t < 5; ++t) used.step(other, join);  // the scratch grows to 2048 pellets
    for (int t = 0; t < 30; ++t) {
        fresh.step(fresh_world, t == 0 ? std::span<const Input>(join) : std::span<const Input>());
        used.step(used_world, t == 0 ? std::span<const Input>(join) : std::span<const Input>());
        REQUIRE(fresh_world == used_world);
        REQUIRE(events_of(fresh.events()) == events_of(used.events()));
        World convenience = fresh_world;  // and the one-shot step() agrees
        step(convenience, {});
        World stepped = fresh_world;
        Stepper other_stepper;
        other_stepper.step(stepped, {});
        REQUIRE(convenience == stepped);
    }
    Stepper moved = std::move(used);  // a Stepper moves with its scratch; the moved-from one still works
    World m1 = fresh_world, m2 = fresh_world;
    moved.step(m1, {});
    used.step(m2, {});  // NOLINT(bugprone-use-after-move): documented to work
    CHECK(m1 == m2);
}

TEST_CASE("a copied or assigned Stepper carries the last step's events, and steps on like any other") {
    // One place left: player 1 joins, player 2 is refused (canonical order, by player id).
    WorldConfig c = still_config(2);
    c.max_players = 1;
    World w = world_of(c);
    park_pellets(w);
    Stepper stepper;
    stepper.step(w, std::vector<Input>{{2, InputKind::join, at(5, 5)}, {1, InputKind::join, at(9, 9)}});
    const std::vector<Event> expected{joined(1), refused(2)};
    REQUIRE(events_of(stepper.events()) == expected);

    const Stepper copy(stepper);
    CHECK(events_of(copy.events()) == expected);

    Stepper assigned;
    World scratch_world = world_of(c);
    assigned.step(scratch_world, std::vector<Input>{{7, InputKind::join, at(1, 1)}});  // events of its own
    REQUIRE(events_of(assigned.events()) == std::vector<Event>{joined(7)});
    assigned = stepper;
    CHECK(events_of(assigned.events()) == expected);
    Stepper& same = assigned;
    assigned = same;  // assigning a Stepper to itself keeps its events
    CHECK(events_of(assigned.events()) == expected);

    // The copies are their own: stepping one replaces its events only, and each (with fresh
    // scratch) steps a world to the same bits as the original.
    World a = w, b = w;
    stepper.step(a, {});
    assigned.step(b, {});
    CHECK(a == b);
    CHECK(stepper.events().empty());
    CHECK(events_of(copy.events()) == expected);
}

TEST_CASE("two threads, each with its own Stepper, step two worlds at once to the serial results") {
    // Scratch shared behind the Stepper's back (a static buffer) would race here and tear
    // the pulls of one world into the other's.
    WorldConfig c = default_config();
    c.pellet_count = 1500;
    const std::vector<Input> join{{1, InputKind::join, at(300, 300)}, {2, InputKind::join, at(700, 600)}};
    auto run = [&](uint64_t seed) {
        WorldConfig mine = c;
        mine.seed = seed;
        World w = world_of(mine);
        Stepper stepper;
        for (int t = 0; t < 40; ++t) stepper.step(w, t == 0 ? std::span<const Input>(join) : std::span<const Input>());
        return w;
    };
    const World serial_a = run(11), serial_b = run(12);
    World parallel_a, parallel_b;
    std::thread other([&] { parallel_b = run(12); });
    parallel_a = run(11);
    other.join();
    CHECK(parallel_a == serial_a);
    CHECK(parallel_b == serial_b);
}

TEST_CASE("a copied world steps to the same digest as the original") {
    WorldConfig c = default_config();
    c.pellet_count = 256;
    c.seed = 77;
    World a = world_of(c);
    Stepper stepper;
    stepper.step(a, std::vector<Input>{{1, InputKind::join, at(100, 100)}, {2, InputKind::join, at(900, 900)}});
    World b = a;
    REQUIRE(a == b);
    for (int i = 0; i < 50; ++i) {
        stepper.step(a, {});
        stepper.step(b, {});
    }
    CHECK(a == b);
    CHECK(digest(a) == digest(b));
}

TEST_CASE("nothing ever leaves the arena, whatever the targets") {
    WorldConfig c = default_config();
    c.pellet_count = 512;
    c.seed = 77;
    World w = world_of(c);
    Stepper stepper;
    stepper.step(w, std::vector<Input>{{1, InputKind::join, at(-5000, 30000)}, {2, InputKind::join, at(30000, -30000)}});
    const auto inside = [&](Vec2 p) {
        return p.x >= Fx::zero() && p.x <= w.config.arena_size && p.y >= Fx::zero() && p.y <= w.config.arena_size;
    };
    for (int t = 0; t < 300; ++t) {
        stepper.step(w, std::vector<Input>{{1, InputKind::command, at(t % 2 ? -32768 : 32767, t % 3 ? 32767 : -32768)}});
        for (const Pellet& p : w.pellets) REQUIRE(inside(p.pos));
        for (const Well& well : w.wells) {
            REQUIRE(inside(well.pos));
            REQUIRE(inside(well.target));
        }
    }
}
