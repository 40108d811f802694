// ArrivalMonitor: two fixed-size rings and an order statistic over each, recomputed per
// packet. std::nth_element's arrangement differs between standard libraries, but the value
// it selects (the k-th smallest integer) does not, so every build reports the same delay.
#include "tandem/net/arrival_monitor.hpp"

#include <algorithm>

#include "tandem/net/link_arith.hpp"

namespace tandem::net {

namespace {

// The k-th smallest of values (0-based), selected in scratch so values keep their ring order.
int64_t kth_smallest(const std::vector<int64_t>& values, uint32_t k, std::vector<int64_t>& scratch) {
    scratch.assign(values.begin(), values.end());
    std::nth_element(scratch.begin(), scratch.begin() + k, scratch.end());
    return scratch[k];
}

void ring_push(std::vector<int64_t>& ring, uint32_t& next, uint32_t capacity, int64_t value) {
    if (ring.size() < capacity) {
        ring.push_back(value);
        return;
    }
    ring[next] = value;
    next = (next + 1) % capacity;
}

}  // namespace

Result<ArrivalMonitor, LinkError> ArrivalMonitor::create(const ArrivalConfig& config) {
    if (config.window_samples == 0) return LinkError::window_zero;
    if (config.window_samples > max_arrival_window) return LinkError::window_too_large;
    if (config.late_fraction < Fx::zero() || config.late_fraction >= Fx::one()) return LinkError::fraction_out_of_range;
    return ArrivalMonitor(config.window_samples, config.late_fraction);
}

ArrivalMonitor::ArrivalMonitor(uint32_t window, Fx late_fraction) : window_(window), late_fraction_(late_fraction) {
    lateness_.reserve(window);
    intervals_.reserve(window);
    scratch_.reserve(window);
}

void ArrivalMonitor::observe(int64_t server_time, int64_t estimated_server_now) {
    ring_push(lateness_, lateness_next_, window_, sat_sub(estimated_server_now, server_time));
    if (have_last_ && server_time > last_stamp_) {
        ring_push(intervals_, intervals_next_, window_, sat_sub(server_time, last_stamp_));
    }
    if (!have_last_ || server_time > last_stamp_) last_stamp_ = server_time;
    have_last_ = true;
    ++seen_;
    recompute();
}

void ArrivalMonitor::recompute() {
    const uint32_t n = static_cast<uint32_t>(lateness_.size());  // >= 1 here
    // floor(fraction * n): raw < 2^16 and n <= 2^12, so the product fits easily.
    const uint32_t allowed_late = static_cast<uint32_t>((int64_t{late_fraction_.raw()} * n) >> Fx::frac_bits);
    lateness_quantile_ = kth_smallest(lateness_, n - 1 - allowed_late, scratch_);
    send_interval_ = 0;
    if (!intervals_.empty()) {
        const uint32_t m = static_cast<uint32_t>(intervals_.size());
        send_interval_ = kth_smallest(intervals_, (m - 1) / 2, scratch_);
    }
    const int64_t needed = sat_add(lateness_quantile_, send_interval_);
    needed_delay_ = needed > 0 ? needed : 0;
}

}  // namespace tandem::net
