// Properties of src/games/arena/world.cpp and the gravity kernel: the world is a value (==, digest
// over every field, the documented digest layout with the live set derived), make_world
// places the seed's points and refuses each out-of-range knob by its own code, dump's layout.
// The tick's rules are step_test.cpp's.
#include "arena/sim.hpp"

#include <algorithm>
#include <cmath>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "games/arena/gravity.hpp"

using namespace tandem;
using namespace arena;

namespace {
WorldConfig small_config(uint32_t pellets = 256) {
    WorldConfig c = default_config();
    c.pellet_count = pellets;
    c.seed = 77;
    return c;
}
Vec2 at(int32_t x, int32_t y) { return {Fx::from_int(x), Fx::from_int(y)}; }
}  // namespace

TEST_CASE("every field takes part in == and in the digest") {
    const World base = make_world(small_config()).value();
    std::vector<World> variants(10, base);
    variants[0].tick += 1;
    variants[1].config.theta = Fx::from_raw(base.config.theta.raw() + 1);
    variants[2].rng.next();
    variants[3].pellets[5].pos.x = Fx::from_raw(base.pellets[5].pos.x.raw() + 1);
    variants[4].pellets[7].vel.y = Fx::from_raw(1);
    variants[5].pellets[3].key.generation += 1;
    variants[6].captures += 1;
    variants[7].wells.push_back(Well{3, at(1, 1), {}, at(2, 2), 0});
    variants[8].config.seed += 1;
    variants[9].pellets[9].pos.y = Fx::from_raw(base.pellets[9].pos.y.raw() - 1);
    for (size_t i = 0; i < variants.size(); ++i) {
        INFO("variant " << i);
        CHECK_FALSE(variants[i] == base);
        CHECK(digest(variants[i]) != digest(base));
    }
}

TEST_CASE("the pellets section digests the documented fields, then the set of keys derived from them") {
    // A second writer of the layout world.cpp documents, with the live set rebuilt from the
    // keys here: a world never stores it, so no stored copy can drift from the pellets.
    World w = make_world(small_config(40)).value();
    w.pellets[3].key.generation = 7;
    w.pellets[11].key.generation = 1;
    StateDigest d;
    d.write_u32(40);
    std::vector<uint64_t> keys;
    for (const Pellet& p : w.pellets) {
        d.write_u32(p.key.index);
        d.write_u32(p.key.generation);
        d.write_vec2(p.pos);
        d.write_vec2(p.vel);
        keys.push_back(p.key.encode());
    }
    d.write_u64(SetDigest::from_keys(keys).digest());
    CHECK(section_digests(w)[Sim::pellets] == d.finish());
}

TEST_CASE("make_world places every pellet at the seed's points, x before y, re-keyed from generation 0") {
    const WorldConfig c = small_config(50);
    const World w = make_world(c).value();
    XorShift rng(c.seed);
    REQUIRE(w.pellets.size() == 50);
    for (uint32_t i = 0; i < 50; ++i) {
        const int32_t x = static_cast<int32_t>(rng.below(static_cast<uint32_t>(c.arena_size.raw())));
        const int32_t y = static_cast<int32_t>(rng.below(static_cast<uint32_t>(c.arena_size.raw())));
        REQUIRE(w.pellets[i].pos == Vec2{Fx::from_raw(x), Fx::from_raw(y)});
        REQUIRE(w.pellets[i].key == SlotKey{i, 0});
        REQUIRE(w.pellets[i].vel == Vec2{});
    }
    CHECK(w.rng == rng);
    CHECK(w.wells.empty());
    CHECK(w.tick == 0u);
}

