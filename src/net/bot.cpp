// ScriptedBot: the protocol's client end reduced to what a scripted player needs (see bot.hpp).
#include "tandem/net/bot.hpp"

#include <utility>
#include <variant>

#include "tandem/world/world.hpp"

namespace tandem::net {

ScriptedBot::ScriptedBot(uint64_t seed) : random_(seed) {}

template <class M>
void ScriptedBot::send(const M& message) {
    std::vector<uint8_t> bytes;
    encode(bytes, message);
    outgoing_.push_back(std::move(bytes));
}

void ScriptedBot::on_connected() {
    send(Hello{.version = protocol_version, .fingerprint = world::fingerprint_hash(), .role = Role::play});
}

// A waypoint uniformly inside the arena less a margin of an eighth of its side on each side,
// in whole raw units (integer draws only), and how long it is held.
void ScriptedBot::next_leg(uint64_t tick) {
    const int32_t side = arena_size_.raw();
    const int32_t margin = side / 8 * static_cast<int32_t>(bot_margin_eighths);
    const uint32_t span = static_cast<uint32_t>(side - 2 * margin);
    const int32_t x = margin + static_cast<int32_t>(random_.below(span));
    const int32_t y = margin + static_cast<int32_t>(random_.below(span));
    target_ = Vec2{Fx::from_raw(x), Fx::from_raw(y)};
    leg_ends_at_ = tick + bot_leg_min_ticks + random_.below(bot_leg_spread_ticks);
    send(InputMsg{.sequence = next_sequence_++, .target = target_});
    figures_.steers_sent += 1;
}

void ScriptedBot::receive(std::span<const uint8_t> message) {
    auto decoded = decode_server(message);
    if (!decoded) {
        figures_.malformed_in += 1;
        return;
    }
    if (const auto* welcome = std::get_if<Welcome>(&decoded.value())) {
        figures_.welcomed = true;
        figures_.player = welcome->player;
        arena_size_ = welcome->config.arena_size;
        figures_.tick = welcome->server_tick;
        last_acked_tick_ = welcome->server_tick;
        next_leg(welcome->server_tick);
    } else if (const auto* frame = std::get_if<Frame>(&decoded.value())) {
        figures_.tick = frame->tick;
        if (!figures_.welcomed) return;
        if (frame->tick >= leg_ends_at_) next_leg(frame->tick);
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
    // Baselines, pongs and sections need nothing from a bot that holds no world.
}

void ScriptedBot::take_outgoing(std::vector<std::vector<uint8_t>>& out) {
    for (auto& m : outgoing_) out.push_back(std::move(m));
    outgoing_.clear();
}

}  // namespace tandem::net
