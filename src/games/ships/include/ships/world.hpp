// ships, tandem's second game: 2 to 8 ships on a wrap-around field of drifting rocks, each
// steered by held buttons (thrust, turn left, turn right, fire). Bullets live a fixed number of
// ticks, rocks split big -> medium -> small when hit, and a new wave drifts in when few remain.
// Written only against tandem/core and tandem/sim, as a game outside the repository would be:
// one value type (State), fixed point throughout, every order defined here.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"
#include "tandem/core/result.hpp"
#include "tandem/core/slot_key.hpp"
#include "tandem/sim/simulation.hpp"

namespace ships {

using tandem::Fx;
using tandem::Result;
using tandem::SlotKey;
using tandem::SlotKeyAllocator;
using tandem::Vec2;
using tandem::XorShift;

// ---- Configuration ---------------------------------------------------------------------
// Every rate is per tick, not per second (a speed in units per tick, a turn in radians per
// tick), so a step is exact integer arithmetic whatever tick_hz is: tick_hz only paces the
// room. The field is the torus [0, arena_size)^2: what leaves one side enters the other.
struct Config {
    uint64_t seed = 1;                             // the state's XorShift seed
    uint32_t tick_hz = 30;                         // ticks per second (the room's pace only)
    uint32_t max_players = 8;                      // 2..8 ships
    Fx arena_size = Fx::from_int(1024);            // the torus side, units
    Fx ship_radius = Fx::from_int(12);             // a ship is a disc of this radius
    Fx thrust = Fx::from_raw(1 << 14);             // 0.25 units/tick^2 along the heading
    Fx turn_rate = Fx::from_raw(6554);             // ~0.1 rad/tick
    Fx drag = Fx::from_raw(1 << 10);               // 1/64 of the velocity lost per tick
    Fx max_speed = Fx::from_int(10);               // per-axis clamp of a ship's velocity
    uint32_t fire_cooldown = 6;                    // ticks between two shots of one ship
    Fx bullet_speed = Fx::from_int(16);            // units/tick, added to the ship's velocity
    uint32_t bullet_lifetime = 45;                 // ticks a bullet exists
    uint32_t bullets_per_ship = 4;                 // live bullets one ship may own
    uint32_t respawn_delay = 60;                   // ticks a destroyed ship waits
    uint32_t rock_count = 6;                       // big rocks at the start and in each wave
    uint32_t rock_floor = 2;                       // a wave comes when fewer rocks than this remain
    uint32_t max_rocks = 96;                       // rock slots: splits past it are dropped
    Fx rock_radius_big = Fx::from_int(48);
    Fx rock_radius_medium = Fx::from_int(24);
    Fx rock_radius_small = Fx::from_int(12);
    Fx rock_speed_min = Fx::from_raw(1 << 15);     // a new big rock's speed, 0.5 .. 2 units/tick
    Fx rock_speed_max = Fx::from_int(2);
    uint32_t rock_points = 10;                     // a big rock's worth; medium 2x, small 4x
    uint32_t ship_points = 50;                     // shooting another ship
    friend bool operator==(const Config&, const Config&) = default;
};

// Every field of a Config with its name, in the one canonical order the digest, the snapshot,
// the wire and the dump share.
template <class C, class F>
constexpr void for_each_config_field(C& c, F&& f) {
    f("seed", c.seed);
    f("tick_hz", c.tick_hz);
    f("max_players", c.max_players);
    f("arena_size", c.arena_size);
    f("ship_radius", c.ship_radius);
    f("thrust", c.thrust);
    f("turn_rate", c.turn_rate);
    f("drag", c.drag);
    f("max_speed", c.max_speed);
    f("fire_cooldown", c.fire_cooldown);
    f("bullet_speed", c.bullet_speed);
    f("bullet_lifetime", c.bullet_lifetime);
    f("bullets_per_ship", c.bullets_per_ship);
    f("respawn_delay", c.respawn_delay);
    f("rock_count", c.rock_count);
    f("rock_floor", c.rock_floor);
    f("max_rocks", c.max_rocks);
    f("rock_radius_big", c.rock_radius_big);
    f("rock_radius_medium", c.rock_radius_medium);
    f("rock_radius_small", c.rock_radius_small);
    f("rock_speed_min", c.rock_speed_min);
    f("rock_speed_max", c.rock_speed_max);
    f("rock_points", c.rock_points);
    f("ship_points", c.ship_points);
}

inline constexpr uint32_t min_players = 2;
inline constexpr uint32_t max_player_limit = 8;
inline constexpr int32_t min_arena_units = 128;
inline constexpr int32_t max_arena_units = 4096;   // torus deltas within 2^27 raw: squares fit int64
inline constexpr uint32_t max_rock_limit = 1024;

// The knob out of its range, one code per field in for_each_config_field order (seed has none).
enum class ConfigError : uint8_t {
    tick_hz_out_of_range,
    max_players_out_of_range,
    arena_size_out_of_range,
    ship_radius_out_of_range,
    thrust_out_of_range,
    turn_rate_out_of_range,
    drag_out_of_range,
    max_speed_out_of_range,
    fire_cooldown_out_of_range,
    bullet_speed_out_of_range,
    bullet_lifetime_out_of_range,
    bullets_per_ship_out_of_range,
    respawn_delay_out_of_range,
    rock_count_out_of_range,
    rock_floor_out_of_range,
    max_rocks_out_of_range,
    rock_radius_big_out_of_range,
    rock_radius_medium_out_of_range,
    rock_radius_small_out_of_range,
    rock_speed_min_out_of_range,
    rock_speed_max_out_of_range,
    rock_points_out_of_range,
    ship_points_out_of_range,
};
std::string_view error_name(ConfigError error);   // "drag_out_of_range", ...
std::string_view describe(ConfigError error);     // "drag must be between 0 and 1"
std::string_view config_field(ConfigError error);  // "drag": the Config member refused
Result<void, ConfigError> validate(const Config& config);

// ---- State -----------------------------------------------------------------------------
// The held buttons, a bit each; the rest of the byte is reserved (refused on the wire, ignored
// by step).
enum Button : uint8_t { thrust = 1u << 0, turn_left = 1u << 1, turn_right = 1u << 2, fire = 1u << 3 };
inline constexpr uint8_t all_buttons = thrust | turn_left | turn_right | fire;

struct Ship {
    uint32_t player = 0;      // the owner; ships are sorted by player, unique
    bool alive = false;       // false: destroyed (or just joined) and waiting to be placed
    uint32_t respawn_in = 0;  // dead: ticks left before a placement is tried; alive: 0
    Vec2 pos;                 // in [0, arena_size)^2
    Vec2 vel;                 // units per tick
    Fx heading;               // radians in [0, 2pi), counter-clockwise from +x
    uint8_t buttons = 0;      // the held buttons the player last sent (reserved bits clear)
    uint32_t cooldown = 0;    // ticks until this ship may fire again (0: now)
    uint32_t score = 0;
    uint32_t deaths = 0;
    friend bool operator==(const Ship&, const Ship&) = default;
};

struct Bullet {
    SlotKey key;              // from State::bullet_keys; the list is sorted by key
    uint32_t owner = 0;       // a present player (a leave removes the leaver's bullets)
    Vec2 pos;
    Vec2 vel;
    uint32_t ttl = 0;         // 1..bullet_lifetime: ticks it still exists, this one included
    friend bool operator==(const Bullet&, const Bullet&) = default;
};

enum RockSize : uint8_t { small = 1, medium = 2, big = 3 };
struct Rock {
    SlotKey key;              // from State::rock_keys; the list is sorted by key
    uint8_t size = big;       // 1 small, 2 medium, 3 big
    Vec2 pos;
    Vec2 vel;
    friend bool operator==(const Rock&, const Rock&) = default;
};

// The whole game as one value: copy it to save, compare with ==, digest it (Sim::visit_state).
struct State {
    Config config;
    uint64_t tick = 0;
    std::vector<Ship> ships;          // sorted by player
    std::vector<Bullet> bullets;      // sorted by key, index < max_players * bullets_per_ship
    std::vector<Rock> rocks;          // sorted by key, index < max_rocks
    SlotKeyAllocator bullet_keys;
    SlotKeyAllocator rock_keys;
    uint64_t rocks_destroyed = 0;     // over the whole run, by bullets and by crashes
    XorShift rng{1};                  // rock spawns (point, direction, speed) and ship placements
    friend bool operator==(const State&, const State&) = default;
};

inline uint32_t bullet_capacity(const Config& c) { return c.max_players * c.bullets_per_ship; }
Fx rock_radius(const Config& c, uint8_t size);

// A fresh state: rock_count big rocks at points drawn from XorShift(seed), no ships.
Result<State, ConfigError> make_state(const Config& config);

// ---- Inputs ----------------------------------------------------------------------------
// What a client sends every tick: the buttons it holds. On the wire an input is
// u32 player | u8 kind | u8 buttons (6 bytes).
struct Command {
    uint8_t buttons = 0;
    friend bool operator==(const Command&, const Command&) = default;
};
using Input = tandem::sim::PlayerInput<Command>;
using tandem::sim::InputKind;

inline Input join(uint32_t player) { return {player, InputKind::join, {}}; }
inline Input leave(uint32_t player) { return {player, InputKind::leave, {}}; }
inline Input hold(uint32_t player, uint8_t buttons) { return {player, InputKind::command, {buttons}}; }

// ---- Stepping --------------------------------------------------------------------------
// What a step did, for drawing and counting; never state. In the order the phases make them.
enum class EventKind : uint8_t {
    joined = 0,        // player: a new ship (placed by the ship phase, when it is clear)
    left = 1,          // player: its ship and bullets removed
    join_refused = 2,  // player: max_players ships exist
    respawned = 3,     // player: a ship placed (after a join or a destruction)
    fired = 4,         // player: the shooter; key: the new bullet
    expired = 5,       // player: the owner; key: the bullet that lived out its lifetime
    hit = 6,           // player: the shooter; key: the rock destroyed; other: its size
    shot = 7,          // player: the ship destroyed; key: the bullet; other: the shooter
    crashed = 8,       // player: the ship destroyed; key: the rock it hit (destroyed too)
    wave = 9,          // other: how many big rocks drifted in
};
struct Event {
    EventKind kind = EventKind::joined;
    uint32_t player = 0;
    SlotKey key;
    uint32_t other = 0;
    friend bool operator==(const Event&, const Event&) = default;
};
std::string_view event_name(EventKind kind);

// Owns the scratch a step needs and the events of its last step; a step allocates nothing once
// the buffers have grown. Nothing carried from one step to the next changes a result, so any
// Stepper steps any state to the same bits; copies get the events and scratch of their own.
//
// One tick, in phases (all positions wrap onto the torus after each move):
//   1. inputs, sorted in the kit's canonical order (player, kind, buttons): a join of an absent
//      player adds a dead ship waiting to be placed (join_refused at max_players); a leave
//      removes the ship and its bullets; a command sets the held buttons (reserved bits
//      dropped; a player's last command in canonical order, the greatest byte, wins).
//   2. ships, by player. A dead ship counts respawn_in down; at 0 it tries a placement: a point
//      drawn from the rng (x, then y), taken only if no rock's edge is within 2 ship radii of
//      the ship's (else it tries again next tick), at rest, heading 0. A live ship turns
//      (left +turn_rate, right -turn_rate, both cancel; heading kept in [0, 2pi)), thrusts
//      (vel += (cos, sin)(heading) * thrust), loses drag * vel, has each axis clamped to
//      +-max_speed, moves by vel, and counts its cooldown down.
//   3. bullets, by key: ttl drops by one; at 0 the bullet expires, else it moves.
//   4. rocks, by key: move.
//   5. fire, by player: a live ship holding fire with cooldown 0 and fewer than
//      bullets_per_ship bullets fires one at its nose (pos + dir * ship_radius) with velocity
//      vel + dir * bullet_speed and ttl bullet_lifetime; its cooldown becomes fire_cooldown.
//   6. hits (distances on the torus, contact inclusive), each bullet and rock at most once:
//      a. bullets by key: the lowest-keyed rock within its radius of the bullet is destroyed,
//         the bullet spent; the shooter scores rock_points x1 (big), x2 (medium), x4 (small).
//      b. the other bullets by key: the lowest-id live ship within ship_radius other than the
//         owner is destroyed, the bullet spent; the shooter scores ship_points.
//      c. live ships by player: the lowest-keyed remaining rock touching the ship destroys it
//         and is destroyed too (no score).
//      A destroyed ship waits respawn_delay ticks at rest (deaths + 1; a delay of 0 still
//      waits until the next tick's ship phase, since destruction comes after it). Destroyed rocks, by
//      key, split: a big or medium one into two of the next size at its position with
//      velocities (vx - vy, vy + vx) and (vx + vy, vy - vx) (its own turned by 45 degrees
//      either way and scaled by sqrt 2), while slots remain below max_rocks.
//   7. wave: when fewer than rock_floor rocks remain, big rocks drift in until rock_count (or
//      max_rocks) exist, each on the x = 0 or y = 0 edge, heading a random way at a speed in
//      [rock_speed_min, rock_speed_max].
// New bullets and rocks take keys from the state's allocators, in the order listed above.
class Stepper {
public:
    std::span<const Event> step(State& state, std::span<const Input> inputs);
    std::span<const Event> events() const { return events_; }

private:
    struct Scratch {
        std::vector<Input> sorted;
        std::vector<Bullet> fresh_bullets;
        std::vector<Rock> fresh_rocks;
        std::vector<uint8_t> rock_hit;      // per rock: destroyed this tick
        std::vector<uint8_t> bullet_spent;  // per bullet: hit something this tick
        std::vector<uint32_t> cell_start;   // the broad phase: rocks bucketed by grid cell
        std::vector<uint32_t> cell_rocks;
        std::vector<uint32_t> cell_cursor;
    };
    Scratch scratch_;
    std::vector<Event> events_;
};

// The simulation's version: bumped by every change to what step computes from the same state
// and inputs. tests/games/ships/golden/*.txt record it; regenerate.sh refuses a changed stream
// under the same version.
inline constexpr uint32_t simulation_version = 1;

}  // namespace ships
