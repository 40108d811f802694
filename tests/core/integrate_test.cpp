// Properties of src/core/integrate.*: the documented claims about the three integrators stated
// as measured numbers with named bounds, and the exactness of the fixed-timestep helpers.
// Every reference here is exact integer arithmetic; no float decides a pass.
#include "tandem/core/integrate.hpp"
#include "tandem/core/wide.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>

using tandem::ConstantAcceleration;
using tandem::ConstantAcceleration2;
using tandem::Fx;
using tandem::Spring;
using tandem::State1;
using tandem::State2;
using tandem::Vec2;
using tandem::Wide;

namespace {

// 1/60 s rounds to raw 1092 (0.016662598 s); every reference below uses this exact value,
// so the error measured is the integrator's, not the quantisation of dt.
const Fx dt60 = tandem::ratio(1, 60);
const Fx dt64 = Fx::from_raw(1024);  // 1/64 s, dyadic

double lsb(int64_t raw) { return static_cast<double>(raw); }
double as_units(Fx f) { return static_cast<double>(f.raw()) / 65536.0; }  // printing only

int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

}  // namespace

// ---- Explicit Euler

TEST_CASE("explicit Euler gains energy on an undamped spring every cycle") {
    // k = 1 (omega = 1): one cycle is 2*pi/dt = 377.08 steps at dt = 1/60. In exact
    // arithmetic the energy grows by (1 + k*dt^2) per step, 1.1103 per 377 steps.
    const Spring spring{Fx::one()};
    State1 s{Fx::one(), Fx::zero()};
    Fx previous = tandem::energy(s, spring.stiffness);
    const Fx start = previous;
    uint32_t steps_without_gain = 0;
    constexpr int cycles = 20;
    constexpr int steps_per_cycle = 377;
    for (int c = 0; c < cycles; ++c) {
        Fx step_energy = tandem::energy(s, spring.stiffness);
        for (int i = 0; i < steps_per_cycle; ++i) {
            s = tandem::step_explicit_euler(s, spring, dt60);
            const Fx e = tandem::energy(s, spring.stiffness);
            if (!(step_energy < e)) ++steps_without_gain;
            step_energy = e;
        }
        const Fx now = tandem::energy(s, spring.stiffness);
        INFO("cycle " << c << ": energy " << as_units(previous) << " -> " << as_units(now));
        REQUIRE(previous < now);
        const double ratio = static_cast<double>(now.raw()) / previous.raw();
        CHECK(ratio > 1.10);  // theory 1.1103 per cycle
        CHECK(ratio < 1.12);
        previous = now;
    }
    WARN("explicit Euler, k = 1, dt = 1/60, x0 = 1: energy " << as_units(start) << " -> " << as_units(previous)
         << " after " << cycles << " cycles (x" << static_cast<double>(previous.raw()) / start.raw()
         << ", theory (1+dt^2)^7540 = 8.1); steps where the energy did not grow: " << steps_without_gain << " of "
         << cycles * steps_per_cycle);
    // Bound: not one step of the 7540 loses or keeps energy; the growth (~9 LSB per step at
    // E = 0.5) is far above the 1-LSB rounding of the energy.
    CHECK(steps_without_gain == 0);
}

// ---- Semi-implicit Euler

TEST_CASE("semi-implicit Euler keeps a spring's energy in a fixed band over 100,000 steps") {
    // The map conserves I = v^2 + k*x^2 - k*dt*x*v (in exact arithmetic), and
    // |k*dt*x*v| <= sqrt(k)*dt*E, so E stays within I/2 +- sqrt(k)*dt*E/2: a band of width
    // omega*dt*E0 = 546 LSB around 0.5 (a float64 run measures 546.04). Q16.16 rounding adds
    // a slow unbiased wander on top (each step is an invertible lattice shear, so there is
    // no systematic gain, but the invariant is not held to the bit). Bounds: the whole run
    // stays within the band plus 128 LSB, and the band of the last 10,000 steps sits within
    // 64 LSB of the band of the first 10,000 at each edge.
    const Spring spring{Fx::one()};
    State1 s{Fx::one(), Fx::zero()};
    const Fx e0 = tandem::energy(s, spring.stiffness);
    constexpr int steps = 100000;
    int32_t lo = e0.raw(), hi = e0.raw();
    int32_t first_lo = lo, first_hi = hi, last_lo = INT32_MAX, last_hi = INT32_MIN;
    for (int i = 1; i <= steps; ++i) {
        s = tandem::step_semi_implicit_euler(s, spring, dt60);
        const int32_t e = tandem::energy(s, spring.stiffness).raw();
        lo = std::min(lo, e);
        hi = std::max(hi, e);
        if (i <= 10000) { first_lo = std::min(first_lo, e); first_hi = std::max(first_hi, e); }
        if (i > steps - 10000) { last_lo = std::min(last_lo, e); last_hi = std::max(last_hi, e); }
    }
    // omega*dt*E0 in LSB: dt.raw / 65536 * e0.raw, rounded up.
    const int64_t band = (int64_t{dt60.raw()} * e0.raw() + 65535) / 65536;
    WARN("semi-implicit Euler, k = 1, dt = 1/60, 100000 steps (265 cycles): energy in [" << as_units(Fx::from_raw(lo))
         << ", " << as_units(Fx::from_raw(hi)) << "], width " << (hi - lo) << " LSB (bound " << band + 128
         << ", exact-arithmetic band " << band << "); first 10k steps [" << first_lo << ", " << first_hi << "] raw, last 10k [" << last_lo << ", "
         << last_hi << "] raw");
    CHECK(hi - lo <= band + 128);
    CHECK(e0.raw() - lo <= band / 2 + 96);
    CHECK(hi - e0.raw() <= band / 2 + 96);
    CHECK(std::abs(last_lo - first_lo) <= 64);
    CHECK(std::abs(last_hi - first_hi) <= 64);
}

