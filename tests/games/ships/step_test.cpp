// Properties of src/games/ships/step.cpp, each against values worked out by hand from the rules
// world.hpp states (per-tick units, so they are exact): motion on the torus, turning, firing
// and its cooldown, a bullet's lifetime, the split of a rock down to nothing with its scores,
// shots and crashes, the respawn delay and placement, waves; that input order never matters,
// that any two Steppers agree, and that a field diff names a damaged ship field by its path.
#include <catch2/catch.hpp>
#include <algorithm>
#include <vector>

#include "games/ships/invariants.hpp"
#include "ships/scenario.hpp"
#include "ships/sim.hpp"
#include "tandem/sim/state.hpp"

using namespace tandem;
using namespace ships;

namespace {

Fx u(int32_t n) { return Fx::from_int(n); }
Vec2 at(int32_t x, int32_t y) { return {u(x), u(y)}; }

// A quiet field: no rocks, no waves, no drag, so only what a test places moves.
Config quiet() {
    Config c;
    c.rock_count = 0;
    c.rock_floor = 0;
    c.drag = Fx::zero();
    return c;
}
State empty_state(const Config& c = quiet()) { return make_state(c).value(); }

Ship live_ship(uint32_t player, Vec2 pos) {
    Ship s;
    s.player = player;
    s.alive = true;
    s.pos = pos;
    return s;
}
Rock rock(uint32_t index, uint32_t generation, uint8_t size, Vec2 pos, Vec2 vel) {
    Rock r;
    r.key = {index, generation};
    r.size = size;
    r.pos = pos;
    r.vel = vel;
    return r;
}
std::vector<Event> step_with(Stepper& st, State& s, std::vector<Input> in = {}) {
    const auto e = st.step(s, in);
    return {e.begin(), e.end()};
}
bool has(const std::vector<Event>& events, EventKind kind) {
    return std::any_of(events.begin(), events.end(), [&](const Event& e) { return e.kind == kind; });
}

}  // namespace

TEST_CASE("a ship moves by its velocity and wraps around both edges of the torus") {
    State s = empty_state();
    Ship ship = live_ship(1, at(1020, 5));
    ship.vel = at(10, -10);
    s.ships.push_back(ship);
    Stepper st;
    step_with(st, s);
    CHECK(s.ships[0].pos == at(6, 1019));   // 1030 - 1024 and -5 + 1024
    CHECK(s.ships[0].vel == at(10, -10));
    CHECK(s.tick == 1);
}

TEST_CASE("turning changes the heading by turn_rate, wrapping into 0 <= h < 2pi, both buttons cancel") {
    State s = empty_state();
    s.ships.push_back(live_ship(1, at(100, 100)));
    Stepper st;
    step_with(st, s, {hold(1, turn_right)});
    CHECK(s.ships[0].heading.raw() == 411775 - 6554);   // 2pi - 0.1 in raw units
    step_with(st, s, {hold(1, turn_left)});
    step_with(st, s, {hold(1, turn_left)});
    CHECK(s.ships[0].heading.raw() == 6554);
    step_with(st, s, {hold(1, turn_left | turn_right)});
    CHECK(s.ships[0].heading.raw() == 6554);
}

TEST_CASE("thrust adds the heading's direction times thrust, drag takes its share, each axis is clamped") {
    Config c = quiet();
    c.drag = Fx::from_raw(1 << 14);   // a quarter
    c.max_speed = u(1);
    State s = empty_state(c);
    s.ships.push_back(live_ship(1, at(100, 100)));
    Stepper st;
    step_with(st, s, {hold(1, thrust)});
    // heading 0: (cos 0, sin 0) = (1, 0); v = (0.25, 0), less a quarter: 0.1875 = 12288 raw.
    CHECK(s.ships[0].vel.x.raw() == 12288);
    CHECK(s.ships[0].vel.y.raw() == 0);
    CHECK(s.ships[0].pos.x.raw() == u(100).raw() + 12288);
    s.ships[0].vel = at(3, -3);
    step_with(st, s, {hold(1, 0)});
    CHECK(s.ships[0].vel == at(1, -1));   // 3 - 0.75 = 2.25, clamped to 1 on each axis
}

