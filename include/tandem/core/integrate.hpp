// Integrators for one axis (Fx) and the plane (Vec2): explicit Euler, semi-implicit Euler and
// velocity Verlet, the spring energy that tells them apart, and the fixed-timestep helpers
// (steps_for, alpha_from, blend). Fixed point only: never a float, never a variable timestep.
#pragma once

#include "tandem/core/fixed.hpp"

#include <concepts>
#include <cstdint>

namespace tandem {

// Where something is and how fast it is going, on one axis. One axis is the whole story:
// motion in x is untouched by anything in y, so the plane versions below apply the same
// arithmetic per component and agree bit for bit with two one-axis runs.
struct State1 {
    Fx position;
    Fx velocity;
    friend constexpr bool operator==(State1, State1) = default;
};

struct State2 {
    Vec2 position;
    Vec2 velocity;
    friend constexpr bool operator==(State2, State2) = default;
};

// The rule for the acceleration: constant for gravity, position-dependent for a spring.
// Any callable State1 -> Fx (or State2 -> Vec2) works; these two are the ones the tests use.
struct ConstantAcceleration {
    Fx value;
    constexpr Fx operator()(State1) const { return value; }
};
struct ConstantAcceleration2 {
    Vec2 value;
    constexpr Vec2 operator()(State2) const { return value; }
};
// An undamped spring pulling toward the origin: a = -stiffness * position.
struct Spring {
    Fx stiffness;
    constexpr Fx operator()(State1 s) const { return -(stiffness * s.position); }
    constexpr Vec2 operator()(State2 s) const { return {-(stiffness * s.position.x), -(stiffness * s.position.y)}; }
};

template <class A>
concept Acceleration1 = std::invocable<const A&, State1> && std::convertible_to<std::invoke_result_t<const A&, State1>, Fx>;
template <class A>
concept Acceleration2 = std::invocable<const A&, State2> && std::convertible_to<std::invoke_result_t<const A&, State2>, Vec2>;

// ---- The exactly rounded pieces (integrate.cpp). Every one rounds once, to nearest with
// ties to even, and saturates to the Fx range; none can overflow for any input.
namespace detail {
// x + v*dt + a*dt^2/2 with a single rounding: Verlet's position update. Rounding the
// a*dt^2/2 term on its own would be crude: at dt = 1/60 it is about 9 LSB for a unit
// acceleration, so its own rounding could misstate gravity's pull by 5% every step.
Fx verlet_position(Fx x, Fx v, Fx a, Fx dt);
// v + (a0 + a1)/2 * dt with a single rounding: Verlet's velocity update.
Fx verlet_velocity(Fx v, Fx a0, Fx a1, Fx dt);
// a + (b - a) * t with a single rounding, computed without an intermediate saturating
// difference, so lerp(a, b, 0) == a and lerp(a, b, 1) == b for every a and b.
Fx lerp(Fx a, Fx b, Fx t);
}  // namespace detail

// ---- Explicit (forward) Euler: move with the old velocity, then accelerate.
// Credits a falling body with the speed it had before it sped up, so it overshoots by
// a*dt^2/2 per step; on a spring it multiplies the energy by (1 + k*dt^2) every step
// (exactly, in exact arithmetic) and spirals outward. Here to be measured against, not to be used.
template <Acceleration1 A>
constexpr State1 step_explicit_euler(State1 s, const A& accel, Fx dt) {
    const Fx a = accel(s);
    return {s.position + s.velocity * dt, s.velocity + a * dt};
}
template <Acceleration2 A>
constexpr State2 step_explicit_euler(State2 s, const A& accel, Fx dt) {
    const Vec2 a = accel(s);
    return {s.position + s.velocity * dt, s.velocity + a * dt};
}

// ---- Semi-implicit (symplectic) Euler: accelerate, then move with the new velocity.
// What games use, for stability rather than accuracy: on a spring the energy stays in a
// fixed band forever. In Q16.16 each line is an integer shear of the (x, v) lattice, so one
// step stays exactly invertible (away from saturation): rounding adds a slow unbiased
// wander of a few dozen LSB over 10^5 steps, never Euler's systematic gain.
template <Acceleration1 A>
constexpr State1 step_semi_implicit_euler(State1 s, const A& accel, Fx dt) {
    const Fx velocity = s.velocity + accel(s) * dt;
    return {s.position + velocity * dt, velocity};
}
template <Acceleration2 A>
constexpr State2 step_semi_implicit_euler(State2 s, const A& accel, Fx dt) {
    const Vec2 velocity = s.velocity + accel(s) * dt;
    return {s.position + velocity * dt, velocity};
}

// ---- Velocity Verlet: the average of the accelerations at both ends of the step.
// For a constant acceleration this is the parabola itself; the only error left is the
// rounding of the two updates (tests/core/integrate_test.cpp states and measures it).
// Two acceleration evaluations per step; the second sees the new position and the old
// velocity, as in the seed.
template <Acceleration1 A>
State1 step_velocity_verlet(State1 s, const A& accel, Fx dt) {
    const Fx a0 = accel(s);
    const Fx position = detail::verlet_position(s.position, s.velocity, a0, dt);
    const Fx a1 = accel(State1{position, s.velocity});
    return {position, detail::verlet_velocity(s.velocity, a0, a1, dt)};
}
template <Acceleration2 A>
State2 step_velocity_verlet(State2 s, const A& accel, Fx dt) {
    const Vec2 a0 = accel(s);
    const Vec2 position{detail::verlet_position(s.position.x, s.velocity.x, a0.x, dt),
                        detail::verlet_position(s.position.y, s.velocity.y, a0.y, dt)};
    const Vec2 a1 = accel(State2{position, s.velocity});
    return {position, {detail::verlet_velocity(s.velocity.x, a0.x, a1.x, dt),
                       detail::verlet_velocity(s.velocity.y, a0.y, a1.y, dt)}};
}

// Kinetic plus potential energy of a unit mass on a spring: v^2/2 + k*x^2/2, correctly
// rounded (one rounding of the exact value) and saturated. An undamped spring holds this
// constant, so any drift belongs to the integrator, not to the physics.
Fx energy(State1 s, Fx stiffness);
Fx energy(State2 s, Fx stiffness);

// ---- The fixed timestep.

// What one frame of real time pays for.
struct StepPlan {
    uint32_t steps = 0;   // whole fixed steps to run now, at most max_steps
    Fx leftover;          // time still in the accumulator after them
    bool dropped = false; // the clamp refused steps this frame (the simulation fell behind)
    friend constexpr bool operator==(const StepPlan&, const StepPlan&) = default;
};

// Adds frame_time to the accumulator and takes whole fixed steps out of it, at most
// max_steps of them. The clamp is what stops the spiral of death (a slow frame asking for
// more steps, which makes the next frame slower still): the simulation falls behind real
// time instead of locking up. As in the seed, the refused time stays in leftover; a caller
// that wants to forget it (the timestep module's policy) discards it itself.
// The division is exact integer arithmetic on the raw values, so no step is lost or gained
// to rounding. A non-positive fixed step pays for nothing (steps == 0); a negative pool runs
// no steps. leftover saturates only if the pool itself exceeds the Fx range.
StepPlan steps_for(Fx accumulated, Fx frame_time, Fx fixed, uint32_t max_steps = 5);

// How far through the next fixed step the display is: leftover / fixed clamped to [0, 1],
// correctly rounded. fixed <= 0 gives 1 for a positive leftover and 0 otherwise.
Fx alpha_from(Fx leftover, Fx fixed);

// The state to draw: previous + (current - previous) * alpha, each field rounded once.
// Without it the picture jumps to whichever tick was last, which stutters whenever the
// display rate is not a multiple of the tick rate. alpha 0 gives previous exactly and
// alpha 1 gives current exactly.
State1 blend(State1 previous, State1 current, Fx alpha);
State2 blend(State2 previous, State2 current, Fx alpha);

}  // namespace tandem
