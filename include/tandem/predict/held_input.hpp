// Predicting an entity against a server that holds an input and integrates it every tick:
// dead reckon with the held input locally and close a fraction of the gap to each sample.
// Never replay inputs against such a server (one coalesced input covers many ticks, so a
// replay double counts); that is PredictedPlayer's model, not this one.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <variant>

#include "tandem/predict/predicted_player.hpp"

namespace tandem::predict {

struct HeldInputConfig {
    // Fraction of the gap to the (age-corrected) sample closed per packet. A fraction, unlike
    // a fixed-duration ease, has no correction rate above which it never finishes.
    float blend = 0.25f;
};

// State and Input as for PredictedPlayer; Input{} is what is held until hold() is called.
//   advance(State&, const Input&, float dt_secs, const Ctx&): the server's integration rule.
//   lerp(const State&, const State&, float t) -> State.
// It also predicts entities you do not control: hold their intent and feed their samples.
template <class State, class Input, class Ctx = std::monostate>
class HeldInputPredictor {
public:
    using Advance = std::function<void(State&, const Input&, float, const Ctx&)>;
    using Lerp = std::function<State(const State&, const State&, float)>;
    using Distance = std::function<float(const State&, const State&)>;

    HeldInputPredictor(State start, HeldInputConfig config, Advance advance, Lerp lerp, Ctx context = Ctx{})
        : logical_(std::move(start)),
          config_(config),
          advance_(std::move(advance)),
          lerp_(std::move(lerp)),
          context_(std::move(context)) {}

    // Beyond `threshold` (as `distance` measures it) a sample is a discontinuity: snap to it.
    HeldInputPredictor& with_teleport(Distance distance, float threshold) & {
        teleport_distance_ = std::move(distance);
        teleport_threshold_ = threshold;
        return *this;
    }
    HeldInputPredictor with_teleport(Distance distance, float threshold) && {
        with_teleport(std::move(distance), threshold);
        return std::move(*this);
    }

    // The input the server now holds for this entity (send it too; see InputCoalescer).
    void hold(Input input) { held_ = std::move(input); }
    const Input& held() const { return held_; }

    // Dead reckons one frame with the held input.
    void advance(float dt_secs) {
        if (active_ && dt_secs > 0.0f) advance_(logical_, held_, dt_secs, context_);
    }

    // Folds in a sample the server took `age_secs` ago (its server time against the estimated
    // server time now): the sample is carried forward by its age with the held input, then
    // `blend` of the gap is closed, or all of it past the teleport threshold. A negative age
    // (clock noise) counts as zero. `settled` in the result is the carried-forward sample.
    Correction<State> reconcile(State sample, float age_secs) {
        if (active_ && age_secs > 0.0f) advance_(sample, held_, age_secs, context_);
        Correction<State> correction{logical_, sample};
        if (teleport_distance_ && teleport_distance_(logical_, sample) > teleport_threshold_) {
            logical_ = std::move(sample);
            ++teleports_;
        } else {
            logical_ = lerp_(logical_, sample, config_.blend);
        }
        return correction;
    }

    State render() const { return logical_; }
    const State& logical() const { return logical_; }

    void set_active(bool active) { active_ = active; }
    bool active() const { return active_; }
    void teleport(State state) { logical_ = std::move(state); }
    void set_context(Ctx context) { context_ = std::move(context); }
    const Ctx& context() const { return context_; }
    // Samples that snapped because they were beyond the teleport threshold.
    uint64_t teleports() const { return teleports_; }

private:
    State logical_;
    HeldInputConfig config_;
    Advance advance_;
    Lerp lerp_;
    Ctx context_;
    Input held_{};
    Distance teleport_distance_;
    float teleport_threshold_ = std::numeric_limits<float>::infinity();
    bool active_ = true;
    uint64_t teleports_ = 0;
};

}  // namespace tandem::predict
