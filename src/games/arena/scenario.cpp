// The scripted scenarios: each tick's inputs come from XorShift(mix64(script_seed ^ tick))
// and the world's own state, so a run can be resumed or replayed from any tick without
// carrying generator state. Scripts may use only integer and Fx arithmetic (no float, no
// clock, no container whose order a library chooses).
#include "arena/scenario.hpp"

#include <array>

namespace arena {

using namespace tandem;

namespace {

WorldConfig config_with(uint64_t seed, uint32_t pellets, uint32_t max_players) {
    WorldConfig c = default_config();
    c.seed = seed;
    c.pellet_count = pellets;
    c.max_players = max_players;
    return c;
}

// std::string members: built at static initialisation, read only after main() starts.
const std::array<Scenario, 4> all_scenarios = {{
    {"orbits", "4,096 pellets, two players circling the centre half a turn apart", Script::orbits,
     config_with(0x0421'0001, 4096, 2), 0x5EED'0001, {}},
    {"crowd", "32,768 pellets, one player tracing a figure eight", Script::crowd, config_with(0x0421'0002, 32768, 1),
     0x5EED'0002, {}},
    {"chaos", "2,048 pellets, eight players joining, leaving and steering at random", Script::chaos,
     config_with(0x0421'0003, 2048, 8), 0x5EED'0003, {}},
    {"trig", "1,024 pellets, four players whose targets use sqrt, sin, cos and atan2 every tick", Script::trig,
     config_with(0x0421'0004, 1024, 4), 0x5EED'0004, {}},
}};

Fx center_of(const World& w) { return Fx::from_raw(w.config.arena_size.raw() / 2); }

// A point at `radius` and `angle` around the arena's centre.
Vec2 on_circle(const World& w, Fx radius, Fx angle) {
    const Fx c = center_of(w);
    return {c + radius * cos(angle), c + radius * sin(angle)};
}

// An angle in [0, 2pi) that advances one full turn every `period` ticks: reduced with
// integers first, so it never grows out of Fx range however long the run.
Fx phase(uint64_t tick, uint32_t period) {
    return fx::two_pi * ratio(static_cast<int32_t>(tick % period), static_cast<int32_t>(period));
}

Vec2 random_target(XorShift& rng, const World& w) {
    const Fx x = Fx::from_raw(static_cast<int32_t>(rng.below(static_cast<uint32_t>(w.config.arena_size.raw()))));
    const Fx y = Fx::from_raw(static_cast<int32_t>(rng.below(static_cast<uint32_t>(w.config.arena_size.raw()))));
    return {x, y};
}

bool present(const World& w, uint32_t player) {
    for (const Well& well : w.wells) {
        if (well.player == player) return true;
    }
    return false;
}

const Well* well_of(const World& w, uint32_t player) {
    for (const Well& well : w.wells) {
        if (well.player == player) return &well;
    }
    return nullptr;
}

void script_orbits(const World& w, uint64_t tick, std::vector<Input>& out) {
    const Fx radius = Fx::from_int(256);
    const Fx a = phase(tick, 720);
    for (uint32_t player = 2; player >= 1; --player) {  // emitted high id first on purpose
        const Vec2 t = on_circle(w, radius, player == 1 ? a : a + fx::pi);
        out.push_back({player, InputKind::command, t});
        if (!present(w, player)) out.push_back({player, InputKind::join, t});
    }
}

void script_crowd(const World& w, uint64_t tick, std::vector<Input>& out) {
    const Fx a = phase(tick, 900);
    const Fx c = center_of(w);
    const Fx r = Fx::from_int(300);
    const Vec2 t{c + r * sin(a), c + Fx::from_raw((r * sin(a + a)).raw() / 2)};
    if (!present(w, 1)) out.push_back({1, InputKind::join, t});
    out.push_back({1, InputKind::command, t});
}

void script_chaos(const World& w, XorShift& rng, std::vector<Input>& out) {
    for (uint32_t player = 1; player <= 8; ++player) {
        const uint32_t roll = rng.below(1000);
        const Vec2 t = random_target(rng, w);
        if (present(w, player)) {
            if (roll < 4) out.push_back({player, InputKind::leave, t});
            else if (roll < 120) out.push_back({player, InputKind::command, t});
        } else {
            if (roll < 25) out.push_back({player, InputKind::join, t});
            else if (roll < 40) out.push_back({player, InputKind::command, t});   // ignored: absent
        }
        if (roll % 97 == 0) out.push_back({player, InputKind::command, t});      // a duplicate
    }
    // Scramble the order (Fisher-Yates on our own stream): step() must not care.
    for (uint32_t i = static_cast<uint32_t>(out.size()); i > 1; --i) {
        const uint32_t j = rng.below(i);
        std::swap(out[i - 1], out[j]);
    }
}

void script_trig(const World& w, uint64_t tick, std::vector<Input>& out) {
    const Fx c = center_of(w);
    const Fx step_angle = Fx::from_raw(1 << 10);   // 1/64 rad per tick around the centre
    const Fx scale = Fx::from_int(32);             // keeps squared distances inside Fx
    for (uint32_t player = 1; player <= 4; ++player) {
        const Well* well = well_of(w, player);
        if (well == nullptr) {
            out.push_back({player, InputKind::join, on_circle(w, Fx::from_int(200), phase(tick + player * 90, 360))});
            continue;
        }
        const Fx dx = well->pos.x - c;
        const Fx dy = well->pos.y - c;
        const Fx angle = atan2(dy, dx);
        const Fx sx = dx / scale, sy = dy / scale;
        const Fx radius = sqrt(sx * sx + sy * sy) * scale;
        // Breathe the radius between 150 and 350 with the phase, lead the angle a little.
        const Fx wanted = Fx::from_int(250) + Fx::from_int(100) * sin(phase(tick, 600) + Fx::from_int(static_cast<int32_t>(player)));
        const Fx r = radius + (wanted - radius) * Fx::from_raw(1 << 13);
        out.push_back({player, InputKind::command, on_circle(w, r, angle + step_angle * Fx::from_int(8))});
    }
}

}  // namespace

std::span<const Scenario> scenarios() { return all_scenarios; }

Result<Scenario, SpecError> find_scenario(std::string_view name) {
    for (const Scenario& s : all_scenarios) {
        if (s.name == name) return s;
    }
    if (!name.starts_with(random_prefix)) {
        return SpecError{SpecError::unknown_scenario,
                         "unknown scenario '" + std::string(name) + "' (accepted: " + scenario_names_accepted() + ")"};
    }
    auto spec = parse_random_spec(name);
    if (!spec) return spec.error();
    const RandomWorld r = generate_random_world(*spec);
    Scenario s;
    s.name = format_random_spec(*spec);
    s.description = "a random world";
    s.script = Script::random;
    s.config = r.config;
    s.script_seed = r.inputs.seed;
    s.random = r.inputs;
    return s;
}

std::string scenario_names_accepted() {
    std::string out;
    for (const Scenario& s : all_scenarios) out += s.name + ", ";
    return out + std::string(random_spec_syntax());
}

std::vector<Input> scenario_inputs(const Scenario& s, const World& w) {
    const uint64_t tick = w.tick + 1;
    XorShift rng(mix64(s.script_seed ^ mix64(tick)));
    std::vector<Input> out;
    switch (s.script) {
    case Script::orbits: script_orbits(w, tick, out); break;
    case Script::crowd: script_crowd(w, tick, out); break;
    case Script::chaos: script_chaos(w, rng, out); break;
    case Script::trig: script_trig(w, tick, out); break;
    case Script::random: return random_world_inputs(s.random, w);
    }
    return out;
}

World start(const Scenario& s) {
    // The configs above are constants that validate (scenario_test checks each), and every
    // random config validates (random_world_test checks many seeds), so value() never meets a
    // refusal; if one did, value() would stop the program rather than run a world nobody asked for.
    return make_world(s.config).value();
}

void advance(const Scenario& s, World& w, uint64_t ticks, Stepper& stepper) {
    for (uint64_t i = 0; i < ticks; ++i) {
        const std::vector<Input> inputs = scenario_inputs(s, w);
        stepper.step(w, inputs);
    }
}

void advance(const Scenario& s, World& w, uint64_t ticks) {
    Stepper stepper;
    advance(s, w, ticks, stepper);
}

}  // namespace arena
