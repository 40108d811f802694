// PredictedClient<G>: predict-and-rollback drawn over a ClientSession<G>, for any game, on the
// kit's one rollback engine (predict::RollbackSession). The engine runs ahead of the confirmed
// tick with this player's own commands applied on the tick they are expected to land on and
// nobody else's (a frame's inputs are events: an unconfirmed tick has none but the own
// command); each verified tick confirms that tick's inputs, and the engine re-simulates from
// the first one its prediction got wrong, starting from the session's confirmed state. A
// re-simulation that does not fit the update's budget is spread over several updates while
// the old prediction stays on screen and keeps moving; it replaces it when it reaches the shown
// tick, and the replaced picture is kept for one update (corrected_from) so a presentation can
// ease the correction. The confirmed state stays the only verified one; nothing here goes on
// the wire (the session sends the commands). Integers only: presentation (floats, easing)
// lives with the game (for the arena: src/games/arena/presentation).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "tandem/core/result.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/net/rate_meter.hpp"
#include "tandem/predict/rollback.hpp"
#include "tandem/sim/codec.hpp"
#include "tandem/sim/simulation.hpp"

namespace tandem::client {

struct PredictConfig {
    // The most ticks the predicted state may run ahead of the confirmed one.
    uint32_t window_ticks = 12;
    // The most predicted steps one update may run (a rollback's re-simulation plus the steps
    // forward): bounds a frame's cost. At least window_ticks, so that a rollback always
    // reaches the tick that was on screen and the picture never goes back in time.
    uint32_t resim_budget_ticks = 16;
    // With a clock set (set_clock), a rollback's re-simulation stops before the next step would
    // take the update's predicted steps (forward and re-simulation) past this (0: no time
    // limit), judged by the measured cost of a step; a rollback that can land in this update
    // is judged by the steps it adds to those the shown state would make anyway (it replaces
    // them) and then runs whole. A rollback that does not fit is spread over several updates:
    // the old prediction stays on screen (and keeps its depth) while the engine re-simulates,
    // and replaces it when it reaches the shown tick. Without a clock only the tick budget
    // holds, so a run without a clock decides the same everywhere. The same budget bounds a
    // fresh prediction's growth (a join, a resync's baseline): with a clock it reaches its
    // depth over updates, at least a tick deeper each, instead of in the update that follows
    // the baseline, whose frame would otherwise wait behind the whole depth's steps.
    int64_t resim_budget_ns = 2'500'000;
    // The depth used until the first own input comes back in a frame (then measured).
    uint32_t initial_depth_ticks = 6;
};

inline constexpr uint32_t max_window_ticks = 64;
inline constexpr uint32_t max_resim_budget_ticks = 1024;

enum class PredictConfigError : uint8_t {
    window_too_large,      // window_ticks above max_window_ticks
    budget_below_window,   // resim_budget_ticks below window_ticks (or above the maximum)
    depth_above_window,    // initial_depth_ticks above window_ticks
};
std::string_view error_name(PredictConfigError e);
std::string_view describe(PredictConfigError e);
Result<void, PredictConfigError> validate(const PredictConfig& config);

// How many samples of lead (sent-to-landed ticks) the depth is the median of, and how many
// frames the per-frame re-simulation percentile covers.
inline constexpr uint32_t lead_samples = 9;
inline constexpr uint32_t resim_history = 256;

struct PredictionFigures {
    bool active = false;               // a predicted state is held
    uint64_t predicted_tick = 0;
    uint64_t confirmed_tick = 0;
    uint32_t depth_ticks = 0;          // predicted_tick - confirmed_tick
    uint32_t target_depth_ticks = 0;   // the depth it aims at: the measured lead, within the window
    uint32_t lead_samples = 0;         // own inputs seen landing (what the depth is measured from)
    uint64_t rollbacks = 0;            // re-simulations that landed (verified ticks contradicted the prediction)
    uint64_t rollbacks_per_sec = 0;    // over the session clock's last 8 s
    uint64_t resimulated_ticks = 0;    // steps re-run by rollbacks (ticks already shown), in all
    uint32_t resim_ticks_last = 0;     // in the last frame (see end_frame)
    uint32_t resim_ticks_p99 = 0;      // over the last resim_history frames
    int64_t resim_ns_p99 = -1;         // the same, timed (-1 without a clock)
    int64_t resim_ns_max = -1;
    // Every predicted step of a frame (forward and re-simulation), timed: p99 and the largest
    // over the last resim_history frames (-1 without a clock).
    int64_t steps_ns_p99 = -1;
    int64_t steps_ns_max = -1;
    uint64_t budget_cuts = 0;          // updates that stopped short of the target tick
    bool catching_up = false;          // a rollback's re-simulation is in flight
    uint32_t rollback_updates_last = 0;   // updates the last rollback's re-simulation took
    uint32_t rollback_updates_max = 0;
    uint64_t resets = 0;               // the prediction rebuilt from a new or lost state
    // Of the resets, those because the confirmed state had gone past the prediction (a frame
    // verified more ticks than the depth), and the most ticks it was past by.
    uint64_t resets_behind = 0;
    uint32_t behind_ticks_max = 0;
    uint64_t rollbacks_dropped = 0;    // re-simulations restarted or abandoned before landing
    uint32_t pending_inputs = 0;       // own commands sent and not yet verified
};

namespace detail {
uint32_t median_lead(std::span<const uint32_t> leads);
uint32_t percentile99(std::span<const uint32_t> ring, uint32_t count);
int64_t percentile99(std::span<const int64_t> ring, uint32_t count);
}  // namespace detail

template <sim::Simulation G>
class PredictedClient {
public:
    using State = typename G::State;
    using TickInputs = std::vector<sim::Input<G>>;   // one tick's inputs, in canonical order
    using Engine = predict::RollbackSession<State, TickInputs>;

