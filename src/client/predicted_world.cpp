// PredictedWorld's rules (tandem/client/predicted_world.hpp): when a verified tick contradicts
// the prediction, where the own steers land, how deep to predict, and how a correction is
// eased. The simulation it runs is world::step over a copy of the confirmed world; floats
// appear only in the drawn offsets and the correction monitor.
#include "tandem/client/predicted_world.hpp"

#include <algorithm>
#include <cmath>

namespace tandem::client {

std::string_view error_name(PredictConfigError e) {
    switch (e) {
        case PredictConfigError::window_too_large: return "window_too_large";
        case PredictConfigError::budget_below_window: return "budget_below_window";
        case PredictConfigError::depth_above_window: return "depth_above_window";
    }
    return "unknown";
}

std::string_view describe(PredictConfigError e) {
    switch (e) {
        case PredictConfigError::window_too_large: return "the prediction window must be at most max_window_ticks (64) ticks";
        case PredictConfigError::budget_below_window:
            return "the re-simulation budget must be at least the prediction window and at most max_resim_budget_ticks";
        case PredictConfigError::depth_above_window: return "the initial depth must be at most the prediction window";
    }
    return "unknown prediction config error";
}

Result<PredictedWorld, PredictConfigError> PredictedWorld::create(PredictConfig config) {
    if (config.window_ticks > max_window_ticks) return PredictConfigError::window_too_large;
    if (config.resim_budget_ticks < config.window_ticks || config.resim_budget_ticks > max_resim_budget_ticks)
        return PredictConfigError::budget_below_window;
    if (config.initial_depth_ticks > config.window_ticks) return PredictConfigError::depth_above_window;
    return PredictedWorld(config);
}

namespace {

std::vector<world::Input> sorted(std::vector<world::Input> inputs) {
    std::sort(inputs.begin(), inputs.end(), world::canonical_less);
    return inputs;
}

std::vector<world::Input> inputs_of(const std::vector<net::AppliedInput>& applied) {
    std::vector<world::Input> out;
    out.reserve(applied.size());
    for (const net::AppliedInput& a : applied) out.push_back(a.input);
    return out;
}

template <class T, std::size_t N>
T percentile99(const std::array<T, N>& ring, uint32_t count) {
    const std::size_t n = std::min<std::size_t>(count, N);
    if (n == 0) return T{};
    std::array<T, N> copy = ring;
    // The smallest value at or above 99% of the samples (nearest rank).
    const std::size_t rank = (n * 99 + 99) / 100 - 1;
    std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(rank), copy.begin() + static_cast<std::ptrdiff_t>(n));
    return copy[rank];
}

}  // namespace

void PredictedWorld::reset_to(Line& line, const world::World& confirmed, uint32_t own_sequence) {
    if (line.world) *line.world = confirmed;   // reuses the storage of the last one
    else line.world = confirmed;
    line.used.clear();
    line.applied_sequence = own_sequence;
    line.pellets_prev.clear();
    line.wells_prev.clear();
}

uint32_t PredictedWorld::target_depth() const {
    if (lead_count_ == 0) return config_.initial_depth_ticks;
    // The median lead: one late or early echo does not move the depth.
    const uint32_t n = std::min<uint32_t>(lead_count_, lead_samples);
    std::array<uint32_t, lead_samples> copy = leads_;
    std::nth_element(copy.begin(), copy.begin() + n / 2, copy.begin() + n);
    const uint32_t lead = copy[n / 2];
    // A steer sent with the confirmed world at V lands on tick V + lead: predicting lead - 1
    // ticks ahead applies it on the step that produces exactly that tick.
    return std::min(lead == 0 ? 0 : lead - 1, config_.window_ticks);
}

int64_t PredictedWorld::step_line(Line& line, int64_t now) {
    const uint64_t next = line.world->tick + 1;
    std::vector<world::Input> inputs;
    // The newest own steer due on this step (the room, too, keeps only a player's newest steer
    // per tick); an older one still pending was overtaken.
    const Pending* due = nullptr;
    for (const Pending& p : pending_)
        if (p.sequence > line.applied_sequence && p.lands <= next && (!due || p.sequence > due->sequence)) due = &p;
    if (due) {
        inputs.push_back(world::Input{player_, world::InputKind::steer, due->target});
        line.applied_sequence = due->sequence;
    }
    line.pellets_prev.clear();
    for (const world::Pellet& p : line.world->pellets) line.pellets_prev.push_back(p.pos);
    line.wells_prev.clear();
    for (const world::Well& w : line.world->wells) line.wells_prev.push_back({w.player, w.pos});
    const int64_t t0 = clock_ ? clock_() : 0;
    stepper_.step(*line.world, inputs);
    int64_t took = 0;
    if (clock_) {
        // What the budget expects the next step to cost: a moving average over about 8 steps.
        took = std::max<int64_t>(0, clock_() - t0);
        step_cost_ns_ = step_cost_ns_ == 0 ? took : (7 * step_cost_ns_ + took) / 8;
        frame_steps_ns_ += took;
    }
    line.used.push_back(Used{next, std::move(inputs)});
    line.last_step_at = now;
    return took;
}

