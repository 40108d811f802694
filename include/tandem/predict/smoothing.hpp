// Hiding corrections from the eye: ErrorSmoother eases what is drawn from where the eye was
// to the corrected state, AdaptiveDecay sheds a drawn offset faster the larger it is, and
// CorrectionMonitor says whether a correction was abnormal for current conditions. All of it
// is presentation: nothing here may feed a rule both ends run or anything sent on the wire.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <utility>

namespace tandem::predict {

// ---- Easing ------------------------------------------------------------------------------
// An easing maps the elapsed fraction of an ease, in [0, 1], to the fraction of the way
// travelled; each one maps 0 to 0 and 1 to 1.
using Easing = float (*)(float);

inline float ease_linear(float t) { return t; }
inline float ease_out_quad(float t) { return t * (2.0f - t); }
inline float ease_out_cubic(float t) {
    const float u = 1.0f - t;
    return 1.0f - u * u * u;
}
inline float ease_in_out_cubic(float t) {
    if (t < 0.5f) return 4.0f * t * t * t;
    const float u = 2.0f - 2.0f * t;
    return 1.0f - 0.5f * u * u * u;
}

// Rates given "per frame" are per frame of this rate, then scaled by the real frame time, so
// a 30 fps client and a 144 fps one shed the same error over the same wall time.
inline constexpr float reference_frame_hz = 60.0f;

// `keep` per reference frame, turned into what to keep over `dt_secs` of wall time.
inline float keep_over(float keep_per_frame, float dt_secs) {
    if (!(dt_secs > 0.0f)) return 1.0f;
    return std::pow(keep_per_frame, dt_secs * reference_frame_hz);
}

// ---- ErrorSmoother -----------------------------------------------------------------------
// Eases the drawn state from where the eye was when a correction landed to the logical state,
// which may keep moving meanwhile. Two modes:
//   ErrorSmoother<S>(0.1)        finishes within a duration (linear unless with_easing),
//   ErrorSmoother<S>::at_rate(k) keeps a fraction k of the remaining error per 60 Hz frame.
// Each correction restarts the ease from the drawn state, so corrections that arrive faster
// than the ease finishes pile up and the smoother becomes the dominant error: keep the
// duration shorter than the interval between corrections. Snap (reset) on a discontinuity
// such as a spawn or a warp; decide by cause, not by size.
template <std::default_initializable State>
class ErrorSmoother {
public:
    // A duration <= 0 (or NaN) snaps: the drawn state is always the logical one.
    explicit ErrorSmoother(float duration_secs) : duration_(duration_secs > 0.0f ? duration_secs : 0.0f) {}

    // Keeps `keep_per_frame` (clamped to [0, 1]) of the remaining error each 60 Hz frame.
    static ErrorSmoother at_rate(float keep_per_frame) {
        ErrorSmoother s(0.0f);
        s.rate_mode_ = true;
        s.keep_ = keep_per_frame > 1.0f ? 1.0f : (keep_per_frame > 0.0f ? keep_per_frame : 0.0f);
        return s;
    }

    ErrorSmoother with_easing(Easing easing) && {
        easing_ = easing;
        return std::move(*this);
    }
    ErrorSmoother with_easing(Easing easing) const& {
        ErrorSmoother copy = *this;
        copy.easing_ = easing;
        return copy;
    }

    // Starts an ease from `drawn`, the state that was on screen before the correction.
    void begin_from(State drawn) {
        if (!rate_mode_ && duration_ <= 0.0f) return;  // snapping: nothing to ease
        from_ = std::move(drawn);
        running_ = true;
        elapsed_ = 0.0f;
        remaining_ = 1.0f;
    }

    // Progresses the ease by `dt_secs` of wall time (network delay does not stop when a
    // local menu pauses the game, so neither does the ease).
    void advance(float dt_secs) {
        if (!running_ || !(dt_secs > 0.0f)) return;
        if (rate_mode_) {
            remaining_ *= keep_over(keep_, dt_secs);
            if (remaining_ < finished_below) running_ = false;
        } else {
            elapsed_ += dt_secs;
            if (elapsed_ >= duration_) running_ = false;
        }
    }

