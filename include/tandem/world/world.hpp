// The demo world: an arena of pellets falling into players' gravity wells. One value type
// (World) that steps, digests and serialises identically on every build. Built only from
// src/core; it must never use float, double, libm, size_t/long in state, or any order a
// library chooses (iteration order, unstable sort of ties, pointer values).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/digest.hpp"
#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"
#include "tandem/core/slot_key.hpp"

namespace tandem::world {

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
    uint32_t max_players = 16;                      // joins beyond this are ignored
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
// nullopt when the config is usable; otherwise the name of the first bad field.
std::optional<std::string_view> validate(const WorldConfig& config);

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

// The whole simulation as one value: copy it to save, compare it with ==, digest it.
struct World {
    WorldConfig config;
    uint64_t tick = 0;                   // ticks stepped since creation
    XorShift rng{1};                     // respawn positions and well spawn points
    std::vector<Well> wells;             // sorted by player, strictly increasing
    std::vector<Pellet> pellets;         // pellets[i].key.index == i
    SetDigest live;                      // the live pellet keys, maintained incrementally
    uint64_t captures = 0;               // pellets captured over the whole run

    friend bool operator==(const World&, const World&) = default;
};

// A fresh world: pellets at positions drawn from XorShift(config.seed), no players.
// The config must pass validate() (checked: an invalid one throws std::invalid_argument).
World make_world(const WorldConfig& config);

// ---- Inputs ----------------------------------------------------------------------------
enum class InputKind : uint8_t { join = 0, leave = 1, steer = 2 };

struct Input {
    uint32_t player = 0;
    InputKind kind = InputKind::steer;
    Vec2 target;   // steer: the new target (clamped into the arena); join: the first target
    friend bool operator==(const Input&, const Input&) = default;
};

// The canonical order step() applies inputs in: (player, kind, target.x, target.y). A total
// key over every field, so equal keys are equal inputs and any sort gives the same sequence.
bool canonical_less(const Input& a, const Input& b);

// Advances exactly one tick with that tick's inputs, in any order and any number: step sorts
// a copy by canonical_less, then for each player applies joins, leaves and steers (the last
// steer of a player in canonical order wins). Then wells move, pellets feel the wells and each
// other (Barnes-Hut over the pellets at the start of the tick), integrate (semi-implicit
// Euler), bounce off the walls, and fall into the nearest well within capture_radius.
void step(World& world, std::span<const Input> inputs);

// ---- Digests ---------------------------------------------------------------------------
// Section digests, each a StateDigest over its fields in the order documented in world.cpp.
struct SectionDigests {
    uint64_t config = 0;
    uint64_t wells = 0;     // player, pos, vel, target of each well in player order
    uint64_t pellets = 0;   // key, pos, vel of each pellet in index order, then the live set
    uint64_t scores = 0;    // (player, score) of each well in player order, then captures
    uint64_t rng = 0;       // the XorShift state
    friend bool operator==(const SectionDigests&, const SectionDigests&) = default;
};
SectionDigests section_digests(const World& world);
// One u64 over every field: tick, then the five section digests in the order above.
uint64_t digest(const World& world);

// ---- Snapshots -------------------------------------------------------------------------
// Layout (all integers little-endian, Fx as its int32 raw):
//   "TNDM" | u16 format version | u64 fingerprint | config | u64 tick | u64 rng state
//   | u64 captures | u32 well count | wells | u32 pellet count | pellets | u64 digest(world)
inline constexpr uint16_t snapshot_format_version = 1;
inline constexpr uint32_t simulation_version = 1;

// "tandem snapshot/1 Q16.16 sim/1": what the CLI and the wasm build both report, and what a
// snapshot's fingerprint field is the hash of. Two builds that print different strings must
// not exchange snapshots.
std::string fingerprint();
uint64_t fingerprint_hash();

enum class DecodeError : uint8_t {
    none = 0,
    truncated,              // the bytes end before a field the format requires
    bad_magic,              // not a tandem snapshot
    unsupported_version,    // a format version this build cannot read
    fingerprint_mismatch,   // written by a build with another number format or simulation
    count_out_of_range,     // a well or pellet count the config or limits forbid
    value_out_of_range,     // a field outside its domain (config knob, position, order)
    digest_mismatch,        // the trailing digest disagrees with the decoded state
    trailing_bytes,         // bytes after the trailing digest
};
// "none", "truncated", "bad_magic", ... : the stable string the bindings expose as `.code`.
std::string_view error_name(DecodeError error);

struct DecodeResult {
    DecodeError error = DecodeError::none;
    std::optional<World> world;   // engaged exactly when error == none
    bool ok() const { return error == DecodeError::none; }
};

std::vector<uint8_t> encode(const World& world);
// Never crashes, never reads past the span, and never allocates more than the bytes present
// could describe: every count is checked against the remaining length before a reserve.
DecodeResult decode(std::span<const uint8_t> bytes);

// ---- Text ------------------------------------------------------------------------------
// The canonical state, one "name value" line per field in digest order, integers in decimal
// and Fx as raw integers, then the five section digests and the digest in hex: diffable
// between builds (the CLI's `dump`).
std::string dump(const World& world);

}  // namespace tandem::world
