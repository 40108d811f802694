// The seam between the transport and the room: the calls the server makes on a room and
// what it takes back, in the transport's own terms (WebSocket close codes, shared frame
// buffers). The transport decides nothing about the game; it must never copy a frame per
// recipient or reorder what the room queued for one connection.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tandem::server {

using ConnectionId = uint32_t;
// A peer's address as the budgets count it (budgets.hpp's address_key): 16 bytes, an IPv4
// address as its v4-mapped IPv6 form, an IPv6 one cut to its /64 (the block one subscriber
// gets, so one attacker is one key however many addresses it uses).
using AddressKey = std::array<uint8_t, 16>;
// One encoded message, shared by every recipient and held until the last write of it ends.
using SharedBytes = std::shared_ptr<const std::vector<uint8_t>>;

struct Outgoing {
    ConnectionId to = 0;
    SharedBytes bytes;
};

// The room wants this connection closed once what it queued before is sent.
struct CloseOrder {
    ConnectionId who = 0;
    uint16_t code = 1000;      // the WebSocket close code
    std::string reason;        // snake_case, sent as the close frame's reason
};

// The room's own figures for /metrics, as plain integers (counters only ever grow).
struct RoomFigures {
    uint64_t tick = 0;
    uint32_t players = 0;
    uint32_t watchers = 0;
    uint32_t seats = 0;        // player seats the room offers (GET /rooms)
    uint64_t frames_built = 0;
    uint64_t baselines_sent = 0;
    uint64_t flow_control_pauses = 0;
    uint64_t inputs_rate_limited = 0;
    uint64_t desync_reports = 0;
    int64_t last_step_ns = 0;  // the world step alone, inside the last tick
    // Resume: seats kept for a dropped player's token now, hellos that took one back, tokens
    // refused, kept seats whose grace ended.
    uint32_t held_seats = 0;
    uint64_t resumes = 0;
    uint64_t resumes_refused = 0;
    uint64_t seats_expired = 0;
    // Hellos refused because their address held its share of seats, of watcher places.
    uint64_t seats_refused_per_address = 0;
    uint64_t watchers_refused_per_address = 0;
    // Every refusal the room sent, by its error's name (a fixed set of names: the room's codes).
    std::vector<std::pair<std::string, uint64_t>> refusals;
    // The room's store refused a write or its lease: another process may serve it now, so this
    // one has closed its clients and stopped; the transport stops hosting it (the default room:
    // the process drains, for whatever supervises it to start it again).
    bool lost = false;
};

class RoomPort {
public:
    virtual ~RoomPort() = default;
    // A WebSocket opened (origin already checked) from `address`, which the room counts its
    // per-address seats and places against.
    virtual ConnectionId connect(int64_t now_ns, const AddressKey& address) = 0;
    virtual void receive(ConnectionId id, std::span<const uint8_t> message, int64_t now_ns) = 0;
    virtual void disconnect(ConnectionId id, int64_t now_ns) = 0;  // the socket closed, for any reason
    virtual void tick(int64_t now_ns) = 0;
    virtual void shut_down(int64_t now_ns) = 0;  // every connection: close with 1001
    // The room ends for good (a created room closed for idleness): shut down, and what would
    // bring it back (its checkpoint in a store) goes too.
    virtual void retire(int64_t now_ns) { shut_down(now_ns); }
    // A rolling restart (SIGTERM beside peers sharing the store): the room stops here with its
    // seats kept and its checkpoint and lease given back, sends nothing and closes nothing, so
    // the transport can tell each client where the room went. false: the room cannot be handed
    // over (no store) and shut down as usual instead.
    virtual bool hand_off(int64_t now_ns) {
        shut_down(now_ns);
        return false;
    }
    // Everything to send or close since the last call, in order per connection.
    virtual void take_outbox(std::vector<Outgoing>& sends, std::vector<CloseOrder>& closes) = 0;
    virtual RoomFigures figures() const = 0;
    // The largest binary message a client may legally send: the transport's read limit.
    virtual uint32_t max_client_message_bytes() const = 0;
    // The simulation's rate: the tick driver steps at this many ticks per second.
    virtual uint32_t tick_hz() const = 0;
};

}  // namespace tandem::server
