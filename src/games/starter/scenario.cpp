// starter's scripted runs: each tick's inputs come from XorShift(mix64(script_seed ^ mix64(tick)))
// and the state alone, so any build replays them from any tick without carrying generator
// state. "random:SEED" draws a whole scenario (config and script) from XorShift(SEED).
#include <array>

#include "starter/sim.hpp"

namespace starter {

using tandem::mix64;

namespace {

Config pair_config() {
    Config c;
    c.seed = 0x57A7'0001;
    c.max_players = 2;
    return c;
}
Config crowd_config() {
    Config c;
    c.seed = 0x57A7'0002;
    c.field_size = Fx::from_int(320);
    c.speed = Fx::from_int(6);
    c.coin_count = 12;
    return c;
}

const std::array<Scenario, 2> listed = {{
    {"pair", "two bots racing for the nearest of five coins", pair_config(), 2, false, 0x5EED'7001},
    {"crowd", "six ids for four seats wandering, joining and leaving among twelve coins", crowd_config(), 6, true,
     0x5EED'7002},
}};

// No modifiers: "random:SEED" alone (tandem/sim/random_spec.hpp parses and refuses it).
constexpr tandem::sim::RandomSpecGrammar grammar{};

const Runner* find_runner(const State& s, uint32_t player) {
    for (const Runner& r : s.runners) {
        if (r.player == player) return &r;
    }
    return nullptr;
}

// Toward the nearest coin (by |dx| + |dy|, the lowest index on a tie), along each axis where it
// is more than half a step away.
uint8_t toward_nearest_coin(const State& s, const Runner& r) {
    const Coin* best = nullptr;
    Fx best_distance = Fx::max();
    for (const Coin& coin : s.coins) {
        const Fx d = tandem::abs(coin.pos.x - r.pos.x) + tandem::abs(coin.pos.y - r.pos.y);
        if (d < best_distance) best_distance = d, best = &coin;
    }
    const Fx slack = s.config.speed / Fx::from_int(2);
    uint8_t held = 0;
    if (best->pos.x > r.pos.x + slack) held |= right;
    if (best->pos.x < r.pos.x - slack) held |= left;
    if (best->pos.y > r.pos.y + slack) held |= down;
    if (best->pos.y < r.pos.y - slack) held |= up;
    return held;
}

}  // namespace

std::span<const Scenario> scenarios() { return listed; }

std::string scenario_names_accepted() {
    std::string out;
    for (const Scenario& s : listed) out += s.name + ", ";
    return out + tandem::sim::random_spec_syntax(grammar);
}

Result<Scenario, ScenarioError> find_scenario(std::string_view name) {
    for (const Scenario& s : listed) {
        if (s.name == name) return s;
    }
    if (!name.starts_with(tandem::sim::random_prefix)) {
        return ScenarioError{ScenarioError::unknown_scenario,
                             "unknown scenario '" + std::string(name) + "' (accepted: " + scenario_names_accepted() + ")"};
    }
    auto spec = tandem::sim::parse_random_spec(name, grammar);
    if (!spec) return spec.error();
    XorShift rng(spec->seed);
    const auto in = [&](int32_t lo, int32_t hi) { return lo + static_cast<int32_t>(rng.below(static_cast<uint32_t>(hi - lo + 1))); };
    Scenario s;
    s.name = tandem::sim::format_random_spec(*spec, grammar);
    s.description = "a random world";
    s.config.seed = rng.next();
    s.config.max_players = static_cast<uint32_t>(in(1, 8));
    s.config.field_size = Fx::from_raw(in(Fx::from_int(64).raw(), Fx::from_int(4096).raw()));
    s.config.speed = Fx::from_raw(in(0, Fx::from_int(64).raw()));
    s.config.reach = Fx::from_raw(in(Fx::from_int(1).raw(), Fx::from_int(64).raw()));
    s.config.coin_count = static_cast<uint32_t>(in(1, 64));
    s.players = static_cast<uint32_t>(in(1, 10));
    s.wander = rng.below(2) == 1;
    s.script_seed = rng.next();
    return s;
}

std::vector<Input> scenario_inputs(const Scenario& sc, const State& s) {
    const uint64_t tick = s.tick + 1;
    XorShift rng(mix64(sc.script_seed ^ mix64(tick)));
    std::vector<Input> out;
    // Highest id first on purpose: step must impose its own order.
    for (uint32_t player = sc.players; player >= 1; --player) {
        const Runner* r = find_runner(s, player);
        const uint32_t roll = rng.below(1000);
        if (!sc.wander) {
            if (r == nullptr) out.push_back(join(player));
            else out.push_back(hold(player, toward_nearest_coin(s, *r)));
            continue;
        }
        if (r == nullptr) {
            if (roll < 40) out.push_back(join(player));
        } else if (roll < 4) {
            out.push_back(leave(player));
        } else if (roll < 100) {
            out.push_back(hold(player, static_cast<uint8_t>(rng.below(16))));
        }
    }
    return out;
}

}  // namespace starter