    static Result<PredictedClient, PredictConfigError> create(PredictConfig config = {}) {
        if (auto v = validate(config); !v.ok()) return v.error();
        return PredictedClient(config);
    }

    // The clock that times predicted steps (the figures' resim_ns, the time budget); it
    // decides nothing without resim_budget_ns.
    void set_clock(int64_t (*now_ns)()) { timer_->clock = now_ns; }

    // After every call that may have changed the session (advance, send_command, receive):
    // follows the ticks it verified and the command it sent, rolls back when the prediction
    // was wrong, and runs forward toward the confirmed tick plus the depth, within the budget.
    void update(net::ClientSession<G>& session, int64_t now);
    // Closes one frame of the page (after the update that follows advance): the re-simulation
    // since the previous call becomes one sample of the per-frame figures.
    void end_frame();

    // The predicted state drawn (none without a confirmed state), the one before its last step
    // (nullptr when there is none: draw the state twice), and the fraction of a tick since.
    const State* state() const;
    const State* previous_state() const;
    Fx render_fraction(int64_t now) const;
    // The picture a re-simulation that landed in the last update replaced (nullptr if none):
    // what a presentation eases from.
    const State* corrected_from() const { return corrected_ ? &*corrected_from_ : nullptr; }
    // Bumped whenever the prediction is rebuilt from a new confirmed state (a presentation
    // forgets its corrections then).
    uint64_t epoch() const { return epoch_; }

    PredictionFigures figures() const;
    const PredictConfig& config() const { return config_; }

private:
    explicit PredictedClient(PredictConfig config) : config_(config), timer_(std::make_shared<Timer>()) {}

    // The step the engine runs, timed when a clock is set. Shared with the engine's step
    // function, so a moved PredictedClient keeps working.
    struct Timer {
        typename G::Stepper stepper;
        int64_t (*clock)() = nullptr;
        int64_t step_cost_ns = 0;    // a predicted step's measured cost (moving average over ~8)
        int64_t frame_steps_ns = 0;  // every step of the current frame
        int64_t last_ns = 0;         // the last step's
        void step(State& s, std::span<const sim::Input<G>> inputs) {
            const int64_t t0 = clock ? clock() : 0;
            stepper.step(s, inputs);
            last_ns = 0;
            if (!clock) return;
            last_ns = std::max<int64_t>(0, clock() - t0);
            step_cost_ns = step_cost_ns == 0 ? last_ns : (7 * step_cost_ns + last_ns) / 8;
            frame_steps_ns += last_ns;
        }
    };
    struct Pending {   // an own command sent, not yet in a verified tick
        uint32_t sequence;
        typename G::Command command;
        uint64_t lands;            // the tick it is expected to produce (applied on the step to it)
        uint64_t confirmed_at_send;
    };
    // The old prediction kept on screen while a re-simulation is spread over updates.
    struct Held {
        State state;
        std::optional<State> previous;
        int64_t last_step_at = 0;
        uint32_t applied_sequence = 0;
    };

