// Timeline: round-trip time, jitter and the server's clock as seen from a client, measured
// from ping probes and from the server's stamps on ordinary messages. Measurements size
// buffers and fill a readout; they never decide which moment is on screen or when an input
// executes. Epochs keep a probe that straddles a suspend or a reconnect from being recorded:
// such a probe measures the suspend, not the link.
#pragma once

#include <cstdint>
#include <optional>

namespace tandem::net {

// The longest round trip recorded, 2^50 ns (about 13 days). Anything longer is not a
// measurement of a link; the bound also keeps the estimator's 8 * srtt within int64_t.
inline constexpr int64_t longest_rtt_sample_ns = int64_t{1} << 50;

// The classic smoothed round-trip estimator of TCP (RFC 6298, section 2), in integer
// nanoseconds. The first sample R sets SRTT = R and RTTVAR = R / 2; each later sample sets
//   RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|   (with the SRTT from before this sample)
//   SRTT   = 7/8 SRTT   + 1/8 R
// Every division rounds to nearest with halves up: (x + d/2) / d on non-negative x.
class RttEstimator {
public:
    // Records one round trip. Refused (returns false, nothing changes) when negative or
    // longer than longest_rtt_sample_ns.
    bool observe(int64_t sample_ns);
    // SRTT: the smoothed round trip; nullopt before the first sample.
    std::optional<int64_t> rtt() const;
    // RTTVAR: the smoothed mean deviation of the round trip; nullopt before the first sample.
    std::optional<int64_t> jitter() const;
    // The newest sample as measured; nullopt before the first.
    std::optional<int64_t> latest() const;
    uint64_t samples() const { return samples_; }

private:
    uint64_t samples_ = 0;
    int64_t srtt_ = 0;
    int64_t rttvar_ = 0;
    int64_t latest_ = 0;
};

// A ping in flight: when it left (local time) and the epoch it left in.
struct Probe {
    int64_t sent_at = 0;
    uint32_t epoch = 0;
};

enum class ProbeOutcome : uint8_t {
    recorded = 0,      // a round trip and a server-clock bound were recorded
    stale_epoch = 1,   // begun before a resume or reconnect: discarded
    impossible = 2,    // answered before it was sent, or longer than longest_rtt_sample_ns: discarded
};

// Server time is estimated as an offset (server minus local) bounded from both sides:
//   - a stamp server_time received at local `now` proves the server had reached
//     server_time by then: offset >= server_time - now;
//   - a probe sent at s and answered with responder time r, received at now, proves the
//     server read its clock between s and now: offset in [r - now, r - s].
// The bounds from every observation are intersected and server_time(now) is now plus the
// midpoint of what remains (rounded down), or the lower bound while no probe has answered.
// So the estimate is never behind a stamp already received and within half the shortest
// round trip of the truth. If the bounds ever contradict each other (a clock jumped or
// drifted), they restart from the newest observation alone and clock_resets() counts it.
class Timeline {
public:
    // Starts a probe: send probe.sent_at in the ping, keep the Probe for its answer.
    Probe begin(int64_t now);
    // The answer to a probe: now is the local time it arrived, responder_time the server's
    // stamp in the pong. A probe from an earlier epoch is discarded, not recorded.
    ProbeOutcome complete(const Probe& probe, int64_t now, int64_t responder_time);
    // Any message the server stamped, received at local time now.
    void note_stamp(int64_t server_time, int64_t now);

    // The estimated server time at local time now; nullopt before any probe or stamp.
    std::optional<int64_t> server_time(int64_t now) const;
    std::optional<int64_t> rtt() const { return rtt_.rtt(); }
    std::optional<int64_t> jitter() const { return rtt_.jitter(); }
    const RttEstimator& estimator() const { return rtt_; }

    // The socket changed: a new epoch, and the server-clock bounds are forgotten (a new
    // connection may reach another server process whose clock began elsewhere). The round
    // trip estimate is kept as a prior; new samples move it within a few probes.
    void on_reconnect();
    // Wall time jumped (the page was suspended, the machine slept): a new epoch. Estimates
    // are kept; bounds a local clock that paused no longer satisfies restart by themselves.
    void on_resume();

    uint32_t epoch() const { return epoch_; }
    uint64_t discarded_probes() const { return discarded_probes_; }
    uint64_t clock_resets() const { return clock_resets_; }

private:
    void bound_offset(int64_t low, std::optional<int64_t> high);

    RttEstimator rtt_;
    uint32_t epoch_ = 0;
    uint64_t discarded_probes_ = 0;
    uint64_t clock_resets_ = 0;
    std::optional<int64_t> offset_low_;
    std::optional<int64_t> offset_high_;
};

}  // namespace tandem::net
