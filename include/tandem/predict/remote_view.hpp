// Drawing entities you do not control from timestamped samples: SnapshotBuffer keeps them in
// time order, RemoteView interpolates between two real samples (in the past) or dead reckons
// briefly past the newest, HermiteView follows recorded velocities with a cubic. Every entity
// in a frame must be drawn at the one render target; never mix two instants in a scene.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

namespace tandem::predict {

// Times here are milliseconds as double: render targets fall between whole milliseconds
// (a 60 Hz frame is 16.67 ms), and these views only ever decide what is drawn.

// A render-side 2D vector with the operators Motion needs: positions and velocities of what
// is drawn. Never a simulation value (that is tandem::Vec2, fixed point).
struct Float2 {
    float x = 0.0f;
    float y = 0.0f;
    friend Float2 operator+(Float2 a, Float2 b) { return {a.x + b.x, a.y + b.y}; }
    friend Float2 operator-(Float2 a, Float2 b) { return {a.x - b.x, a.y - b.y}; }
    friend Float2 operator*(Float2 a, float k) { return {a.x * k, a.y * k}; }
    friend bool operator==(Float2, Float2) = default;
};

// How a state moves. The default works for any State with State + State, State - State,
// State * float and Vel * float (convertible to State); specialise it for other types.
template <class State, class Vel>
struct Motion {
    static State lerp(const State& a, const State& b, float t) { return a + (b - a) * t; }
    static State extrapolate(const State& s, const Vel& v, float secs) { return s + v * secs; }
    // The cubic Hermite curve from p0 (velocity v0) to p1 (velocity v1) over interval_secs,
    // at fraction t: it passes through both samples along their recorded velocities.
    static State hermite(const State& p0, const Vel& v0, const State& p1, const Vel& v1, float interval_secs,
                         float t) {
        const float t2 = t * t;
        const float t3 = t2 * t;
        const float h00 = 2.0f * t3 - 3.0f * t2 + 1.0f;
        const float h10 = t3 - 2.0f * t2 + t;
        const float h01 = -2.0f * t3 + 3.0f * t2;
        const float h11 = t3 - t2;
        return p0 * h00 + v0 * (h10 * interval_secs) + p1 * h01 + v1 * (h11 * interval_secs);
    }
};

// Samples in strictly increasing time, at most `capacity` (the oldest is dropped). A sample
// not newer than the newest is refused and counted: on an ordered transport it can only be a
// duplicate, and inserting it late would rewrite a past the screen already showed.
template <class T>
class SnapshotBuffer {
public:
    struct Entry {
        double time_ms;
        T value;
    };
    // Where a target falls: between `before` and `after` at fraction `alpha`; at an end both
    // point at the end sample. past_newest_ms > 0 when the target is after the newest sample.
    struct Lookup {
        const Entry* before;
        const Entry* after;
        float alpha;
        double past_newest_ms;
    };

    explicit SnapshotBuffer(uint32_t capacity) : capacity_(capacity < 2 ? 2 : capacity) {}

    bool push(double time_ms, T value) {
        if (std::isnan(time_ms) || (!entries_.empty() && !(time_ms > entries_.back().time_ms))) {
            ++stale_pushes_;
            return false;
        }
        entries_.push_back(Entry{time_ms, std::move(value)});
        if (entries_.size() > capacity_) entries_.pop_front();
        return true;
    }

    // Pointers stay valid until the next push or clear.
    std::optional<Lookup> at(double target_ms) const {
        if (entries_.empty()) return std::nullopt;
        const Entry& oldest = entries_.front();
        const Entry& newest = entries_.back();
        if (!(target_ms > oldest.time_ms)) return Lookup{&oldest, &oldest, 0.0f, 0.0};
        if (target_ms >= newest.time_ms) return Lookup{&newest, &newest, 0.0f, target_ms - newest.time_ms};
        // The first sample after the target; the one before it is at or before the target.
        const auto after = std::upper_bound(entries_.begin(), entries_.end(), target_ms,
                                            [](double t, const Entry& e) { return t < e.time_ms; });
        const Entry& b = *after;
        const Entry& a = *(after - 1);
        const float alpha = static_cast<float>((target_ms - a.time_ms) / (b.time_ms - a.time_ms));
        return Lookup{&a, &b, alpha, 0.0};
    }