TEST_CASE("each knob out of range is refused with its own code, and its bounds are inclusive") {
    struct Case {
        void (*edit)(WorldConfig&);
        std::string_view code;
        std::string_view field;
    };
    const std::vector<Case> refused{
        {[](WorldConfig& c) { c.tick_hz = 0; }, "tick_hz_out_of_range", "tick_hz"},
        {[](WorldConfig& c) { c.tick_hz = 1001; }, "tick_hz_out_of_range", "tick_hz"},
        {[](WorldConfig& c) { c.arena_size = Fx::from_raw(Fx::from_int(16).raw() - 1); }, "arena_size_out_of_range", "arena_size"},
        {[](WorldConfig& c) { c.arena_size = Fx::from_raw(Fx::from_int(4096).raw() + 1); }, "arena_size_out_of_range", "arena_size"},
        {[](WorldConfig& c) { c.pellet_count = 131073; }, "pellet_count_out_of_range", "pellet_count"},
        {[](WorldConfig& c) { c.max_players = 65; }, "max_players_out_of_range", "max_players"},
        {[](WorldConfig& c) { c.well_strength = Fx::from_raw(-1); }, "well_strength_out_of_range", "well_strength"},
        {[](WorldConfig& c) { c.pellet_strength = Fx::from_raw(-1); }, "pellet_strength_out_of_range", "pellet_strength"},
        {[](WorldConfig& c) { c.softening = Fx::from_raw(Fx::one().raw() - 1); }, "softening_out_of_range", "softening"},
        {[](WorldConfig& c) { c.softening = Fx::from_raw(Fx::from_int(64).raw() + 1); }, "softening_out_of_range", "softening"},
        {[](WorldConfig& c) { c.capture_radius = Fx::from_raw(-1); }, "capture_radius_out_of_range", "capture_radius"},
        {[](WorldConfig& c) { c.capture_radius = Fx::from_raw(Fx::from_int(256).raw() + 1); }, "capture_radius_out_of_range", "capture_radius"},
        {[](WorldConfig& c) { c.steer_gain = Fx::from_raw(-1); }, "steer_gain_out_of_range", "steer_gain"},
        {[](WorldConfig& c) { c.steer_damping = Fx::from_raw(-1); }, "steer_damping_out_of_range", "steer_damping"},
        {[](WorldConfig& c) { c.max_well_accel = Fx::from_raw(-1); }, "max_well_accel_out_of_range", "max_well_accel"},
        {[](WorldConfig& c) { c.max_pellet_speed = Fx::from_raw(-1); }, "max_pellet_speed_out_of_range", "max_pellet_speed"},
        {[](WorldConfig& c) { c.wall_restitution = Fx::from_raw(-1); }, "wall_restitution_out_of_range", "wall_restitution"},
        {[](WorldConfig& c) { c.wall_restitution = Fx::from_raw(Fx::one().raw() + 1); }, "wall_restitution_out_of_range", "wall_restitution"},
        {[](WorldConfig& c) { c.theta = Fx::from_raw(-1); }, "theta_out_of_range", "theta"},
        {[](WorldConfig& c) { c.theta = Fx::from_raw(Fx::from_int(4).raw() + 1); }, "theta_out_of_range", "theta"},
        {[](WorldConfig& c) { c.tree_max_depth = 0; }, "tree_max_depth_out_of_range", "tree_max_depth"},
        {[](WorldConfig& c) { c.tree_max_depth = 25; }, "tree_max_depth_out_of_range", "tree_max_depth"},
    };
    for (const Case& k : refused) {
        WorldConfig c = default_config();
        k.edit(c);
        const auto v = validate(c);
        INFO("expected " << k.code);
        REQUIRE_FALSE(v.ok());
        CHECK(v.code() == k.code);
        CHECK(config_field(v.error()) == k.field);
        CHECK(describe(v.error()).find(k.field) != std::string_view::npos);
        const auto made = make_world(c);
        CHECK_FALSE(made.ok());
        CHECK(made.code() == k.code);
    }
    // Every bound itself is accepted.
    const std::vector<void (*)(WorldConfig&)> edges{
        [](WorldConfig& c) { c.tick_hz = 1; },          [](WorldConfig& c) { c.tick_hz = 1000; },
        [](WorldConfig& c) { c.arena_size = Fx::from_int(16); }, [](WorldConfig& c) { c.arena_size = Fx::from_int(4096); },
        [](WorldConfig& c) { c.pellet_count = 0; },     [](WorldConfig& c) { c.max_players = 64; },
        [](WorldConfig& c) { c.well_strength = Fx::zero(); }, [](WorldConfig& c) { c.pellet_strength = Fx::zero(); },
        [](WorldConfig& c) { c.softening = Fx::one(); }, [](WorldConfig& c) { c.softening = Fx::from_int(64); },
        [](WorldConfig& c) { c.capture_radius = Fx::zero(); }, [](WorldConfig& c) { c.capture_radius = Fx::from_int(256); },
        [](WorldConfig& c) { c.steer_gain = Fx::zero(); }, [](WorldConfig& c) { c.steer_damping = Fx::zero(); },
        [](WorldConfig& c) { c.max_well_accel = Fx::zero(); }, [](WorldConfig& c) { c.max_pellet_speed = Fx::zero(); },
        [](WorldConfig& c) { c.wall_restitution = Fx::zero(); }, [](WorldConfig& c) { c.wall_restitution = Fx::one(); },
        [](WorldConfig& c) { c.theta = Fx::zero(); },   [](WorldConfig& c) { c.theta = Fx::from_int(4); },
        [](WorldConfig& c) { c.tree_max_depth = 1; },   [](WorldConfig& c) { c.tree_max_depth = 24; },
    };
    for (size_t i = 0; i < edges.size(); ++i) {
        WorldConfig c = default_config();
        c.pellet_count = 16;
        edges[i](c);
        INFO("edge " << i);
        CHECK(validate(c).ok());
        CHECK(make_world(c).ok());
    }
    CHECK(validate(default_config()).ok());
}

TEST_CASE("the first knob out of range in field order is the one named") {
    WorldConfig c = default_config();
    c.theta = Fx::from_int(5);
    c.softening = Fx::zero();
    CHECK(validate(c).code() == "softening_out_of_range");
    c.tick_hz = 0;
    CHECK(validate(c).code() == "tick_hz_out_of_range");
}

