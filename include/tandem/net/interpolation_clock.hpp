// InterpolationClock: the one instant a frame is drawn at. It runs a fixed delay behind its
// estimate of server time, advanced by the caller's wall-clock dt, and is kept aligned with
// the stream by exactly one of two steerings. Everything in a frame is evaluated at its
// target(); drawing two things at two instants puts a seam between them. It never reads a
// clock and never decides when an input executes: the timeline comes from declaration.
#pragma once

#include <cstdint>
#include <optional>

#include "tandem/core/fixed.hpp"
#include "tandem/core/result.hpp"
#include "tandem/net/link_error.hpp"

namespace tandem::net {

// Rate steering closes its error over about this much playback: the rate is offset from 1 by
// error / horizon (then clamped to the caller's bound), so a clock 50 ms behind runs 5% fast
// and eases in as the error shrinks, never overshooting.
inline constexpr int64_t rate_steering_horizon_ns = 1'000'000'000;

// Keeping the clock aligned: pick ONE steering and never both.
//   Position steering: resync(newest, fraction) on each packet nudges the position a fraction
//     of the way toward the newest server time (Fx::one() snaps). Simple; the target can
//     step backward when the stream runs late.
//   Rate steering: observe_rate(newest, max_fraction) on each packet sets a playback rate,
//     and advance_scaled(dt) replaces advance(dt). The target glides and never runs
//     backward; playback_rate() is the readout.
// Mixing them has each undo the other: a nudge changes the error the rate was chosen for.
class InterpolationClock {
public:
    // delay_ns: how far behind estimated server time the target sits, in [0, 2^60].
    static Result<InterpolationClock, LinkError> create(int64_t delay_ns);

    // The first call starts the clock at server_time; later calls are ignored (the clock then
    // runs on dt and on its steering, not on arrival times).
    void observe(int64_t server_time);
    // Advances by dt of wall-clock time. Before the clock starts, and for dt <= 0 (a clock
    // that ran backward), nothing moves.
    void advance(int64_t dt_ns);
    // The render instant: estimated server time minus the delay. nullopt before the first
    // observe (or resync / observe_rate, which also start it).
    std::optional<int64_t> target() const;
    // The estimated server time itself (target + delay); nullopt before the start.
    std::optional<int64_t> position() const;
    bool started() const { return started_; }

    int64_t delay_ns() const { return delay_ns_; }
    // Changes the delay (e.g. to follow an ArrivalMonitor); the target moves with it at once.
    // Refused like create.
    Result<void, LinkError> set_delay(int64_t delay_ns);

    // Position steering: moves the position fraction of the way toward newest_server_time,
    // rounded to the nearest nanosecond (ties to even). The fraction is clamped to [0, 1].
    // Starts the clock at newest_server_time if it has not started.
    void resync(int64_t newest_server_time, Fx fraction);

    // Rate steering: sets the playback rate to 1 + (newest - position) / horizon, rounded to
    // the nearest Q16.16 step (ties to even) and clamped to 1 +/- max_fraction, itself
    // clamped to [0, 1]. Starts the clock (at rate 1) if it has not started.
    void observe_rate(int64_t newest_server_time, Fx max_fraction);
    // Advances by dt * playback_rate. The sub-nanosecond remainder is carried, so the total
    // advanced is floor(sum of dt * rate) however the time is split into frames: a 30 fps and
    // a 144 fps caller at the same rate reach the same target.
    void advance_scaled(int64_t dt_ns);
    // 1 until rate steering sets it; in [1 - max_fraction, 1 + max_fraction] after.
    Fx playback_rate() const { return rate_; }

private:
    explicit InterpolationClock(int64_t delay_ns) : delay_ns_(delay_ns) {}
    void start(int64_t server_time);

    int64_t delay_ns_;
    bool started_ = false;
    int64_t position_ = 0;
    Fx rate_ = Fx::one();
    // The fraction of a nanosecond advance_scaled has not yet paid out, in 2^-16 ns: [0, 65536).
    int64_t remainder_ = 0;
};

}  // namespace tandem::net
