// The arena's presentation (arena/presentation.hpp): the render views and the eased
// corrections. Floats only in the offsets and the monitor.
#include "arena/presentation.hpp"

#include <algorithm>
#include <cmath>

namespace arena::presentation {

namespace {
void fill(RenderView& v, const World& now, const World* prev) {
    v.has_world = true;
    v.tick = now.tick;
    v.arena_size = now.config.arena_size;
    for (const Pellet& p : now.pellets) v.pellets.push_back(p.pos);
    for (const Well& w : now.wells) v.wells.push_back({w.player, w.pos});
    // Before any step (a fresh baseline) there is no previous tick: draw this one twice.
    if (prev && prev->pellets.size() == now.pellets.size()) {
        for (const Pellet& p : prev->pellets) v.pellets_prev.push_back(p.pos);
    } else {
        v.pellets_prev = v.pellets;
    }
    if (prev && !prev->wells.empty()) {
        for (const Well& w : prev->wells) v.wells_prev.push_back({w.player, w.pos});
    } else {
        v.wells_prev = v.wells;
    }
}
}  // namespace

RenderView render_view(const tandem::net::ClientSession<Sim>& session, int64_t now) {
    RenderView v;
    if (!session.confirmed_state()) return v;
    fill(v, *session.confirmed_state(), session.previous_state());
    v.fraction = session.render_fraction(now);
    const auto events = session.last_events();
    v.events.assign(events.begin(), events.end());
    return v;
}

void Corrections::update(const tandem::client::PredictedClient<Sim>& predicted, int64_t now) {
    if (predicted.epoch() != epoch_) offsets_.clear();   // a new world: nothing to ease from
    epoch_ = predicted.epoch();
    const float dt = updated_once_ ? static_cast<float>(std::max<int64_t>(0, now - last_update_at_)) * 1e-9f : 0.0f;
    last_update_at_ = now;
    updated_once_ = true;
    for (WellOffset& o : offsets_) {
        const float keep = decay_.retain(std::hypot(o.dx, o.dy), dt);
        o.dx *= keep;
        o.dy *= keep;
    }
    // A hundredth of a unit is far below a pixel at any zoom the page offers.
    std::erase_if(offsets_, [](const WellOffset& o) { return std::hypot(o.dx, o.dy) < 0.01f; });
    const World* was = predicted.corrected_from();
    const World* is = predicted.state();
    if (!was || !is) return;
    // Each well's new position against the one drawn becomes an eased offset.
    for (const Well& w : is->wells) {
        for (const Well& b : was->wells) {
            if (b.player != w.player) continue;
            const float dx = tandem::to_f32(b.pos.x) - tandem::to_f32(w.pos.x);
            const float dy = tandem::to_f32(b.pos.y) - tandem::to_f32(w.pos.y);
            const float distance = std::hypot(dx, dy);
            if (distance <= 0.0f) continue;
            ++corrections_;
            last_correction_ = distance;
            monitor_.record(distance);
            auto it = std::find_if(offsets_.begin(), offsets_.end(), [&](const WellOffset& o) { return o.player == w.player; });
            if (it == offsets_.end()) offsets_.push_back(WellOffset{w.player, dx, dy});
            else it->dx += dx, it->dy += dy;
        }
    }
}

PredictedView Corrections::view(const tandem::client::PredictedClient<Sim>& predicted,
                                const tandem::net::ClientSession<Sim>& session, int64_t now) const {
    PredictedView pv;
    pv.view = render_view(session, now);
    const World* p = predicted.state();
    if (!p || !session.confirmed_state()) return pv;
    pv.confirmed_tick = session.confirmed_state()->tick;
    std::vector<Event> events = std::move(pv.view.events);   // the confirmed events: effects fire once
    pv.view = RenderView{};
    fill(pv.view, *p, predicted.previous_state());
    pv.view.fraction = predicted.render_fraction(now);
    pv.view.events = std::move(events);
    pv.offsets = offsets_;
    return pv;
}

}  // namespace arena::presentation