void PredictedWorld::ease(int64_t now) {
    const float dt = updated_once_ ? static_cast<float>(std::max<int64_t>(0, now - last_update_at_)) * 1e-9f : 0.0f;
    last_update_at_ = now;
    updated_once_ = true;
    for (Offset& o : offsets_) {
        const float keep = config_.decay.retain(std::hypot(o.dx, o.dy), dt);
        o.dx *= keep;
        o.dy *= keep;
    }
    // A hundredth of a unit is far below a pixel at any zoom the page offers.
    std::erase_if(offsets_, [](const Offset& o) { return std::hypot(o.dx, o.dy) < 0.01f; });
}

void PredictedWorld::update(net::ClientSession& session, int64_t now) {
    session.keep_verified(true);
    verified_.clear();
    session.take_verified(verified_);
    rollback_rate_.elapsed(now);
    ease(now);
    const auto& confirmed = session.confirmed_world();
    const net::SessionFigures sf = session.figures();
    player_ = sf.player;

    auto record_resim = [&](uint32_t ticks, int64_t ns) {
        frame_resim_ticks_ += ticks;
        frame_resim_ns_ += ns;
    };
    if (!confirmed) {
        // No world held (waiting for a baseline): nothing to predict from.
        shown_.world.reset();
        shown_.used.clear();
        catching_up_ = false;
        shown_wrong_ = false;
        pending_.clear();
        offsets_.clear();
        following_ = false;
        record_resim(0, 0);
        return;
    }

    // Own steers the verified ticks carried: they end their pending life and measure the lead.
    for (const auto& vt : verified_) {
        for (const net::AppliedInput& a : vt.inputs) {
            if (a.input.player != player_ || a.input.kind != world::InputKind::steer || a.sequence == 0) continue;
            for (const Pending& p : pending_) {
                if (p.sequence != a.sequence) continue;
                leads_[lead_count_ % lead_samples] = static_cast<uint32_t>(std::min<uint64_t>(vt.tick - std::min(vt.tick, p.confirmed_at_send), max_window_ticks + 1));
                ++lead_count_;
            }
            verified_sequence_ = std::max(verified_sequence_, a.sequence);
        }
    }
    std::erase_if(pending_, [&](const Pending& p) { return p.sequence <= verified_sequence_; });

    // Was the prediction right? Each verified tick must carry exactly the inputs the predicted
    // world stepped that tick with (a state equal before and equal inputs give an equal state).
    // A re-simulation in flight is held to the same test for the ticks it has stepped.
    bool rebuild = !following_ || !shown_.world || session.world_epoch() != epoch_;
    bool behind = false;
    if (!rebuild) {
        for (const auto& vt : verified_) {
            if (shown_.used.empty() || shown_.used.front().tick != vt.tick) {
                rebuild = behind = true;   // the prediction had not reached this tick: nothing was wrong
                break;
            }
            const std::vector<world::Input> actual = sorted(inputs_of(vt.inputs));
            if (actual != sorted(shown_.used.front().inputs)) shown_wrong_ = true;
            shown_.used.pop_front();
            if (!catching_up_) continue;
            if (!catchup_.used.empty() && catchup_.used.front().tick == vt.tick) {
                if (actual != sorted(catchup_.used.front().inputs)) catchup_stale_ = true;
                catchup_.used.pop_front();
            } else if (catchup_.world->tick < vt.tick) {
                catchup_stale_ = true;   // it had not got there: it holds nothing of this tick
            }
        }
    }
    if (!rebuild && shown_.world->tick < confirmed->tick) rebuild = behind = true;
    if (behind) {
        ++figures_.resets_behind;
        figures_.behind_ticks_max = std::max(figures_.behind_ticks_max,
            static_cast<uint32_t>(std::min<uint64_t>(confirmed->tick - std::min(confirmed->tick, shown_.world->tick), UINT32_MAX)));
    }

    if (auto sent = session.last_input_sent(); sent && sent->sequence > last_seen_sent_) {
        last_seen_sent_ = sent->sequence;
        // It lands where the measured lead says, wherever the predicted world is now: one
        // held back by the budget must not apply it early (and so mispredict it).
        if (sent->sequence > verified_sequence_ && sf.role == net::Role::play)
            pending_.push_back(Pending{sent->sequence, sent->target, confirmed->tick + target_depth() + 1, confirmed->tick});
    }

    const uint64_t base = confirmed->tick;
    figures_.confirmed_tick = base;
    const uint64_t limit = base + config_.window_ticks;
    const uint64_t target = std::min(base + target_depth(), limit);
    uint32_t budget = config_.resim_budget_ticks;
    const bool timed = clock_ && config_.resim_budget_ns > 0;
    const int64_t t_start = clock_ ? clock_() : 0;
    uint32_t steps = 0;
    // The time budget: one more step only if its expected cost still fits (with a clock only).
    auto time_for_one_more = [&] {
        return !timed || clock_() - t_start + step_cost_ns_ <= config_.resim_budget_ns;
    };
    // The shown world always goes to the target depth (the tick budget only): holding it back
    // would give up depth; in a running match that is a step a frame. The time budget is the
    // re-simulation's.
    auto forward = [&] {
        while (shown_.world->tick < target && budget > 0) {
            step_line(shown_, now);
            --budget;
            ++steps;
        }
    };

    if (rebuild) {
        // A new world (baseline, reconnect) or a prediction that fell behind: snap.
        reset_to(shown_, *confirmed, verified_sequence_);
        if (catching_up_) ++figures_.rollbacks_dropped;
        catching_up_ = false;
        shown_wrong_ = false;
        ++figures_.resets;
        if (session.world_epoch() != epoch_) offsets_.clear();
        epoch_ = session.world_epoch();
        following_ = true;
    } else if (shown_wrong_ || (catching_up_ && catchup_.world->tick < confirmed->tick)) {
        // Roll back: re-simulate from the newest confirmed world, unless a re-simulation is
        // already under way that nothing has contradicted (it will bring the right picture)
        // or that is stale but ahead of the confirmed world (it still brings a better one;
        // the next starts when it lands). One the confirmed world has overtaken holds nothing
        // the confirmed world does not hold better: it starts again from there, contradicted
        // or not (its record of inputs would name ticks already verified). A restart keeps
        // its age, so that after more updates than the window it outruns the frames (below)
        // even when every frame verifies more ticks than the budget lets it step.
        if (!catching_up_ || catchup_.world->tick < confirmed->tick || (catchup_stale_ && catchup_.world->tick <= confirmed->tick)) {
            if (catching_up_) ++figures_.rollbacks_dropped;
            else catchup_updates_ = 0;
            reset_to(catchup_, *confirmed, verified_sequence_);
            catching_up_ = true;
            catchup_stale_ = false;
        }
        shown_wrong_ = false;   // the re-simulation in flight answers for it now
    }

    uint32_t resimulated = 0;
    int64_t resim_ns = 0;
    if (catching_up_) {
        ++catchup_updates_;
        // It goes up to the tick on screen (or the target, if further), so the picture never
        // goes back in time. If it can get there within this update it goes first, and the
        // shown world is not stepped in vain; if not, the shown world moves on first (the
        // picture keeps going) and the re-simulation takes what is left of the budget.
        // Landing now replaces the steps the shown world would make this update (up to the
        // target), so only the steps beyond those are the rollback's cost: with frames of
        // several ticks (a slow page) that is the depth less the frame's ticks, where
        // spreading would cost more than the frame's ticks again every update and, overtaken
        // by the confirmed world each frame, never land.
        auto goal = [&] { return std::min(std::max(shown_.world->tick, target), limit); };
        const uint64_t need = goal() - std::min(goal(), catchup_.world->tick);
        const uint64_t replaced = target - std::min(target, shown_.world->tick);
        const uint64_t extra = need - std::min(need, replaced);
        const bool fits = need <= budget && (!timed || static_cast<int64_t>(extra) * step_cost_ns_ <= config_.resim_budget_ns);
        if (!fits) forward();
        // At least a step; and once it has run for longer than the window, at least one step
        // more than the shown world made, so that it lands even on a machine too slow for the
        // budget (earlier that would make a slow frame for nothing: the budget usually allows
        // several).
        const uint32_t at_least = catchup_updates_ > config_.window_ticks ? 2 * steps + 1 : steps + 1;
        // One that fits goes all the way: its cost was judged as a whole (the steps it replaces
        // are spent inside this update's clock too).
        while (catchup_.world->tick < goal() && budget > 0 && (fits || steps < at_least || time_for_one_more())) {
            // Re-simulated: a tick the shown world had already stepped. The ones past it are
            // new ticks, which the shown world would have stepped anyway.
            const bool again = catchup_.world->tick < shown_.world->tick;
            const int64_t took = step_line(catchup_, now);
            --budget;
            ++steps;
            if (!again) continue;
            ++resimulated;
            resim_ns += took;
        }
        figures_.resimulated_ticks += resimulated;
        if (catchup_.world->tick >= goal()) {
            // Landed: each well's new position against the one drawn becomes an eased offset.
            for (const world::Well& w : catchup_.world->wells) {
                for (const world::Well& b : shown_.world->wells) {
                    if (b.player != w.player) continue;
                    const float dx = to_f32(b.pos.x) - to_f32(w.pos.x);
                    const float dy = to_f32(b.pos.y) - to_f32(w.pos.y);
                    const float distance = std::hypot(dx, dy);
                    if (distance <= 0.0f) continue;
                    ++figures_.corrections;
                    figures_.last_correction = distance;
                    monitor_.record(distance);
                    auto it = std::find_if(offsets_.begin(), offsets_.end(), [&](const Offset& o) { return o.player == w.player; });
                    if (it == offsets_.end()) offsets_.push_back(Offset{w.player, dx, dy});
                    else it->dx += dx, it->dy += dy;
                }
            }
            std::swap(shown_, catchup_);
            catching_up_ = false;
            shown_wrong_ = catchup_stale_;   // the next rollback starts at the next update
            ++figures_.rollbacks;
            rollback_rate_.add(1);
            figures_.rollback_updates_last = catchup_updates_;
            figures_.rollback_updates_max = std::max(figures_.rollback_updates_max, catchup_updates_);
        }
    }
    forward();
    if (shown_.world->tick < target) ++figures_.budget_cuts;
    record_resim(resimulated, resim_ns);
}

