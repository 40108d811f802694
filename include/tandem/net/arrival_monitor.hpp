// ArrivalMonitor: the render delay an interpolated stream needs, measured, because nothing
// tells a real client the send interval or how late packets arrive. One per stream. It only
// reports; whether to adapt the delay is the caller's choice, and a delay that silently
// follows the link hides a bad link instead of reporting it.
#pragma once

#include <cstdint>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "tandem/core/result.hpp"
#include "tandem/net/link_error.hpp"

namespace tandem::net {

// The largest window accepted: a few seconds at any plausible send rate, and a bound on the
// memory and the per-packet work (one selection over the window).
inline constexpr uint32_t max_arrival_window = 4096;

struct ArrivalConfig {
    // How many recent packets the figures are taken over; also the warm-up: until this many
    // have arrived the quantile rests on too few packets to mean anything (5% of twenty
    // packets is one packet's luck). 120 is two seconds of a 60 Hz stream.
    uint32_t window_samples = 120;
    // The fraction of packets the delay may leave late, in [0, 1): 1/20 sizes the delay for
    // the 95th percentile of lateness. Zero sizes it for the latest packet in the window.
    Fx late_fraction = ratio(1, 20);
};

class ArrivalMonitor {
public:
    static Result<ArrivalMonitor, LinkError> create(const ArrivalConfig& config = {});

    // One packet: the server time it was stamped with and the estimated server time when it
    // arrived (Timeline::server_time). Lateness is their difference (negative when the
    // estimate runs behind); the send interval is the step between consecutive stamps
    // (repeated or backward stamps add no interval).
    void observe(int64_t server_time, int64_t estimated_server_now);

    // The render delay the stream needs: the lateness that all but late_fraction of the
    // window's packets stayed within, plus the send interval (a target must wait for the
    // packet after it as well as for that packet's transit), never below 0. Exactly: with
    // n lateness samples sorted ascending and k = floor(late_fraction.raw * n / 65536)
    // packets allowed late, the quantile is the (n-1-k)-th; the interval is the lower
    // median of the window's intervals. 0 before the first packet.
    int64_t needed_delay() const { return needed_delay_; }
    // Whether a full window has arrived (and so needed_delay means something).
    bool warmed_up() const { return seen_ >= window_; }

    int64_t lateness_quantile() const { return lateness_quantile_; }
    int64_t send_interval() const { return send_interval_; }
    uint64_t packets() const { return seen_; }

private:
    ArrivalMonitor(uint32_t window, Fx late_fraction);
    void recompute();

    uint32_t window_;
    Fx late_fraction_;
    uint64_t seen_ = 0;
    bool have_last_ = false;
    int64_t last_stamp_ = 0;
    // Rings of the window's most recent lateness and interval samples.
    std::vector<int64_t> lateness_;
    uint32_t lateness_next_ = 0;
    std::vector<int64_t> intervals_;
    uint32_t intervals_next_ = 0;
    std::vector<int64_t> scratch_;
    int64_t lateness_quantile_ = 0;
    int64_t send_interval_ = 0;
    int64_t needed_delay_ = 0;
};

}  // namespace tandem::net