// ---- Velocity Verlet against the exact parabola

namespace {

// Exact parabola x0 + v0*t + a*t^2/2 at t = n*dt, in units of 2^-49 (raw * 2^33).
Wide parabola_units(State1 start, Fx a, Fx dt, int64_t n) {
    const Wide x0 = Wide::mul(start.position.raw(), int64_t{1} << 33);
    const Wide v_term = Wide::mul(int64_t{start.velocity.raw()} * n, int64_t{dt.raw()} << 17);
    const Wide a_term = Wide::mul(int64_t{a.raw()} * n * n, int64_t{dt.raw()} * dt.raw());
    return x0 + v_term + a_term;
}

// Position error of x (raw) against a reference, exact, in 2^-49 units.
Wide error_units(Fx x, Wide reference_units) { return Wide::mul(x.raw(), int64_t{1} << 33) - reference_units; }
// The same in LSB, rounded to nearest.
int64_t error_lsb(Fx x, Wide reference_units) { return error_units(x, reference_units).div_round(int64_t{1} << 33); }

}  // namespace

TEST_CASE("with a dyadic step velocity Verlet reproduces the parabola to the last bit, and both Eulers miss by a*dt^2/2 every step") {
    // dt = 1/64, a = -10, v0 = 5: every term of the exact parabola is a multiple of 2^-16,
    // so the claim "exact at any timestep" is checkable bit for bit. a*dt^2/2 = 80 LSB.
    const State1 start{Fx::zero(), Fx::from_int(5)};
    const ConstantAcceleration gravity{Fx::from_int(-10)};
    State1 verlet = start, semi = start, expl = start;
    constexpr int64_t steps = 2000;  // 31.25 s; ends at x = -4726.5
    int64_t worst_verlet = 0;
    for (int64_t n = 1; n <= steps; ++n) {
        verlet = tandem::step_velocity_verlet(verlet, gravity, dt64);
        semi = tandem::step_semi_implicit_euler(semi, gravity, dt64);
        expl = tandem::step_explicit_euler(expl, gravity, dt64);
        const Wide exact = parabola_units(start, gravity.value, dt64, n);
        worst_verlet = std::max(worst_verlet, abs64(error_lsb(verlet.position, exact)));
        const int64_t v_exact = int64_t{start.velocity.raw()} + n * ((int64_t{gravity.value.raw()} * dt64.raw()) >> 16);
        REQUIRE(verlet.velocity.raw() == v_exact);
        REQUIRE(error_lsb(semi.position, exact) == -80 * n);  // moves with the faster new speed: falls too far
        REQUIRE(error_lsb(expl.position, exact) == 80 * n);   // moves with the old speed: not far enough
    }
    WARN("dt = 1/64, a = -10: after " << steps << " steps Verlet is off by " << worst_verlet
         << " LSB at worst; semi-implicit by " << error_lsb(semi.position, parabola_units(start, gravity.value, dt64, steps))
         << " LSB, explicit by " << error_lsb(expl.position, parabola_units(start, gravity.value, dt64, steps)) << " LSB");
    CHECK(worst_verlet == 0);
}