    const Entry* newest() const { return entries_.empty() ? nullptr : &entries_.back(); }
    const Entry* oldest() const { return entries_.empty() ? nullptr : &entries_.front(); }
    uint32_t size() const { return static_cast<uint32_t>(entries_.size()); }
    bool empty() const { return entries_.empty(); }
    uint32_t capacity() const { return capacity_; }
    void clear() { entries_.clear(); }
    uint64_t stale_pushes() const { return stale_pushes_; }

private:
    uint32_t capacity_;
    std::deque<Entry> entries_;
    uint64_t stale_pushes_ = 0;
};

struct RenderOpts {
    bool interpolate = true;   // between the two samples around the target; off: the older one
    bool extrapolate = true;   // past the newest sample along its velocity, up to the coast cap
};

template <class State, class Vel>
struct Sample {
    State state;
    Vel velocity;
};

// One remote entity from its samples. Interpolating draws it a little in the past, always
// between two real positions; extrapolating (dead reckoning) guesses past the newest sample
// for at most coast_cap_ms, which suits entities with inertia and a turning limit, never a
// player's intentions. Watch over_extrapolations(): climbing steadily means the render
// target runs ahead of the samples instead of trailing them; fix the clock, not the cap.
template <class State, class Vel, class M = Motion<State, Vel>>
class RemoteView {
public:
    RemoteView(uint32_t capacity, double coast_cap_ms) : samples_(capacity), coast_cap_ms_(coast_cap_ms > 0 ? coast_cap_ms : 0) {}

    bool push(double time_ms, State state, Vel velocity) {
        return samples_.push(time_ms, Sample<State, Vel>{std::move(state), std::move(velocity)});
    }

    // The state to draw at `target_ms`, or nothing before the first sample arrives.
    std::optional<State> render(double target_ms, RenderOpts opts = {}) const {
        const auto at = samples_.at(target_ms);
        if (!at) return std::nullopt;
        if (at->past_newest_ms > 0.0) {
            ++over_extrapolations_;
            const Sample<State, Vel>& newest = at->before->value;
            if (!opts.extrapolate) return newest.state;
            double coast = at->past_newest_ms;
            if (coast > coast_cap_ms_) {
                coast = coast_cap_ms_;
                ++coast_capped_;
            }
            return M::extrapolate(newest.state, newest.velocity, static_cast<float>(coast / 1000.0));
        }
        if (at->before == at->after || at->alpha <= 0.0f) return at->before->value.state;
        if (!opts.interpolate) return at->before->value.state;
        return M::lerp(at->before->value.state, at->after->value.state, at->alpha);
    }

    // Renders whose target was past the newest sample (dead reckoned, or held if extrapolation
    // is off), and those whose coast the cap cut short.
    uint64_t over_extrapolations() const { return over_extrapolations_; }
    uint64_t coast_capped() const { return coast_capped_; }
    double coast_cap_ms() const { return coast_cap_ms_; }
    const SnapshotBuffer<Sample<State, Vel>>& samples() const { return samples_; }
    void clear() { samples_.clear(); }

private:
    SnapshotBuffer<Sample<State, Vel>> samples_;
    double coast_cap_ms_;
    mutable uint64_t over_extrapolations_ = 0;
    mutable uint64_t coast_capped_ = 0;
};

// Below about 20 samples a second a straight line between samples visibly corners; a cubic
// Hermite curve leaves each sample along its recorded velocity instead. Only for motion that
// is smooth between samples: when the recorded velocity mispredicts the path (an impact), the
// curve leaves the segment its two samples bracket, which a straight line never does.
// Outside the samples it holds the nearest one.
template <class State, class Vel, class M = Motion<State, Vel>>
class HermiteView {
public:
    explicit HermiteView(uint32_t capacity) : samples_(capacity) {}

    bool push(double time_ms, State state, Vel velocity) {
        return samples_.push(time_ms, Sample<State, Vel>{std::move(state), std::move(velocity)});
    }

    std::optional<State> render(double target_ms) const {
        const auto at = samples_.at(target_ms);
        if (!at) return std::nullopt;
        if (at->before == at->after || at->alpha <= 0.0f) return at->before->value.state;
        const auto& a = *at->before;
        const auto& b = *at->after;
        const float interval_secs = static_cast<float>((b.time_ms - a.time_ms) / 1000.0);
        return M::hermite(a.value.state, a.value.velocity, b.value.state, b.value.velocity, interval_secs, at->alpha);
    }

    const SnapshotBuffer<Sample<State, Vel>>& samples() const { return samples_; }
    void clear() { samples_.clear(); }

private:
    SnapshotBuffer<Sample<State, Vel>> samples_;
};

}  // namespace tandem::predict
