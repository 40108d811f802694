// The arena, tandem's first game: pellets falling into players' gravity wells. One value type
// (World) that steps identically on every build; the kit derives its digests, snapshots, dump
// and field diff from the one visitor at the bottom (arena::Sim). Built only on tandem's core
// and its seam; it must never use float, double, libm, size_t/long in state, or any order a
// library chooses (iteration order, unstable sort of ties, pointer values).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/digest.hpp"
#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"
#include "tandem/core/result.hpp"
#include "tandem/core/slot_key.hpp"
#include "tandem/sim/simulation.hpp"

namespace arena {

// The kit's vocabulary the arena is written in.
using tandem::Fx;
using tandem::Result;
using tandem::SetDigest;
using tandem::SlotKey;
using tandem::Vec2;
using tandem::XorShift;

// ---- Configuration ---------------------------------------------------------------------
// Every knob of the simulation, with its default (Box2D's b2WorldDef idea): a scenario or a
// server starts from default_config() and changes what it needs. The config is part of the
// world value (it is digested and written into snapshots), so two worlds that differ only in a
// knob never compare or digest equal.
struct WorldConfig {
    uint64_t seed = 1;                              // the world's XorShift seed
    uint32_t tick_hz = 60;                          // fixed step = 1 / tick_hz seconds
    Fx arena_size = Fx::from_int(1024);             // the square [0, arena_size]^2
    uint32_t pellet_count = 1024;                   // pellet slots, all always live
    uint32_t max_players = 16;                      // joins beyond this are refused
    Fx well_strength = Fx::from_int(6000);          // G * M of a well (units^3 / s^2)
    Fx pellet_strength = Fx::from_raw(1 << 12);     // G * m of one pellet (1/16)
    Fx softening = Fx::from_int(8);                 // Plummer softening length, >= 1
    Fx capture_radius = Fx::from_int(12);           // a pellet this close to a well falls in
    Fx steer_gain = Fx::from_int(4);                // well spring toward its target (1 / s^2)
    Fx steer_damping = Fx::from_int(3);             // well velocity damping (1 / s)
    Fx max_well_accel = Fx::from_int(400);          // per-axis clamp of a well's acceleration
    Fx max_pellet_speed = Fx::from_int(300);        // per-axis clamp of a pellet's velocity
    Fx wall_restitution = Fx::from_raw(0xC000);     // 0.75: velocity kept on a wall bounce
    Fx theta = Fx::from_raw(0xB333);                // Barnes-Hut opening angle, 0.7
    uint32_t tree_max_depth = 12;                   // quadtree depth bound (coincident pellets)

