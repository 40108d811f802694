// The arena's presentation: what a page draws from a ClientSession<arena::Sim> or a
// PredictedClient<arena::Sim> (wells and pellets before and after the last step, the fraction
// between, the confirmed step's events) and the eased offsets of wells a rollback moved.
// Floats live here only (the drawn offsets, the correction monitor), never in state: nothing
// here feeds the simulation or the wire. Its own namespace (arena::presentation) is what the
// float scan (tests/determinism) tells apart from the arena's float-free simulation.
#pragma once

#include <cstdint>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/client/predicted.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/predict/smoothing.hpp"

namespace arena::presentation {

struct RenderWell {
    uint32_t player = 0;
    Vec2 pos;
};
// The confirmed (or predicted) tick and the one before, and how far between them the render
// instant lies.
struct RenderView {
    bool has_world = false;
    uint64_t tick = 0;
    Fx arena_size;
    Fx fraction;                            // in [0, 1]: 0 draws prev, 1 draws the tick
    std::vector<Vec2> pellets_prev, pellets;
    std::vector<RenderWell> wells_prev, wells;
    std::vector<Event> events;              // of the last confirmed step applied
};
RenderView render_view(const tandem::net::ClientSession<Sim>& session, int64_t now);

// A well's drawn offset from its predicted position (arena units): draw the view's position
// plus this.
struct WellOffset {
    uint32_t player = 0;
    float dx = 0.0f, dy = 0.0f;
};
struct PredictedView {
    RenderView view;                   // the predicted world, exact (Fx), with the confirmed events
    std::vector<WellOffset> offsets;   // the corrections still being eased
    uint64_t confirmed_tick = 0;
};

// Eases each correction a landed rollback made: a small offset fades slowly, a large one fast
// (AdaptiveDecay), each judged by a CorrectionMonitor. Call update after each
// PredictedClient::update.
class Corrections {
public:
    explicit Corrections(tandem::predict::AdaptiveDecay decay = {2.0f, 0.95f, 16.0f, 0.85f}) : decay_(decay) {}
    void update(const tandem::client::PredictedClient<Sim>& predicted, int64_t now);
    PredictedView view(const tandem::client::PredictedClient<Sim>& predicted, const tandem::net::ClientSession<Sim>& session,
                       int64_t now) const;
    uint64_t corrections() const { return corrections_; }   // wells drawn elsewhere after a rollback
    uint64_t monitor_alarms() const { return monitor_.alarms(); }
    float last_correction() const { return last_correction_; }

private:
    tandem::predict::AdaptiveDecay decay_;
    tandem::predict::CorrectionMonitor monitor_ = tandem::predict::CorrectionMonitor().with_floor(0.01f);
    std::vector<WellOffset> offsets_;
    uint64_t epoch_ = 0;
    int64_t last_update_at_ = 0;
    bool updated_once_ = false;
    uint64_t corrections_ = 0;
    float last_correction_ = 0.0f;
};

}  // namespace arena::presentation
