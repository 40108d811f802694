// Snapshots: encode a World to little-endian bytes and decode them back, or say precisely why
// not. decode() reads untrusted bytes (a network peer, a fuzzer): it must never read past the
// span, never trust a count before checking the bytes that would hold it, and never throw.
// The fuzz build (tests/fuzz) compiles this file with TANDEM_FUZZ_SKIP_SNAPSHOT_DIGEST, which
// skips the trailing digest check so that the fuzzer reaches the field checks behind it; no
// other build may define it.
#include <type_traits>

#include "tandem/world/world.hpp"
#include "world/bytes.hpp"

namespace tandem::world {

namespace {

constexpr uint8_t magic[4] = {'T', 'N', 'D', 'M'};
constexpr uint32_t well_bytes = 4 + 6 * 4 + 4;
constexpr uint32_t pellet_bytes = 4 + 4 + 4 * 4;

bool in_arena(Vec2 p, Fx arena) {
    return p.x >= Fx::zero() && p.x <= arena && p.y >= Fx::zero() && p.y <= arena;
}

#if defined(TANDEM_FUZZ_SKIP_SNAPSHOT_DIGEST)
constexpr bool check_trailing_digest = false;
#else
constexpr bool check_trailing_digest = true;
#endif

}  // namespace

std::string fingerprint() {
    return "tandem snapshot/" + std::to_string(snapshot_format_version) + " Q16.16 sim/" +
           std::to_string(simulation_version);
}

uint64_t fingerprint_hash() {
    const std::string text = fingerprint();
    StateDigest d;
    d.write_bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    return d.finish();
}

std::string_view error_name(DecodeError error) {
    switch (error) {
    case DecodeError::truncated: return "truncated";
    case DecodeError::bad_magic: return "bad_magic";
    case DecodeError::unsupported_version: return "unsupported_version";
    case DecodeError::fingerprint_mismatch: return "fingerprint_mismatch";
    case DecodeError::count_out_of_range: return "count_out_of_range";
    case DecodeError::value_out_of_range: return "value_out_of_range";
    case DecodeError::digest_mismatch: return "digest_mismatch";
    case DecodeError::trailing_bytes: return "trailing_bytes";
    }
    return "unknown";
}

std::string_view describe(DecodeError error) {
    switch (error) {
    case DecodeError::truncated: return "the snapshot ends before a field its format requires";
    case DecodeError::bad_magic: return "the bytes do not start with a tandem snapshot's magic \"TNDM\"";
    case DecodeError::unsupported_version: return "the snapshot's format version is not one this build reads";
    case DecodeError::fingerprint_mismatch:
        return "the snapshot was written by a build with another number format or simulation version";
    case DecodeError::count_out_of_range: return "a well or pellet count exceeds what the snapshot's config allows";
    case DecodeError::value_out_of_range: return "a field lies outside its domain (a config knob, a position, the well order)";
    case DecodeError::digest_mismatch: return "the trailing digest disagrees with the decoded state";
    case DecodeError::trailing_bytes: return "bytes follow the snapshot's trailing digest";
    }
    return "unknown snapshot error";
}

std::vector<uint8_t> encode(const World& world) {
    std::vector<uint8_t> out;
    out.reserve(14 + config_wire_bytes + 32 + world.wells.size() * well_bytes + world.pellets.size() * pellet_bytes + 8);
    Writer w(out);
    for (uint8_t b : magic) w.u8(b);
    w.u16(snapshot_format_version);
    w.u64(fingerprint_hash());
    write_config(w, world.config);
    w.u64(world.tick);
    w.u64(world.rng.state());
    w.u64(world.captures);
    w.u32(static_cast<uint32_t>(world.wells.size()));
    for (const Well& well : world.wells) {
        w.u32(well.player);
        w.vec2(well.pos);
        w.vec2(well.vel);
        w.vec2(well.target);
        w.u32(well.score);
    }
    w.u32(static_cast<uint32_t>(world.pellets.size()));
    for (const Pellet& p : world.pellets) {
        w.u32(p.key.index);
        w.u32(p.key.generation);
        w.vec2(p.pos);
        w.vec2(p.vel);
    }
    w.u64(digest(world));
    return out;
}

Result<World, DecodeError> decode(std::span<const uint8_t> bytes) {
    Reader r(bytes);
    if (!r.has(4)) return DecodeError::truncated;
    for (uint8_t b : magic) {
        if (r.u8() != b) return DecodeError::bad_magic;
    }
    const uint16_t version = r.u16();
    if (!r.ok()) return DecodeError::truncated;
    if (version != snapshot_format_version) return DecodeError::unsupported_version;
    const uint64_t print = r.u64();
    if (!r.ok()) return DecodeError::truncated;
    if (print != fingerprint_hash()) return DecodeError::fingerprint_mismatch;

    World w;
    w.config = read_config(r);
    w.tick = r.u64();
    const uint64_t rng_state = r.u64();
    w.captures = r.u64();
    const uint32_t well_count = r.u32();
    if (!r.ok()) return DecodeError::truncated;
    if (!validate(w.config)) return DecodeError::value_out_of_range;
    // XorShift::from_state(0) would substitute a non-zero state, and the snapshot would then
    // not re-encode to itself: zero is simply not a state a world can be in.
    if (rng_state == 0) return DecodeError::value_out_of_range;
    w.rng = XorShift::from_state(rng_state);
    const Fx arena = w.config.arena_size;

    if (well_count > w.config.max_players) return DecodeError::count_out_of_range;
    if (!r.has(uint64_t{well_count} * well_bytes)) return DecodeError::truncated;
    w.wells.reserve(well_count);
    for (uint32_t i = 0; i < well_count; ++i) {
        Well well;
        well.player = r.u32();
        well.pos = r.vec2();
        well.vel = r.vec2();
        well.target = r.vec2();
        well.score = r.u32();
        // Strictly increasing players: the canonical order, and no duplicate owners.
        if (i > 0 && well.player <= w.wells.back().player) return DecodeError::value_out_of_range;
        if (!in_arena(well.pos, arena) || !in_arena(well.target, arena)) return DecodeError::value_out_of_range;
        w.wells.push_back(well);
    }

    const uint32_t pellet_count = r.u32();
    if (!r.ok()) return DecodeError::truncated;
    if (pellet_count != w.config.pellet_count) return DecodeError::count_out_of_range;
    if (!r.has(uint64_t{pellet_count} * pellet_bytes)) return DecodeError::truncated;
    w.pellets.reserve(pellet_count);
    for (uint32_t i = 0; i < pellet_count; ++i) {
        Pellet p;
        p.key.index = r.u32();
        p.key.generation = r.u32();
        p.pos = r.vec2();
        p.vel = r.vec2();
        if (p.key.index != i || !in_arena(p.pos, arena)) return DecodeError::value_out_of_range;
        w.pellets.push_back(p);
    }

    const uint64_t stored = r.u64();
    if (!r.ok()) return DecodeError::truncated;
    if (check_trailing_digest && stored != digest(w)) return DecodeError::digest_mismatch;
    if (r.remaining() != 0) return DecodeError::trailing_bytes;
    return w;
}

}  // namespace tandem::world
