// ScriptedBot: a player that speaks the protocol like a page does (hello, steers, acks) and is
// scripted from a seed, for a room that runs with no server around it (the demo page's offline
// mode, tests). It holds no world: it acks each frame with the room's own digest, so it costs
// the room a connection and the page no simulation. Everything it sends is a function of its
// seed and the messages it received, so the same seed drives the same match on every build.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"
#include "tandem/net/protocol.hpp"

namespace tandem::net {

// A bot's path: it heads for one waypoint, then the next, each held for a number of ticks
// drawn in [bot_leg_min_ticks, bot_leg_min_ticks + bot_leg_spread_ticks) (2 to 5 s at 60 Hz),
// each waypoint drawn inside the arena at least bot_margin_fraction of its side from a wall.
inline constexpr uint32_t bot_leg_min_ticks = 120;
inline constexpr uint32_t bot_leg_spread_ticks = 180;
inline constexpr uint32_t bot_margin_eighths = 1;   // an eighth of the side
// Acks: one every bot_ack_interval_ticks frames (ten a second at 60 Hz, as a page acks).
inline constexpr uint64_t bot_ack_interval_ticks = 6;

struct BotFigures {
    bool welcomed = false;
    uint32_t player = watcher_id;
    uint64_t tick = 0;             // the newest frame's tick
    uint32_t steers_sent = 0;
    uint64_t acks_sent = 0;
    uint64_t malformed_in = 0;     // server messages that did not decode (ignored)
    bool refused = false;          // the room sent an ErrorMsg
};

class ScriptedBot {
public:
    // `seed` chooses the path; bots with different seeds take different paths.
    explicit ScriptedBot(uint64_t seed);

    // The connection opened: queues the hello (role play, this build's fingerprint).
    void on_connected();
    // One whole server message: the welcome gives the arena, each frame may start a new leg
    // (a steer) and is acked every bot_ack_interval_ticks ticks.
    void receive(std::span<const uint8_t> message);
    // Appends each queued outgoing message and empties the queue.
    void take_outgoing(std::vector<std::vector<uint8_t>>& out);

    const BotFigures& figures() const { return figures_; }
    // The waypoint it heads for now (meaningful once welcomed).
    Vec2 target() const { return target_; }

private:
    template <class M>
    void send(const M& message);
    void next_leg(uint64_t tick);

    XorShift random_;
    Fx arena_size_;
    Vec2 target_;
    uint64_t leg_ends_at_ = 0;
    uint64_t last_acked_tick_ = 0;
    uint32_t next_sequence_ = 1;
    BotFigures figures_;
    std::vector<std::vector<uint8_t>> outgoing_;
};

}  // namespace tandem::net
