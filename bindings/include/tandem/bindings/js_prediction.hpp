// The predicted client's figures (client::PredictionFigures) as the JS object net.mjs hands to
// the page under figures().prediction, for any game: the game's binding adds what its
// presentation measures (corrections) and the predicted state's digest. Durations leave in ms,
// -1 (no clock) as null.
#pragma once

#include <emscripten/val.h>

#include <cstdint>

#include "js_fields.hpp"
#include "tandem/client/predicted.hpp"

namespace tandem::bindings {

inline emscripten::val prediction_figures_js(const client::PredictionFigures& p, const client::PredictConfig& config) {
    using F = client::PredictionFigures;
    using emscripten::val;
    const auto ms_or_null = [](int64_t ns) { return ns < 0 ? val::null() : val(static_cast<double>(ns) / 1e6); };
    val o = val::object();
    set_fields(o, p, js_field("active", &F::active), js_field("depthTicks", &F::depth_ticks),
               js_field("targetDepthTicks", &F::target_depth_ticks), js_field("leadSamples", &F::lead_samples),
               js_field("rollbacks", &F::rollbacks), js_field("rollbacksPerSec", &F::rollbacks_per_sec),
               js_field("resimulatedTicks", &F::resimulated_ticks), js_field("resimTicksLast", &F::resim_ticks_last),
               js_field("resimTicksP99", &F::resim_ticks_p99), js_field("budgetCuts", &F::budget_cuts),
               js_field("catchingUp", &F::catching_up), js_field("rollbackUpdatesLast", &F::rollback_updates_last),
               js_field("rollbackUpdatesMax", &F::rollback_updates_max), js_field("resets", &F::resets),
               js_field("resetsBehind", &F::resets_behind), js_field("behindTicksMax", &F::behind_ticks_max),
               js_field("rollbacksDropped", &F::rollbacks_dropped), js_field("pendingInputs", &F::pending_inputs));
    o.set("predictedTick", p.active ? val(static_cast<double>(p.predicted_tick)) : val::null());
    o.set("windowTicks", config.window_ticks);
    o.set("resimMsP99", ms_or_null(p.resim_ns_p99));
    o.set("resimMsMax", ms_or_null(p.resim_ns_max));
    o.set("stepsMsP99", ms_or_null(p.steps_ns_p99));
    o.set("stepsMsMax", ms_or_null(p.steps_ns_max));
    return o;
}

}  // namespace tandem::bindings
