// InterpolationClock arithmetic: integer nanoseconds, rates in Q16.16, every sum saturating
// (server times come off the wire), and rounding stated where it happens.
#include "tandem/net/interpolation_clock.hpp"

#include "tandem/core/timestep.hpp"
#include "tandem/core/wide.hpp"
#include "tandem/net/link_arith.hpp"

namespace tandem::net {

namespace {

std::optional<LinkError> check_delay(int64_t delay_ns) {
    if (delay_ns < 0) return LinkError::delay_negative;
    if (delay_ns > longest_duration_ns) return LinkError::delay_too_long;
    return std::nullopt;
}

Fx unit_clamp(Fx f) { return clamp(f, Fx::zero(), Fx::one()); }

}  // namespace

Result<InterpolationClock, LinkError> InterpolationClock::create(int64_t delay_ns) {
    if (auto error = check_delay(delay_ns)) return *error;
    return InterpolationClock(delay_ns);
}

Result<void, LinkError> InterpolationClock::set_delay(int64_t delay_ns) {
    if (auto error = check_delay(delay_ns)) return *error;
    delay_ns_ = delay_ns;
    return {};
}

void InterpolationClock::start(int64_t server_time) {
    started_ = true;
    position_ = server_time;
    rate_ = Fx::one();
    remainder_ = 0;
}

void InterpolationClock::observe(int64_t server_time) {
    if (!started_) start(server_time);
}

void InterpolationClock::advance(int64_t dt_ns) {
    if (!started_ || dt_ns <= 0) return;
    position_ = sat_add(position_, dt_ns);
}

std::optional<int64_t> InterpolationClock::target() const {
    if (!started_) return std::nullopt;
    return sat_sub(position_, delay_ns_);
}

std::optional<int64_t> InterpolationClock::position() const {
    if (!started_) return std::nullopt;
    return position_;
}

void InterpolationClock::resync(int64_t newest_server_time, Fx fraction) {
    if (!started_) {
        start(newest_server_time);
        return;
    }
    const int64_t error = sat_sub(newest_server_time, position_);
    position_ = sat_add(position_, scale_ns(error, unit_clamp(fraction)));
}

void InterpolationClock::observe_rate(int64_t newest_server_time, Fx max_fraction) {
    if (!started_) {
        start(newest_server_time);
        return;
    }
    const int64_t error = sat_sub(newest_server_time, position_);
    // error / horizon in Q16.16, rounded to nearest (ties to even), saturating.
    const int64_t offset_raw = mul_div_round(error, Fx::one_raw, rate_steering_horizon_ns);
    const int64_t bound = unit_clamp(max_fraction).raw();
    const int64_t clamped = offset_raw > bound ? bound : offset_raw < -bound ? -bound : offset_raw;
    rate_ = Fx::from_raw(static_cast<int32_t>(Fx::one_raw + clamped));  // in [0, 2^17]
}

void InterpolationClock::advance_scaled(int64_t dt_ns) {
    if (!started_ || dt_ns <= 0) return;
    // dt * rate in 2^-16 ns, plus what earlier calls left over; pay out the whole
    // nanoseconds (floor: rate >= 0, so the sum is non-negative) and carry the rest.
    const Wide scaled = Wide::mul(dt_ns, rate_.raw()) + Wide::from_i64(remainder_);
    const int64_t whole = scaled.shr(Fx::frac_bits).to_i64_saturating();
    remainder_ = static_cast<int64_t>(scaled.lo() & (Fx::one_raw - 1));
    position_ = sat_add(position_, whole);
}

}  // namespace tandem::net
