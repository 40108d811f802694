// PredictedClient's rules that do not depend on the game (tandem/client/predicted.hpp holds
// PredictedClient<G>): its config's checks and their texts, the median lead and the per-frame
// percentile. Integers only.
#include "tandem/client/predicted.hpp"

#include <algorithm>

namespace tandem::client {

std::string_view error_name(PredictConfigError e) {
    switch (e) {
        case PredictConfigError::window_too_large: return "window_too_large";
        case PredictConfigError::budget_below_window: return "budget_below_window";
        case PredictConfigError::depth_above_window: return "depth_above_window";
    }
    return "unknown";
}

std::string_view describe(PredictConfigError e) {
    switch (e) {
        case PredictConfigError::window_too_large: return "the prediction window must be at most max_window_ticks (64) ticks";
        case PredictConfigError::budget_below_window:
            return "the re-simulation budget must be at least the prediction window and at most max_resim_budget_ticks";
        case PredictConfigError::depth_above_window: return "the initial depth must be at most the prediction window";
    }
    return "unknown prediction config error";
}

Result<void, PredictConfigError> validate(const PredictConfig& config) {
    if (config.window_ticks > max_window_ticks) return PredictConfigError::window_too_large;
    if (config.resim_budget_ticks < config.window_ticks || config.resim_budget_ticks > max_resim_budget_ticks)
        return PredictConfigError::budget_below_window;
    if (config.initial_depth_ticks > config.window_ticks) return PredictConfigError::depth_above_window;
    return {};
}

namespace detail {

uint32_t median_lead(std::span<const uint32_t> leads) {
    std::array<uint32_t, lead_samples> copy{};
    const std::size_t n = std::min<std::size_t>(leads.size(), lead_samples);
    std::copy_n(leads.begin(), n, copy.begin());
    std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(n / 2), copy.begin() + static_cast<std::ptrdiff_t>(n));
    return copy[n / 2];
}

namespace {
template <class T>
T p99(std::span<const T> ring, uint32_t count) {
    const std::size_t n = std::min<std::size_t>(count, ring.size());
    if (n == 0) return T{};
    std::vector<T> copy(ring.begin(), ring.begin() + static_cast<std::ptrdiff_t>(n));
    // The smallest value at or above 99% of the samples (nearest rank).
    const std::size_t rank = (n * 99 + 99) / 100 - 1;
    std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(rank), copy.end());
    return copy[rank];
}
}  // namespace

uint32_t percentile99(std::span<const uint32_t> ring, uint32_t count) { return p99(ring, count); }
int64_t percentile99(std::span<const int64_t> ring, uint32_t count) { return p99(ring, count); }

}  // namespace detail

}  // namespace tandem::client
