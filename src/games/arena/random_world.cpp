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

}  // namespace

std::string_view error_name(const SpecError& error) {
    switch (error.code) {
    case SpecError::unknown_scenario: return "unknown_scenario";
    case SpecError::bad_seed: return "bad_seed";
    case SpecError::unknown_modifier: return "unknown_modifier";
    case SpecError::bad_value: return "bad_value";
    }
    return "bad_value";
}
std::string_view describe(const SpecError& error) { return error.message; }

std::string_view random_spec_syntax() { return "random:SEED[:pellets=N][:players=N][:without=CLASS+...]"; }

std::string_view input_class_name(uint32_t bit_index) {
    return bit_index < class_names.size() ? class_names[bit_index] : std::string_view{};
}

namespace {

// Strict decimal: digits only, at most `max`.
bool decimal(std::string_view text, uint64_t max, uint64_t& out) {
    if (text.empty() || text.size() > 20) return false;
    uint64_t v = 0;
    for (const char ch : text) {
        if (ch < '0' || ch > '9') return false;
        const auto digit = static_cast<uint64_t>(ch - '0');
        if (v > (max - digit) / 10) return false;
        v = v * 10 + digit;
    }
    out = v;
    return true;
}

std::string all_class_names() {
    std::string s;
    for (std::string_view n : class_names) s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
}

SpecError spec_error(SpecError::Code code, std::string_view spec, std::string what) {
    return SpecError{code, "random world '" + std::string(spec) + "': " + what + " (accepted: " +
                               std::string(random_spec_syntax()) + "; CLASS one of " + all_class_names() + ")"};
}

}  // namespace

Result<RandomSpec, SpecError> parse_random_spec(std::string_view spec) {
    if (!spec.starts_with(random_prefix)) return spec_error(SpecError::bad_seed, spec, "it does not start with 'random:'");
    std::string_view rest = spec.substr(random_prefix.size());
    const size_t colon = rest.find(':');
    const std::string_view seed_text = rest.substr(0, colon);
    RandomSpec out;
    if (!decimal(seed_text, UINT64_MAX, out.seed)) {
        return spec_error(SpecError::bad_seed, spec, "the seed '" + std::string(seed_text) + "' is not a decimal 64-bit number");
    }
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    bool seen_pellets = false, seen_players = false, seen_without = false;
    while (colon != std::string_view::npos) {
        const size_t next = rest.find(':');
        const std::string_view item = rest.substr(0, next);
        const size_t eq = item.find('=');
        const std::string_view key = item.substr(0, eq);
        const std::string_view value = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
        uint64_t n = 0;
        if (key == "pellets" && !seen_pellets) {
            if (!decimal(value, max_pellet_count, n)) {
                return spec_error(SpecError::bad_value, spec, "pellets='" + std::string(value) + "' is not a count 0.." + std::to_string(max_pellet_count));
            }
            out.pellets = static_cast<int64_t>(n);
            seen_pellets = true;
        } else if (key == "players" && !seen_players) {
            if (!decimal(value, max_stream_players, n)) {
                return spec_error(SpecError::bad_value, spec, "players='" + std::string(value) + "' is not a count 0.." + std::to_string(max_stream_players));
            }
            out.players = static_cast<int64_t>(n);
            seen_players = true;
        } else if (key == "without" && !seen_without) {
            std::string_view names = value;
            if (names.empty()) return spec_error(SpecError::bad_value, spec, "without= names no class");
            while (true) {
                const size_t plus = names.find('+');
                const std::string_view name = names.substr(0, plus);
                uint32_t bit = 0;
                while (bit < class_names.size() && class_names[bit] != name) ++bit;
                if (bit == class_names.size()) return spec_error(SpecError::bad_value, spec, "unknown input class '" + std::string(name) + "'");
                out.without |= 1u << bit;
                if (plus == std::string_view::npos) break;
                names = names.substr(plus + 1);
            }
            seen_without = true;
        } else {
            return spec_error(SpecError::unknown_modifier, spec, "unknown or repeated modifier '" + std::string(item) + "'");
        }
        if (next == std::string_view::npos) break;
        rest = rest.substr(next + 1);
    }
    return out;
}

std::string format_random_spec(const RandomSpec& spec) {
    // Appended piece by piece: "literal" + std::string trips GCC 12's false -Wrestrict
    // (bug 105329) in a -O2 build.
    std::string s(random_prefix);
    s += std::to_string(spec.seed);
    if (spec.pellets >= 0) {
        s += ":pellets=";
        s += std::to_string(spec.pellets);
    }
    if (spec.players >= 0) {
        s += ":players=";
        s += std::to_string(spec.players);
    }
    if (spec.without != 0) {
        s += ":without=";
        bool first = true;
        for (uint32_t bit = 0; bit < class_names.size(); ++bit) {
            if ((spec.without & (1u << bit)) == 0) continue;
            if (!first) s += '+';
            s += class_names[bit];
            first = false;
        }
    }
    return s;
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
