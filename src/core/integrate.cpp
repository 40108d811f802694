// The exactly rounded arithmetic behind the integrators and the timestep helpers. Each
// result is computed exactly in 64 or 128 bits (Wide) and rounded once; nothing here may
// round twice where once is possible, or overflow for any input.
#include "tandem/core/integrate.hpp"

#include "tandem/core/wide.hpp"

namespace tandem {

namespace {

// Bounded shifts for the Q-format bookkeeping below: products of two raw values carry
// 2^-32, of three 2^-48; Fx carries 2^-16.
constexpr int64_t pow2(int n) { return int64_t{1} << n; }

// v / 2^shift rounded to nearest, ties to even, for any int64 (shift in [1, 62]).
constexpr int64_t shift_round(int64_t v, int shift) {
    int64_t q = v >> shift;  // floor (arithmetic shift, defined in C++20)
    const int64_t rem = v & (pow2(shift) - 1);
    const int64_t half = pow2(shift - 1);
    if (detail::ties_to_even_up(rem, half, q)) ++q;
    return q;
}

constexpr Fx saturate_fx(int64_t raw) { return Fx::from_raw(detail::saturate32(raw)); }

}  // namespace

namespace detail {

Fx verlet_position(Fx x, Fx v, Fx a, Fx dt) {
    // Exact increment in units of 2^-49: 2 * v*dt (2^-32, lifted by 2^17) + a*dt*dt (2^-48,
    // doubled by the unit). |v*dt|, |a*dt| < 2^62, so both int64 products are exact and the
    // Wide sum is below 2^96.
    const int64_t v_dt = int64_t{v.raw()} * dt.raw();
    const int64_t a_dt = int64_t{a.raw()} * dt.raw();
    const Wide twice_increment = Wide::mul(v_dt, pow2(17)) + Wide::mul(a_dt, dt.raw());
    // |quotient| < 2^94 / 2^33 = 2^61, so div_round never saturates and x + increment fits.
    const int64_t increment = twice_increment.div_round(pow2(33));
    return saturate_fx(int64_t{x.raw()} + increment);
}

Fx verlet_velocity(Fx v, Fx a0, Fx a1, Fx dt) {
    // (a0 + a1) * dt / 2 in units of 2^-33. |a0 + a1| <= 2^32 and |dt| <= 2^31, so the
    // product can reach 2^63 exactly: Wide rather than int64.
    const Wide twice_dv = Wide::mul(int64_t{a0.raw()} + a1.raw(), dt.raw());
    const int64_t dv = twice_dv.div_round(pow2(17));  // |dv| <= 2^46
    return saturate_fx(int64_t{v.raw()} + dv);
}

Fx lerp(Fx a, Fx b, Fx t) {
    // |b - a| < 2^32 and |t| <= 2^31: the product is below 2^63 and exact in int64.
    const int64_t diff = int64_t{b.raw()} - a.raw();
    return saturate_fx(int64_t{a.raw()} + shift_round(diff * t.raw(), Fx::frac_bits));
}

}  // namespace detail

namespace {
// k*x^2 + v^2 in units of 2^-48 (twice the energy), exact.
Wide twice_energy_axis(Fx x, Fx v, Fx k) {
    const int64_t v2 = int64_t{v.raw()} * v.raw();  // < 2^62
    const int64_t kx = int64_t{k.raw()} * x.raw();  // < 2^62 in magnitude
    return Wide::mul(v2, pow2(16)) + Wide::mul(kx, x.raw());
}
}  // namespace

Fx energy(State1 s, Fx stiffness) {
    const Wide twice = twice_energy_axis(s.position, s.velocity, stiffness);
    // Divide by 2 (the halves) and by 2^32 (units 2^-48 to 2^-16) in one rounding.
    return saturate_fx(twice.div_round(pow2(33)));
}

Fx energy(State2 s, Fx stiffness) {
    const Wide twice = twice_energy_axis(s.position.x, s.velocity.x, stiffness) +
                       twice_energy_axis(s.position.y, s.velocity.y, stiffness);  // < 2^96
    return saturate_fx(twice.div_round(pow2(33)));
}

StepPlan steps_for(Fx accumulated, Fx frame_time, Fx fixed, uint32_t max_steps) {
    // The pool is kept in int64: two Fx can sum past the Fx range, and saturating here would
    // silently lose time.
    const int64_t pool = int64_t{accumulated.raw()} + frame_time.raw();
    if (fixed.raw() <= 0 || pool <= 0) return {0, saturate_fx(pool), false};
    const int64_t wanted = pool / fixed.raw();  // both positive: floor, exact
    const int64_t steps = wanted < int64_t{max_steps} ? wanted : int64_t{max_steps};
    return {static_cast<uint32_t>(steps), saturate_fx(pool - steps * fixed.raw()), wanted > int64_t{max_steps}};
}

Fx alpha_from(Fx leftover, Fx fixed) {
    if (fixed.raw() <= 0) return leftover.raw() > 0 ? Fx::one() : Fx::zero();
    return clamp(leftover / fixed, Fx::zero(), Fx::one());
}

State1 blend(State1 previous, State1 current, Fx alpha) {
    return {detail::lerp(previous.position, current.position, alpha),
            detail::lerp(previous.velocity, current.velocity, alpha)};
}

State2 blend(State2 previous, State2 current, Fx alpha) {
    return {{detail::lerp(previous.position.x, current.position.x, alpha),
             detail::lerp(previous.position.y, current.position.y, alpha)},
            {detail::lerp(previous.velocity.x, current.velocity.x, alpha),
             detail::lerp(previous.velocity.y, current.velocity.y, alpha)}};
}

}  // namespace tandem
