// starter, the template a new game copies: runners on a square field collect coins. Each player
// holds one input, a direction (up, down, left, right, any two at once); a runner that reaches a
// coin scores, and the coin reappears at a point drawn from the state's XorShift. Written only
// against tandem/core and tandem/sim, as any game must be: one value type (State), fixed point
// throughout, every order defined here. Rename the namespace and start changing it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"
#include "tandem/core/result.hpp"
#include "tandem/sim/simulation.hpp"

namespace starter {

using tandem::Fx;
using tandem::Result;
using tandem::Vec2;
using tandem::XorShift;

// ---- Configuration ---------------------------------------------------------------------
// Rates are per tick, never per second, so a step is exact integer arithmetic whatever tick_hz
// is (tick_hz only paces the room). The field is [0, field_size]^2, y pointing down.
struct Config {
    uint64_t seed = 1;                     // the state's XorShift seed (coin positions)
    uint32_t tick_hz = 30;                 // ticks per second (the room's pace only)
    uint32_t max_players = 4;              // runners the field holds, 1..8
    Fx field_size = Fx::from_int(512);     // the field's side, units
    Fx speed = Fx::from_int(4);            // units a runner moves per tick along each held axis
    Fx reach = Fx::from_int(12);           // a runner takes a coin within this on both axes
    uint32_t coin_count = 5;               // coins on the field at every tick, 1..64
    friend bool operator==(const Config&, const Config&) = default;
};

// Every knob with its name, in the one canonical order the digest, the snapshot, the wire and
// the dump share (Sim::visit_config walks it).
template <class C, class F>
constexpr void for_each_config_field(C& c, F&& f) {
    f("seed", c.seed);
    f("tick_hz", c.tick_hz);
    f("max_players", c.max_players);
    f("field_size", c.field_size);
    f("speed", c.speed);
    f("reach", c.reach);
    f("coin_count", c.coin_count);
}

// The knob out of its range, one per field in for_each_config_field order (seed has none).
enum class ConfigError : uint8_t {
    tick_hz_out_of_range,
    max_players_out_of_range,
    field_size_out_of_range,
    speed_out_of_range,
    reach_out_of_range,
    coin_count_out_of_range,
};
std::string_view error_name(ConfigError error);   // "speed_out_of_range", ...
std::string_view describe(ConfigError error);     // "speed must be between 0 and 64 units per tick"
Result<void, ConfigError> validate(const Config& config);

// ---- State -----------------------------------------------------------------------------
// The held direction, a bit each; the other four bits are reserved (refused on the wire).
enum Direction : uint8_t { up = 1u << 0, down = 1u << 1, left = 1u << 2, right = 1u << 3 };
inline constexpr uint8_t all_directions = up | down | left | right;

struct Runner {
    uint32_t player = 0;   // the owner; runners are sorted by player, unique
    Vec2 pos;              // in [0, field_size]^2
    uint8_t held = 0;      // the direction its player last sent (reserved bits clear)
    uint32_t score = 0;    // coins taken
    friend bool operator==(const Runner&, const Runner&) = default;
};

struct Coin {
    uint32_t index = 0;    // 0..coin_count-1: a coin keeps its index when it moves
    Vec2 pos;              // in [0, field_size)^2
    friend bool operator==(const Coin&, const Coin&) = default;
};

// The whole game as one value: copy it to save, compare with ==, digest it (Sim::visit_state).
struct State {
    Config config;
    uint64_t tick = 0;
    std::vector<Runner> runners;   // sorted by player
    std::vector<Coin> coins;       // exactly coin_count, by index
    XorShift rng{1};               // where coins appear
    friend bool operator==(const State&, const State&) = default;
};

// Tick 0: coin_count coins at points drawn from XorShift(seed), no runners.
Result<State, ConfigError> make_state(const Config& config);

// ---- Inputs ----------------------------------------------------------------------------
// What a client sends: the direction it holds. On the wire an input is
// u32 player | u8 kind | u8 held (6 bytes).
struct Command {
    uint8_t held = 0;
    friend bool operator==(const Command&, const Command&) = default;
};
using Input = tandem::sim::PlayerInput<Command>;
using tandem::sim::InputKind;

inline Input join(uint32_t player) { return {player, InputKind::join, {}}; }
inline Input leave(uint32_t player) { return {player, InputKind::leave, {}}; }
inline Input hold(uint32_t player, uint8_t held) { return {player, InputKind::command, {held}}; }

// ---- Stepping --------------------------------------------------------------------------
// What a step did, for drawing and counting; never state.
enum class EventKind : uint8_t { joined = 0, left = 1, join_refused = 2, collected = 3 };
struct Event {
    EventKind kind = EventKind::joined;
    uint32_t player = 0;
    uint32_t coin = 0;     // collected: the coin's index
    friend bool operator==(const Event&, const Event&) = default;
};
std::string_view event_name(EventKind kind);   // "collected", ... (how the page names it)

// One tick, in phases:
//   1. inputs, sorted by (player, kind, held): a join of an absent player adds a runner at the
//      field's centre (join_refused at max_players); a leave removes it; a command sets the
//      held direction (reserved bits dropped; a player's last command in that order wins);
//   2. runners, by player: move speed along each held axis (up and down, or left and right,
//      cancel), clamped to the field;
//   3. coins, runners by player then coins by index: a runner within reach of a coin on both
//      axes scores one, and the coin moves to a point drawn from the rng (x, then y).
class Stepper {
public:
    std::span<const Event> step(State& state, std::span<const Input> inputs);
    std::span<const Event> events() const { return events_; }

private:
    std::vector<Input> sorted_;    // scratch, kept to reuse its memory
    std::vector<Event> events_;
};

// Bumped by every change to what step computes from the same state and inputs; it is in the
// fingerprint, so two builds of different simulations refuse each other.
inline constexpr uint32_t simulation_version = 1;

}  // namespace starter
