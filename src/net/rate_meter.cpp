// RateMeter: a ring of eight one-second buckets and two lifetime totals, all int64_t with
// saturating sums, divided exactly in 128 bits and rounded to nearest (ties to even).
#include "tandem/net/rate_meter.hpp"

#include "tandem/core/timestep.hpp"
#include "tandem/net/link_arith.hpp"

namespace tandem::net {

namespace {

int64_t clamp_amount(uint64_t amount) {
    return amount > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(amount);
}

template <size_t N>
int64_t ring_sum(const std::array<int64_t, N>& ring) {
    int64_t sum = 0;
    for (int64_t v : ring) sum = sat_add(sum, v);
    return sum;
}

}  // namespace

void RateMeter::add(uint64_t amount) {
    const int64_t a = clamp_amount(amount);
    filling_amount_ = sat_add(filling_amount_, a);
    filling_samples_ = sat_add(filling_samples_, 1);
    total_amount_ = sat_add(total_amount_, a);
    total_samples_ = sat_add(total_samples_, 1);
}

void RateMeter::add_empty() {
    filling_samples_ = sat_add(filling_samples_, 1);
    total_samples_ = sat_add(total_samples_, 1);
}

void RateMeter::close_bucket(int64_t amount, int64_t samples) {
    amounts_[next_] = amount;
    sample_counts_[next_] = samples;
    next_ = (next_ + 1) % window_buckets;
    if (closed_ < window_buckets) ++closed_;
}

void RateMeter::elapsed(int64_t now) {
    if (!started_) {
        started_ = true;
        start_ = now_ = bucket_start_ = now;
        return;
    }
    if (now < now_) return;
    now_ = now;
    const int64_t passed = sat_sub(now, bucket_start_) / bucket_ns;  // whole buckets, >= 0
    if (passed == 0) return;
    close_bucket(filling_amount_, filling_samples_);
    filling_amount_ = 0;
    filling_samples_ = 0;
    // Buckets that passed with no elapsed() call in them were empty. More than a window of
    // them leaves the same (empty) window as exactly a window, so the loop is bounded.
    const int64_t empty = passed - 1 < int64_t{window_buckets} ? passed - 1 : int64_t{window_buckets};
    for (int64_t i = 0; i < empty; ++i) close_bucket(0, 0);
    // passed * bucket_ns <= now - bucket_start_, so this cannot overflow.
    bucket_start_ += passed * bucket_ns;
}

uint64_t RateMeter::window_amount() const { return static_cast<uint64_t>(ring_sum(amounts_)); }
uint64_t RateMeter::window_samples() const { return static_cast<uint64_t>(ring_sum(sample_counts_)); }

uint64_t RateMeter::per_sec() const {
    if (closed_ == 0) return 0;
    return static_cast<uint64_t>(mul_div_round(ring_sum(amounts_), ns_per_second, window_covered_ns()));
}

uint64_t RateMeter::lifetime_per_sec() const {
    const int64_t covered = now_ - start_;  // both set by elapsed(), now_ >= start_
    if (covered <= 0) return 0;
    return static_cast<uint64_t>(mul_div_round(total_amount_, ns_per_second, covered));
}

uint64_t RateMeter::mean() const {
    const int64_t samples = ring_sum(sample_counts_);
    if (samples == 0) return 0;
    return static_cast<uint64_t>(mul_div_round(ring_sum(amounts_), 1, samples));
}

Fx RateMeter::share_of(const RateMeter& whole) const {
    if (whole.total_amount_ == 0) return Fx::zero();
    const int64_t part = total_amount_ < whole.total_amount_ ? total_amount_ : whole.total_amount_;
    return Fx::from_raw(static_cast<int32_t>(mul_div_round(part, Fx::one_raw, whole.total_amount_)));
}

void RateMeter::reset() { *this = RateMeter{}; }

}  // namespace tandem::net
