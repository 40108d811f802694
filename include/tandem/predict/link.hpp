// Economising and measuring the link: InputCoalescer sends a held input only when it changes
// (plus a keepalive), ClockSyncEstimator estimates another clock's offset from round trips.
// Both are unit-agnostic: feed milliseconds and read milliseconds, but never mix units.
#pragma once

#include <concepts>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

namespace tandem::predict {

// For a server that holds the last input it received (pairs with HeldInputPredictor, never
// with PredictedPlayer, whose server consumes one input per step). The keepalive is what
// repairs a lost change: the server keeps applying the stale input until a resend arrives.
template <class Input>
    requires std::equality_comparable<Input> && std::default_initializable<Input>
class InputCoalescer {
public:
    // keepalive_ms <= 0 sends every input.
    explicit InputCoalescer(int64_t keepalive_ms) : keepalive_ms_(keepalive_ms) {}

    // True when `input` should go on the wire now: the first one, any change, or the same
    // input once keepalive_ms have passed since it was last sent. Records what it approves.
    bool should_send(const Input& input, int64_t now_ms) {
        if (have_last_ && last_ == input && now_ms - last_sent_ms_ < keepalive_ms_) {
            ++suppressed_;
            return false;
        }
        last_ = input;
        have_last_ = true;
        last_sent_ms_ = now_ms;
        ++sent_;
        return true;
    }

    // Forget what was sent (a new connection): the next input is sent whatever it is.
    void reset() { have_last_ = false; }
    uint64_t sent() const { return sent_; }
    uint64_t suppressed() const { return suppressed_; }

private:
    int64_t keepalive_ms_;
    Input last_{};   // meaningful only when have_last_
    bool have_last_ = false;
    int64_t last_sent_ms_ = 0;
    uint64_t sent_ = 0;
    uint64_t suppressed_ = 0;
};

// The offset of another clock from ours, from probes: we send at `sent` (our clock), the
// other end stamps `remote` (its clock), we receive at `received` (our clock). Assuming the
// two legs took equally long, remote = local + offset at the midpoint. Queuing delay makes
// legs unequal, and least on the quickest round trip, so the estimate is the offset of the
// sample with the smallest round trip among the last `window` (ties: the newest).
class ClockSyncEstimator {
public:
    explicit ClockSyncEstimator(uint32_t window = 8) : window_(window == 0 ? 1 : window) {}

    // Records one probe; false (and ignored) when it received before it sent.
    bool add_sample(int64_t sent, int64_t remote, int64_t received);

    // remote clock minus local clock, once a sample has been accepted.
    std::optional<double> offset() const;
    // The round trip of the sample the offset comes from.
    std::optional<int64_t> round_trip() const;
    // `local` on the other clock.
    std::optional<double> remote_time(int64_t local) const;
    uint32_t samples() const { return static_cast<uint32_t>(samples_.size()); }

private:
    struct Probe {
        int64_t round_trip;
        double offset;
    };
    const Probe* best() const;

    uint32_t window_;
    std::deque<Probe> samples_;
};

}  // namespace tandem::predict
