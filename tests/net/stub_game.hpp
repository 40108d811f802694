// A stub game for the kit's tests (in the spirit of GGRS's stub config): a counter per player.
// The state is the tick and, per present player, a u64 counter; a command is one u8 that the
// step adds to its sender's counter. It is the smallest thing the Simulation concept accepts, so
// a test of the room over it proves the room needs nothing arena-shaped.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tandem/core/random.hpp"  // XorShift, the bot's draws
#include "tandem/core/result.hpp"
#include "tandem/sim/simulation.hpp"

namespace stub {

struct Config {
    uint32_t players = 4;   // counters the state can hold (1 to 64)
    uint32_t tick_hz = 60;  // 1 to 1000
    friend bool operator==(const Config&, const Config&) = default;
};

enum class ConfigError : uint8_t { players_out_of_range, tick_hz_out_of_range };
inline std::string_view error_name(ConfigError e) {
    return e == ConfigError::players_out_of_range ? "players_out_of_range" : "tick_hz_out_of_range";
}
inline std::string_view describe(ConfigError e) {
    return e == ConfigError::players_out_of_range ? "players must be between 1 and 64" : "tick_hz must be between 1 and 1000";
}

struct Counter {
    uint32_t player = 0;   // the key: counters are sorted by player
    uint64_t count = 0;
    friend bool operator==(const Counter&, const Counter&) = default;
};

struct State {
    Config config;
    uint64_t tick = 0;
    std::vector<Counter> counters;   // one per present player, sorted by player
    friend bool operator==(const State&, const State&) = default;
};

struct Command {
    uint8_t increment = 0;
    friend bool operator==(const Command&, const Command&) = default;
};

struct Event {
    uint32_t player = 0;   // a player that joined
    friend bool operator==(const Event&, const Event&) = default;
};

struct Game;

class Stepper {
public:
    // Joins add a counter at 0 (if the player is absent and 1..players), leaves remove it,
    // commands add their increment, in the order given (the room's canonical order: by player,
    // then join, leave, command); then the tick advances.
    std::span<const Event> step(State& s, std::span<const tandem::sim::PlayerInput<Command>> inputs) {
        events_.clear();
        for (const auto& in : inputs) {
            auto it = s.counters.begin();
            while (it != s.counters.end() && it->player < in.player) ++it;
            const bool present = it != s.counters.end() && it->player == in.player;
            switch (in.kind) {
                case tandem::sim::InputKind::join:
                    if (!present && in.player >= 1 && in.player <= s.config.players) {
                        s.counters.insert(it, Counter{in.player, 0});
                        events_.push_back(Event{in.player});
                    }
                    break;
                case tandem::sim::InputKind::leave:
                    if (present) s.counters.erase(it);
                    break;
                case tandem::sim::InputKind::command:
                    if (present) it->count += in.command.increment;
                    break;
            }
        }
        s.tick += 1;
        return events_;
    }

private:
    std::vector<Event> events_;
};

struct Game {
    static constexpr std::string_view name = "stub";
    static constexpr uint32_t version = 1;
    using Config = stub::Config;
    using State = stub::State;
    using Command = stub::Command;
    using Event = stub::Event;
    using Stepper = stub::Stepper;
    using ConfigError = stub::ConfigError;
    enum Section : uint8_t { config, counters };
    static constexpr std::array<std::string_view, 2> sections{"config", "counters"};

    static tandem::Result<void, ConfigError> validate(const Config& c) {
        if (c.players < 1 || c.players > 64) return ConfigError::players_out_of_range;
        if (c.tick_hz < 1 || c.tick_hz > 1000) return ConfigError::tick_hz_out_of_range;
        return {};
    }
    static tandem::Result<State, ConfigError> make(const Config& c) {
        if (auto v = validate(c); !v.ok()) return v.error();
        return State{c, 0, {}};
    }
    static uint64_t tick(const State& s) { return s.tick; }
    static const Config& config_of(const State& s) { return s.config; }
    static uint32_t tick_hz(const Config& c) { return c.tick_hz; }
    static uint32_t max_players(const Config& c) { return c.players; }
    // A join carries an increment of 7, so a test sees the room send the game's join command.
    static Command join_command(const Config&) { return Command{7}; }

    template <class V, class C>
    static void visit_config(V& v, C& c) {
        v.field("players", c.players);
        v.field("tick_hz", c.tick_hz);
    }
    template <class V, class C>
    static void visit_command(V& v, C& c) {
        v.field("increment", c.increment);
    }
    template <class V, class S>
    static void visit_state(V& v, S& s) {
        v.field("tick", s.tick);
        v.section(config);
        v.config("config", s.config);
        v.section(counters);
        v.list("counters", s.counters, tandem::sim::at_most(s.config.players), [&](auto& c) {
            v.key("player", c.player);
            v.field("count", c.count);
            v.require([&] { return c.player >= 1 && c.player <= s.config.players; });
        });
    }

};
static_assert(tandem::sim::Simulation<Game>);

// The same game with a bot policy (tandem/net/bot.hpp's HasBot): an increment of 1 to 3 drawn
// every 10 ticks. Game itself has none, as a game need not.
struct BotGame : Game {
    class Bot {
    public:
        Bot(const Config&, uint32_t) {}
        std::optional<Command> next(uint64_t tick, tandem::XorShift& rng) {
            if (tick % 10 != 0) return std::nullopt;
            return Command{static_cast<uint8_t>(1 + rng.below(3))};
        }
    };
};
static_assert(tandem::sim::Simulation<BotGame>);

}  // namespace stub
