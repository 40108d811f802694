// The net layer's Embind half for the arena's client session: net::ClientSession<arena::Sim>,
// with the `predict` option client::PredictedClient<arena::Sim> over it, and the page's render
// view drawn by the arena's presentation (arena::presentation: the confirmed or predicted
// state, corrections eased), exposed to net.mjs and deciding nothing. Times arrive as JS
// milliseconds (doubles) and enter through the core's one conversion to int64 nanoseconds here,
// at the boundary; src/net sees only integers. As in embind.cpp, every failure comes back as a
// value (no C++ exceptions).
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arena/presentation.hpp"
#include "arena/sim.hpp"
#include "js_bytes.hpp"
#include "js_fields.hpp"
#include "js_prediction.hpp"
#include "tandem/client/predicted.hpp"
#include "tandem/core/digest.hpp"
#include "tandem/core/fixed.hpp"
#include "tandem/core/timestep.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/net/protocol.hpp"

using emscripten::val;

namespace {

namespace net = tandem::net;
namespace client = tandem::client;
namespace draw = arena::presentation;
using tandem::hex64;
using tandem::bindings::copy_in;
using tandem::bindings::copy_out;

int64_t ns_from_ms(double ms) { return tandem::elapsed_ns_from_ms_f64(ms); }
// Counters and ticks leave as JS numbers: exact below 2^53, which no counter reaches.
double number(uint64_t v) { return static_cast<double>(v); }
double ms_from_ns(int64_t ns) { return static_cast<double>(ns) / 1e6; }

val names_js(const std::vector<std::string_view>& names) {
    val out = val::array();
    for (std::string_view n : names) out.call<void>("push", std::string(n));
    return out;
}

// ---- ClientSession ------------------------------------------------------------------------------

// performance.now() as int64 ns: the session's step-cost clock. It only measures how long a
// step takes, to fit a frame's budget; it decides nothing the world depends on.
int64_t page_clock_ns() { return ns_from_ms(emscripten_get_now()); }

using Session = net::ClientSession<arena::Sim>;
using Predicted = client::PredictedClient<arena::Sim>;

// With the `predict` option: the predicted state drawn instead of the confirmed one, and the
// arena's eased corrections of it. It follows the session after every call that may change
// it; the confirmed state and the wire are the session's alone.
struct Prediction {
    Predicted client;
    draw::Corrections corrections;
};

struct SessionBox {
    Session session;
    std::optional<Prediction> predicted;
    std::vector<uint8_t> message;               // receive(): the caller's bytes, reused
    std::vector<std::vector<uint8_t>> outgoing;
    std::vector<float> current, previous;       // renderView(): the render edge, to_f32 one way
};

// window_ticks: the prediction window (net.mjs has checked it is within [1, max_window_ticks]);
// the re-simulation tick budget and the first depth follow it so the config validates.
val session_create(bool watch, double now_ms, bool measure_step_cost, bool predict, uint32_t window_ticks) {
    auto b = std::make_unique<SessionBox>(
        SessionBox{Session(watch ? net::Role::watch : net::Role::play, ns_from_ms(now_ms)), {}, {}, {}, {}, {}});
    if (measure_step_cost) b->session.set_clock(&page_clock_ns);
    if (predict) {
        client::PredictConfig config;
        config.window_ticks = window_ticks;
        config.resim_budget_ticks = std::max(config.resim_budget_ticks, window_ticks);
        config.initial_depth_ticks = std::min(config.initial_depth_ticks, window_ticks);
        b->predicted.emplace(Prediction{Predicted::create(config).value(), draw::Corrections{}});
        if (measure_step_cost) b->predicted->client.set_clock(&page_clock_ns);
    }
    return val(std::move(b));
}

// The prediction follows the session (and the corrections the prediction's landed rollbacks).
void follow(SessionBox& b, double now_ms) {
    if (!b.predicted) return;
    b.predicted->client.update(b.session, ns_from_ms(now_ms));
    b.predicted->corrections.update(b.predicted->client, ns_from_ms(now_ms));
}

void session_on_connected(SessionBox& b, double now_ms) { b.session.on_connected(ns_from_ms(now_ms)); }
void session_receive(SessionBox& b, const val& bytes, double now_ms) {
    copy_in(bytes, b.message);
    b.session.receive(b.message, ns_from_ms(now_ms));   // frames queued only: advance verifies
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
    if (b.predicted) b.predicted->client.end_frame();   // one advance per page frame
    return applied;
}
void session_on_suspend(SessionBox& b, double now_ms) { b.session.on_suspend(ns_from_ms(now_ms)); }
void session_on_resume(SessionBox& b, double now_ms) { b.session.on_resume(ns_from_ms(now_ms)); }
// The arena's command: the steer target. The prediction applies it at once.
void session_steer(SessionBox& b, int32_t x_raw, int32_t y_raw, double now_ms) {
    b.session.send_command(arena::Steer{tandem::Vec2{tandem::Fx::from_raw(x_raw), tandem::Fx::from_raw(y_raw)}}, ns_from_ms(now_ms));
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

// The page's render view (web/adapters/README.md) from the arena's presentation: the confirmed
// state and the one before its last step, or with `predict` the predicted ones with the
// corrections still being eased. Pellet positions are Float32Array views into this box's
// buffers (valid until the next call into the module), wells and events objects. Before any
// step on a state (a fresh baseline) the previous positions are the current ones.
val session_render_view(SessionBox& b, double now_ms) {
    const int64_t now = ns_from_ms(now_ms);
    draw::PredictedView pv;
    if (b.predicted) pv = b.predicted->corrections.view(b.predicted->client, b.session, now);
    else pv.view = draw::render_view(b.session, now);
    const draw::RenderView& v = pv.view;
    const auto& confirmed = b.session.confirmed_state();
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
    pellets.set("previous", !v.has_world ? val::null() : val(emscripten::typed_memory_view(b.previous.size(), b.previous.data())));
    o.set("pellets", pellets);
    o.set("predicted", b.predicted.has_value());
    // Events are the confirmed step's (a predicted step's could be taken back): their tick is it.
    const double confirmed_tick = confirmed ? number(confirmed->tick) : 0.0;
    o.set("confirmedTick", b.predicted && confirmed ? val(confirmed_tick) : val::null());
    // Targets and scores are not part of the view; the state drawn holds them (read only).
    const arena::World* drawn = b.predicted && b.predicted->client.state() ? b.predicted->client.state()
                                : confirmed                                 ? &*confirmed
                                                                            : nullptr;
    val wells = val::array();
    for (std::size_t i = 0; i < v.wells.size(); ++i) {
        const draw::RenderWell& now_well = v.wells[i];
        draw::RenderWell prev = now_well;
        for (const draw::RenderWell& p : v.wells_prev) {
            if (p.player == now_well.player) prev = p;
        }
        // A correction still being eased: drawn where the eye was, fading to the prediction.
        float dx = 0.0f, dy = 0.0f;
        for (const draw::WellOffset& offset : pv.offsets) {
            if (offset.player == now_well.player) dx = offset.dx, dy = offset.dy;
        }
        val well = val::object();
        well.set("player", now_well.player);
        well.set("x", units(now_well.pos.x) + dx);
        well.set("y", units(now_well.pos.y) + dy);
        well.set("prevX", units(prev.pos.x) + dx);
        well.set("prevY", units(prev.pos.y) + dy);
        if (drawn && i < drawn->wells.size() && drawn->wells[i].player == now_well.player) {
            well.set("targetX", units(drawn->wells[i].target.x));
            well.set("targetY", units(drawn->wells[i].target.y));
            well.set("score", number(drawn->wells[i].score));
        }
        wells.call<void>("push", well);
    }
    o.set("wells", wells);
    val events = val::array();
    for (const arena::Event& e : v.events) {
        val ev = val::object();
        ev.set("kind", std::string(arena::event_name(e.kind)));
        ev.set("tick", confirmed_tick);
        ev.set("player", e.player);
        ev.set("pellet", e.pellet);
        events.call<void>("push", ev);
    }
    o.set("events", events);
    return o;
}

val field_diff_js(const tandem::sim::FieldDiff& d) {
    val fields = val::array();
    for (const tandem::sim::FieldDifference& f : d.differences) {
        val one = val::object();
        one.set("path", f.path);
        one.set("section", std::string(f.section));
        one.set("room", f.a ? val(*f.a) : val::null());
        one.set("thisBuild", f.b ? val(*f.b) : val::null());
        fields.call<void>("push", one);
    }
    return fields;
}

// The session's figures, every field under its camelCase name (durations in ms, -1 -> null);
// net.mjs arranges them into the page's shape.
val session_figures(const SessionBox& b) {
    using F = net::SessionFigures;
    using tandem::bindings::js_field;
    const F f = b.session.figures();
    const auto ms_or_null = [](int64_t ns) { return ns < 0 ? val::null() : val(ms_from_ns(ns)); };
    val o = val::object();
    tandem::bindings::set_fields(o, f, js_field("connected", &F::connected), js_field("hasWorld", &F::has_world),
                                 js_field("verifiedTick", &F::verified_tick), js_field("verifiedTicks", &F::verified_ticks),
                                 js_field("serverTick", &F::server_tick), js_field("lagTicks", &F::lag_ticks),
                                 js_field("queuedFrames", &F::queued_frames), js_field("mismatches", &F::mismatches),
                                 js_field("lastMismatchTick", &F::last_mismatch_tick), js_field("catchUps", &F::catch_ups),
                                 js_field("resyncs", &F::resyncs), js_field("baselines", &F::baselines),
                                 js_field("bytesIn", &F::bytes_in), js_field("bytesOut", &F::bytes_out),
                                 js_field("bytesInPerSec", &F::bytes_in_per_sec), js_field("bytesOutPerSec", &F::bytes_out_per_sec),
                                 js_field("malformedIn", &F::malformed_in), js_field("framesIgnored", &F::frames_ignored),
                                 js_field("inputsSent", &F::inputs_sent), js_field("inputsApplied", &F::inputs_applied),
                                 js_field("resumable", &F::resumable), js_field("resumed", &F::resumed),
                                 js_field("resumes", &F::resumes));
    o.set("role", std::string(f.role == net::Role::play ? "play" : "watch"));
    o.set("player", f.player == net::watcher_id ? val::null() : val(f.player));
    o.set("lastMismatchSections", f.last_mismatch_sections_known ? names_js(f.last_mismatch_sections) : val::null());
    // The last mismatch's field diff (the room's state against this session's own at the
    // healing baseline's tick), null until it is known.
    if (f.last_mismatch_fields) {
        o.set("lastMismatchFields", field_diff_js(*f.last_mismatch_fields));
        o.set("lastMismatchFieldsTick", number(f.last_mismatch_fields_tick));
        o.set("lastMismatchFieldsDiffering", number(f.last_mismatch_fields->total));
    } else {
        o.set("lastMismatchFields", val::null());
        o.set("lastMismatchFieldsTick", val::null());
        o.set("lastMismatchFieldsDiffering", val::null());
    }
    o.set("droppedMs", ms_from_ns(f.dropped_ns));
    o.set("rttMs", ms_or_null(f.rtt_ns));
    o.set("jitterMs", ms_or_null(f.jitter_ns));
    o.set("stepCostMs", ms_from_ns(f.step_cost_ns));
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
        // The two sides the resume rule weighed; null: that path could never finish.
        const auto estimate = [](int64_t ns) { return ns == net::never_ns ? val::null() : val(ms_from_ns(ns)); };
        lr.set("catchUpEstimateMs", estimate(r.catch_up_estimate_ns));
        lr.set("baselineEstimateMs", estimate(r.baseline_estimate_ns));
        o.set("lastResume", lr);
    }
    // Scores as the confirmed world holds them.
    val players = val::array();
    if (const auto& world = b.session.confirmed_state()) {
        for (const arena::Well& well : world->wells) {
            val p = val::object();
            p.set("player", well.player);
            p.set("score", number(well.score));
            players.call<void>("push", p);
        }
        o.set("tick", number(world->tick));
        o.set("digest", hex64(arena::digest(*world)));
    } else {
        o.set("tick", val::null());
        o.set("digest", val::null());
    }
    o.set("players", players);
    if (b.predicted) {
        const Predicted& p = b.predicted->client;
        const draw::Corrections& c = b.predicted->corrections;
        val pf = tandem::bindings::prediction_figures_js(p.figures(), p.config());
        // What the arena's presentation measured of the corrections it eases.
        pf.set("corrections", number(c.corrections()));
        pf.set("lastCorrection", c.last_correction());
        pf.set("monitorAlarms", number(c.monitor_alarms()));
        pf.set("digest", p.state() ? val(hex64(arena::digest(*p.state()))) : val::null());
        o.set("prediction", pf);
    } else {
        o.set("prediction", val::null());
    }
    return o;
}

val session_export_replay(const SessionBox& b) { return copy_out(b.session.export_replay()); }
// Debug: the arena's corruption (its capture count), so the next tick mismatches and heals.
void session_corrupt_once(SessionBox& b) { b.session.corrupt_for_testing(&arena::corrupt_captures_for_testing); }

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