TEST_CASE("velocity Verlet tracks the parabola within half an LSB per step of rounding at dt = 1/60") {
    // dt = 1/60 and a = -9.8 make a*dt = -10701.60 LSB of velocity, which no Fx velocity can
    // add exactly: each step adds the rounded q = -10702, so the velocity drifts by exactly
    // n*delta (delta = q - a*dt = -0.397 LSB). That is representation, not integration. The
    // stated bounds:
    //  (1) against the parabola the integrator can represent (velocity v0 + k*q at step k),
    //      the position is within 1/2 LSB per step: |error| <= n/2;
    //  (2) against the nominal parabola, |error| <= n/2 + |delta|*dt*n(n-1)/2, and the
    //      velocity error is exactly n*delta;
    //  (3) semi-implicit Euler is off by a*dt^2/2 per step (89.4 LSB) for comparison.
    const State1 start{Fx::from_int(100), tandem::ratio(73, 10)};
    const ConstantAcceleration gravity{tandem::ratio(-98, 10)};
    const int64_t a_dt_units = int64_t{gravity.value.raw()} * dt60.raw();  // a*dt in 2^-32
    const int64_t q = Wide::from_i64(a_dt_units).div_round(int64_t{1} << 16);
    constexpr int64_t steps = 600;  // 10 s
    State1 verlet = start, semi = start;
    Wide representable = Wide::mul(start.position.raw(), int64_t{1} << 33);  // running sum, 2^-49
    int64_t worst_representable = 0, worst_nominal = 0, worst_nominal_excess = 0;
    for (int64_t n = 1; n <= steps; ++n) {
        // Exact increment of the representable parabola over step n-1 -> n.
        const int64_t v_k = int64_t{start.velocity.raw()} + (n - 1) * q;
        representable += Wide::mul(v_k * dt60.raw(), int64_t{1} << 17) + Wide::mul(a_dt_units, dt60.raw());
        verlet = tandem::step_velocity_verlet(verlet, gravity, dt60);
        semi = tandem::step_semi_implicit_euler(semi, gravity, dt60);

        const Wide e_rep = error_units(verlet.position, representable);
        const Wide half_lsb_per_step = Wide::mul(n, int64_t{1} << 32);
        REQUIRE(e_rep <= half_lsb_per_step);  // bound (1), exact
        REQUIRE(-e_rep <= half_lsb_per_step);
        worst_representable = std::max(worst_representable, abs64(error_lsb(verlet.position, representable)));

        const int64_t e_nom = abs64(error_lsb(verlet.position, parabola_units(start, gravity.value, dt60, n)));
        worst_nominal = std::max(worst_nominal, e_nom);
        // |delta|*dt*n(n-1)/2 in LSB = |q*2^16 - a*dt| / 2^16 * dt.raw / 2^16 * n(n-1)/2
        const int64_t delta_units = abs64(q * 65536 - a_dt_units);  // 2^-32
        const int64_t drift_bound = Wide::mul(delta_units * dt60.raw(), n * (n - 1) / 2).div_round(int64_t{1} << 32) + 1;
        REQUIRE(e_nom <= n / 2 + 1 + drift_bound);  // bound (2)
        worst_nominal_excess = std::max(worst_nominal_excess, e_nom - drift_bound);

        const int64_t v_nominal_units = int64_t{start.velocity.raw()} * 65536 + n * a_dt_units;  // 2^-32
        REQUIRE(int64_t{verlet.velocity.raw()} * 65536 - v_nominal_units == n * (q * 65536 - a_dt_units));
    }
    const int64_t semi_error = error_lsb(semi.position, parabola_units(start, gravity.value, dt60, steps));
    WARN("dt = 1/60, a = -9.8, v0 = 7.3, 600 steps: per-step velocity rounding delta = "
         << lsb(q * 65536 - a_dt_units) / 65536.0 << " LSB; Verlet vs representable parabola: worst "
         << worst_representable << " LSB (bound n/2 = " << steps / 2 << "); vs nominal parabola: worst "
         << worst_nominal << " LSB (" << static_cast<double>(worst_nominal) / steps << " LSB per step), at most "
         << worst_nominal_excess << " LSB beyond the velocity-drift term; semi-implicit Euler: " << semi_error
         << " LSB (" << static_cast<double>(semi_error) / steps << " per step)");
    CHECK(worst_nominal * 20 < abs64(semi_error));  // Verlet is at least 20x closer than the Euler
}

