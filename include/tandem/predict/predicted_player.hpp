// Predicting your own entity against a server that consumes one input per simulation step:
// apply each input at once, keep it until the server echoes its sequence, and on every
// authoritative packet replay what the server has not seen yet. The predicted state is for
// drawing and the camera only; never feed render() (or logical()) into a rule both ends run.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <utility>
#include <variant>

#include "tandem/predict/sequence.hpp"
#include "tandem/predict/smoothing.hpp"

namespace tandem::predict {

// What a reconciliation did, for CorrectionMonitor to judge: `seen` is the state predicted
// before the packet, `settled` the state after it (for PredictedPlayer, the authoritative
// state with the unacknowledged inputs replayed; for HeldInputPredictor, the sample carried
// forward by its age). Their distance is the size of the misprediction.
template <class State>
struct Correction {
    State seen;
    State settled;
};

struct PlayerConfig {
    uint32_t input_buffer = 256;   // inputs retained for replay
    float smoothing_secs = 0.1f;   // ease a correction over this long; 0 snaps
    Easing easing = ease_linear;
};

// State: your entity's state, copyable and default-constructible. Input: one input as sent. Ctx: what the rule needs
// from the world to run (gravity, platforms), set with set_context.
//   apply(State&, const Input&, const Ctx&): the server's own per-step rule, shared code.
//   lerp(const State&, const State&, float t) -> State: for easing corrections on screen.
template <class State, class Input, class Ctx = std::monostate, class Seq = Seq16>
class PredictedPlayer {
public:
    using Apply = std::function<void(State&, const Input&, const Ctx&)>;
    using Lerp = std::function<State(const State&, const State&, float)>;
    using OnFirst = std::function<void(const Input&, const Ctx&)>;

    PredictedPlayer(State start, PlayerConfig config, Apply apply, Lerp lerp, Ctx context = Ctx{})
        : logical_(std::move(start)),
          inputs_(config.input_buffer),
          smoother_(ErrorSmoother<State>(config.smoothing_secs).with_easing(config.easing)),
          apply_(std::move(apply)),
          lerp_(std::move(lerp)),
          context_(std::move(context)) {}

    // One-shot effects of an input (a sound, a muzzle flash, a footstep). apply runs on the
    // press and again on every reconcile while the input is unacknowledged, so an effect
    // inside apply repeats once per replay; on_first runs only from input(), once per press.
    PredictedPlayer& on_first(OnFirst once) & {
        on_first_ = std::move(once);
        return *this;
    }
    PredictedPlayer on_first(OnFirst once) && {
        on_first_ = std::move(once);
        return std::move(*this);
    }

    // Predicts the input now and keeps it for replay; send the returned sequence with it.
    // While inactive the input is numbered and kept (the server will still echo it) but not
    // predicted, and fires nothing.
    Seq input(Input op) {
        if (active_) {
            apply_(logical_, op, context_);
            if (on_first_) on_first_(op, context_);
        }
        return inputs_.push(std::move(op));
    }

    // Folds an authoritative packet in: the server's state after it ran every input up to
    // `last_processed`. Replays the rest on top (apply only, never on_first) and, when that
    // moved the prediction, eases the drawing from where the eye was.
    Correction<State> reconcile(State authoritative, Seq last_processed) {
        inputs_.acknowledge(last_processed);
        State drawn_before = render();
        Correction<State> correction{logical_, authoritative};
        logical_ = std::move(authoritative);
        if (active_) {
            for (const auto& buffered : inputs_.unacknowledged()) apply_(logical_, buffered.op, context_);
        }
        correction.settled = logical_;
        bool moved = true;
        if constexpr (std::equality_comparable<State>) moved = !(correction.seen == correction.settled);
        // Restarting an ease when nothing moved would make the drawing trail a moving entity.
        if (moved) smoother_.begin_from(std::move(drawn_before));
        return correction;
    }

    // Progresses the correction ease by wall time.
    void advance(float dt_secs) { smoother_.advance(dt_secs); }

    // Eased: what the eye should see. Only for drawing.
    State render() const { return smoother_.sample(logical_, lerp_); }
    // Exact: what the next prediction builds on.
    const State& logical() const { return logical_; }

    // The server is holding the entity still (a respawn delay, a stun): stop predicting, or
    // the client produces corrections of its own.
    void set_active(bool active) { active_ = active; }
    bool active() const { return active_; }

    // A discontinuity (spawn, respawn, warp): snap, never ease.
    void teleport(State state) {
        logical_ = std::move(state);
        smoother_.reset();
    }

    void set_context(Ctx context) { context_ = std::move(context); }
    const Ctx& context() const { return context_; }

    const ClientInputBuffer<Input, Seq>& inputs() const { return inputs_; }

private:
    State logical_;
    ClientInputBuffer<Input, Seq> inputs_;
    ErrorSmoother<State> smoother_;
    Apply apply_;
    Lerp lerp_;
    OnFirst on_first_;
    Ctx context_;
    bool active_ = true;
};

}  // namespace tandem::predict
