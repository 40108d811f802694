// The net layer's Embind half: the Room, the replay reader and checker, and the ClientSession,
// exposed to net.mjs and deciding nothing. Times arrive as JS milliseconds (doubles) and enter
// through the core's one conversion to int64 nanoseconds here, at the boundary; src/net sees
// only integers. As in embind.cpp, every failure comes back as a value (no C++ exceptions).
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "js_bytes.hpp"
#include "js_config.hpp"
#include "tandem/client/predicted_world.hpp"
#include "tandem/core/digest.hpp"
#include "tandem/core/fixed.hpp"
#include "tandem/core/timestep.hpp"
#include "tandem/net/bot.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/net/room.hpp"
#include "tandem/world/world.hpp"

using emscripten::val;

namespace {

namespace net = tandem::net;
namespace client = tandem::client;
namespace w = tandem::world;
using tandem::hex64;

int64_t ns_from_ms(double ms) { return tandem::elapsed_ns_from_ms_f64(ms); }
// Counters and ticks leave as JS numbers: exact below 2^53, which no counter reaches.
double number(uint64_t v) { return static_cast<double>(v); }
double ms_from_ns(int64_t ns) { return static_cast<double>(ns) / 1e6; }

using tandem::bindings::copy_in;
using tandem::bindings::copy_out;

using tandem::bindings::sections_to_js;

val names_js(const std::vector<std::string_view>& names) {
    val out = val::array();
    for (std::string_view n : names) out.call<void>("push", std::string(n));
    return out;
}

// ---- ClientSession ------------------------------------------------------------------------------

// performance.now() as int64 ns: the session's step-cost clock. It only measures how long a
// step takes, to fit a frame's budget; it decides nothing the world depends on.
int64_t page_clock_ns() { return ns_from_ms(emscripten_get_now()); }

struct SessionBox {
    net::ClientSession session;
    // With the `predict` option: the predicted world drawn instead of the confirmed one
    // (tandem/client/predicted_world.hpp). It follows the session after every call that may
    // change it; the confirmed world and the wire are the session's alone.
    std::optional<client::PredictedWorld> predicted;
    std::vector<uint8_t> message;               // receive(): the caller's bytes, reused
    std::vector<std::vector<uint8_t>> outgoing;
    std::vector<float> current, previous;       // renderView(): the render edge, to_f32 one way
};

// window_ticks: the prediction window (net.mjs has checked it is within [1, max_window_ticks]);
// the re-simulation tick budget and the first depth follow it so the config validates.
val session_create(bool watch, double now_ms, bool measure_step_cost, bool predict, uint32_t window_ticks) {
    auto b = std::make_unique<SessionBox>(
        SessionBox{net::ClientSession(watch ? net::Role::watch : net::Role::play, ns_from_ms(now_ms)), {}, {}, {}, {}, {}});
    if (measure_step_cost) b->session.set_clock(&page_clock_ns);
    if (predict) {
        client::PredictConfig config;
        config.window_ticks = window_ticks;
        config.resim_budget_ticks = std::max(config.resim_budget_ticks, window_ticks);
        config.initial_depth_ticks = std::min(config.initial_depth_ticks, window_ticks);
        b->predicted.emplace(client::PredictedWorld::create(config).value());
        if (measure_step_cost) b->predicted->set_clock(&page_clock_ns);
    }
    return val(std::move(b));
}

void follow(SessionBox& b, double now_ms) {
    if (b.predicted) b.predicted->update(b.session, ns_from_ms(now_ms));
}

void session_on_connected(SessionBox& b, double now_ms) { b.session.on_connected(ns_from_ms(now_ms)); }
void session_receive(SessionBox& b, const val& bytes, double now_ms) {
    copy_in(bytes, b.message);
    b.session.receive(b.message, ns_from_ms(now_ms));   // queued only: advance verifies
}
void session_on_disconnected(SessionBox& b, double now_ms) { b.session.on_disconnected(ns_from_ms(now_ms)); }
bool session_should_reconnect(const SessionBox& b) { return b.session.should_reconnect(); }
double session_reconnect_delay_ms(const SessionBox& b) { return ms_from_ns(b.session.reconnect_delay_ns()); }
val session_take_outgoing(SessionBox& b) {
    b.outgoing.clear();
    b.session.take_outgoing(b.outgoing);
    val out = val::array();
    for (const auto& m : b.outgoing) out.call<void>("push", copy_out(m));
    b.outgoing.clear();
    return out;
}
uint32_t session_advance(SessionBox& b, double now_ms, double budget_ms) {
    const uint32_t applied = b.session.advance(ns_from_ms(now_ms), ns_from_ms(budget_ms));
    follow(b, now_ms);
    if (b.predicted) b.predicted->end_frame();   // one advance per page frame
    return applied;
}
void session_on_suspend(SessionBox& b, double now_ms) { b.session.on_suspend(ns_from_ms(now_ms)); }
void session_on_resume(SessionBox& b, double now_ms) { b.session.on_resume(ns_from_ms(now_ms)); }
void session_steer(SessionBox& b, int32_t x_raw, int32_t y_raw, double now_ms) {
    b.session.steer(tandem::Vec2{tandem::Fx::from_raw(x_raw), tandem::Fx::from_raw(y_raw)}, ns_from_ms(now_ms));
    follow(b, now_ms);
}

float units(tandem::Fx v) { return tandem::to_f32(v); }

void fill(std::vector<float>& out, const std::vector<tandem::Vec2>& points) {
    out.resize(points.size() * 2);
    for (std::size_t i = 0; i < points.size(); ++i) {
        out[2 * i] = units(points[i].x);
        out[2 * i + 1] = units(points[i].y);
    }
}

// The page's render view (web/adapters/README.md): pellet positions as Float32Array views into
// this box's buffers (valid until the next call into the module), wells and events as objects.
val session_render_view(SessionBox& b, double now_ms) {
    client::PredictedView pv;
    if (b.predicted) pv = b.predicted->render_view(b.session, ns_from_ms(now_ms));
    else pv.view = b.session.render_view(ns_from_ms(now_ms));
    const net::RenderView& v = pv.view;
    const net::SessionFigures f = b.session.figures();
    fill(b.current, v.pellets);
    fill(b.previous, v.pellets_prev);
    val o = val::object();
    o.set("hasWorld", v.has_world);
    o.set("tick", number(v.tick));
    o.set("alpha", tandem::to_f64(v.fraction));
    o.set("arenaSize", v.has_world ? val(tandem::to_f64(v.arena_size)) : val::null());
    o.set("me", f.player == net::watcher_id ? val::null() : val(f.player));
    val pellets = val::object();
    pellets.set("current", val(emscripten::typed_memory_view(b.current.size(), b.current.data())));
    pellets.set("previous", v.pellets_prev.empty() ? val::null()
                                                   : val(emscripten::typed_memory_view(b.previous.size(), b.previous.data())));
    o.set("pellets", pellets);
    o.set("predicted", b.predicted.has_value());
    o.set("confirmedTick", b.predicted && v.has_world ? val(number(pv.confirmed_tick)) : val::null());
    // Targets and scores are not part of the view; the world drawn holds them (read only).
    const auto& world = b.predicted && b.predicted->world() ? b.predicted->world() : b.session.confirmed_world();
    val wells = val::array();
    for (std::size_t i = 0; i < v.wells.size(); ++i) {
        const net::RenderWell& now = v.wells[i];
        net::RenderWell prev = now;
        for (const net::RenderWell& p : v.wells_prev) {
            if (p.player == now.player) prev = p;
        }
        // A correction still being eased: drawn where the eye was, fading to the prediction.
        float dx = 0.0f, dy = 0.0f;
        for (const client::WellOffset& offset : pv.offsets) {
            if (offset.player == now.player) dx = offset.dx, dy = offset.dy;
        }
        val well = val::object();
        well.set("player", now.player);
        well.set("x", units(now.pos.x) + dx);
        well.set("y", units(now.pos.y) + dy);
        well.set("prevX", units(prev.pos.x) + dx);
        well.set("prevY", units(prev.pos.y) + dy);
        if (world && i < world->wells.size() && world->wells[i].player == now.player) {
            well.set("targetX", units(world->wells[i].target.x));
            well.set("targetY", units(world->wells[i].target.y));
            well.set("score", number(world->wells[i].score));
        }
        wells.call<void>("push", well);
    }
    o.set("wells", wells);
    val events = val::array();
    for (const w::Event& e : v.events) {
        val ev = val::object();
        ev.set("kind", std::string(w::event_name(e.kind)));
        ev.set("tick", number(b.predicted && v.has_world ? pv.confirmed_tick : v.tick));   // the confirmed step's
        ev.set("player", e.player);
        ev.set("pellet", e.pellet);
        events.call<void>("push", ev);
    }
    o.set("events", events);
    return o;
}

// The session's figures, every field under its camelCase name (durations in ms, -1 -> null);
// net.mjs arranges them into the page's shape.
val session_figures(const SessionBox& b) {
    const net::SessionFigures f = b.session.figures();
    const auto ms_or_null = [](int64_t ns) { return ns < 0 ? val::null() : val(ms_from_ns(ns)); };
    val o = val::object();
    o.set("connected", f.connected);
    o.set("role", std::string(f.role == net::Role::play ? "play" : "watch"));
    o.set("player", f.player == net::watcher_id ? val::null() : val(f.player));
    o.set("hasWorld", f.has_world);
    o.set("verifiedTick", number(f.verified_tick));
    o.set("verifiedTicks", number(f.verified_ticks));
    o.set("serverTick", number(f.server_tick));
    o.set("lagTicks", number(f.lag_ticks));
    o.set("queuedFrames", number(f.queued_frames));
    o.set("mismatches", number(f.mismatches));
    o.set("lastMismatchTick", number(f.last_mismatch_tick));
    o.set("lastMismatchSections", f.last_mismatch_sections_known ? names_js(f.last_mismatch_sections) : val::null());
    o.set("catchUps", number(f.catch_ups));
    o.set("resyncs", number(f.resyncs));
    o.set("baselines", number(f.baselines));
    o.set("bytesIn", number(f.bytes_in));
    o.set("bytesOut", number(f.bytes_out));
    o.set("bytesInPerSec", number(f.bytes_in_per_sec));
    o.set("bytesOutPerSec", number(f.bytes_out_per_sec));
    o.set("droppedMs", ms_from_ns(f.dropped_ns));
    o.set("malformedIn", number(f.malformed_in));
    o.set("framesIgnored", number(f.frames_ignored));
    o.set("rttMs", ms_or_null(f.rtt_ns));
    o.set("jitterMs", ms_or_null(f.jitter_ns));
    o.set("stepCostMs", ms_from_ns(f.step_cost_ns));
    o.set("inputsSent", f.inputs_sent);
    o.set("inputsApplied", f.inputs_applied);
    if (f.refused) {
        val e = val::object();
        e.set("code", std::string(net::error_name(*f.refused)));
        e.set("message", f.refused_text);
        o.set("error", e);
    } else {
        o.set("error", val::null());
    }
    const net::ResumeFigures& r = f.last_resume;
    if (r.path == net::ResumePath::none) {
        o.set("lastResume", val::null());
    } else {
        val lr = val::object();
        lr.set("awayMs", ms_from_ns(r.away_ns));
        lr.set("path", std::string(net::resume_path_name(r.path)));
        lr.set("behindTicks", number(r.behind_ticks));
        lr.set("ticks", number(r.ticks));
        lr.set("baselineBytes", number(r.bytes));
        lr.set("droppedMs", ms_from_ns(r.dropped_ns));
        lr.set("verifiedAfterMs", ms_or_null(r.until_verified_ns));
        o.set("lastResume", lr);
    }
    // Scores as the confirmed world holds them.
    val players = val::array();
    if (const auto& world = b.session.confirmed_world()) {
        for (const w::Well& well : world->wells) {
            val p = val::object();
            p.set("player", well.player);
            p.set("score", number(well.score));
            players.call<void>("push", p);
        }
        o.set("tick", number(world->tick));
        o.set("digest", hex64(w::digest(*world)));
    } else {
        o.set("tick", val::null());
        o.set("digest", val::null());
    }
    o.set("players", players);
    if (b.predicted) {
        const client::PredictionFigures p = b.predicted->figures();
        val pf = val::object();
        pf.set("active", p.active);
        pf.set("predictedTick", p.active ? val(number(p.predicted_tick)) : val::null());
        pf.set("depthTicks", p.depth_ticks);
        pf.set("targetDepthTicks", p.target_depth_ticks);
        pf.set("windowTicks", b.predicted->config().window_ticks);
        pf.set("leadSamples", p.lead_samples);
        pf.set("rollbacks", number(p.rollbacks));
        pf.set("rollbacksPerSec", number(p.rollbacks_per_sec));
        pf.set("resimulatedTicks", number(p.resimulated_ticks));
        pf.set("resimTicksLast", p.resim_ticks_last);
        pf.set("resimTicksP99", p.resim_ticks_p99);
        pf.set("resimMsP99", ms_or_null(p.resim_ns_p99));
        pf.set("resimMsMax", ms_or_null(p.resim_ns_max));
        pf.set("stepsMsP99", ms_or_null(p.steps_ns_p99));
        pf.set("stepsMsMax", ms_or_null(p.steps_ns_max));
        pf.set("budgetCuts", number(p.budget_cuts));
        pf.set("catchingUp", p.catching_up);
        pf.set("rollbackUpdatesLast", p.rollback_updates_last);
        pf.set("rollbackUpdatesMax", p.rollback_updates_max);
        pf.set("resets", number(p.resets));
        pf.set("resetsBehind", number(p.resets_behind));
        pf.set("behindTicksMax", p.behind_ticks_max);
        pf.set("rollbacksDropped", number(p.rollbacks_dropped));
        pf.set("corrections", number(p.corrections));
        pf.set("lastCorrection", p.last_correction);
        pf.set("monitorAlarms", number(p.monitor_alarms));
        pf.set("pendingInputs", p.pending_inputs);
        if (const auto& pw = b.predicted->world()) pf.set("digest", hex64(w::digest(*pw)));
        else pf.set("digest", val::null());
        o.set("prediction", pf);
    } else {
        o.set("prediction", val::null());
    }
    return o;
}

val session_export_replay(const SessionBox& b) { return copy_out(b.session.export_replay()); }
void session_corrupt_once(SessionBox& b) { b.session.corrupt_once_for_testing(); }

}  // namespace

EMSCRIPTEN_BINDINGS(tandem_session) {
    using emscripten::class_;
    using emscripten::function;

    class_<SessionBox>("ClientSession")
        .function("onConnected", &session_on_connected)
        .function("receive", &session_receive)
        .function("onDisconnected", &session_on_disconnected)
        .function("shouldReconnect", &session_should_reconnect)
        .function("reconnectDelayMs", &session_reconnect_delay_ms)
        .function("takeOutgoing", &session_take_outgoing)
        .function("advance", &session_advance)
        .function("onSuspend", &session_on_suspend)
        .function("onResume", &session_on_resume)
        .function("steer", &session_steer)
        .function("renderView", &session_render_view)
        .function("figures", &session_figures)
        .function("exportReplay", &session_export_replay)
        .function("corruptOnce", &session_corrupt_once);
    function("session_create", &session_create);

}
