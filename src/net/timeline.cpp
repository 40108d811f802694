// RttEstimator and Timeline: integer nanoseconds throughout, saturating where a value came off
// the wire, rounding stated at each division. Nothing here reads a clock.
#include "tandem/net/timeline.hpp"

#include "tandem/net/link_arith.hpp"

namespace tandem::net {

// ---- RttEstimator ------------------------------------------------------------------------

bool RttEstimator::observe(int64_t sample_ns) {
    if (sample_ns < 0 || sample_ns > longest_rtt_sample_ns) return false;
    latest_ = sample_ns;
    if (samples_ == 0) {
        srtt_ = sample_ns;
        rttvar_ = (sample_ns + 1) / 2;
    } else {
        // All terms are non-negative and below 2^53, so the sums cannot overflow.
        const int64_t deviation = abs_diff(srtt_, sample_ns);
        rttvar_ = (3 * rttvar_ + deviation + 2) / 4;
        srtt_ = (7 * srtt_ + sample_ns + 4) / 8;
    }
    ++samples_;
    return true;
}

std::optional<int64_t> RttEstimator::rtt() const {
    if (samples_ == 0) return std::nullopt;
    return srtt_;
}

std::optional<int64_t> RttEstimator::jitter() const {
    if (samples_ == 0) return std::nullopt;
    return rttvar_;
}

std::optional<int64_t> RttEstimator::latest() const {
    if (samples_ == 0) return std::nullopt;
    return latest_;
}

// ---- Timeline ----------------------------------------------------------------------------

Probe Timeline::begin(int64_t now) { return Probe{now, epoch_}; }

ProbeOutcome Timeline::complete(const Probe& probe, int64_t now, int64_t responder_time) {
    if (probe.epoch != epoch_) {
        ++discarded_probes_;
        return ProbeOutcome::stale_epoch;
    }
    const int64_t sample = sat_sub(now, probe.sent_at);
    if (!rtt_.observe(sample)) {
        ++discarded_probes_;
        return ProbeOutcome::impossible;
    }
    bound_offset(sat_sub(responder_time, now), sat_sub(responder_time, probe.sent_at));
    return ProbeOutcome::recorded;
}

void Timeline::note_stamp(int64_t server_time, int64_t now) { bound_offset(sat_sub(server_time, now), std::nullopt); }

void Timeline::bound_offset(int64_t low, std::optional<int64_t> high) {
    const int64_t new_low = offset_low_ && *offset_low_ > low ? *offset_low_ : low;
    std::optional<int64_t> new_high = offset_high_;
    if (high && (!new_high || *high < *new_high)) new_high = high;
    if (new_high && new_low > *new_high) {
        // Contradiction: no offset satisfies every observation, so a clock jumped or the two
        // clocks drifted apart. Only the newest observation is still trustworthy.
        ++clock_resets_;
        offset_low_ = low;
        offset_high_ = high;
        return;
    }
    offset_low_ = new_low;
    offset_high_ = new_high;
}

std::optional<int64_t> Timeline::server_time(int64_t now) const {
    if (!offset_low_) return std::nullopt;
    int64_t offset = *offset_low_;
    if (offset_high_) {
        // The midpoint, rounded down; high >= low, so the span fits in uint64_t.
        const uint64_t span = static_cast<uint64_t>(*offset_high_) - static_cast<uint64_t>(offset);
        offset = sat_add(offset, static_cast<int64_t>(span / 2));
    }
    return sat_add(now, offset);
}

void Timeline::on_reconnect() {
    ++epoch_;
    offset_low_.reset();
    offset_high_.reset();
}

void Timeline::on_resume() { ++epoch_; }

}  // namespace tandem::net