    // What to draw: `logical` while no ease is running, otherwise lerp(from, logical, f) with
    // f the fraction of the way travelled. lerp(a, b, t) -> State, t in [0, 1].
    template <class Lerp>
    State sample(const State& logical, Lerp&& lerp) const {
        if (!running_) return logical;
        return lerp(from_, logical, travelled());
    }

    // Snap: drop any ease in progress.
    void reset() { running_ = false; }
    bool in_progress() const { return running_; }
    // The fraction of the way travelled in the current ease (1 when none is running).
    float travelled() const {
        if (!running_) return 1.0f;
        if (rate_mode_) return 1.0f - remaining_;
        return easing_(elapsed_ / duration_);
    }

private:
    // A rate-mode ease ends once under a millionth of its error remains: invisible, and
    // it stops the smoother lerping forever.
    static constexpr float finished_below = 1e-6f;

    float duration_ = 0.0f;
    bool rate_mode_ = false;
    float keep_ = 1.0f;
    Easing easing_ = ease_linear;
    // A value and a flag, not a std::optional: GCC 12's -Wmaybe-uninitialized misfires on an
    // optional's payload read inside a caller's loop (a false positive), and the small states
    // this eases are cheap to default-construct.
    State from_{};   // meaningful only while running_
    bool running_ = false;
    float elapsed_ = 0.0f;
    float remaining_ = 1.0f;
};

// ---- AdaptiveDecay -----------------------------------------------------------------------
// A fixed-duration ease takes as long to clear a large error as a small one, but a small
// offset can linger unnoticed while a large one is already visible. AdaptiveDecay supplies
// the fraction of an offset to keep this frame: `small_keep` per 60 Hz frame at or under
// `small_error`, `large_keep` at or over `large_error`, linear in between, scaled by the real
// frame time. The caller keeps the offset itself: offset *= decay.retain(|offset|, dt).
struct AdaptiveDecay {
    float small_error = 0.25f;
    float small_keep = 0.95f;
    float large_error = 1.0f;
    float large_keep = 0.85f;

    // The fraction kept per 60 Hz frame for an error of this size.
    float keep_per_frame(float error) const;
    // The fraction of `error` to keep over `dt_secs`.
    float retain(float error, float dt_secs) const { return keep_over(keep_per_frame(error), dt_secs); }
};

// ---- CorrectionMonitor -------------------------------------------------------------------
// Whether a correction was abnormal for current conditions: thirty pixels is unremarkable at
// one send rate and alarming at another, so the threshold follows the recent corrections
// (a smoothed mean plus four smoothed mean deviations, the shape TCP uses for its timeout).
// It learns for `warmup` samples (32 by default) before judging anything: a baseline that
// starts at zero would call every early correction enormous and raise most of its alarms at
// startup. Abnormal samples still update the baseline, so a lasting change of conditions
// stops alarming once it is the new normal.
class CorrectionMonitor {
public:
    static constexpr uint32_t default_warmup = 32;

    CorrectionMonitor() = default;
    CorrectionMonitor with_warmup(uint32_t samples) const {
        CorrectionMonitor m = *this;
        m.warmup_ = samples;
        return m;
    }
    // Corrections at or under `floor` never alarm (default 0: judge every correction).
    CorrectionMonitor with_floor(float floor) const {
        CorrectionMonitor m = *this;
        m.floor_ = floor;
        return m;
    }

    // Records a correction's size; true when it was abnormal (never during warm-up).
    bool record(float distance);

    // The size above which a correction is abnormal now.
    float threshold() const;
    bool warmed_up() const { return samples_ >= warmup_; }
    uint64_t samples() const { return samples_; }
    uint64_t alarms() const { return alarms_; }

private:
    static constexpr float gain = 1.0f / 16.0f;   // weight of a new sample once warmed up
    static constexpr float deviations = 4.0f;

    uint32_t warmup_ = default_warmup;
    float floor_ = 0.0f;
    uint64_t samples_ = 0;
    uint64_t alarms_ = 0;
    float mean_ = 0.0f;
    float deviation_ = 0.0f;
};

}  // namespace tandem::predict
