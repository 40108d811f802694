// LatencyLink<T>: a network in a test. Packets sent at a time are delivered after a latency
// with jitter, or lost, drawn from a seeded XorShift so every run and every build delivers
// the same packets at the same instants. Ordered by default, as TCP and WebSocket are: a
// queue that let a jittered packet overtake an earlier one would produce failures the real
// transport cannot. For tests and in-process matches only; it never touches a socket or a clock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"
#include "tandem/net/link_arith.hpp"

namespace tandem::net {

enum class LinkOrdering : uint8_t {
    ordered = 0,    // a packet never arrives before one sent earlier (TCP, WebSocket)
    unordered = 1,  // each packet keeps its own delay, so jitter reorders (UDP)
};

// Uniform in [0, n] over 64 bits with no bias: draw under the smallest all-ones mask that
// covers n and reject what lies above n (fewer than half the draws, so the loop ends fast).
inline uint64_t uniform_through(XorShift& rng, uint64_t n) {
    uint64_t mask = n;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    for (;;) {
        const uint64_t v = rng.next() & mask;
        if (v <= n) return v;
    }
}

template <class T>
class LatencyLink {
public:
    explicit LatencyLink(uint64_t seed, LinkOrdering ordering = LinkOrdering::ordered)
        : rng_(seed), ordering_(ordering) {}

    // Sends packet at now. It is lost with probability loss (Fx in [0, 1]: lost when a
    // uniform 16-bit draw falls below loss.raw, so exactly loss.raw / 65536; <= 0 never,
    // >= 1 always), else delivered latency_ns + a uniform offset in [-jitter_ns, +jitter_ns]
    // later (never before now). Ordered links then hold it back behind anything sent
    // earlier. Negative latency or jitter counts as 0. Every send draws the same numbers
    // (loss, then jitter) whatever the outcome, so changing the loss never shifts the
    // delays of the packets that survive.
    void send(int64_t now, T packet, int64_t latency_ns, int64_t jitter_ns, Fx loss) {
        ++sent_;
        const bool dropped = rng_.unit_fx() < loss;
        const int64_t jitter = jitter_ns > 0 ? jitter_ns : 0;
        const uint64_t span = static_cast<uint64_t>(jitter) * 2;  // jitter <= 2^63 - 1: fits
        const int64_t offset = static_cast<int64_t>(uniform_through(rng_, span) - static_cast<uint64_t>(jitter));
        if (dropped) {
            ++lost_;
            return;
        }
        int64_t delay = sat_add(latency_ns > 0 ? latency_ns : 0, offset);
        if (delay < 0) delay = 0;
        int64_t deliver_at = sat_add(now, delay);
        if (ordering_ == LinkOrdering::ordered && deliver_at < last_deliver_at_) deliver_at = last_deliver_at_;
        last_deliver_at_ = deliver_at;
        // (time, send order) is a total order: ties deliver in the order they were sent.
        in_flight_.emplace(Key{deliver_at, sent_}, std::move(packet));
    }

    // Every packet due at or before now, in delivery order.
    std::vector<T> drain_due(int64_t now) {
        std::vector<T> due;
        while (!in_flight_.empty() && in_flight_.begin()->first.deliver_at <= now) {
            due.push_back(std::move(in_flight_.begin()->second));
            in_flight_.erase(in_flight_.begin());
        }
        return due;
    }

    // When the next packet is due, if any is in flight.
    std::optional<int64_t> next_due() const {
        if (in_flight_.empty()) return std::nullopt;
        return in_flight_.begin()->first.deliver_at;
    }
    uint64_t in_flight() const { return in_flight_.size(); }
    uint64_t sent() const { return sent_; }
    uint64_t lost() const { return lost_; }
    LinkOrdering ordering() const { return ordering_; }

private:
    struct Key {
        int64_t deliver_at;
        uint64_t order;
        friend bool operator<(const Key& a, const Key& b) {
            return a.deliver_at != b.deliver_at ? a.deliver_at < b.deliver_at : a.order < b.order;
        }
    };

    XorShift rng_;
    LinkOrdering ordering_;
    std::map<Key, T> in_flight_;
    int64_t last_deliver_at_ = INT64_MIN;
    uint64_t sent_ = 0;
    uint64_t lost_ = 0;
};

}  // namespace tandem::net