TEST_CASE("a ConfigError value outside the enum is named unknown, from the first one past the last knob") {
    // 15 knobs have a rule (tick_hz .. tree_max_depth: ConfigError 0 to 14), so 15 is the
    // first value with none; the lookups must stop before it rather than read past the table.
    for (const uint8_t v : {uint8_t{15}, uint8_t{16}, uint8_t{255}}) {
        const auto e = static_cast<ConfigError>(v);
        INFO("ConfigError " << int{v});
        CHECK(error_name(e) == "unknown");
        CHECK(describe(e) == "unknown config error");
        CHECK(config_field(e) == "unknown");
    }
    CHECK(error_name(ConfigError::tree_max_depth_out_of_range) == "tree_max_depth_out_of_range");
}

TEST_CASE("dump lists every field in digest order and ends with the section digests and the digest") {
    World w = make_world(small_config(3)).value();
    w.wells.push_back(Well{5, at(1, 2), at(3, 4), at(5, 6), 9});
    const std::string text = dump(w);
    CHECK(text.starts_with("tick 0\nconfig.seed 77\nconfig.tick_hz 60\n"));
    CHECK(text.find("\nwells[5].pos.y 131072\nwells[5].vel.x 196608\n") != std::string::npos);
    CHECK(text.find("\nwells[5].score 9\n") != std::string::npos);
    CHECK(text.find("\npellets[2].generation 0\n") != std::string::npos);
    CHECK(text.ends_with("digest " + hex64(digest(w)) + "\n"));
    CHECK(text.find("section.pellets " + hex64(section_digests(w)[Sim::pellets]) + "\n") != std::string::npos);
}

TEST_CASE("the integer gravity kernel is within 2^-12 of the exact softened pull") {
    // The reference uses double: tests may, the simulation may not.
    double worst = 0;
    const uint64_t soft2 = uint64_t{1} << 32;  // softening 1 unit
    for (int32_t dx = -(1 << 27); dx <= (1 << 27); dx += 9876543) {
        for (int32_t dy = -(1 << 27); dy <= (1 << 27); dy += 7654321) {
            for (uint32_t s : {1u << 12, 1u << 16, 6000u << 16, 0x7FFFFFFFu}) {
                arena::detail::Pull p;
                arena::detail::add_pull(p, dx, dy, s, soft2);
                const double fx = dx / 65536.0, fy = dy / 65536.0, fs = s / 65536.0;
                const double r2 = fx * fx + fy * fy + 1.0;
                const double ax = fs * fx / (r2 * std::sqrt(r2));
                const double want = std::clamp(ax * 4294967296.0, -17592186044416.0, 17592186044416.0);  // the 2^44 clamp
                const double got = static_cast<double>(p.x);
                const double err = std::abs(got - want) / std::max(std::abs(want), 4294967296.0 * 1e-3);
                worst = std::max(worst, err);
            }
        }
    }
    INFO("worst relative error " << worst);
    CHECK(worst < 1.0 / 4096);
}

TEST_CASE("the kernel drops its clamp only where no pull could reach it") {
    namespace d = arena::detail;
    // The defaults (a well of 6000, softening 8) are far inside: step runs the unclamped kernel.
    CHECK(d::pull_never_clamps(static_cast<uint32_t>(default_config().well_strength.raw()),
                               default_config().softening.raw()));
    CHECK_FALSE(d::pull_never_clamps(0x7FFFFFFFu, Fx::one().raw()));
    CHECK_FALSE(d::pull_never_clamps(1u << 16, 0));  // below the softening the kernel assumes
    // At each softening, the strongest body the test admits, at every offset around the peak
    // (|d| = eps / sqrt 2) and beyond: the clamped and unclamped kernels agree, with margin.
    for (const int32_t eps_units : {1, 2, 8, 64}) {
        const int32_t eps = Fx::from_int(eps_units).raw();
        uint32_t lo = 0, hi = 0x7FFFFFFFu;  // the largest admitted strength, by bisection
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo + 1) / 2;
            if (d::pull_never_clamps(mid, eps)) lo = mid; else hi = mid - 1;
        }
        REQUIRE(lo > 0);
        const uint64_t soft2 = static_cast<uint64_t>(int64_t{eps} * eps);
        int64_t strongest = 0;
        for (int32_t dx = 0; dx <= 4 * eps; dx += eps / 64) {
            for (const int32_t dy : {0, eps / 7, eps / 2}) {
                d::Pull clamped, free;
                d::add_pull<true>(clamped, dx, dy, lo, soft2);
                d::add_pull<false>(free, dx, dy, lo, soft2);
                CHECK(clamped.x == free.x);
                CHECK(clamped.y == free.y);
                strongest = std::max(strongest, clamped.x);
            }
        }
        INFO("softening " << eps_units << ": strongest pull " << strongest << " of " << d::max_pull_q32);
        CHECK(strongest <= d::max_pull_q32 * 3 / 4);  // the test keeps a real margin
        // ... and is not needlessly strict (unless every strength an Fx holds is admitted).
        if (lo < 0x7FFFFFFFu) CHECK(strongest >= d::max_pull_q32 / 4);
    }
}