    friend bool operator==(const WorldConfig&, const WorldConfig&) = default;
};
WorldConfig default_config();

// Every field of a WorldConfig with its name, in the one canonical order that the digest, the
// snapshot writer and reader and the text dump share: f(name, field) for each, the field a
// uint64_t, uint32_t or Fx (const or not, as Config is). A new knob is added here once.
template <class Config, class F>
constexpr void for_each_config_field(Config& c, F&& f) {
    f("seed", c.seed);
    f("tick_hz", c.tick_hz);
    f("arena_size", c.arena_size);
    f("pellet_count", c.pellet_count);
    f("max_players", c.max_players);
    f("well_strength", c.well_strength);
    f("pellet_strength", c.pellet_strength);
    f("softening", c.softening);
    f("capture_radius", c.capture_radius);
    f("steer_gain", c.steer_gain);
    f("steer_damping", c.steer_damping);
    f("max_well_accel", c.max_well_accel);
    f("max_pellet_speed", c.max_pellet_speed);
    f("wall_restitution", c.wall_restitution);
    f("theta", c.theta);
    f("tree_max_depth", c.tree_max_depth);
}

// Limits a config (and so a snapshot) must respect; validate() names the first violation.
inline constexpr uint32_t max_pellet_count = 1u << 17;   // 131,072
inline constexpr uint32_t max_player_limit = 64;
inline constexpr int32_t max_arena_units = 4096;          // keeps pellet deltas within 2^28 raw

// The knob that is out of its range: one stable code per field (seed has no range). The
// bounds keep every integer in the kernel and the integrator in range, so a world whose
// config validates can be stepped forever without overflow.
enum class ConfigError : uint8_t {
    tick_hz_out_of_range,
    arena_size_out_of_range,
    pellet_count_out_of_range,
    max_players_out_of_range,
    well_strength_out_of_range,
    pellet_strength_out_of_range,
    softening_out_of_range,
    capture_radius_out_of_range,
    steer_gain_out_of_range,
    steer_damping_out_of_range,
    max_well_accel_out_of_range,
    max_pellet_speed_out_of_range,
    wall_restitution_out_of_range,
    theta_out_of_range,
    tree_max_depth_out_of_range,
};
std::string_view error_name(ConfigError error);   // "softening_out_of_range", ...
std::string_view describe(ConfigError error);     // "softening must be between 1 and 64 units"
std::string_view config_field(ConfigError error); // "softening": the WorldConfig member refused

// The first knob (in for_each_config_field order) outside its range, if any.
Result<void, ConfigError> validate(const WorldConfig& config);

// ---- State -----------------------------------------------------------------------------
struct Pellet {
    SlotKey key;     // index == slot position; generation bumps on every respawn
    Vec2 pos;
    Vec2 vel;
    friend bool operator==(const Pellet&, const Pellet&) = default;
};

struct Well {
    uint32_t player = 0;   // owner; wells are kept sorted by player, unique
    Vec2 pos;
    Vec2 vel;
    Vec2 target;           // the point the owner steers toward (the player's input)
    uint32_t score = 0;    // pellets captured while this player was present
    friend bool operator==(const Well&, const Well&) = default;
};

// The whole simulation as one value: copy it to save, compare it with ==, digest it. Every
// member is state; nothing derived is stored (the live set of pellet keys, say, is computed
// from the pellets when digesting), so no two members can ever disagree.
struct World {
    WorldConfig config;
    uint64_t tick = 0;                   // ticks stepped since creation
    XorShift rng{1};                     // respawn positions and well spawn points
    std::vector<Well> wells;             // sorted by player, strictly increasing
    std::vector<Pellet> pellets;         // pellets[i].key.index == i
    uint64_t captures = 0;               // pellets captured over the whole run

    friend bool operator==(const World&, const World&) = default;
};

// A fresh world: pellets at positions drawn from XorShift(config.seed), no players; or the
// config's first out-of-range knob.
Result<World, ConfigError> make_world(const WorldConfig& config);

// ---- Inputs ----------------------------------------------------------------------------
// What a player sends: the point its well steers toward. The kit wraps it in its envelope
// (player, join / leave / command) and stamps it onto a tick; a join carries the first
// target (Sim::join_command: the centre), a leave a default one. On the wire and in replays an
// input is u32 player | u8 kind | i32 target.x raw | i32 target.y raw (13 bytes).
struct Steer {
    Vec2 target;
    friend bool operator==(const Steer&, const Steer&) = default;
};
using Input = tandem::sim::PlayerInput<Steer>;
using tandem::sim::InputKind;

inline Input join(uint32_t player, Vec2 target) { return {player, InputKind::join, {target}}; }
inline Input leave(uint32_t player) { return {player, InputKind::leave, {}}; }
inline Input steer(uint32_t player, Vec2 target) { return {player, InputKind::command, {target}}; }

// ---- Stepping --------------------------------------------------------------------------
// What a step did, for drawing and counting. Not state: never digested, never in snapshots,
// not compared by World::operator==. A step reports, in this order:
//   - per input in canonical order: joined (an absent player became a member), left (a member
//     left), join_refused (a join of an absent player while max_players wells exist, one per
//     such input). Inputs that change nothing report nothing: a join of a member, a leave of
//     a non-member, every steer.
//   - then per pellet in index order: captured (player: the capturing well's owner, pellet:
//     the pellet's index, whose slot respawned under its next generation).
enum class EventKind : uint8_t { captured = 0, joined = 1, left = 2, join_refused = 3 };
struct Event {
    EventKind kind = EventKind::captured;
    uint32_t player = 0;   // the well's owner (captured: the capturing player)
    uint32_t pellet = 0;   // captured: the pellet's index; otherwise 0
    friend bool operator==(const Event&, const Event&) = default;
};
std::string_view event_name(EventKind kind);   // "captured", "joined", "left", "join_refused"

// Owns the scratch a step needs (the pellet tree, the pull buffers, the sorted inputs) and
// the events of the last step, reusing all of it from tick to tick: a step allocates nothing
// once the buffers have grown to the world. One per thread or per room: two threads must never
// share a Stepper, and nothing else is shared (there is no hidden static or thread_local
// scratch). The scratch carries nothing from one step to the next that a result depends on,
// so any Stepper steps any world to the same bits.
class Stepper {
public:
    Stepper();
    ~Stepper();
    Stepper(Stepper&&) noexcept;
    Stepper& operator=(Stepper&&) noexcept;
    // A copy has the events and fresh scratch of its own (scratch is never state), so a
    // holder of a World and its Stepper stays copyable.
    Stepper(const Stepper& other);
    Stepper& operator=(const Stepper& other);