void PredictedWorld::end_frame() {
    resim_ticks_[resim_count_ % resim_history] = frame_resim_ticks_;
    resim_ns_[resim_count_ % resim_history] = frame_resim_ns_;
    steps_ns_[resim_count_ % resim_history] = frame_steps_ns_;
    frame_steps_ns_ = 0;
    ++resim_count_;
    figures_.resim_ticks_last = frame_resim_ticks_;
    frame_resim_ticks_ = 0;
    frame_resim_ns_ = 0;
}

PredictedView PredictedWorld::render_view(const net::ClientSession& session, int64_t now) const {
    PredictedView pv;
    pv.view = session.render_view(now);
    const std::optional<world::World>& predicted = shown_.world;
    if (!predicted || !session.confirmed_world()) return pv;
    pv.confirmed_tick = session.confirmed_world()->tick;
    net::RenderView& v = pv.view;   // keeps the confirmed events: effects fire once, never twice
    v.has_world = true;
    v.tick = predicted->tick;
    v.arena_size = predicted->config.arena_size;
    v.pellets.clear();
    for (const world::Pellet& p : predicted->pellets) v.pellets.push_back(p.pos);
    v.wells.clear();
    for (const world::Well& w : predicted->wells) v.wells.push_back({w.player, w.pos});
    v.pellets_prev = shown_.pellets_prev.size() == v.pellets.size() ? shown_.pellets_prev : v.pellets;
    v.wells_prev = shown_.wells_prev.empty() ? v.wells : shown_.wells_prev;
    const uint32_t hz = predicted->config.tick_hz == 0 ? 1 : predicted->config.tick_hz;
    const int64_t tick_ns = 1'000'000'000 / hz;
    const int64_t since = std::max<int64_t>(0, now - shown_.last_step_at);
    const int64_t raw = std::min<int64_t>(Fx::one_raw, since * Fx::one_raw / tick_ns);
    v.fraction = Fx::from_raw(static_cast<int32_t>(raw));
    for (const Offset& o : offsets_) pv.offsets.push_back(WellOffset{o.player, o.dx, o.dy});
    return pv;
}

