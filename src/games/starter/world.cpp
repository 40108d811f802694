// starter: the config's rules, the state at tick 0 and the step. Digests, snapshots, the dump
// and the field diff come from the kit through Sim::visit_state; nothing here may use a float,
// a clock, or an order a library chooses.
#include "starter/world.hpp"

#include <algorithm>
#include <tuple>

#include "tandem/sim/config_rules.hpp"

namespace starter {

namespace {

// One rule per knob, in ConfigError's order. The bounds keep every sum in step inside Fx.
using Rule = tandem::sim::ConfigRule<Config, ConfigError>;
constexpr Fx units(int32_t n) { return Fx::from_int(n); }

constexpr Rule rule_table[] = {
    {ConfigError::tick_hz_out_of_range, "tick_hz_out_of_range", "tick_hz", "tick_hz must be between 1 and 1000",
     [](const Config& c) { return c.tick_hz >= 1 && c.tick_hz <= 1000; }},
    {ConfigError::max_players_out_of_range, "max_players_out_of_range", "max_players", "max_players must be between 1 and 8",
     [](const Config& c) { return c.max_players >= 1 && c.max_players <= 8; }},
    {ConfigError::field_size_out_of_range, "field_size_out_of_range", "field_size", "field_size must be between 64 and 4096 units",
     [](const Config& c) { return c.field_size >= units(64) && c.field_size <= units(4096); }},
    {ConfigError::speed_out_of_range, "speed_out_of_range", "speed", "speed must be between 0 and 64 units per tick",
     [](const Config& c) { return c.speed >= Fx::zero() && c.speed <= units(64); }},
    {ConfigError::reach_out_of_range, "reach_out_of_range", "reach", "reach must be between 1 and 64 units",
     [](const Config& c) { return c.reach >= units(1) && c.reach <= units(64); }},
    {ConfigError::coin_count_out_of_range, "coin_count_out_of_range", "coin_count", "coin_count must be between 1 and 64",
     [](const Config& c) { return c.coin_count >= 1 && c.coin_count <= 64; }},
};
constexpr tandem::sim::ConfigRules<Config, ConfigError> rules{rule_table};
static_assert(rules.follows_enum(), "rule_table[i].error must be ConfigError(i)");

// A point in [0, size)^2 from the state's rng: x first, then y.
Vec2 random_point(XorShift& rng, Fx size) {
    const auto draw = [&] { return Fx::from_raw(static_cast<int32_t>(rng.below(static_cast<uint32_t>(size.raw())))); };
    const Fx x = draw();
    return {x, draw()};
}

Runner* find_runner(State& s, uint32_t player) {
    for (Runner& r : s.runners) {
        if (r.player == player) return &r;
    }
    return nullptr;
}

// -1, 0 or +1 along one axis from two opposite bits.
Fx axis(uint8_t held, uint8_t minus, uint8_t plus) {
    return Fx::from_int(((held & plus) != 0 ? 1 : 0) - ((held & minus) != 0 ? 1 : 0));
}

}  // namespace

std::string_view error_name(ConfigError error) { return rules.code(error); }
std::string_view describe(ConfigError error) { return rules.describe(error); }
Result<void, ConfigError> validate(const Config& config) { return rules.validate(config); }

std::string_view event_name(EventKind kind) {
    switch (kind) {
    case EventKind::joined: return "joined";
    case EventKind::left: return "left";
    case EventKind::join_refused: return "join_refused";
    case EventKind::collected: return "collected";
    }
    return "unknown";
}

Result<State, ConfigError> make_state(const Config& config) {
    if (const auto valid = validate(config); !valid) return valid.error();
    State s;
    s.config = config;
    s.rng = XorShift(config.seed);
    for (uint32_t i = 0; i < config.coin_count; ++i) s.coins.push_back({i, random_point(s.rng, config.field_size)});
    return s;
}

std::span<const Event> Stepper::step(State& s, std::span<const Input> inputs) {
    const Config& c = s.config;
    events_.clear();
    // 1. Inputs, in an order of our own: the order they arrived in must never show.
    sorted_.assign(inputs.begin(), inputs.end());
    std::sort(sorted_.begin(), sorted_.end(), [](const Input& a, const Input& b) {
        return std::tuple(a.player, a.kind, a.command.held) < std::tuple(b.player, b.kind, b.command.held);
    });
    for (const Input& in : sorted_) {
        Runner* runner = find_runner(s, in.player);
        switch (in.kind) {
        case InputKind::join:
            if (runner != nullptr) break;
            if (s.runners.size() >= c.max_players) {
                events_.push_back({EventKind::join_refused, in.player, 0});
                break;
            }
            s.runners.push_back({in.player, {c.field_size / Fx::from_int(2), c.field_size / Fx::from_int(2)}, 0, 0});
            std::sort(s.runners.begin(), s.runners.end(), [](const Runner& a, const Runner& b) { return a.player < b.player; });
            events_.push_back({EventKind::joined, in.player, 0});
            break;
        case InputKind::leave:
            if (runner == nullptr) break;
            s.runners.erase(s.runners.begin() + (runner - s.runners.data()));
            events_.push_back({EventKind::left, in.player, 0});
            break;
        case InputKind::command:
            if (runner != nullptr) runner->held = in.command.held & all_directions;
            break;
        }
    }
    // 2. Movement, clamped to the field.
    for (Runner& r : s.runners) {
        r.pos.x = tandem::clamp(r.pos.x + c.speed * axis(r.held, left, right), Fx::zero(), c.field_size);
        r.pos.y = tandem::clamp(r.pos.y + c.speed * axis(r.held, up, down), Fx::zero(), c.field_size);
    }
    // 3. Coins: the lowest player reaches first; a taken coin reappears before the next runner looks.
    for (Runner& r : s.runners) {
        for (Coin& coin : s.coins) {
            if (tandem::abs(coin.pos.x - r.pos.x) > c.reach || tandem::abs(coin.pos.y - r.pos.y) > c.reach) continue;
            r.score += 1;
            coin.pos = random_point(s.rng, c.field_size);
            events_.push_back({EventKind::collected, r.player, coin.index});
        }
    }
    s.tick += 1;
    return events_;
}

}  // namespace starter
