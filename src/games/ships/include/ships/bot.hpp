// ships' bot policy (ships::Sim::Bot, what tandem's ScriptedBot plays with): a pilot that holds
// one set of buttons for a leg of ticks, then draws the next, from the bot's own seeded
// XorShift. It sees only the config, its player and the tick (a ScriptedBot holds no state of
// the game), so a seed is a flight. The scenarios' pilot, which reads the state, is pilot().
#pragma once

#include <cstdint>
#include <optional>

#include "ships/world.hpp"
#include "tandem/core/random.hpp"

namespace ships {

// A leg lasts [bot_leg_min_ticks, bot_leg_min_ticks + bot_leg_spread_ticks) ticks (half a
// second to two at 30 Hz).
inline constexpr uint32_t bot_leg_min_ticks = 15;
inline constexpr uint32_t bot_leg_spread_ticks = 45;

class Bot {
public:
    Bot(const Config& /*config*/, uint32_t /*player*/) {}

    // New buttons when the leg has run out (at once, the first time): fire always held (the
    // cooldown paces it), a turn left, right or none (one draw of 3), thrust one leg in three
    // (one draw of 3), then the leg's length: three integer draws, in that order.
    std::optional<Command> next(uint64_t tick, tandem::XorShift& rng) {
        if (tick < leg_ends_at_) return std::nullopt;
        uint8_t buttons = fire;
        const uint32_t turn = rng.below(3);
        if (turn == 1) buttons |= turn_left;
        if (turn == 2) buttons |= turn_right;
        if (rng.below(3) == 0) buttons |= thrust;
        leg_ends_at_ = tick + bot_leg_min_ticks + rng.below(bot_leg_spread_ticks);
        return Command{buttons};
    }

private:
    uint64_t leg_ends_at_ = 0;
};

}  // namespace ships
