// The arena's bot policy (arena::Sim::Bot, what tandem's ScriptedBot commands with): a player
// that heads for one waypoint, then the next, drawn from the bot's own seeded XorShift. It sees
// only the config, its player and the tick (the bot holds no world), so a seed is a path.
#pragma once

#include <cstdint>
#include <optional>

#include "arena/world.hpp"
#include "tandem/core/random.hpp"

namespace arena {

// Each waypoint is held for a number of ticks drawn in [bot_leg_min_ticks, bot_leg_min_ticks +
// bot_leg_spread_ticks) (2 to 5 s at 60 Hz), and drawn inside the arena at least
// bot_margin_eighths eighths of its side from each wall.
inline constexpr uint32_t bot_leg_min_ticks = 120;
inline constexpr uint32_t bot_leg_spread_ticks = 180;
inline constexpr uint32_t bot_margin_eighths = 1;

class Bot {
public:
    Bot(const WorldConfig& config, uint32_t /*player*/) : arena_size_(config.arena_size) {}

    // A new waypoint when the leg has run out (at once, the first time): uniformly inside the
    // arena less its margin, in whole raw units (integer draws only: x, then y, then the leg's
    // length), as a Steer toward it.
    std::optional<Steer> next(uint64_t tick, tandem::XorShift& rng) {
        if (tick < leg_ends_at_) return std::nullopt;
        const int32_t side = arena_size_.raw();
        const int32_t margin = side / 8 * static_cast<int32_t>(bot_margin_eighths);
        const uint32_t span = static_cast<uint32_t>(side - 2 * margin);
        const int32_t x = margin + static_cast<int32_t>(rng.below(span));
        const int32_t y = margin + static_cast<int32_t>(rng.below(span));
        leg_ends_at_ = tick + bot_leg_min_ticks + rng.below(bot_leg_spread_ticks);
        return Steer{Vec2{Fx::from_raw(x), Fx::from_raw(y)}};
    }

private:
    Fx arena_size_;
    uint64_t leg_ends_at_ = 0;
};

}  // namespace arena