PredictionFigures PredictedWorld::figures() const {
    PredictionFigures f = figures_;
    f.active = shown_.world.has_value();
    f.catching_up = catching_up_;
    if (shown_.world) {
        f.predicted_tick = shown_.world->tick;
        f.depth_ticks = static_cast<uint32_t>(shown_.world->tick - std::min(shown_.world->tick, f.confirmed_tick));
    }
    f.target_depth_ticks = target_depth();
    f.lead_samples = lead_count_;
    f.rollbacks_per_sec = rollback_rate_.per_sec();
    f.resim_ticks_p99 = percentile99(resim_ticks_, resim_count_);
    if (clock_) {
        f.resim_ns_p99 = percentile99(resim_ns_, resim_count_);
        const std::size_t n = std::min<std::size_t>(resim_count_, resim_history);
        f.resim_ns_max = n == 0 ? 0 : *std::max_element(resim_ns_.begin(), resim_ns_.begin() + static_cast<std::ptrdiff_t>(n));
        f.steps_ns_p99 = percentile99(steps_ns_, resim_count_);
        f.steps_ns_max = n == 0 ? 0 : *std::max_element(steps_ns_.begin(), steps_ns_.begin() + static_cast<std::ptrdiff_t>(n));
    }
    f.monitor_alarms = monitor_.alarms();
    f.pending_inputs = static_cast<uint32_t>(pending_.size());
    return f;
}

}  // namespace tandem::client