TEST_CASE("a held fire button shoots from the nose every fire_cooldown ticks, while bullets remain") {
    Config c = quiet();
    c.fire_cooldown = 6;
    c.bullets_per_ship = 2;
    c.bullet_lifetime = 100;
    State s = empty_state(c);
    s.ships.push_back(live_ship(1, at(100, 200)));
    Stepper st;
    std::vector<uint64_t> fired_at;
    for (int t = 1; t <= 20; ++t) {
        const auto events = step_with(st, s, {hold(1, fire)});
        if (has(events, EventKind::fired)) fired_at.push_back(s.tick);
        if (t == 1) {
            REQUIRE(s.bullets.size() == 1);
            CHECK(s.bullets[0].key == SlotKey{0, 0});
            CHECK(s.bullets[0].owner == 1);
            CHECK(s.bullets[0].pos == at(112, 200));   // ship + (1, 0) * ship_radius 12
            CHECK(s.bullets[0].vel == at(16, 0));       // ship at rest + (1, 0) * bullet_speed
            CHECK(s.bullets[0].ttl == 100);
            CHECK(s.ships[0].cooldown == 6);
        }
    }
    // Ticks 1 and 7; at 13 the ship already owns bullets_per_ship = 2 live bullets.
    CHECK(fired_at == std::vector<uint64_t>{1, 7});
    CHECK(s.bullets.size() == 2);
    CHECK(s.bullets[1].key == SlotKey{1, 1});
}

TEST_CASE("a bullet exists in bullet_lifetime consecutive states, then expires before moving") {
    Config c = quiet();
    c.bullet_lifetime = 3;
    c.fire_cooldown = 1000;
    State s = empty_state(c);
    s.ships.push_back(live_ship(1, at(100, 200)));
    Stepper st;
    step_with(st, s, {hold(1, fire)});   // tick 1: fired, ttl 3
    REQUIRE(s.bullets.size() == 1);
    step_with(st, s);                    // tick 2: ttl 2, moved 16
    CHECK(s.bullets[0].ttl == 2);
    CHECK(s.bullets[0].pos == at(128, 200));
    step_with(st, s);                    // tick 3: ttl 1
    CHECK(s.bullets[0].ttl == 1);
    CHECK(s.bullets[0].pos == at(144, 200));
    const auto events = step_with(st, s);   // tick 4: gone
    CHECK(s.bullets.empty());
    REQUIRE(events.size() == 1);
    CHECK(events[0] == Event{EventKind::expired, 1, SlotKey{0, 0}, 0});
}

TEST_CASE("a big rock splits into two mediums, each medium into two smalls, a small into nothing, scoring 1x, 2x, 4x") {
    State s = empty_state();
    s.ships.push_back(live_ship(1, at(600, 600)));
    s.rocks.push_back(rock(0, 0, big, at(100, 100), at(2, 1)));
    s.rock_keys.next_generation = 1;
    // A still bullet where the rock will be after its move: (102, 101).
    Bullet b;
    b.key = {0, 0};
    b.owner = 1;
    b.pos = at(102, 101);
    b.ttl = 50;
    s.bullets.push_back(b);
    s.bullet_keys.next_generation = 1;
    Stepper st;
    auto events = step_with(st, s);
    REQUIRE(events.size() == 1);
    CHECK(events[0] == Event{EventKind::hit, 1, SlotKey{0, 0}, big});
    CHECK(s.bullets.empty());
    CHECK(s.ships[0].score == 10);
    CHECK(s.rocks_destroyed == 1);
    // Children at the parent's position, velocities (vx - vy, vy + vx) and (vx + vy, vy - vx),
    // keyed in the freed lowest slots under the next generations.
    REQUIRE(s.rocks.size() == 2);
    CHECK(s.rocks[0] == rock(0, 1, medium, at(102, 101), at(1, 3)));
    CHECK(s.rocks[1] == rock(1, 2, medium, at(102, 101), at(3, -1)));
    CHECK(s.rock_keys.next_generation == 3);

    // The first medium, after its move at (103, 104): a bullet there splits it into smalls.
    b.key = {0, 1};
    b.pos = at(103, 104);
    s.bullets = {b};
    events = step_with(st, s);
    REQUIRE(events.size() == 1);
    CHECK(events[0] == Event{EventKind::hit, 1, SlotKey{0, 1}, medium});
    CHECK(s.ships[0].score == 30);
    REQUIRE(s.rocks.size() == 3);
    CHECK(s.rocks[0] == rock(0, 3, small, at(103, 104), at(-2, 4)));
    CHECK(s.rocks[1] == rock(1, 2, medium, at(105, 100), at(3, -1)));   // moved once too
    CHECK(s.rocks[2] == rock(2, 4, small, at(103, 104), at(4, 2)));

    // A small one, next at (101, 108), leaves nothing.
    b.key = {0, 2};
    b.pos = at(101, 108);
    s.bullets = {b};
    events = step_with(st, s);
    CHECK(events == std::vector<Event>{{EventKind::hit, 1, SlotKey{0, 3}, small}});
    CHECK(s.ships[0].score == 70);
    CHECK(s.rocks_destroyed == 3);
    REQUIRE(s.rocks.size() == 2);
    CHECK(s.rocks[0].key == SlotKey{1, 2});
    CHECK(s.rocks[1].key == SlotKey{2, 4});
}