    void rebuild(const State& confirmed);
    void hint_pending();
    uint64_t shown_tick() const;
    uint32_t target_depth() const;
    void step_held(int64_t now);

    PredictConfig config_;
    std::shared_ptr<Timer> timer_;
    std::optional<Engine> engine_;
    int64_t engine_stepped_at_ = 0;
    std::optional<Held> held_;          // set while a rollback is in flight across updates
    uint32_t catchup_updates_ = 0;
    std::optional<State> corrected_from_;
    bool corrected_ = false;
    std::vector<Pending> pending_;
    uint32_t verified_sequence_ = 0;    // the newest own command a verified tick carried
    uint32_t last_seen_sent_ = 0;
    uint64_t session_epoch_ = 0;
    uint64_t epoch_ = 0;
    bool following_ = false;
    // A prediction rebuilt from a new world (with a clock) still growing to its depth, and the
    // depth it had reached at the end of the last update.
    bool growing_ = false;
    uint64_t grown_depth_ = 0;
    uint32_t player_ = net::watcher_id;
    std::vector<net::VerifiedTick<G>> verified_;   // reused

    std::array<uint32_t, lead_samples> leads_{};
    uint32_t lead_count_ = 0;

    net::RateMeter rollback_rate_;
    std::array<uint32_t, resim_history> resim_ticks_{};
    std::array<int64_t, resim_history> resim_ns_{};
    std::array<int64_t, resim_history> steps_ns_{};
    uint32_t resim_count_ = 0;
    uint32_t frame_resim_ticks_ = 0;
    int64_t frame_resim_ns_ = 0;
    PredictionFigures figures_;
};

// ---- Rules -------------------------------------------------------------------------------------

template <sim::Simulation G>
uint32_t PredictedClient<G>::target_depth() const {
    if (lead_count_ == 0) return config_.initial_depth_ticks;
    // The median lead: one late or early echo does not move the depth.
    const uint32_t lead = detail::median_lead(std::span<const uint32_t>(leads_.data(), std::min<uint32_t>(lead_count_, lead_samples)));
    // A command sent with the confirmed state at V lands on tick V + lead: predicting lead - 1
    // ticks ahead applies it on the step that produces exactly that tick.
    return std::min(lead == 0 ? 0 : lead - 1, config_.window_ticks);
}

template <sim::Simulation G>
uint64_t PredictedClient<G>::shown_tick() const {
    if (held_) return G::tick(held_->state);
    return engine_ ? engine_->current_frame() : 0;
}

template <sim::Simulation G>
const typename G::State* PredictedClient<G>::state() const {
    if (held_) return &held_->state;
    return engine_ ? engine_->retained_state(engine_->current_frame()) : nullptr;
}

template <sim::Simulation G>
const typename G::State* PredictedClient<G>::previous_state() const {
    if (held_) return held_->previous ? &*held_->previous : nullptr;
    if (!engine_ || engine_->current_frame() == 0) return nullptr;
    return engine_->retained_state(engine_->current_frame() - 1);
}

template <sim::Simulation G>
Fx PredictedClient<G>::render_fraction(int64_t now) const {
    const State* s = state();
    if (!s) return Fx::zero();
    const uint32_t hz = G::tick_hz(G::config_of(*s)) == 0 ? 1 : G::tick_hz(G::config_of(*s));
    const int64_t since = std::max<int64_t>(0, now - (held_ ? held_->last_step_at : engine_stepped_at_));
    return net::detail::tick_fraction(since, 1'000'000'000 / hz);
}

// Each pending own command as the engine's guess for the tick it lands on (or the next step,
// if the prediction is already past it: it must not apply early, and a late one applies now).
template <sim::Simulation G>
void PredictedClient<G>::hint_pending() {
    for (const Pending& p : pending_) {
        const uint64_t frame = std::max<uint64_t>(p.lands - 1, engine_->current_frame());
        (void)engine_->predict_input_at(0, frame, TickInputs{sim::Input<G>{player_, sim::InputKind::command, p.command}});
    }
}

template <sim::Simulation G>
void PredictedClient<G>::rebuild(const State& confirmed) {
    predict::RollbackConfig rc;
    rc.prediction_window = config_.window_ticks;
    rc.confirmed_history = 1;   // the state before the current one stays readable (drawn)
    rc.max_frames_ahead = predict::max_rollback_frames;
    rc.first_frame = G::tick(confirmed);
    rc.hold_inputs = false;
    std::shared_ptr<Timer> timer = timer_;
    auto made = Engine::create(
        confirmed, {TickInputs{}}, rc, [timer](State& s, std::span<const TickInputs> in) { timer->step(s, in[0]); },
        [](const State& s) { return sim::digest<G>(s); });
    engine_.emplace(std::move(made).value());   // the config is within the engine's limits by construction
    hint_pending();
}

template <sim::Simulation G>
void PredictedClient<G>::step_held(int64_t now) {
    // The old prediction moves on by the same rule: the newest own command due on this step.
    const uint64_t next = G::tick(held_->state) + 1;
    const Pending* due = nullptr;
    for (const Pending& p : pending_)
        if (p.sequence > held_->applied_sequence && p.lands <= next && (!due || p.sequence > due->sequence)) due = &p;
    TickInputs inputs;
    if (due) {
        inputs.push_back(sim::Input<G>{player_, sim::InputKind::command, due->command});
        held_->applied_sequence = due->sequence;
    }
    held_->previous = held_->state;
    timer_->step(held_->state, inputs);
    held_->last_step_at = now;
}

template <sim::Simulation G>
void PredictedClient<G>::update(net::ClientSession<G>& session, int64_t now) {
    session.keep_verified(true);
    verified_.clear();
    session.take_verified(verified_);
    rollback_rate_.elapsed(now);
    corrected_ = false;
    const auto& confirmed = session.confirmed_state();
    const net::SessionFigures sf = session.figures();
    player_ = sf.player;
    if (!confirmed) {
        // No state held (waiting for a baseline): nothing to predict from.
        engine_.reset();
        held_.reset();
        pending_.clear();
        following_ = false;
        return;
    }

    // Own commands the verified ticks carried: they end their pending life and measure the lead.
    for (const auto& vt : verified_) {
        for (const net::Applied<G>& a : vt.inputs) {
            if (a.input.player != player_ || a.input.kind != sim::InputKind::command || a.sequence == 0) continue;
            for (const Pending& p : pending_) {
                if (p.sequence != a.sequence) continue;
                leads_[lead_count_ % lead_samples] =
                    static_cast<uint32_t>(std::min<uint64_t>(vt.tick - std::min(vt.tick, p.confirmed_at_send), max_window_ticks + 1));
                ++lead_count_;
            }
            verified_sequence_ = std::max(verified_sequence_, a.sequence);
        }
    }
    std::erase_if(pending_, [&](const Pending& p) { return p.sequence <= verified_sequence_; });

    const uint64_t base = G::tick(*confirmed);
    // Each verified tick confirms its inputs in the engine, which marks the first frame its
    // prediction got wrong. A tick the picture had not reached means nothing was wrong but
    // the prediction fell behind: rebuilt.
    bool rebuild_now = !following_ || !engine_ || session.world_epoch() != session_epoch_;
    bool behind = false;
    const std::optional<uint64_t> pending_before = engine_ ? engine_->pending_rollback() : std::nullopt;
    if (!rebuild_now) {
        for (const auto& vt : verified_) {
            if (shown_tick() < vt.tick) {
                rebuild_now = behind = true;
                break;
            }
            TickInputs actual;
            actual.reserve(vt.inputs.size());
            for (const net::Applied<G>& a : vt.inputs) actual.push_back(a.input);
            sim::sort_canonical<G>(std::span<sim::Input<G>>(actual));
            if (!engine_->confirm_remote_input(0, vt.tick - 1, std::move(actual)).ok()) {
                rebuild_now = true;
                break;
            }
        }
    }
    if (!rebuild_now && shown_tick() < base) rebuild_now = behind = true;
    // A growing prediction shorter than the ticks an update verified is passed by design: it
    // starts again from the confirmed state and grows on (neither a reset nor behind).
    const bool regrow = behind && growing_;
    if (behind && !regrow) {
        ++figures_.resets_behind;
        const uint64_t shown = shown_tick();
        figures_.behind_ticks_max = std::max(figures_.behind_ticks_max, static_cast<uint32_t>(std::min<uint64_t>(base - std::min(base, shown), UINT32_MAX)));
    }

    if (auto sent = session.last_command_sent(); sent && sent->sequence > last_seen_sent_) {
        last_seen_sent_ = sent->sequence;
        // It lands where the measured lead says, wherever the prediction is now: one held back
        // by the budget must not apply it early (and so mispredict it).
        if (sent->sequence > verified_sequence_ && sf.role == net::Role::play) {
            pending_.push_back(Pending{sent->sequence, sent->command, base + target_depth() + 1, base});
            if (!rebuild_now) {
                const uint64_t frame = std::max<uint64_t>(base + target_depth(), engine_->current_frame());
                (void)engine_->predict_input_at(0, frame, TickInputs{sim::Input<G>{player_, sim::InputKind::command, sent->command}});
            }
        }
    }

    figures_.confirmed_tick = base;
    const uint64_t limit = base + config_.window_ticks;
    const uint64_t target = std::min(base + target_depth(), limit);
    uint32_t budget = config_.resim_budget_ticks;
    const bool timed = timer_->clock && config_.resim_budget_ns > 0;
    const int64_t t_start = timer_->clock ? timer_->clock() : 0;
    uint32_t steps = 0;
    // The time budget: one more step only if its expected cost still fits (with a clock only).
    auto time_for_one_more = [&] {
        return !timed || timer_->clock() - t_start + timer_->step_cost_ns <= config_.resim_budget_ns;
    };
    auto engine_front = [&] { return engine_->pending_rollback().value_or(engine_->current_frame()); };
    // The picture always goes to the target depth (the tick budget only): holding it back would
    // give up depth; in a running match that is a step a frame. The time budget is the
    // re-simulation's, and a growing prediction's: a new world has no depth on screen to give
    // up, so it grows by at least a tick an update (it reaches the depth within as many
    // updates) and further while the budget allows. In a page that is what keeps the first
    // frames after a join from waiting behind the whole depth's steps: the first ones, run
    // before the code is optimised, cost several times a step (10-20 ms for six in Chromium).
    auto forward = [&] {
        if (held_) {
            while (G::tick(held_->state) < target && budget > 0) step_held(now), --budget, ++steps;
            return;
        }
        const uint64_t grow_to = growing_ ? std::min(target, base + grown_depth_ + 1) : target;
        while (engine_->current_frame() < target && budget > 0 &&
               (engine_->current_frame() < grow_to || time_for_one_more()) && engine_->advance_frame().ok()) {
            engine_stepped_at_ = now;
            --budget;
            ++steps;
        }
    };

    if (rebuild_now) {
        // A new state (baseline, reconnect) or a prediction that fell behind: snap.
        if (held_) ++figures_.rollbacks_dropped;
        held_.reset();
        rebuild(*confirmed);
        if (!regrow) ++figures_.resets;
        const bool new_world = !following_ || session.world_epoch() != session_epoch_;
        if (session.world_epoch() != session_epoch_) ++epoch_;
        session_epoch_ = session.world_epoch();
        following_ = true;
        if (new_world) {
            growing_ = timed;
            grown_depth_ = 0;
        }
    } else if (engine_->pending_rollback()) {
        // The session's confirmed state is where the re-simulation starts if it began before it
        // (the confirmed ticks are not stepped again); a prediction the confirmed state has
        // passed is rebuilt from it. A re-simulation in flight that a verified tick contradicted
        // again restarts (it keeps its age, so that after more updates than the window it outruns
        // the frames below even when every frame verifies more ticks than the budget steps).
        if (held_ && pending_before && engine_->pending_rollback() != pending_before) ++figures_.rollbacks_dropped;
        if (base > engine_->current_frame()) {
            rebuild(*confirmed);   // only while the old picture is held (else it was behind, above)
        } else {
            (void)engine_->adopt_confirmed_state(base, *confirmed);
        }
        if (!held_ && engine_->pending_rollback()) {
            // The old picture stays on screen until the re-simulation reaches it.
            const uint64_t cur = engine_->current_frame();
            held_ = Held{*engine_->retained_state(cur), std::nullopt, engine_stepped_at_, verified_sequence_};
            if (const State* prev = cur > 0 ? engine_->retained_state(cur - 1) : nullptr) held_->previous = *prev;
            for (const Pending& p : pending_)
                if (p.lands <= cur) held_->applied_sequence = std::max(held_->applied_sequence, p.sequence);
            catchup_updates_ = 0;
        }
    }

    uint32_t resimulated = 0;
    int64_t resim_ns = 0;
    if (held_) {
        ++catchup_updates_;
        // The engine goes up to the tick on screen (or the target, if further), so the picture
        // never goes back in time. If it can get there within this update it goes first, and
        // the old picture is not stepped in vain; if not, the old picture moves on first and
        // the re-simulation takes what is left of the budget. Landing now replaces the steps
        // the old picture would make this update (up to the target), so only the steps beyond
        // those are the rollback's cost.
        auto goal = [&] { return std::min(std::max(G::tick(held_->state), target), limit); };
        const uint64_t need = goal() - std::min(goal(), engine_front());
        const uint64_t replaced = target - std::min(target, G::tick(held_->state));
        const uint64_t extra = need - std::min(need, replaced);
        // One in flight for longer than the window runs whole (within the tick budget): the
        // engine restarts it at every tick a frame contradicts, so spread further it might
        // never land while another player keeps commanding.
        const bool overdue = catchup_updates_ > config_.window_ticks;
        const bool fits = need <= budget && (overdue || !timed || static_cast<int64_t>(extra) * timer_->step_cost_ns <= config_.resim_budget_ns);
        if (!fits) forward();
        // At least a step; and once it has run for longer than the window, at least one step
        // more than the picture made, so that it lands even on a machine too slow for the
        // budget. One that fits goes all the way: its cost was judged as a whole.
        const uint32_t at_least = catchup_updates_ > config_.window_ticks ? 2 * steps + 1 : steps + 1;
        while (engine_front() < goal() && budget > 0 && (fits || steps < at_least || time_for_one_more())) {
            // Re-simulated: a tick the old picture had already shown.
            const bool again = engine_front() < G::tick(held_->state);
            if (engine_->pending_rollback()) engine_->resimulate(1);
            else if (!engine_->advance_frame().ok()) break;
            engine_stepped_at_ = now;
            --budget;
            ++steps;
            if (!again) continue;
            ++resimulated;
            resim_ns += timer_->last_ns;
        }
        figures_.resimulated_ticks += resimulated;
        if (!engine_->pending_rollback() && engine_->current_frame() >= goal()) {
            // Landed: the old picture is what a presentation eases from.
            corrected_from_ = std::move(held_->state);
            corrected_ = true;
            held_.reset();
            ++figures_.rollbacks;
            rollback_rate_.add(1);
            figures_.rollback_updates_last = catchup_updates_;
            figures_.rollback_updates_max = std::max(figures_.rollback_updates_max, catchup_updates_);
        }
    }
    forward();
    if (growing_) {
        grown_depth_ = shown_tick() - std::min(shown_tick(), base);
        if (held_ || shown_tick() >= target) growing_ = false;
    }
    if (shown_tick() < target) ++figures_.budget_cuts;
    frame_resim_ticks_ += resimulated;
    frame_resim_ns_ += resim_ns;
}

template <sim::Simulation G>
void PredictedClient<G>::end_frame() {
    resim_ticks_[resim_count_ % resim_history] = frame_resim_ticks_;
    resim_ns_[resim_count_ % resim_history] = frame_resim_ns_;
    steps_ns_[resim_count_ % resim_history] = timer_->frame_steps_ns;
    timer_->frame_steps_ns = 0;
    ++resim_count_;
    figures_.resim_ticks_last = frame_resim_ticks_;
    frame_resim_ticks_ = 0;
    frame_resim_ns_ = 0;
}

template <sim::Simulation G>
PredictionFigures PredictedClient<G>::figures() const {
    PredictionFigures f = figures_;
    f.active = state() != nullptr;
    f.catching_up = held_.has_value();
    if (f.active) {
        f.predicted_tick = shown_tick();
        f.depth_ticks = static_cast<uint32_t>(f.predicted_tick - std::min(f.predicted_tick, f.confirmed_tick));
    }
    f.target_depth_ticks = target_depth();
    f.lead_samples = lead_count_;
    f.rollbacks_per_sec = rollback_rate_.per_sec();
    f.resim_ticks_p99 = detail::percentile99(std::span<const uint32_t>(resim_ticks_), resim_count_);
    if (timer_->clock) {
        const std::size_t n = std::min<std::size_t>(resim_count_, resim_history);
        f.resim_ns_p99 = detail::percentile99(std::span<const int64_t>(resim_ns_), resim_count_);
        f.resim_ns_max = n == 0 ? 0 : *std::max_element(resim_ns_.begin(), resim_ns_.begin() + static_cast<std::ptrdiff_t>(n));
        f.steps_ns_p99 = detail::percentile99(std::span<const int64_t>(steps_ns_), resim_count_);
        f.steps_ns_max = n == 0 ? 0 : *std::max_element(steps_ns_.begin(), steps_ns_.begin() + static_cast<std::ptrdiff_t>(n));
    }
    f.pending_inputs = static_cast<uint32_t>(pending_.size());
    return f;
}

}  // namespace tandem::client