    // Advances exactly one tick with that tick's inputs, in any order and any number. The
    // phases, in order:
    //   1. inputs: sorted by the kit's canonical order (player, kind, target.x, target.y),
    //      applied one by one. A join of an absent player
    //      adds a well at a point drawn from the world's rng (x then y), aimed at the clamped
    //      target, unless max_players wells exist (refused); a join of a member is ignored. A
    //      leave removes the member's well (its score goes with it). A steer re-aims a member's
    //      well at the target clamped into the arena; a player's last steer in canonical order
    //      (the greatest target) wins. Since join sorts before leave, a leave and a join of
    //      one player in one tick always leave it absent.
    //   2. wells: a damped spring toward the target, acceleration clamped per axis to
    //      max_well_accel, semi-implicit Euler, then the walls.
    //   3. the pull field: on every pellet, from the wells (at their new positions) and from
    //      the other pellets (Barnes-Hut over the positions at the start of this phase).
    //   4. pellets: semi-implicit Euler with that pull, the walls, then the velocity clamped
    //      per axis to max_pellet_speed (this tick's move used the unclamped velocity).
    //      The walls: a coordinate past 0 or arena_size is reflected back inside and that
    //      velocity component reversed and scaled by wall_restitution.
    //   5. captures, per pellet in index order: the nearest well at a distance of at most
    //      capture_radius takes it (equal distances: the lower player id); its owner scores,
    //      captures counts it, and the pellet respawns at rest at a point drawn from the rng
    //      under its next generation.
    // Returns the events of this step (as events()).
    std::span<const Event> step(World& world, std::span<const Input> inputs);
    // The events of the last step; valid until the next step with this Stepper.
    std::span<const Event> events() const { return events_; }

private:
    struct Scratch;
    std::unique_ptr<Scratch> scratch_;
    std::vector<Event> events_;
};

// Convenience: one step with a temporary Stepper (allocates its scratch every call; loops
// should keep a Stepper).
void step(World& world, std::span<const Input> inputs);

// The simulation's version: bumped by every change that changes what step computes from the
// same world and inputs (a digest stream differs), so builds of different simulations refuse
// each other's snapshots and peers instead of desyncing. tests/games/arena/golden/*.txt record
// the version they were made with; regenerate.sh refuses to rewrite a changed stream under the
// same version, and a test requires the recorded version to equal this one
// (docs/determinism.md, "The simulation version").
inline constexpr uint32_t simulation_version = 2;

}  // namespace arena
