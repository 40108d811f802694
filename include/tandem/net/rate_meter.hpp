// RateMeter: a running total, a sample count and a clock the caller supplies, read as a
// rolling rate over the last eight seconds (for a figure somebody watches) and as a lifetime
// rate (for a summary of a fixed run). A lifetime average on a live readout creeps toward a
// new steady state for minutes and looks like a leak; the rolling one follows a change within
// the window and falls to zero when traffic stops. Integer arithmetic only, time passed in.
#pragma once

#include <array>
#include <cstdint>

#include "tandem/core/fixed.hpp"

namespace tandem::net {

class RateMeter {
public:
    // The rolling window is made of whole buckets of bucket_ns, aligned to the first
    // elapsed() call; it covers the last window_buckets buckets that have closed (the one
    // still filling is left out, so a steady rate reads exactly and the readout changes
    // once a second, as fast as a person can read it anyway).
    static constexpr int64_t bucket_ns = 1'000'000'000;
    static constexpr uint32_t window_buckets = 8;
    static constexpr int64_t window_ns = bucket_ns * window_buckets;

    // One sample carrying amount (bytes, entities, ...), counted at the time of the next
    // elapsed() call. Totals saturate at 2^63 - 1.
    void add(uint64_t amount);
    // One sample carrying nothing: counts toward mean(), not toward the amount.
    void add_empty();
    // The caller's clock, once a tick (the simulation clock, not wall time, for figures a
    // test must reproduce). The first call starts the meter; a time earlier than the last
    // one is ignored; a jump of any length costs O(window_buckets).
    void elapsed(int64_t now);

    // Amount per second over the closed buckets of the window (up to eight seconds), rounded
    // to nearest with ties to even; 0 before the first bucket closes.
    uint64_t per_sec() const;
    // Amount per second since the meter started (or was reset), rounded like per_sec; 0 until
    // time has passed.
    uint64_t lifetime_per_sec() const;
    // Amount per sample over the same window as per_sec, rounded like it; 0 without samples.
    uint64_t mean() const;
    // This meter's lifetime total as a fraction of whole's, in [0, 1]: Fx rounded to nearest
    // (ties to even), clamped to 1 if this total is the larger (a part cannot exceed its
    // whole), 0 when whole's total is 0. Lifetime totals rather than windows, so two meters
    // fed side by side need not have aligned buckets.
    Fx share_of(const RateMeter& whole) const;
    // Forgets everything, including the start: call it when the world is rebuilt so the
    // rates cover only the current one.
    void reset();

    uint64_t total() const { return static_cast<uint64_t>(total_amount_); }
    uint64_t samples() const { return static_cast<uint64_t>(total_samples_); }
    // What per_sec and mean divide: the window's amount, samples and covered time.
    uint64_t window_amount() const;
    uint64_t window_samples() const;
    int64_t window_covered_ns() const { return int64_t{closed_} * bucket_ns; }

private:
    void close_bucket(int64_t amount, int64_t samples);

    bool started_ = false;
    int64_t start_ = 0;
    int64_t now_ = 0;
    int64_t bucket_start_ = 0;
    int64_t filling_amount_ = 0;
    int64_t filling_samples_ = 0;
    std::array<int64_t, window_buckets> amounts_{};
    std::array<int64_t, window_buckets> sample_counts_{};
    uint32_t next_ = 0;    // the ring slot the next closed bucket goes into
    uint32_t closed_ = 0;  // closed buckets held, at most window_buckets
    int64_t total_amount_ = 0;
    int64_t total_samples_ = 0;
};

}  // namespace tandem::net