TEST_CASE("one bullet destroys the lowest-keyed rock it touches, and each rock falls to one bullet") {
    State s = empty_state();
    s.ships.push_back(live_ship(1, at(600, 600)));
    s.rocks.push_back(rock(2, 0, small, at(100, 100), {}));
    s.rocks.push_back(rock(5, 1, small, at(104, 100), {}));
    s.rock_keys.next_generation = 2;
    for (uint32_t i = 0; i < 2; ++i) {
        Bullet b;
        b.key = {i, i};
        b.owner = 1;
        b.pos = at(102, 100);   // within 12 units of both rocks
        b.ttl = 9;
        s.bullets.push_back(b);
    }
    s.bullet_keys.next_generation = 2;
    Stepper st;
    const auto events = step_with(st, s);
    CHECK(events == std::vector<Event>{{EventKind::hit, 1, SlotKey{2, 0}, small}, {EventKind::hit, 1, SlotKey{5, 1}, small}});
    CHECK(s.rocks.empty());
    CHECK(s.bullets.empty());
}

TEST_CASE("a bullet that touches another ship destroys it and scores ship_points, its owner's ship is never hit") {
    State s = empty_state();
    s.ships.push_back(live_ship(1, at(100, 100)));
    s.ships.push_back(live_ship(2, at(150, 100)));
    Bullet b;
    b.owner = 1;
    b.pos = at(130, 100);
    b.vel = at(8, 0);   // moves to 138: 12 units from ship 2, contact inclusive
    b.ttl = 9;
    s.bullets.push_back(b);
    s.bullet_keys.next_generation = 1;
    Bullet own = b;
    own.key = {1, 1};
    own.pos = at(100, 100);
    own.vel = {};
    s.bullets.push_back(own);
    s.bullet_keys.next_generation = 2;
    Stepper st;
    const auto events = step_with(st, s);
    CHECK(events == std::vector<Event>{{EventKind::shot, 2, SlotKey{0, 0}, 1}});
    CHECK(s.ships[0].alive);
    CHECK_FALSE(s.ships[1].alive);
    CHECK(s.ships[1].respawn_in == s.config.respawn_delay);
    CHECK(s.ships[1].deaths == 1);
    CHECK(s.ships[0].score == 50);
    REQUIRE(s.bullets.size() == 1);
    CHECK(s.bullets[0].key == SlotKey{1, 1});
}

