// The random-world generator behind "random:SEED" scenarios: the config and the stream's
// parameters come from XorShift(SEED), each tick's inputs from XorShift(mix64(stream seed ^
// mix64(tick))) and the world. Integer and Fx arithmetic only (no float, no clock, no order a
// library chooses), so every build draws the same world and stream from the same spec.
#include "arena/random_world.hpp"

#include <array>

#include "tandem/core/random.hpp"

namespace arena {

using namespace tandem;

namespace {

constexpr std::array<std::string_view, 7> class_names = {"join", "leave", "steer", "far", "churn", "repeat", "odd_ids"};
constexpr uint32_t rate_scale = 1024;
constexpr int64_t max_stream_players = max_player_limit + 3;   // a few more ids than any cap

// Uniform in [lo, hi] (hi - lo < 2^32).
int64_t uniform(XorShift& rng, int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    if (span > UINT32_MAX) return lo + static_cast<int64_t>(rng.next() % span);
    return lo + rng.below(static_cast<uint32_t>(span));
}

// A bounded knob: its ends an eighth of the time each, else uniform over the range.
int64_t with_ends(XorShift& rng, int64_t lo, int64_t hi) {
    const uint32_t roll = rng.below(8);
    if (roll == 0) return lo;
    if (roll == 1) return hi;
    return uniform(rng, lo, hi);
}

// A knob bounded below only (0 .. Fx::max): 0 and Fx::max a sixteenth each, its default a
// quarter, else uniform up to `typical` (raw).
Fx unbounded(XorShift& rng, Fx fallback, int32_t typical) {
    const uint32_t roll = rng.below(16);
    if (roll == 0) return Fx::zero();
    if (roll == 1) return Fx::max();
    if (roll < 6) return fallback;
    return Fx::from_raw(static_cast<int32_t>(uniform(rng, 0, typical)));
}

Fx units(int32_t n) { return Fx::from_int(n); }

WorldConfig draw_config(XorShift& rng) {
    WorldConfig c = default_config();
    c.seed = rng.next();
    {
        const uint32_t roll = rng.below(8);
        c.tick_hz = roll < 3 ? 60u : static_cast<uint32_t>(with_ends(rng, 1, 1000));
    }
    {
        const uint32_t roll = rng.below(8);
        if (roll == 0) c.arena_size = units(16);
        else if (roll == 1) c.arena_size = units(max_arena_units);
        else if (roll < 5) c.arena_size = units(static_cast<int32_t>(uniform(rng, 16, max_arena_units)));
        else if (roll < 7) c.arena_size = units(1 << uniform(rng, 4, 12));
        else c.arena_size = Fx::from_raw(static_cast<int32_t>(uniform(rng, units(16).raw(), units(max_arena_units).raw())));
    }
    {
        const uint32_t roll = rng.below(256);
        if (roll < 26) c.pellet_count = 0;
        else if (roll < 128) c.pellet_count = static_cast<uint32_t>(uniform(rng, 1, 64));
        else if (roll < 218) c.pellet_count = static_cast<uint32_t>(uniform(rng, 65, 512));
        else if (roll < 247) c.pellet_count = static_cast<uint32_t>(uniform(rng, 513, 2048));
        else if (roll < 255) c.pellet_count = static_cast<uint32_t>(uniform(rng, 2049, 8192));
        else c.pellet_count = max_pellet_count;
    }
    c.max_players = static_cast<uint32_t>(rng.below(2) == 0 ? with_ends(rng, 0, max_player_limit) : uniform(rng, 1, 8));
    c.well_strength = unbounded(rng, c.well_strength, units(20000).raw());
    c.pellet_strength = unbounded(rng, c.pellet_strength, units(4).raw());
    c.softening = Fx::from_raw(static_cast<int32_t>(with_ends(rng, units(1).raw(), units(64).raw())));
    c.capture_radius = Fx::from_raw(static_cast<int32_t>(with_ends(rng, 0, units(256).raw())));
    c.steer_gain = unbounded(rng, c.steer_gain, units(32).raw());
    c.steer_damping = unbounded(rng, c.steer_damping, units(16).raw());
    c.max_well_accel = unbounded(rng, c.max_well_accel, units(2000).raw());
    c.max_pellet_speed = unbounded(rng, c.max_pellet_speed, units(2000).raw());
    c.wall_restitution = Fx::from_raw(static_cast<int32_t>(with_ends(rng, 0, Fx::one().raw())));
    c.theta = Fx::from_raw(static_cast<int32_t>(with_ends(rng, 0, units(4).raw())));
    c.tree_max_depth = static_cast<uint32_t>(with_ends(rng, 1, 24));
    // An exact (theta < 1/2) or shallow tree costs pellets squared: keep such worlds small so a
    // quick run stays quick on the emulated targets.
    if ((c.theta.raw() < Fx::one().raw() / 2 || c.tree_max_depth < 8) && c.pellet_count > 256) c.pellet_count = 256;
    return c;
}

uint32_t draw_rate(XorShift& rng, uint32_t typical) {
    const uint32_t roll = rng.below(8);
    if (roll == 0) return 0;
    if (roll == 1) return rate_scale;   // every player, every tick
    return rng.below(typical + 1);
}

RandomInputs draw_inputs(XorShift& rng, const WorldConfig& c) {
    RandomInputs in;
    in.seed = rng.next();
    in.players = static_cast<uint32_t>(with_ends(rng, 0, static_cast<int64_t>(c.max_players) + 3));
    in.join_rate = draw_rate(rng, 64);
    in.leave_rate = draw_rate(rng, 16);
    in.steer_rate = draw_rate(rng, 512);
    in.far_rate = draw_rate(rng, 256);
    in.churn_rate = draw_rate(rng, 64);
    in.repeat_rate = draw_rate(rng, 64);
    return in;
}

bool present(const World& w, uint32_t player) {
    for (const Well& well : w.wells) {
        if (well.player == player) return true;
    }
    return false;
}

// A target inside the arena, exactly on an edge an eighth of the time per axis.
Fx inside(XorShift& rng, Fx arena) {
    const uint32_t roll = rng.below(16);
    const uint32_t v = rng.below(static_cast<uint32_t>(arena.raw()) + 1);
    if (roll == 0) return Fx::zero();
    if (roll == 1) return arena;
    return Fx::from_raw(static_cast<int32_t>(v));
}

// Far outside the arena: anywhere in the int32 range, its extremes an eighth of the time.
Fx far(XorShift& rng) {
    const uint32_t roll = rng.below(8);
    const auto v = static_cast<int32_t>(static_cast<uint32_t>(rng.next() >> 32));
    if (roll == 0) return Fx::min();
    if (roll == 1) return Fx::max();
    return Fx::from_raw(v);
}

// One player's inputs for one tick. The draws are the same whatever the classes and the
// world, so dropping a class leaves the rest of the stream as it was.
void player_inputs(const RandomInputs& in, const World& w, XorShift& rng, uint32_t player, std::vector<Input>& out) {
    const uint32_t join_roll = rng.below(rate_scale), leave_roll = rng.below(rate_scale);
    const uint32_t steer_roll = rng.below(rate_scale), far_roll = rng.below(rate_scale);
    const uint32_t repeat_roll = rng.below(rate_scale);
    const Vec2 near{inside(rng, w.config.arena_size), inside(rng, w.config.arena_size)};
    const Vec2 away{far(rng), far(rng)};
    const Vec2 target = (in.classes & input_far) != 0 && far_roll < in.far_rate ? away : near;
    const bool member = present(w, player);
    const size_t before = out.size();
    if (!member && (in.classes & input_join) != 0 && join_roll < in.join_rate) out.push_back({player, InputKind::join, target});
    if (member && (in.classes & input_leave) != 0 && leave_roll < in.leave_rate) out.push_back({player, InputKind::leave, target});
    if ((in.classes & input_steer) != 0 && steer_roll < in.steer_rate) out.push_back({player, InputKind::command, target});
    if ((in.classes & input_repeat) != 0 && repeat_roll < in.repeat_rate && out.size() > before) out.push_back(out.back());
}

// The modifiers a random arena world's name accepts, in their canonical order.
constexpr std::array<tandem::sim::CountModifier, 2> count_modifiers = {{
    {"pellets", max_pellet_count},
    {"players", max_stream_players},
}};
constexpr tandem::sim::RandomSpecGrammar grammar{count_modifiers, class_names};

}  // namespace

std::string_view random_spec_syntax() {
    static const std::string syntax = tandem::sim::random_spec_syntax(grammar);
    return syntax;
}

std::string_view input_class_name(uint32_t bit_index) {
    return bit_index < class_names.size() ? class_names[bit_index] : std::string_view{};
}

Result<RandomSpec, SpecError> parse_random_spec(std::string_view spec) {
    auto values = tandem::sim::parse_random_spec(spec, grammar);
    if (!values) return values.error();
    return RandomSpec{values->seed, values->counts[0], values->counts[1], values->without};
}

std::string format_random_spec(const RandomSpec& spec) {
    return tandem::sim::format_random_spec({spec.seed, {spec.pellets, spec.players}, spec.without}, grammar);
}

RandomWorld generate_random_world(const RandomSpec& spec) {
    // A constant folded into the seed keeps random:0 away from XorShift's zero substitution and
    // the scripted scenarios' streams.
    XorShift rng(spec.seed ^ 0x52414E44'574F524CULL);
    RandomWorld r;
    r.config = draw_config(rng);
    r.inputs = draw_inputs(rng, r.config);
    if (spec.pellets >= 0) r.config.pellet_count = static_cast<uint32_t>(spec.pellets);
    if (spec.players >= 0 && static_cast<uint64_t>(spec.players) < r.inputs.players) {
        r.inputs.players = static_cast<uint32_t>(spec.players);
    }
    r.inputs.classes &= ~spec.without;
    return r;
}

std::vector<Input> random_world_inputs(const RandomInputs& in, const World& w) {
    const uint64_t tick = w.tick + 1;
    XorShift rng(mix64(in.seed ^ mix64(tick)));
    std::vector<Input> out;
    for (uint32_t player = 1; player <= in.players; ++player) player_inputs(in, w, rng, player, out);
    // Two ids at the ends of the u32 range, drawn every tick so dropping them changes nothing else.
    for (const uint32_t odd : {0u, UINT32_MAX}) {
        const size_t before = out.size();
        player_inputs(in, w, rng, odd, out);
        if ((in.classes & input_odd_ids) == 0 || in.players == 0) out.resize(before);
    }
    // Churn: one player joins, leaves and re-aims in the same tick (join sorts before leave, so
    // it ends the tick absent), and the next player's join arrives twice.
    const uint32_t churn_roll = rng.below(rate_scale);
    const uint32_t who = 1 + rng.below(in.players);
    const Vec2 at{inside(rng, w.config.arena_size), inside(rng, w.config.arena_size)};
    if ((in.classes & input_churn) != 0 && in.players > 0 && churn_roll < in.churn_rate) {
        out.push_back({who, InputKind::join, at});
        out.push_back({who, InputKind::leave, at});
        out.push_back({who, InputKind::command, at});
        const uint32_t other = who % in.players + 1;
        out.push_back({other, InputKind::join, at});
        out.push_back({other, InputKind::join, at});
    }
    // Scramble the order (Fisher-Yates on our own stream): step() must not care.
    for (auto i = static_cast<uint32_t>(out.size()); i > 1; --i) {
        const uint32_t j = rng.below(i);
        std::swap(out[i - 1], out[j]);
    }
    return out;
}

}  // namespace arena