TEST_CASE("the plane integrators are two independent axes, bit for bit") {
    // Componentwise means componentwise: a Vec2 run must equal two one-axis runs exactly,
    // including the second acceleration evaluation of Verlet.
    const Spring spring{tandem::ratio(3, 2)};
    State2 s2{{Fx::from_int(2), tandem::ratio(-7, 3)}, {tandem::ratio(1, 3), Fx::from_int(1)}};
    State1 sx{s2.position.x, s2.velocity.x}, sy{s2.position.y, s2.velocity.y};
    for (int i = 0; i < 1000; ++i) {
        s2 = tandem::step_velocity_verlet(s2, spring, dt60);
        sx = tandem::step_velocity_verlet(sx, spring, dt60);
        sy = tandem::step_velocity_verlet(sy, spring, dt60);
        REQUIRE(s2 == State2{{sx.position, sy.position}, {sx.velocity, sy.velocity}});
    }
    const ConstantAcceleration2 g{{Fx::from_int(1), Fx::from_int(-10)}};
    State2 e2{}, i2{};
    State1 ex{}, ey{}, ix{}, iy{};
    for (int i = 0; i < 1000; ++i) {
        e2 = tandem::step_explicit_euler(e2, g, dt60);
        i2 = tandem::step_semi_implicit_euler(i2, g, dt60);
        ex = tandem::step_explicit_euler(ex, ConstantAcceleration{g.value.x}, dt60);
        ey = tandem::step_explicit_euler(ey, ConstantAcceleration{g.value.y}, dt60);
        ix = tandem::step_semi_implicit_euler(ix, ConstantAcceleration{g.value.x}, dt60);
        iy = tandem::step_semi_implicit_euler(iy, ConstantAcceleration{g.value.y}, dt60);
        REQUIRE(e2 == State2{{ex.position, ey.position}, {ex.velocity, ey.velocity}});
        REQUIRE(i2 == State2{{ix.position, iy.position}, {ix.velocity, iy.velocity}});
    }
    // And the plane energy is the sum of the axes' energies (each correctly rounded, so
    // the sum may differ by the two roundings: at most 1 LSB).
    const Fx sum = tandem::energy(sx, spring.stiffness) + tandem::energy(sy, spring.stiffness);
    CHECK(std::abs(sum.raw() - tandem::energy(s2, spring.stiffness).raw()) <= 1);
}

TEST_CASE("energy is correctly rounded and saturates instead of overflowing") {
    // v = 1, x = 2, k = 3: 0.5 + 6 = 6.5 exactly.
    CHECK(tandem::energy(State1{Fx::from_int(2), Fx::one()}, Fx::from_int(3)) == tandem::ratio(13, 2));
    // One LSB of velocity: 2^-32 / 2 is far below half an LSB, rounds to 0.
    CHECK(tandem::energy(State1{Fx::zero(), Fx::epsilon()}, Fx::one()) == Fx::zero());
    // 256 LSB: v^2/2 = 2^-17 = exactly half an LSB, ties to even -> 0; 257 LSB -> 1.
    CHECK(tandem::energy(State1{Fx::zero(), Fx::from_raw(256)}, Fx::one()).raw() == 0);
    CHECK(tandem::energy(State1{Fx::zero(), Fx::from_raw(257)}, Fx::one()).raw() == 1);
    CHECK(tandem::energy(State1{Fx::max(), Fx::min()}, Fx::max()) == Fx::max());
    CHECK(tandem::energy(State1{Fx::max(), Fx::zero()}, Fx::min()) == Fx::min());
}

// ---- The fixed timestep

TEST_CASE("steps_for takes whole fixed steps and keeps the remainder") {
    const auto plan = tandem::steps_for(Fx::from_raw(100), Fx::from_raw(2 * 1092 + 10), dt60);
    CHECK(plan.steps == 2);
    CHECK(plan.leftover.raw() == 110);
    CHECK_FALSE(plan.dropped);
    // Exactly one step's worth pays exactly one step, leaving nothing.
    CHECK(tandem::steps_for(Fx::zero(), dt60, dt60) == tandem::StepPlan{1, Fx::zero(), false});
    // Just short of a step pays nothing and keeps it all.
    CHECK(tandem::steps_for(Fx::zero(), Fx::from_raw(1091), dt60) == tandem::StepPlan{0, Fx::from_raw(1091), false});
}

TEST_CASE("a slow frame is clamped to max_steps and says it dropped time") {
    // A one-second frame at 60 Hz wants 60 steps; the clamp allows 5 and reports the rest.
    const auto plan = tandem::steps_for(Fx::zero(), Fx::one(), dt60, 5);
    CHECK(plan.steps == 5);
    CHECK(plan.dropped);
    CHECK(plan.leftover.raw() == 65536 - 5 * 1092);
    // Exactly max_steps is not a drop.
    CHECK_FALSE(tandem::steps_for(Fx::zero(), Fx::from_raw(5 * 1092), dt60, 5).dropped);
    // A pool beyond the Fx range is counted exactly before it saturates the leftover.
    const auto huge = tandem::steps_for(Fx::max(), Fx::max(), Fx::one(), 0xFFFFFFFFu);
    CHECK(huge.steps == 65535);
    CHECK(huge.leftover.raw() == 65534);
    // Degenerate inputs are defined: no step from a non-positive step or pool.
    CHECK(tandem::steps_for(Fx::one(), Fx::one(), Fx::zero()).steps == 0);
    CHECK(tandem::steps_for(Fx::one(), Fx::from_int(-3), dt60) == tandem::StepPlan{0, Fx::from_int(-2), false});
}