TEST_CASE("a ship touching a rock is destroyed with it, scoring nothing, then respawns after respawn_delay at the rng's point") {
    Config c = quiet();
    c.respawn_delay = 3;
    State s = empty_state(c);
    s.ships.push_back(live_ship(1, at(100, 100)));
    s.rocks.push_back(rock(0, 0, medium, at(136, 100), {}));   // 24 + 12 = 36 units: touching
    s.rock_keys.next_generation = 1;
    Stepper st;
    auto events = step_with(st, s);
    CHECK(events == std::vector<Event>{{EventKind::crashed, 1, SlotKey{0, 0}, 0}});
    CHECK_FALSE(s.ships[0].alive);
    CHECK(s.ships[0].score == 0);
    CHECK(s.ships[0].deaths == 1);
    REQUIRE(s.rocks.size() == 2);   // the medium split into two smalls
    CHECK(s.rocks[0].size == small);
    CHECK(s.rocks_destroyed == 1);
    s.rocks.clear();   // a clear field for the placement
    step_with(st, s);
    CHECK(s.ships[0].respawn_in == 2);
    step_with(st, s);
    CHECK(s.ships[0].respawn_in == 1);
    // The placement draws x then y from the state's rng, each below the arena's raw size.
    XorShift expected = s.rng;
    const int32_t x = static_cast<int32_t>(expected.below(static_cast<uint32_t>(u(1024).raw())));
    const int32_t y = static_cast<int32_t>(expected.below(static_cast<uint32_t>(u(1024).raw())));
    events = step_with(st, s);
    CHECK(events == std::vector<Event>{{EventKind::respawned, 1, {}, 0}});
    CHECK(s.ships[0].alive);
    CHECK(s.ships[0].pos == Vec2{Fx::from_raw(x), Fx::from_raw(y)});
    CHECK(s.ships[0].heading == Fx::zero());
    CHECK(s.rng == expected);
}

TEST_CASE("a placement too close to a rock waits for the next tick and new draws") {
    Config c = quiet();
    c.arena_size = u(128);
    c.rock_radius_big = u(256);   // covers the whole field: no point is ever clear
    State s = empty_state(c);
    s.rocks.push_back(rock(0, 0, big, at(64, 64), {}));
    s.rock_keys.next_generation = 1;
    Stepper st;
    auto events = step_with(st, s, {join(3)});
    CHECK(events == std::vector<Event>{{EventKind::joined, 3, {}, 0}});
    const uint64_t rng_before = s.rng.state();
    step_with(st, s);
    CHECK_FALSE(s.ships[0].alive);
    CHECK(s.rng.state() != rng_before);   // it drew, and will draw again
}

TEST_CASE("a wave drifts in on the edges when fewer than rock_floor rocks remain") {
    Config c = quiet();
    c.rock_count = 3;
    c.rock_floor = 1;
    State s = empty_state(c);
    s.rocks.clear();
    Stepper st;
    const auto events = step_with(st, s);
    CHECK(events == std::vector<Event>{{EventKind::wave, 0, {}, 3}});
    REQUIRE(s.rocks.size() == 3);
    for (uint32_t i = 0; i < 3; ++i) {
        CHECK(s.rocks[i].key == SlotKey{i, 3 + i});   // make_state handed out 0..2
        CHECK(s.rocks[i].size == big);
        CHECK((s.rocks[i].pos.x == Fx::zero() || s.rocks[i].pos.y == Fx::zero()));
        const Fx speed = length(s.rocks[i].vel);
        CHECK(speed >= c.rock_speed_min - Fx::from_raw(4));
        CHECK(speed <= c.rock_speed_max + Fx::from_raw(4));
    }
    CHECK(step_with(st, s).empty());   // three remain, above the floor
}

TEST_CASE("joins fill max_players seats in canonical order, a leave takes the ship and its bullets") {
    Config c = quiet();
    c.max_players = 2;
    State s = empty_state(c);
    Stepper st;
    auto events = step_with(st, s, {join(9), join(4), join(7)});
    CHECK(events == std::vector<Event>{{EventKind::joined, 4, {}, 0},
                                       {EventKind::joined, 7, {}, 0},
                                       {EventKind::join_refused, 9, {}, 0},
                                       {EventKind::respawned, 4, {}, 0},
                                       {EventKind::respawned, 7, {}, 0}});
    step_with(st, s, {hold(4, fire)});
    REQUIRE(s.bullets.size() == 1);
    events = step_with(st, s, {leave(4)});
    CHECK(events == std::vector<Event>{{EventKind::left, 4, {}, 0}});
    CHECK(s.bullets.empty());
    REQUIRE(s.ships.size() == 1);
    CHECK(s.ships[0].player == 7);
}

