// ScriptedBot<G>: a player of any game G that speaks the protocol like a page does (hello,
// commands, acks) and is scripted from a seed, for a room that runs with no server around it
// (the demo page's offline mode, tests). It holds no state of the game: it acks each frame with
// the room's own digest, so it costs the room a connection and the page no simulation. What it
// commands is the game's policy, G::Bot; everything it sends is a function of its seed and the
// messages it received, so the same seed drives the same match on every build.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <variant>
#include <vector>

#include "tandem/core/random.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/sim/simulation.hpp"

namespace tandem::net {

// What a game adds to Simulation for bots (a game without bots need not): G::Bot, a policy
//   G::Bot(const G::Config& config, uint32_t player)   made at the welcome, from what it says
//   std::optional<G::Command> next(uint64_t tick, XorShift& rng)
//                       called at the welcome's tick and then at each frame's, in order: the
//                       command to send now, or none to keep the last one. It draws only from
//                       the bot's rng and decides only from the config, its player and the tick
//                       (the bot holds no state of the game), so the seed decides everything.
template <class G>
concept HasBot = sim::Simulation<G> &&
                 requires(typename G::Bot& bot, const typename G::Config& config, uint32_t player, uint64_t tick,
                          XorShift& rng) {
                     typename G::Bot;
                     requires std::constructible_from<typename G::Bot, const typename G::Config&, uint32_t>;
                     { bot.next(tick, rng) } -> std::same_as<std::optional<typename G::Command>>;
                 };

// Acks: one every bot_ack_interval_ticks frames (ten a second at 60 Hz, as a page acks).
inline constexpr uint64_t bot_ack_interval_ticks = 6;

struct BotFigures {
    bool welcomed = false;
    uint32_t player = watcher_id;
    uint64_t tick = 0;             // the newest frame's tick
    uint32_t commands_sent = 0;
    uint64_t acks_sent = 0;
    uint64_t malformed_in = 0;     // server messages that did not decode (ignored)
    bool refused = false;          // the room sent an ErrorMsg
};

template <HasBot G>
class ScriptedBot {
public:
    // `seed` chooses the path; bots with different seeds take different paths.
    explicit ScriptedBot(uint64_t seed) : random_(seed) {}

    // The connection opened: queues the hello (role play, this build's game and fingerprint).
    void on_connected() { send(hello_for<G>(Role::play)); }

    // One whole server message: the welcome gives the game's config and the bot's player, each
    // frame may bring a new command and is acked every bot_ack_interval_ticks ticks.
    void receive(std::span<const uint8_t> message) {
        auto decoded = decode_server(message);
        if (!decoded) {
            figures_.malformed_in += 1;
            return;
        }
        if (const auto* welcome = std::get_if<Welcome>(&decoded.value())) {
            auto config = config_of<G>(*welcome);
            if (!config) {
                figures_.malformed_in += 1;
                return;
            }
            figures_.welcomed = true;
            figures_.player = welcome->player;
            figures_.tick = welcome->server_tick;
            last_acked_tick_ = welcome->server_tick;
            policy_.emplace(*config, welcome->player);
            consult(welcome->server_tick);
        } else if (const auto* frame = std::get_if<Frame>(&decoded.value())) {
            figures_.tick = frame->tick;
            if (!figures_.welcomed) return;
            consult(frame->tick);
            // Trusting the room: the digest acked is the frame's own, so the room's check of the
            // ack always agrees and its stream to this bot never pauses.
            if (frame->tick >= last_acked_tick_ + bot_ack_interval_ticks) {
                send(Ack{.holds = true, .tick = frame->tick, .digest = frame->digest});
                last_acked_tick_ = frame->tick;
                figures_.acks_sent += 1;
            }
        } else if (std::holds_alternative<ErrorMsg>(decoded.value())) {
            figures_.refused = true;
        }
        // Baselines, pongs and sections need nothing from a bot that holds no state.
    }

    // Appends each queued outgoing message and empties the queue.
    void take_outgoing(std::vector<std::vector<uint8_t>>& out) {
        for (auto& m : outgoing_) out.push_back(std::move(m));
        outgoing_.clear();
    }

    const BotFigures& figures() const { return figures_; }
    // The newest command it sent (a default Command before the first).
    const typename G::Command& command() const { return command_; }

private:
    template <class M>
    void send(const M& message) {
        std::vector<uint8_t> bytes;
        encode(bytes, message);
        outgoing_.push_back(std::move(bytes));
    }

    void consult(uint64_t tick) {
        std::optional<typename G::Command> next = policy_->next(tick, random_);
        if (!next) return;
        command_ = *next;
        send(input_message<G>(next_sequence_++, command_));
        figures_.commands_sent += 1;
    }

    XorShift random_;
    std::optional<typename G::Bot> policy_;   // from the welcome on
    typename G::Command command_{};
    uint64_t last_acked_tick_ = 0;
    uint32_t next_sequence_ = 1;
    BotFigures figures_;
    std::vector<std::vector<uint8_t>> outgoing_;
};

}  // namespace tandem::net
