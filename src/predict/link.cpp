// ClockSyncEstimator from tandem/predict/link.hpp: the min-RTT filter over a sliding window.
// Presentation and measurement only; it never decides which tick an input executes on.
#include "tandem/predict/link.hpp"

namespace tandem::predict {

bool ClockSyncEstimator::add_sample(int64_t sent, int64_t remote, int64_t received) {
    if (received < sent) return false;
    const int64_t round_trip = received - sent;
    // remote - (sent + received) / 2, without losing the half unit an integer halving would.
    const double offset = static_cast<double>(remote - sent) - static_cast<double>(round_trip) / 2.0;
    samples_.push_back(Probe{round_trip, offset});
    if (samples_.size() > window_) samples_.pop_front();
    return true;
}

const ClockSyncEstimator::Probe* ClockSyncEstimator::best() const {
    const Probe* best = nullptr;
    for (const Probe& p : samples_)
        if (!best || p.round_trip <= best->round_trip) best = &p;  // <=: the newest wins a tie
    return best;
}

std::optional<double> ClockSyncEstimator::offset() const {
    const Probe* b = best();
    if (!b) return std::nullopt;
    return b->offset;
}

std::optional<int64_t> ClockSyncEstimator::round_trip() const {
    const Probe* b = best();
    if (!b) return std::nullopt;
    return b->round_trip;
}

std::optional<double> ClockSyncEstimator::remote_time(int64_t local) const {
    const Probe* b = best();
    if (!b) return std::nullopt;
    return static_cast<double>(local) + b->offset;
}

}  // namespace tandem::predict
