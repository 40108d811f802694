// The generator behind "random:SEED" ships worlds: the config and the stream's parameters
// come from XorShift(SEED), each tick's inputs from XorShift(mix64(stream seed ^ mix64(tick)))
// and the state. Integer and Fx arithmetic only, so every build draws the same world and stream.
#include "ships/random_world.hpp"

#include <array>

#include "ships/scenario.hpp"
#include "tandem/core/random.hpp"

namespace ships {

using namespace tandem;

namespace {

constexpr std::array<std::string_view, 8> class_names = {"join", "leave", "buttons", "bot",
                                                         "churn", "repeat", "odd_ids", "reserved"};
constexpr uint32_t rate_scale = 1024;
constexpr int64_t max_stream_players = max_player_limit + 3;
constexpr int64_t max_spec_rocks = 256;

int64_t uniform(XorShift& rng, int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    if (span > UINT32_MAX) return lo + static_cast<int64_t>(rng.next() % span);
    return lo + rng.below(static_cast<uint32_t>(span));
}
// Its ends an eighth of the time each, else uniform.
int64_t with_ends(XorShift& rng, int64_t lo, int64_t hi) {
    const uint32_t roll = rng.below(8);
    if (roll == 0) return lo;
    if (roll == 1) return hi;
    return uniform(rng, lo, hi);
}
// An Fx knob in [lo, hi] (raw): its ends, its default a quarter of the time, else uniform.
Fx knob(XorShift& rng, Fx lo, Fx hi, Fx fallback) {
    const uint32_t roll = rng.below(16);
    if (roll < 2) return lo;
    if (roll < 4) return hi;
    if (roll < 8) return fallback;
    return Fx::from_raw(static_cast<int32_t>(uniform(rng, lo.raw(), hi.raw())));
}
uint32_t count(XorShift& rng, uint32_t lo, uint32_t hi, uint32_t fallback) {
    const uint32_t roll = rng.below(4);
    if (roll == 0) return fallback;
    return static_cast<uint32_t>(with_ends(rng, lo, hi));
}
Fx units(int32_t n) { return Fx::from_int(n); }

Config draw_config(XorShift& rng) {
    const Config d;
    Config c;
    c.seed = rng.next();
    c.tick_hz = rng.below(4) == 0 ? static_cast<uint32_t>(with_ends(rng, 1, 1000)) : 30;
    c.max_players = static_cast<uint32_t>(with_ends(rng, min_players, max_player_limit));
    c.arena_size = knob(rng, units(min_arena_units), units(max_arena_units), d.arena_size);
    c.ship_radius = knob(rng, units(1), units(64), d.ship_radius);
    c.thrust = knob(rng, Fx::zero(), units(8), d.thrust);
    c.turn_rate = knob(rng, Fx::zero(), fx::pi, d.turn_rate);
    c.drag = knob(rng, Fx::zero(), Fx::one(), d.drag);
    c.max_speed = knob(rng, Fx::zero(), units(64), d.max_speed);
    c.fire_cooldown = count(rng, 1, 1000, d.fire_cooldown);
    if (c.fire_cooldown > 60 && rng.below(2) == 0) c.fire_cooldown = 1 + rng.below(8);   // keep bullets common
    c.bullet_speed = knob(rng, Fx::zero(), units(128), d.bullet_speed);
    c.bullet_lifetime = count(rng, 1, 1000, d.bullet_lifetime);
    c.bullets_per_ship = count(rng, 1, 16, d.bullets_per_ship);
    c.respawn_delay = rng.below(8) == 0 ? static_cast<uint32_t>(with_ends(rng, 0, 10000))
                                        : static_cast<uint32_t>(uniform(rng, 0, 90));
    // Rock counts mostly small, the floor often at the count and the slots often exactly
    // enough, so that waves and dropped splits come within a short run: 6 a quarter, 0..4 a
    // quarter, 0..64 most of the rest, 256 1/32.
    {
        const uint32_t roll = rng.below(32);
        const auto few = static_cast<uint32_t>(uniform(rng, 0, 4));
        const auto some = static_cast<uint32_t>(uniform(rng, 0, 64));
        c.rock_count = roll < 8 ? d.rock_count : roll < 16 ? few : roll < 31 ? some : 256;
    }
    c.rock_floor = rng.below(4) == 0 ? c.rock_count : static_cast<uint32_t>(with_ends(rng, 0, c.rock_count));
    {
        const uint32_t roll = rng.below(32);
        const uint32_t roomy = c.rock_count * 4 + 8 > max_rock_limit ? max_rock_limit : c.rock_count * 4 + 8;
        const auto drawn = static_cast<uint32_t>(with_ends(rng, c.rock_count, roomy));
        c.max_rocks = roll < 6 ? c.rock_count : roll == 31 ? max_rock_limit : drawn;
    }
    c.rock_radius_big = knob(rng, units(1), units(256), d.rock_radius_big);
    c.rock_radius_medium = knob(rng, units(1), c.rock_radius_big, min(d.rock_radius_medium, c.rock_radius_big));
    c.rock_radius_small = knob(rng, units(1), c.rock_radius_medium, min(d.rock_radius_small, c.rock_radius_medium));
    c.rock_speed_min = knob(rng, Fx::zero(), units(16), d.rock_speed_min);
    c.rock_speed_max = knob(rng, c.rock_speed_min, units(16), max(d.rock_speed_max, c.rock_speed_min));
    c.rock_points = static_cast<uint32_t>(with_ends(rng, 0, 1'000'000));
    c.ship_points = static_cast<uint32_t>(with_ends(rng, 0, 1'000'000));
    return c;
}

uint32_t draw_rate(XorShift& rng, uint32_t typical) {
    const uint32_t roll = rng.below(8);
    if (roll == 0) return 0;
    if (roll == 1) return rate_scale;
    return rng.below(typical + 1);
}

RandomInputs draw_inputs(XorShift& rng, const Config& c) {
    RandomInputs in;
    in.seed = rng.next();
    in.players = static_cast<uint32_t>(with_ends(rng, 0, static_cast<int64_t>(c.max_players) + 3));
    in.join_rate = draw_rate(rng, 128);
    in.leave_rate = draw_rate(rng, 16);
    in.buttons_rate = draw_rate(rng, 1024);
    in.bot_rate = rng.below(2) == 0 ? rate_scale : draw_rate(rng, 1024);   // aimed fire half the time
    in.churn_rate = draw_rate(rng, 64);
    in.repeat_rate = draw_rate(rng, 64);
    in.reserved_rate = draw_rate(rng, 64);
    return in;
}

bool present(const State& s, uint32_t player) {
    for (const Ship& ship : s.ships) {
        if (ship.player == player) return true;
    }
    return false;
}

// One player's inputs. The draws are the same whatever the classes and the state, so dropping a
// class leaves the rest of the stream as it was.
void player_inputs(const RandomInputs& in, const State& s, XorShift& rng, uint32_t player, std::vector<Input>& out) {
    const uint32_t join_roll = rng.below(rate_scale), leave_roll = rng.below(rate_scale);
    const uint32_t buttons_roll = rng.below(rate_scale), bot_roll = rng.below(rate_scale);
    const uint32_t repeat_roll = rng.below(rate_scale), reserved_roll = rng.below(rate_scale);
    const auto random_buttons = static_cast<uint8_t>(rng.below(16));
    const auto reserved_bits = static_cast<uint8_t>(16u << rng.below(4));
    XorShift bot_rng(rng.next());
    uint8_t buttons = random_buttons;
    if ((in.classes & input_bot) != 0 && bot_roll < in.bot_rate) buttons = pilot(s, player, bot_rng).buttons;
    if ((in.classes & input_reserved) != 0 && reserved_roll < in.reserved_rate) buttons |= reserved_bits;
    const bool member = present(s, player);
    const size_t before = out.size();
    if (!member && (in.classes & input_join) != 0 && join_roll < in.join_rate) out.push_back(join(player));
    if (member && (in.classes & input_leave) != 0 && leave_roll < in.leave_rate) out.push_back(leave(player));
    if ((in.classes & (input_buttons | input_bot)) != 0 && buttons_roll < in.buttons_rate) out.push_back(hold(player, buttons));
    if ((in.classes & input_repeat) != 0 && repeat_roll < in.repeat_rate && out.size() > before) out.push_back(out.back());
}

// The modifiers a random ships world's name accepts, in their canonical order.
constexpr std::array<tandem::sim::CountModifier, 2> count_modifiers = {{
    {"rocks", max_spec_rocks},
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
    return tandem::sim::format_random_spec({spec.seed, {spec.rocks, spec.players}, spec.without}, grammar);
}

RandomWorld generate_random_world(const RandomSpec& spec) {
    // A constant folded into the seed keeps random:0 off XorShift's zero substitution and away
    // from the arena's random worlds of the same seed.
    XorShift rng(spec.seed ^ 0x53484950'53574C44ULL);
    RandomWorld r;
    r.config = draw_config(rng);
    r.inputs = draw_inputs(rng, r.config);
    if (spec.rocks >= 0) {
        Config& c = r.config;
        c.rock_count = static_cast<uint32_t>(spec.rocks);
        if (c.rock_floor > c.rock_count) c.rock_floor = c.rock_count;
        if (c.max_rocks < c.rock_count) c.max_rocks = c.rock_count;
    }
    if (spec.players >= 0 && static_cast<uint64_t>(spec.players) < r.inputs.players) {
        r.inputs.players = static_cast<uint32_t>(spec.players);
    }
    r.inputs.classes &= ~spec.without;
    return r;
}

std::vector<Input> random_world_inputs(const RandomInputs& in, const State& s) {
    const uint64_t tick = s.tick + 1;
    XorShift rng(mix64(in.seed ^ mix64(tick)));
    std::vector<Input> out;
    for (uint32_t player = 1; player <= in.players; ++player) player_inputs(in, s, rng, player, out);
    for (const uint32_t odd : {0u, UINT32_MAX}) {
        const size_t before = out.size();
        player_inputs(in, s, rng, odd, out);
        if ((in.classes & input_odd_ids) == 0 || in.players == 0) out.resize(before);
    }
    const uint32_t churn_roll = rng.below(rate_scale);
    const uint32_t who = 1 + rng.below(in.players);
    const auto buttons = static_cast<uint8_t>(rng.below(16));
    if ((in.classes & input_churn) != 0 && in.players > 0 && churn_roll < in.churn_rate) {
        out.push_back(join(who));
        out.push_back(leave(who));
        out.push_back(hold(who, buttons));
        const uint32_t other = who % in.players + 1;
        out.push_back(join(other));
        out.push_back(join(other));
    }
    for (auto i = static_cast<uint32_t>(out.size()); i > 1; --i) {
        const uint32_t j = rng.below(i);
        std::swap(out[i - 1], out[j]);
    }
    return out;
}

}  // namespace ships
