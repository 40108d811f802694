// The non-template halves of tandem/predict/smoothing.hpp: AdaptiveDecay's rate and the
// CorrectionMonitor's running baseline. Presentation only; nothing here feeds a rule.
#include "tandem/predict/smoothing.hpp"

#include <algorithm>
#include <cmath>

namespace tandem::predict {

float AdaptiveDecay::keep_per_frame(float error) const {
    const float e = std::fabs(error);
    if (!(e > small_error)) return small_keep;  // also NaN: decay gently rather than not at all
    if (e >= large_error) return large_keep;
    const float t = (e - small_error) / (large_error - small_error);
    return small_keep + (large_keep - small_keep) * t;
}

bool CorrectionMonitor::record(float distance) {
    // A non-finite correction is abnormal by any standard, and must not poison the baseline.
    if (!std::isfinite(distance)) {
        ++alarms_;
        return true;
    }
    distance = std::fabs(distance);
    bool abnormal = false;
    if (warmed_up() && distance > threshold()) {
        abnormal = true;
        ++alarms_;
    }
    ++samples_;
    if (samples_ == 1) {
        mean_ = distance;
        return abnormal;
    }
    // A plain average over the first samples (so the baseline does not start from zero),
    // then an exponential one that follows changing conditions.
    const float weight = std::max(1.0f / static_cast<float>(samples_), gain);
    deviation_ += weight * (std::fabs(distance - mean_) - deviation_);
    mean_ += weight * (distance - mean_);
    return abnormal;
}

float CorrectionMonitor::threshold() const { return std::max(floor_, mean_ + deviations * deviation_); }

}  // namespace tandem::predict