TEST_CASE("the accumulator neither loses nor invents time over many uneven frames") {
    // Conservation: steps * fixed + leftover == accumulated + frame for every frame of a long
    // jittery run (an LCG stands in for a frame clock; no clamp, so nothing is refused).
    uint32_t lcg = 12345;
    Fx acc = Fx::zero();
    int64_t total_in = 0, total_steps = 0;
    for (int i = 0; i < 100000; ++i) {
        lcg = lcg * 1664525u + 1013904223u;
        const Fx frame = Fx::from_raw(static_cast<int32_t>(500 + (lcg >> 20)));  // 0.008 .. 0.07 s
        const auto plan = tandem::steps_for(acc, frame, dt60, 1000);
        REQUIRE(int64_t{plan.steps} * dt60.raw() + plan.leftover.raw() == int64_t{acc.raw()} + frame.raw());
        REQUIRE(plan.leftover.raw() >= 0);
        REQUIRE(plan.leftover < dt60);
        acc = plan.leftover;
        total_in += frame.raw();
        total_steps += plan.steps;
    }
    CHECK(total_steps * dt60.raw() + acc.raw() == total_in);
}

TEST_CASE("a 32 Hz and a 256 Hz display run the same simulation bit for bit") {
    // The simulation only ever sees one dt, so the display rate cannot change its result.
    auto run = [](int32_t frame_raw) {
        const Spring spring{Fx::from_int(4)};
        State1 s{Fx::one(), Fx::zero()};
        Fx acc = Fx::zero();
        uint32_t steps = 0;
        for (int32_t t = 0; t < 65536 * 8; t += frame_raw) {
            const auto plan = tandem::steps_for(acc, Fx::from_raw(frame_raw), dt64, 100);
            for (uint32_t i = 0; i < plan.steps; ++i) s = tandem::step_semi_implicit_euler(s, spring, dt64);
            steps += plan.steps;
            acc = plan.leftover;
        }
        return std::pair{s, steps};
    };
    const auto slow = run(2048), fast = run(256);
    CHECK(slow.second == 512);
    CHECK(fast.second == 512);
    CHECK(slow.first == fast.first);
}

TEST_CASE("alpha is the fraction of the next step already elapsed, clamped to 0..1") {
    CHECK(tandem::alpha_from(Fx::zero(), dt60) == Fx::zero());
    CHECK(tandem::alpha_from(dt60, dt60) == Fx::one());
    CHECK(tandem::alpha_from(Fx::from_raw(546), dt60) == Fx::from_raw(32768));  // 546 / 1092
    CHECK(tandem::alpha_from(Fx::from_raw(-5), dt60) == Fx::zero());
    CHECK(tandem::alpha_from(Fx::from_int(3), dt60) == Fx::one());
    CHECK(tandem::alpha_from(Fx::one(), Fx::zero()) == Fx::one());
    CHECK(tandem::alpha_from(Fx::zero(), Fx::zero()) == Fx::zero());
}

TEST_CASE("blend returns the previous state at alpha 0, the current at alpha 1, and rounds once between") {
    const State1 a{Fx::min(), Fx::from_int(-3)}, b{Fx::max(), Fx::from_int(5)};
    CHECK(tandem::blend(a, b, Fx::zero()) == a);
    CHECK(tandem::blend(a, b, Fx::one()) == b);
    // The midpoint of the whole range is -0.5 LSB: no saturating difference on the way,
    // and the tie goes to even (0).
    const State1 mid = tandem::blend(a, b, tandem::ratio(1, 2));
    CHECK(mid.position.raw() == 0);
    CHECK(mid.velocity == Fx::one());
    const State2 p{{Fx::zero(), Fx::from_int(10)}, {Fx::one(), Fx::zero()}};
    const State2 c{{Fx::from_int(4), Fx::from_int(-10)}, {Fx::from_int(3), Fx::from_int(2)}};
    const State2 q = tandem::blend(p, c, tandem::ratio(1, 4));
    CHECK(q == State2{{Fx::one(), Fx::from_int(5)}, {tandem::ratio(3, 2), tandem::ratio(1, 2)}});
}
