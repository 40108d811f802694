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

void PredictedWorld::reset_to(const world::World& confirmed, uint32_t own_sequence) {
    predicted_ = confirmed;
    used_.clear();
    applied_sequence_ = own_sequence;
    pellets_prev_.clear();
    wells_prev_.clear();
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

void PredictedWorld::step_predicted(int64_t now) {
    const uint64_t next = predicted_->tick + 1;
    std::vector<world::Input> inputs;
    // The newest own steer due on this step (the room, too, keeps only a player's newest steer
    // per tick); an older one still pending was overtaken.
    const Pending* due = nullptr;
    for (const Pending& p : pending_)
        if (p.sequence > applied_sequence_ && p.lands <= next && (!due || p.sequence > due->sequence)) due = &p;
    if (due) {
        inputs.push_back(world::Input{player_, world::InputKind::steer, due->target});
        applied_sequence_ = due->sequence;
    }
    pellets_prev_.clear();
    for (const world::Pellet& p : predicted_->pellets) pellets_prev_.push_back(p.pos);
    wells_prev_.clear();
    for (const world::Well& w : predicted_->wells) wells_prev_.push_back({w.player, w.pos});
    stepper_.step(*predicted_, inputs);
    used_.push_back(Used{next, std::move(inputs)});
    last_step_at_ = now;
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
        predicted_.reset();
        used_.clear();
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
    bool rebuild = !following_ || !predicted_ || session.world_epoch() != epoch_;
    bool mispredicted = false;
    if (!rebuild) {
        for (const auto& vt : verified_) {
            if (used_.empty() || used_.front().tick != vt.tick) {
                rebuild = true;   // the prediction had not reached this tick: nothing was wrong
                break;
            }
            if (sorted(inputs_of(vt.inputs)) != sorted(used_.front().inputs)) {
                mispredicted = true;
                break;
            }
            used_.pop_front();
        }
    }
    if (!rebuild && !mispredicted && predicted_->tick < confirmed->tick) rebuild = true;

    const uint64_t predicted_before = predicted_ ? predicted_->tick : confirmed->tick;
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
    uint32_t resimulated = 0;
    int64_t resim_ns = 0;

    if (rebuild || mispredicted) {
        // The drawn wells before: a rollback must not make them jump (the ease hides it).
        std::vector<net::RenderWell> before;
        if (mispredicted)
            for (const world::Well& w : predicted_->wells) before.push_back({w.player, w.pos});
        const int64_t t0 = clock_ ? clock_() : 0;
        reset_to(*confirmed, verified_sequence_);
        // A rollback re-simulates up to the tick that was on screen (or the target, if
        // further), so the picture never goes back in time; a rebuild only to the target.
        const uint64_t goal = std::min(mispredicted ? std::max(predicted_before, target) : target, limit);
        while (predicted_->tick < goal && budget > 0) {
            // The time budget (with a clock only): past it, the picture runs less far ahead
            // this frame rather than make the frame late; at least one step is made.
            if (clock_ && config_.resim_budget_ns > 0 && resimulated > 0 && clock_() - t0 >= config_.resim_budget_ns) {
                budget = 0;
                break;
            }
            step_predicted(now);
            --budget;
            if (mispredicted) ++resimulated;
        }
        if (clock_ && mispredicted) resim_ns = std::max<int64_t>(0, clock_() - t0);
        if (mispredicted) {
            ++figures_.rollbacks;
            figures_.resimulated_ticks += resimulated;
            rollback_rate_.add(1);
            for (const world::Well& w : predicted_->wells) {
                for (const net::RenderWell& b : before) {
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
        } else {
            // A new world (baseline, reconnect) or a prediction that fell behind: snap.
            ++figures_.resets;
            if (session.world_epoch() != epoch_) offsets_.clear();
        }
        epoch_ = session.world_epoch();
        following_ = true;
    }
    // Forward to the target, within what is left of the budget.
    while (predicted_->tick < target && budget > 0) {
        step_predicted(now);
        --budget;
    }
    if (predicted_->tick < target) ++figures_.budget_cuts;
    record_resim(resimulated, resim_ns);
}

void PredictedWorld::end_frame() {
    resim_ticks_[resim_count_ % resim_history] = frame_resim_ticks_;
    resim_ns_[resim_count_ % resim_history] = frame_resim_ns_;
    ++resim_count_;
    figures_.resim_ticks_last = frame_resim_ticks_;
    frame_resim_ticks_ = 0;
    frame_resim_ns_ = 0;
}

PredictedView PredictedWorld::render_view(const net::ClientSession& session, int64_t now) const {
    PredictedView pv;
    pv.view = session.render_view(now);
    if (!predicted_ || !session.confirmed_world()) return pv;
    pv.confirmed_tick = session.confirmed_world()->tick;
    net::RenderView& v = pv.view;   // keeps the confirmed events: effects fire once, never twice
    v.has_world = true;
    v.tick = predicted_->tick;
    v.arena_size = predicted_->config.arena_size;
    v.pellets.clear();
    for (const world::Pellet& p : predicted_->pellets) v.pellets.push_back(p.pos);
    v.wells.clear();
    for (const world::Well& w : predicted_->wells) v.wells.push_back({w.player, w.pos});
    v.pellets_prev = pellets_prev_.size() == v.pellets.size() ? pellets_prev_ : v.pellets;
    v.wells_prev = wells_prev_.empty() ? v.wells : wells_prev_;
    const uint32_t hz = predicted_->config.tick_hz == 0 ? 1 : predicted_->config.tick_hz;
    const int64_t tick_ns = 1'000'000'000 / hz;
    const int64_t since = std::max<int64_t>(0, now - last_step_at_);
    const int64_t raw = std::min<int64_t>(Fx::one_raw, since * Fx::one_raw / tick_ns);
    v.fraction = Fx::from_raw(static_cast<int32_t>(raw));
    for (const Offset& o : offsets_) pv.offsets.push_back(WellOffset{o.player, o.dx, o.dy});
    return pv;
}

PredictionFigures PredictedWorld::figures() const {
    PredictionFigures f = figures_;
    f.active = predicted_.has_value();
    if (predicted_) {
        f.predicted_tick = predicted_->tick;
        f.depth_ticks = static_cast<uint32_t>(predicted_->tick - std::min(predicted_->tick, f.confirmed_tick));
    }
    f.target_depth_ticks = target_depth();
    f.lead_samples = lead_count_;
    f.rollbacks_per_sec = rollback_rate_.per_sec();
    f.resim_ticks_p99 = percentile99(resim_ticks_, resim_count_);
    if (clock_) {
        f.resim_ns_p99 = percentile99(resim_ns_, resim_count_);
        const std::size_t n = std::min<std::size_t>(resim_count_, resim_history);
        f.resim_ns_max = n == 0 ? 0 : *std::max_element(resim_ns_.begin(), resim_ns_.begin() + static_cast<std::ptrdiff_t>(n));
    }
    f.monitor_alarms = monitor_.alarms();
    f.pending_inputs = static_cast<uint32_t>(pending_.size());
    return f;
}

}  // namespace tandem::client
