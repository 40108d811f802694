// The scripted ships scenarios: each tick's inputs come from XorShift(mix64(script_seed ^
// mix64(tick))) and the state alone, so a run can be resumed or replayed from any tick without
// carrying generator state. The bots fly with the scenarios' pilot (pilot(), which reads the state).
#include "ships/scenario.hpp"

#include <array>

namespace ships {

using namespace tandem;

namespace {

Config duel_config() {
    Config c;
    c.seed = 0x5A1F'0001;
    c.max_players = 2;
    c.arena_size = Fx::from_int(768);
    c.rock_count = 4;
    c.rock_floor = 1;
    return c;
}
Config melee_config() {
    Config c;
    c.seed = 0x5A1F'0002;
    c.max_players = 8;
    c.arena_size = Fx::from_int(1536);
    c.rock_count = 8;
    c.rock_floor = 3;
    c.respawn_delay = 45;
    return c;
}
Config rockfield_config() {
    Config c;
    c.seed = 0x5A1F'0003;
    c.max_players = 3;
    c.arena_size = Fx::from_int(2048);
    c.rock_count = 40;
    c.rock_floor = 36;
    c.max_rocks = 240;
    c.rock_speed_max = Fx::from_int(3);
    c.bullets_per_ship = 8;
    c.fire_cooldown = 3;
    return c;
}
Config chaos_config() {
    Config c;
    c.seed = 0x5A1F'0004;
    c.max_players = 6;   // eight ids contend for six seats
    c.rock_count = 10;
    c.rock_floor = 4;
    c.respawn_delay = 20;
    c.fire_cooldown = 2;
    return c;
}

// std::string members: built at static initialisation, read only after main() starts.
const std::array<Scenario, 4> all_scenarios = {{
    {"duel", "two bots hunting four big rocks and each other on a small field", Script::duel, duel_config(), 0x5EED'5001, {}},
    {"melee", "eight bots, joining one by one, on a wide field with waves of eight rocks", Script::melee, melee_config(),
     0x5EED'5002, {}},
    {"rockfield", "three bots clearing forty drifting rocks, a new wave whenever fewer than thirty-six remain",
     Script::rockfield, rockfield_config(), 0x5EED'5003, {}},
    {"chaos", "eight ids for six seats joining, leaving and mashing random buttons", Script::chaos, chaos_config(),
     0x5EED'5004, {}},
}};

bool present(const State& s, uint32_t player) {
    for (const Ship& ship : s.ships) {
        if (ship.player == player) return true;
    }
    return false;
}

// Bots 1..n; player p joins at tick join_gap * (p - 1) + 1. Emitted highest id first on purpose.
void script_bots(const State& s, uint64_t tick, uint32_t n, uint64_t join_gap, XorShift& rng, std::vector<Input>& out) {
    for (uint32_t player = n; player >= 1; --player) {
        XorShift own(mix64(rng.next() ^ player));
        if (!present(s, player)) {
            if (tick >= join_gap * (player - 1) + 1) out.push_back(join(player));
            continue;
        }
        out.push_back(hold(player, pilot(s, player, own).buttons));
    }
}

void script_chaos(const State& s, XorShift& rng, std::vector<Input>& out) {
    for (uint32_t player = 1; player <= 8; ++player) {
        const uint32_t roll = rng.below(1000);
        const auto buttons = static_cast<uint8_t>(rng.below(16));
        if (present(s, player)) {
            if (roll < 3) out.push_back(leave(player));
            else if (roll < 600) out.push_back(hold(player, buttons));
        } else {
            if (roll < 30) out.push_back(join(player));
            else if (roll < 40) out.push_back(hold(player, buttons));   // ignored: absent
        }
        if (roll % 89 == 0) out.push_back(hold(player, buttons));       // a duplicate
    }
    for (auto i = static_cast<uint32_t>(out.size()); i > 1; --i) {
        const uint32_t j = rng.below(i);
        std::swap(out[i - 1], out[j]);
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

std::vector<Input> scenario_inputs(const Scenario& sc, const State& s) {
    const uint64_t tick = s.tick + 1;
    XorShift rng(mix64(sc.script_seed ^ mix64(tick)));
    std::vector<Input> out;
    switch (sc.script) {
    case Script::duel: script_bots(s, tick, 2, 1, rng, out); break;
    case Script::melee: script_bots(s, tick, 8, 40, rng, out); break;
    case Script::rockfield: script_bots(s, tick, 3, 10, rng, out); break;
    case Script::chaos: script_chaos(s, rng, out); break;
    case Script::random: return random_world_inputs(sc.random, s);
    }
    return out;
}

State start(const Scenario& s) {
    // Every listed config validates (scenario_test) and so does every random one
    // (random_world_test); value() would stop the program rather than run an unasked world.
    return make_state(s.config).value();
}

void advance(const Scenario& sc, State& s, uint64_t ticks, Stepper& stepper) {
    for (uint64_t i = 0; i < ticks; ++i) {
        const std::vector<Input> inputs = scenario_inputs(sc, s);
        stepper.step(s, inputs);
    }
}

void advance(const Scenario& sc, State& s, uint64_t ticks) {
    Stepper stepper;
    advance(sc, s, ticks, stepper);
}

}  // namespace ships