TEST_CASE("a player's greatest command of a tick wins, and reserved bits are dropped") {
    State s = empty_state();
    s.ships.push_back(live_ship(1, at(100, 100)));
    Stepper st;
    step_with(st, s, {hold(1, thrust), hold(1, turn_left | 0xF0), hold(1, turn_right)});
    CHECK(s.ships[0].buttons == turn_left);   // 0xF2 is the greatest byte; its high bits go
}

TEST_CASE("the order inputs arrive in does not change the tick") {
    const Scenario chaos = find_scenario("chaos").value();
    State a = start(chaos), b = a;
    Stepper sa, sb;
    for (int t = 0; t < 200; ++t) {
        std::vector<Input> in = scenario_inputs(chaos, a);
        std::vector<Input> reversed(in.rbegin(), in.rend());
        sa.step(a, in);
        sb.step(b, reversed);
        REQUIRE(a == b);
        REQUIRE(std::vector<Event>(sa.events().begin(), sa.events().end()) ==
                std::vector<Event>(sb.events().begin(), sb.events().end()));
    }
}

TEST_CASE("two independent Steppers, one with another world's history, step the same worlds to the same bits") {
    const Scenario melee = find_scenario("melee").value();
    const Scenario other = find_scenario("rockfield").value();
    State busy = start(other);
    Stepper seasoned;
    advance(other, busy, 300, seasoned);
    State a = start(melee), b = a;
    Stepper fresh;
    for (int t = 0; t < 600; ++t) {
        const std::vector<Input> in = scenario_inputs(melee, a);
        fresh.step(a, in);
        seasoned.step(b, in);
        REQUIRE(digest(a) == digest(b));
        REQUIRE(std::vector<Event>(fresh.events().begin(), fresh.events().end()) ==
                std::vector<Event>(seasoned.events().begin(), seasoned.events().end()));
    }
    CHECK(a == b);
    Stepper copy = fresh;
    CHECK(std::vector<Event>(copy.events().begin(), copy.events().end()) ==
          std::vector<Event>(fresh.events().begin(), fresh.events().end()));
}

TEST_CASE("the broad phase changes no result: a field of one grid cell and a fine grid agree with brute force") {
    // Big rocks of radius 256 on a 4096 field make a 15 x 15 grid; the same world with every
    // position mirrored into a one-cell field would not be the same game, so instead compare
    // the grid's answers to an exhaustive check over each tick's events.
    const Scenario rf = find_scenario("rockfield").value();
    State s = start(rf);
    Stepper st;
    for (int t = 0; t < 400; ++t) {
        const State before = s;
        const auto in = scenario_inputs(rf, s);
        st.step(s, in);
        for (const Event& e : st.events()) {
            if (e.kind != EventKind::hit) continue;
            // The rock hit existed before the tick (or was born from a split this tick: never hit).
            const bool existed = std::any_of(before.rocks.begin(), before.rocks.end(), [&](const Rock& r) { return r.key == e.key; });
            REQUIRE(existed);
        }
        REQUIRE(testing::broken_invariant(s, false).empty());
    }
}

TEST_CASE("a field diff names a damaged ship field by its path and section") {
    const Scenario duel = find_scenario("duel").value();
    State a = start(duel);
    advance(duel, a, 120);
    REQUIRE(a.ships.size() == 2);
    State b = a;
    b.ships[1].heading = Fx::from_raw(b.ships[1].heading.raw() ^ 1);
    const tandem::sim::FieldDiff d = tandem::sim::diff<Sim>(a, b);
    REQUIRE(d.total == 1);
    const std::string player = std::to_string(a.ships[1].player);
    CHECK(d.differences[0].path == "ships[" + player + "].heading");
    CHECK(d.differences[0].section == "ships");
    CHECK(tandem::sim::differing_sections<Sim>(tandem::sim::digests<Sim>(a).sections, tandem::sim::digests<Sim>(b).sections) ==
          std::vector<std::string_view>{"ships"});
    State c = a;
    c.ships[0].score += 1;
    const auto dc = tandem::sim::diff<Sim>(a, c);
    REQUIRE(dc.total == 1);
    CHECK(dc.differences[0].path == "ships[" + std::to_string(a.ships[0].player) + "].score");
    CHECK(dc.differences[0].section == "scores");
}
