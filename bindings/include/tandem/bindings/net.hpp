// The net layer in the ES module, for any game G, bound once: the Room (the server's logic), the
// ClientSession with its predicted client (the browser's), Replay (re-run and check a recorded
// match), the ScriptedBot (a player with no server) and the offline match (net::Match<G>: a
// room, the page's session and bots in one tab). Times arrive as JS milliseconds (doubles) and
// enter through the core's one conversion to int64 nanoseconds here, at the boundary; src/net
// sees only integers. As everywhere in the module, every refusal comes back as a value.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tandem/bindings/game.hpp"
#include "tandem/bindings/js_bytes.hpp"
#include "tandem/bindings/js_fields.hpp"
#include "tandem/bindings/js_prediction.hpp"
#include "tandem/bindings/js_view.hpp"
#include "tandem/client/corrections.hpp"
#include "tandem/client/predicted.hpp"
#include "tandem/core/digest.hpp"
#include "tandem/core/timestep.hpp"
#include "tandem/net/bot.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/net/match.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/net/room.hpp"

namespace tandem::bindings {

namespace net = tandem::net;

inline int64_t ns_from_ms(double ms) { return elapsed_ns_from_ms_f64(ms); }
// Counters and ticks leave as JS numbers: exact below 2^53, which no counter reaches.
inline double number(uint64_t v) { return static_cast<double>(v); }
inline double ms_from_ns(int64_t ns) { return static_cast<double>(ns) / 1e6; }
// performance.now() as int64 ns: a step-cost clock. It only measures how long a step takes, to
// fit a frame's budget; it decides nothing the state depends on.
inline int64_t page_clock_ns() { return ns_from_ms(emscripten_get_now()); }

inline val messages_js(std::vector<std::vector<uint8_t>>& messages) {
    val out = val::array();
    for (const auto& m : messages) out.call<void>("push", copy_out(m));
    messages.clear();
    return out;
}

inline val session_figures_js(const net::SessionFigures& f) {
    using F = net::SessionFigures;
    const auto ms_or_null = [](int64_t ns) { return ns < 0 ? val::null() : val(ms_from_ns(ns)); };
    val o = val::object();
    set_fields(o, f, js_field("connected", &F::connected), js_field("hasWorld", &F::has_world),
               js_field("verifiedTick", &F::verified_tick), js_field("verifiedTicks", &F::verified_ticks),
               js_field("serverTick", &F::server_tick), js_field("lagTicks", &F::lag_ticks),
               js_field("queuedFrames", &F::queued_frames), js_field("mismatches", &F::mismatches),
               js_field("lastMismatchTick", &F::last_mismatch_tick), js_field("catchUps", &F::catch_ups),
               js_field("resyncs", &F::resyncs), js_field("baselines", &F::baselines),
               js_field("bytesIn", &F::bytes_in), js_field("bytesOut", &F::bytes_out),
               js_field("bytesInPerSec", &F::bytes_in_per_sec), js_field("bytesOutPerSec", &F::bytes_out_per_sec),
               js_field("malformedIn", &F::malformed_in), js_field("framesIgnored", &F::frames_ignored),
               js_field("inputsSent", &F::inputs_sent), js_field("inputsApplied", &F::inputs_applied),
               js_field("resumable", &F::resumable), js_field("resumed", &F::resumed), js_field("resumes", &F::resumes));
    o.set("role", std::string(f.role == net::Role::play ? "play" : "watch"));
    o.set("player", f.player == net::watcher_id ? val::null() : val(f.player));
    o.set("lastMismatchSections", f.last_mismatch_sections_known ? names_js(f.last_mismatch_sections) : val::null());
    // The last mismatch's field diff (the room's state against this session's own at the
    // healing baseline's tick), null until it is known.
    if (f.last_mismatch_fields) {
        o.set("lastMismatchFields", field_diff_js(*f.last_mismatch_fields, "room", "thisBuild"));
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
    return o;
}

// ---- What a page draws over a session: the prediction and its eased corrections ---------------
// A follower of a ClientSession (net::Match's SessionFollower): the predicted client, and the
// corrections it eases, updated together after every call that may change the session.
template <class G>
struct PredictedFollower {
    client::PredictedClient<G> client;
    client::Corrections<G> corrections;
    void update(net::ClientSession<G>& session, int64_t now) {
        client.update(session, now);
        corrections.update(client, now);
    }
    void end_frame() { client.end_frame(); }
};

// `window_ticks`: the prediction window (tandem.mjs has checked it is within [1,
// max_window_ticks]); the re-simulation tick budget and the first depth follow it so the config
// validates.
template <class G>
PredictedFollower<G> make_follower(uint32_t window_ticks, client::EasedField eased, bool clock) {
    client::PredictConfig config;
    config.window_ticks = window_ticks;
    config.resim_budget_ticks = std::max(config.resim_budget_ticks, window_ticks);
    config.initial_depth_ticks = std::min(config.initial_depth_ticks, window_ticks);
    PredictedFollower<G> f{client::PredictedClient<G>::create(config).value(), client::Corrections<G>(eased)};
    if (clock) f.client.set_clock(&page_clock_ns);
    return f;
}

// The render view and the figures of a session and its follower (if it predicts): shared by the
// ClientSession and the offline match, so both draw and report alike.
template <class G, class Web>
struct SessionView {
    ViewColumns current, previous;
    bool selected = false;

    void select(const val& js) {
        const ViewSelection s = selection_from_js(js);
        current.select(s);
        previous.select(s);
        selected = true;
    }

    // {hasWorld, tick, alpha, tickHz, predicted, confirmedTick, me, current, previous, events}: the
    // confirmed state and the one before its last step, or with a prediction the predicted
    // ones (the eased corrections added to the eased field). Columns are views into this
    // object's buffers, valid until the next call into the module. Before any step on a state
    // (a fresh baseline) `previous` is null: draw the current twice. Events are the confirmed
    // step's (a predicted step's could be taken back), with its tick.
    val render(const net::ClientSession<G>& session, const PredictedFollower<G>* p, int64_t now) {
        const auto& confirmed = session.confirmed_state();
        const typename G::State* drawn = nullptr;
        const typename G::State* before = nullptr;
        Fx fraction = Fx::zero();
        if (p && p->client.state() && confirmed) {
            drawn = p->client.state();
            before = p->client.previous_state();
            fraction = p->client.render_fraction(now);
        } else if (confirmed) {
            drawn = &*confirmed;
            before = session.previous_state();
            fraction = session.render_fraction(now);
        }
        const net::SessionFigures f = session.figures();
        val o = val::object();
        o.set("hasWorld", drawn != nullptr);
        o.set("tick", drawn ? number(G::tick(*drawn)) : 0.0);
        o.set("alpha", to_f64(fraction));
        // The rate at which alpha grows with the time since (it reaches 1 one tick after the last
        // step): a view drawn later than it was made is drawn at the alpha of its draw time.
        o.set("tickHz", drawn ? G::tick_hz(G::config_of(*drawn)) : 0u);
        o.set("predicted", p != nullptr);
        const double confirmed_tick = confirmed ? number(G::tick(*confirmed)) : 0.0;
        o.set("confirmedTick", p && confirmed ? val(confirmed_tick) : val::null());
        o.set("me", f.player == net::watcher_id ? val::null() : val(f.player));
        if (drawn && selected) {
            current.template read<G>(*drawn);
            if (p) current.add_offsets(p->corrections.eased(), p->corrections.offsets());
            if (before) {
                previous.template read<G>(*before);
                if (p) previous.add_offsets(p->corrections.eased(), p->corrections.offsets());
            }
            o.set("current", current.to_js());
            o.set("previous", before ? previous.to_js() : val::null());
        } else {
            o.set("current", val::null());
            o.set("previous", val::null());
        }
        o.set("events", confirmed ? events_js<G, Web>(session.last_events(), confirmed_tick) : val::array());
        return o;
    }

    static val figures(const net::ClientSession<G>& session, const PredictedFollower<G>* p) {
        val o = session_figures_js(session.figures());
        if (const auto& state = session.confirmed_state()) {
            o.set("tick", number(G::tick(*state)));
            o.set("digest", hex64(sim::digest<G>(*state)));
        } else {
            o.set("tick", val::null());
            o.set("digest", val::null());
        }
        if (p) {
            val pf = prediction_figures_js(p->client.figures(), p->client.config());
            pf.set("corrections", number(p->corrections.corrections()));
            pf.set("lastCorrection", p->corrections.last_correction());
            pf.set("monitorAlarms", number(p->corrections.monitor_alarms()));
            pf.set("digest", p->client.state() ? val(hex64(sim::digest<G>(*p->client.state()))) : val::null());
            o.set("prediction", pf);
        } else {
            o.set("prediction", val::null());
        }
        return o;
    }
};

// The frame budget (client_session.hpp's frame_budget_ns): what one page frame may spend on
// simulation, from the gap since the previous frame.
inline double frame_budget_ms(double gap_ms) { return ms_from_ns(net::frame_budget_ns(ns_from_ms(std::max(0.0, gap_ms)))); }
inline double worker_budget_ms(double since_last_ms) { return ms_from_ns(net::worker_budget_ns(ns_from_ms(std::max(0.0, since_last_ms)))); }

template <class G, class Web>
struct NetBinding {
    using Game = GameBinding<G, Web>;
    using Session = net::ClientSession<G>;
    using Follower = PredictedFollower<G>;

    // ---- Room ----------------------------------------------------------------------------------
    struct RoomBox {
        net::Room<G> room;
        std::vector<uint8_t> message;   // receive(): the caller's bytes, reused
        std::vector<net::Outgoing> sends;
        std::vector<net::CloseRequest> closes;
        std::vector<uint8_t> recording;
    };

    // {game: knob overrides, inputDelayTicks?, maxWatchers?, idleTimeoutMs?}: tandem.mjs has
    // checked every type. The room offers every seat the game's state holds.
    static void room_config_from_js(const val& js, net::RoomConfig<G>& config) {
        config_from_js<G>(js["game"], config.game);
        if (const val v = js["inputDelayTicks"]; !v.isUndefined()) config.input_delay_ticks = v.as<uint32_t>();
        if (const val v = js["maxWatchers"]; !v.isUndefined()) config.max_watchers = v.as<uint32_t>();
        if (const val v = js["idleTimeoutMs"]; !v.isUndefined()) config.idle_timeout_ns = ns_from_ms(v.as<double>());
    }
    // The room's refusal as {field, code, message}: a game knob's, or one of the room's own.
    static val room_refusal(const net::RoomConfigError<G>& e) {
        if (e.code == net::RoomConfigCode::game_config) return config_refusal<G>(e.game);
        val refusal = val::object();
        const char* field = e.code == net::RoomConfigCode::input_delay_out_of_range ? "inputDelayTicks"
                            : e.code == net::RoomConfigCode::max_players_out_of_range ? "maxPlayers"
                            : e.code == net::RoomConfigCode::max_watchers_out_of_range ? "maxWatchers"
                                                                                        : "idleTimeoutMs";
        refusal.set("field", std::string(field));
        refusal.set("code", std::string(net::error_name(e)));
        refusal.set("message", std::string(net::describe(e)));
        return refusal;
    }
    static val room_create(const val& js) {
        net::RoomConfig<G> config;
        room_config_from_js(js, config);
        auto made = net::Room<G>::create(config);
        if (!made) return room_refusal(made.error());
        return val(std::make_unique<RoomBox>(RoomBox{std::move(made).value(), {}, {}, {}, {}}));
    }

    static uint32_t room_connect(RoomBox& b, double now_ms) { return b.room.connect(ns_from_ms(now_ms)); }
    static void room_receive(RoomBox& b, uint32_t id, const val& bytes, double now_ms) {
        copy_in(bytes, b.message);
        b.room.receive(id, b.message, ns_from_ms(now_ms));
    }
    static void room_disconnect(RoomBox& b, uint32_t id, double now_ms) { b.room.disconnect(id, ns_from_ms(now_ms)); }
    static void room_tick(RoomBox& b, double now_ms) { b.room.tick(ns_from_ms(now_ms)); }
    static void room_shut_down(RoomBox& b, double now_ms) { b.room.shut_down(ns_from_ms(now_ms)); }

    // {sends: [{to, bytes}], closes: [{who, reason, code}]}. A buffer the room shares between
    // recipients (a frame) becomes one Uint8Array shared by their entries, as the transport
    // would write one buffer to each.
    static val room_take_outbox(RoomBox& b) {
        b.sends.clear();
        b.closes.clear();
        b.room.take_outbox(b.sends, b.closes);
        std::unordered_map<const std::vector<uint8_t>*, val> copies;   // lookup only, never iterated
        val sends = val::array();
        for (const net::Outgoing& o : b.sends) {
            auto it = copies.find(o.bytes.get());
            if (it == copies.end()) it = copies.emplace(o.bytes.get(), copy_out(*o.bytes)).first;
            val s = val::object();
            s.set("to", o.to);
            s.set("bytes", it->second);
            sends.call<void>("push", s);
        }
        val closes = val::array();
        for (const net::CloseRequest& c : b.closes) {
            val o = val::object();
            o.set("who", c.who);
            o.set("reason", std::string(net::error_name(c.reason)));
            o.set("code", net::websocket_close_code(c.reason));
            closes.call<void>("push", o);
        }
        b.sends.clear();
        b.closes.clear();
        val out = val::object();
        out.set("sends", sends);
        out.set("closes", closes);
        return out;
    }

    static val room_stats(const RoomBox& b) { return room_stats_of(b.room); }
    static val room_stats_of(const net::Room<G>& room) {
        using S = net::RoomStats;
        static constexpr std::array close_reasons{
            net::CloseReason::protocol_error, net::CloseReason::rate_limited,   net::CloseReason::room_full,
            net::CloseReason::too_slow,       net::CloseReason::idle,           net::CloseReason::shutting_down,
            net::CloseReason::resume_refused, net::CloseReason::resumed_elsewhere, net::CloseReason::ticket_refused,
            net::CloseReason::address_limit,  net::CloseReason::room_moved};
        static_assert(close_reasons.size() == net::close_reason_count, "every close reason is in the stats");
        const S& s = room.stats();
        val o = val::object();
        set_fields(o, s, js_field("tick", &S::tick), js_field("players", &S::players), js_field("watchers", &S::watchers),
                   js_field("framesEncoded", &S::frames_encoded), js_field("baselinesSent", &S::baselines_sent),
                   js_field("flowPauses", &S::flow_pauses), js_field("inputsAccepted", &S::inputs_accepted),
                   js_field("inputsDropped", &S::inputs_dropped), js_field("inputsStale", &S::inputs_stale),
                   js_field("desyncReports", &S::desync_reports), js_field("ackMismatches", &S::ack_mismatches),
                   js_field("repliesDropped", &S::replies_dropped), js_field("messagesReceived", &S::messages_received),
                   js_field("bytesReceived", &S::bytes_received), js_field("messagesSent", &S::messages_sent),
                   js_field("bytesSent", &S::bytes_sent));
        val closes = val::object();
        for (net::CloseReason r : close_reasons) closes.set(std::string(net::error_name(r)), number(s.closes[static_cast<uint8_t>(r)]));
        o.set("closes", closes);
        return o;
    }

    // What the room holds for one connection, or null for an id it does not know.
    static val room_client(const RoomBox& b, uint32_t id) {
        const auto c = b.room.client(id);
        if (!c) return val::null();
        using C = net::ClientFigures;
        val o = val::object();
        set_fields(o, *c, js_field("admitted", &C::admitted), js_field("closed", &C::closed), js_field("paused", &C::paused),
                   js_field("sentTick", &C::sent_tick), js_field("baseTick", &C::base_tick),
                   js_field("unackedBytes", &C::unacked_bytes), js_field("heldBytes", &C::held_bytes));
        o.set("role", std::string(c->role == net::Role::play ? "play" : "watch"));
        o.set("player", c->player == net::watcher_id ? val::null() : val(c->player));
        return o;
    }

    static val room_limits(const RoomBox& b) {
        const net::RoomConfig<G>& c = b.room.config();
        val o = val::object();
        o.set("inputDelayTicks", c.input_delay_ticks);
        o.set("maxPlayers", c.max_players);
        o.set("maxWatchers", c.max_watchers);
        o.set("idleTimeoutMs", ms_from_ns(c.idle_timeout_ns));
        o.set("ringTicks", b.room.ring_ticks());
        o.set("flowWindowTicks", b.room.flow_window_ticks());
        o.set("flowWindowBytes", net::flow_window_bytes);
        o.set("baselineRepeatTicks", b.room.baseline_repeat_ticks());
        o.set("game", config_to_js<G>(c.game));
        return o;
    }

    static std::string room_state_digest(const RoomBox& b) { return hex64(sim::digest<G>(b.room.state())); }
    static val room_state_sections(const RoomBox& b) { return sections_to_js<G>(sim::digests<G>(b.room.state()).sections); }
    static val room_state_snapshot(const RoomBox& b) { return copy_out(sim::encode_snapshot<G>(b.room.state())); }
    static void room_start_recording(RoomBox& b) { b.room.start_recording(); }
    static val room_take_recording(RoomBox& b) {
        b.recording.clear();
        b.room.take_recording(b.recording);
        return copy_out(b.recording);
    }

    // ---- Replay --------------------------------------------------------------------------------
    // The reader's refusal as {code, record, offset, message} for tandem.mjs's ReplayError.
    static val replay_fault(const net::ReplayFault& f) {
        val o = val::object();
        o.set("code", std::string(net::error_name(f.error)));
        o.set("record", number(f.record));
        o.set("offset", number(f.offset));
        o.set("message", f.text);
        return o;
    }

    // {firstTick, lastTick, framesChecked, baselinesChecked, baselinesAdopted, divergence}, or
    // the reader's refusal (it has a .code).
    static val replay_check(const val& js_bytes) {
        std::vector<uint8_t> bytes;
        copy_in(js_bytes, bytes);
        auto read = net::read_replay<G>(bytes);
        if (!read) return replay_fault(read.error());
        const net::ReplayCheck c = net::check_replay<G>(read.value());
        val o = val::object();
        o.set("firstTick", number(c.first_tick));
        o.set("lastTick", number(c.last_tick));
        o.set("framesChecked", number(c.frames_checked));
        o.set("baselinesChecked", number(c.baselines_checked));
        o.set("baselinesAdopted", number(c.baselines_adopted));
        if (!c.divergence) {
            o.set("divergence", val::null());
            return o;
        }
        const net::Divergence& d = *c.divergence;
        val div = val::object();
        div.set("tick", number(d.tick));
        div.set("expected", hex64(d.expected_digest));
        div.set("actual", hex64(d.actual_digest));
        div.set("sections", d.sections_known ? names_js(d.sections) : val::null());
        // The fields that differ at the first state the replay holds at or after the tick.
        const bool known = d.fields.has_value();
        div.set("fields", known ? field_diff_js(*d.fields, "replay", "thisBuild") : val::null());
        div.set("fieldsTick", known ? val(number(d.fields_tick)) : val::null());
        div.set("fieldsDiffering", known ? val(number(d.fields->total)) : val::null());
        o.set("divergence", div);
        return o;
    }

    // This build's re-run state at `tick` as a snapshot (tandem.mjs makes it a World), or the refusal.
    static val replay_state_at(const val& js_bytes, double tick) {
        std::vector<uint8_t> bytes;
        copy_in(js_bytes, bytes);
        auto read = net::read_replay<G>(bytes);
        if (!read) return replay_fault(read.error());
        auto state = net::replay_state_at<G>(read.value(), static_cast<uint64_t>(tick));
        if (!state) return replay_fault(state.error());
        return copy_out(sim::encode_snapshot<G>(state.value()));
    }

    // ---- ClientSession ---------------------------------------------------------------------------
    struct SessionBox {
        Session session;
        std::optional<Follower> predicted;
        SessionView<G, Web> view;
        std::vector<uint8_t> message;   // receive(): the caller's bytes, reused
        std::vector<std::vector<uint8_t>> outgoing;
    };

    static val session_create(bool watch, double now_ms, bool measure_step_cost, bool predict, uint32_t window_ticks) {
        auto b = std::make_unique<SessionBox>(
            SessionBox{Session(watch ? net::Role::watch : net::Role::play, ns_from_ms(now_ms)), {}, {}, {}, {}});
        if (measure_step_cost) b->session.set_clock(&page_clock_ns);
        if (predict) b->predicted.emplace(make_follower<G>(window_ticks, eased_of<Web>(), measure_step_cost));
        return val(std::move(b));
    }
    static const Follower* follower_of(const SessionBox& b) { return b.predicted ? &*b.predicted : nullptr; }
    // The prediction follows the session after every call that may change it.
    static void follow(SessionBox& b, double now_ms) {
        if (b.predicted) b.predicted->update(b.session, ns_from_ms(now_ms));
    }
    static void session_on_connected(SessionBox& b, double now_ms) { b.session.on_connected(ns_from_ms(now_ms)); }
    // A lobby's ticket (its bytes): undefined when set, else {code, message} of the ProtocolError
    // that refused its layout (net.mjs throws it as a TicketError).
    static val session_set_ticket(SessionBox& b, const val& bytes) {
        copy_in(bytes, b.message);
        auto ticket = net::decode_ticket(b.message);
        if (!ticket.ok()) {
            val refusal = val::object();
            refusal.set("code", std::string(ticket.code()));
            refusal.set("message", std::string(ticket.message()));
            return refusal;
        }
        b.session.set_ticket(std::move(ticket).value());
        return val::undefined();
    }
    static void session_receive(SessionBox& b, const val& bytes, double now_ms) {
        copy_in(bytes, b.message);
        b.session.receive(b.message, ns_from_ms(now_ms));   // frames queued only: advance verifies
    }
    static void session_on_disconnected(SessionBox& b, double now_ms) { b.session.on_disconnected(ns_from_ms(now_ms)); }
    static void session_on_connect_failed(SessionBox& b, double now_ms) { b.session.on_connect_failed(ns_from_ms(now_ms)); }
    // The fleet's URLs: net.mjs has checked them and passes a fresh array of plain strings.
    static uint32_t session_set_fleet(SessionBox& b, std::string own, const val& others) {
        std::vector<std::string> urls;
        const auto count = others["length"].as<uint32_t>();
        for (uint32_t i = 0; i < count; ++i) urls.push_back(others[i].as<std::string>());
        return b.session.set_fleet(own, urls);
    }
    static bool session_should_reconnect(const SessionBox& b) { return b.session.should_reconnect(); }
    static double session_reconnect_delay_ms(const SessionBox& b) { return ms_from_ns(b.session.reconnect_delay_ns()); }
    static std::string session_next_url(const SessionBox& b) { return b.session.next_url(); }
    static val session_take_outgoing(SessionBox& b) {
        b.session.take_outgoing(b.outgoing);
        return messages_js(b.outgoing);
    }
    static uint32_t session_advance(SessionBox& b, double now_ms, double budget_ms) {
        const uint32_t applied = b.session.advance(ns_from_ms(now_ms), ns_from_ms(budget_ms));
        follow(b, now_ms);
        if (b.predicted) b.predicted->end_frame();   // one advance per page frame
        return applied;
    }
    static void session_on_suspend(SessionBox& b, double now_ms) { b.session.on_suspend(ns_from_ms(now_ms)); }
    static void session_on_resume(SessionBox& b, double now_ms) { b.session.on_resume(ns_from_ms(now_ms)); }
    // The person's command (checked by tandem.mjs, then by the game's codec); the prediction
    // applies it at once. null, or the codec's refusal {code, message}.
    static val session_send_command(SessionBox& b, const val& js, double now_ms) {
        typename G::Command c;
        if (!Game::command_from_js(js, c)) return Game::command_refusal(js);
        b.session.send_command(c, ns_from_ms(now_ms));
        follow(b, now_ms);
        return val::null();
    }
    static void session_set_view(SessionBox& b, const val& selection) { b.view.select(selection); }
    static val session_render_view(SessionBox& b, double now_ms) {
        return b.view.render(b.session, follower_of(b), ns_from_ms(now_ms));
    }
    static val session_figures(const SessionBox& b) { return SessionView<G, Web>::figures(b.session, follower_of(b)); }
    static val session_export_replay(const SessionBox& b) { return copy_out(b.session.export_replay()); }
    // Debug: flips one field of the confirmed state (the path given, else the game's choice),
    // so the next verified tick mismatches and heals. False when nothing was held or flipped.
    static bool session_corrupt_once(SessionBox& b, const std::string& path) {
        bool done = false;
        b.session.corrupt_for_testing([&](typename G::State& s) { done = corrupt_state<G, Web>(s, path); });
        return done;
    }

    // ---- ScriptedBot -----------------------------------------------------------------------------
    struct BotBox {
        net::ScriptedBot<G> bot;
        std::vector<uint8_t> message;
        std::vector<std::vector<uint8_t>> outgoing;
    };
    // The seed arrives as a JS number tandem.mjs has checked to be a safe integer >= 0.
    static val bot_create(double seed) {
        return val(std::make_unique<BotBox>(BotBox{net::ScriptedBot<G>(static_cast<uint64_t>(seed)), {}, {}}));
    }
    static void bot_on_connected(BotBox& b) { b.bot.on_connected(); }
    static void bot_receive(BotBox& b, const val& bytes) {
        copy_in(bytes, b.message);
        b.bot.receive(b.message);
    }
    static val bot_take_outgoing(BotBox& b) {
        b.bot.take_outgoing(b.outgoing);
        return messages_js(b.outgoing);
    }
    static val bot_figures_js(const net::ScriptedBot<G>& bot) {
        const net::BotFigures& f = bot.figures();
        using F = net::BotFigures;
        val o = val::object();
        set_fields(o, f, js_field("welcomed", &F::welcomed), js_field("tick", &F::tick),
                   js_field("commandsSent", &F::commands_sent), js_field("acksSent", &F::acks_sent),
                   js_field("malformedIn", &F::malformed_in), js_field("refused", &F::refused));
        o.set("player", f.player == net::watcher_id ? val::null() : val(f.player));
        o.set("command", Game::command_to_js(bot.command()));
        return o;
    }
    static val bot_figures(const BotBox& b) { return bot_figures_js(b.bot); }

    // ---- The offline match: net::Match<G> with the page's session and scripted bots ---------------
    // A room, the page's own session (and its prediction) and `bots` ScriptedBots in the tab,
    // over links without latency; the room ticks on its own fixed-step clock (pump), whose
    // catch-up cap is raised to offline_catch_up_ms: a hidden tab runs timers about once a
    // second, and a room that dropped most of that would fall behind the clock the session
    // estimates its absence by. It moves bytes only: the room, the session and the bots decide.
    static constexpr double offline_catch_up_ms = 1100;
    struct Offline {
        net::Match<G> match;
        std::vector<std::pair<uint32_t, net::ScriptedBot<G>>> bots;   // (endpoint, bot)
        FixedTimestep clock;
        std::optional<int64_t> last_pump;
        int64_t reconnect_at = -1;       // when the session's socket reopens (-1: not waiting)
        uint32_t reconnects = 0;
        SessionView<G, Web> view;
        std::vector<std::vector<uint8_t>> outgoing;
    };
    static constexpr uint32_t me = 0;   // the page's endpoint

    static Follower* offline_follower(Offline& o) { return o.match.template follower<Follower>(me); }
    static const Follower* offline_follower(const Offline& o) { return o.match.template follower<Follower>(me); }

    // {game, inputDelayTicks?, bots, botSeed, watch, predict, predictWindowTicks, measureStepCost, nowMs}
    static val offline_create(const val& js) {
        net::RoomConfig<G> config;
        room_config_from_js(js, config);
        const int64_t now = ns_from_ms(js["nowMs"].as<double>());
        auto match = net::Match<G>::create(config);
        if (!match) return room_refusal(match.error());
        auto step = FixedTimestep::from_hz(static_cast<int32_t>(G::tick_hz(config.game)));
        auto clock = step.ok() ? step.value().with_max_frame_ns(ns_from_ms(offline_catch_up_ms)) : step;
        if (!clock.ok()) return val(std::string(clock.message()));
        auto o = std::make_unique<Offline>(Offline{std::move(match).value(), {}, std::move(clock).value(), {}, -1, 0, {}, {}});
        const bool watch = js["watch"].as<bool>();
        const bool measure = js["measureStepCost"].as<bool>();
        o->match.add_session(watch ? net::Role::watch : net::Role::play, 1, net::LinkSpec{}, now);
        if (measure) o->match.session(me).set_clock(&page_clock_ns);
        if (js["predict"].as<bool>()) o->match.follow(me, make_follower<G>(js["predictWindowTicks"].as<uint32_t>(), eased_of<Web>(), measure));
        // The page's hello first, so a player takes the first seat; the bots the next ones.
        o->match.connect(me, now);
        const uint32_t bots = js["bots"].as<uint32_t>();
        const double seed = js["botSeed"].as<double>();
        for (uint32_t k = 0; k < bots; ++k) {
            const uint32_t e = o->match.add_raw(2 + k, net::LinkSpec{});
            // Bot seeds from the page's seed: a reload with the same seed shows the same paths.
            o->bots.emplace_back(e, net::ScriptedBot<G>(static_cast<uint64_t>(seed) * 8 + k + 1));
        }
        for (auto& [e, bot] : o->bots) {
            o->match.connect(e, now);
            bot.on_connected();
        }
        o->last_pump = now;
        settle(*o, now);
        return val(std::move(o));
    }

    // Moves every message both ways until none is left (a reply can provoke another): the
    // bots' messages onto their sockets, the session's, then what is due everywhere.
    static void settle(Offline& o, int64_t now) {
        for (int round = 0; round < 16; ++round) {
            bool moved = false;
            for (auto& [e, bot] : o.bots) {
                bot.take_outgoing(o.outgoing);
                for (auto& m : o.outgoing) o.match.send_raw(e, std::move(m), now), moved = true;
                o.outgoing.clear();
            }
            o.match.flush(me, now);
            o.match.deliver(now);
            o.match.route(now);
            o.match.deliver(now);
            for (auto& [e, bot] : o.bots) {
                for (const auto& m : o.match.take_received(e)) bot.receive(m), moved = true;
            }
            if (!moved && o.match.idle()) break;
        }
        // A socket the room closed reopens after the session's own delay, unless it was refused
        // for good (the session decides: should_reconnect).
        Session& s = o.match.session(me);
        if (!o.match.open(me)) {
            if (o.reconnect_at < 0 && s.should_reconnect()) o.reconnect_at = now + s.reconnect_delay_ns();
            if (o.reconnect_at >= 0 && now >= o.reconnect_at) {
                o.reconnect_at = -1;
                ++o.reconnects;
                o.match.connect(me, now);
                o.match.flush(me, now);
                o.match.deliver(now);
            }
        }
    }

    // The room's ticks the clock owes by now, each followed by its messages.
    static uint32_t offline_pump(Offline& o, double now_ms) {
        const int64_t now = ns_from_ms(now_ms);
        const int64_t elapsed = o.last_pump ? std::max<int64_t>(0, now - *o.last_pump) : 0;
        o.last_pump = now;
        const auto owed = static_cast<uint32_t>(o.clock.advance_ns(elapsed).count());
        for (uint32_t n = 0; n < owed; ++n) {
            o.match.tick(now);
            settle(o, now);
        }
        if (owed == 0) settle(o, now);
        return owed;
    }
    // One page frame: the room's ticks due, then the session's advance (its follower updated
    // and its frame ended), then what that produced (acks, a desync report).
    static uint32_t offline_advance(Offline& o, double now_ms, double budget_ms) {
        offline_pump(o, now_ms);
        const int64_t now = ns_from_ms(now_ms);
        const uint32_t applied = o.match.advance(me, now, ns_from_ms(budget_ms));
        settle(o, now);
        return applied;
    }
    static void offline_on_suspend(Offline& o, double now_ms) { o.match.suspend(me, ns_from_ms(now_ms)); }
    // The room first: what it ran while the page was away is what the session weighs.
    static void offline_on_resume(Offline& o, double now_ms) {
        offline_pump(o, now_ms);
        o.match.resume(me, ns_from_ms(now_ms));
        settle(o, ns_from_ms(now_ms));
    }
    static val offline_send_command(Offline& o, const val& js, double now_ms) {
        typename G::Command c;
        if (!Game::command_from_js(js, c)) return Game::command_refusal(js);
        const int64_t now = ns_from_ms(now_ms);
        o.match.send_command(me, c, now);
        settle(o, now);
        return val::null();
    }
    static void offline_set_view(Offline& o, const val& selection) { o.view.select(selection); }
    static val offline_render_view(Offline& o, double now_ms) {
        return o.view.render(o.match.session(me), offline_follower(o), ns_from_ms(now_ms));
    }
    static val offline_figures(const Offline& o) {
        val f = SessionView<G, Web>::figures(o.match.session(me), offline_follower(o));
        val c = val::object();
        const bool open = o.match.open(me);
        const bool refused = !open && !o.match.session(me).should_reconnect();
        c.set("state", std::string(open ? "open" : refused ? "refused" : "waiting"));
        c.set("open", open);
        c.set("reconnects", o.reconnects);
        c.set("retryInMs", o.reconnect_at < 0 || !o.last_pump ? val::null() : val(ms_from_ns(o.reconnect_at - *o.last_pump)));
        f.set("link", c);
        return f;
    }
    static val offline_export_replay(const Offline& o) { return copy_out(o.match.session(me).export_replay()); }
    static bool offline_corrupt_once(Offline& o, const std::string& path) {
        bool done = false;
        o.match.session(me).corrupt_for_testing([&](typename G::State& s) { done = corrupt_state<G, Web>(s, path); });
        return done;
    }
    // The room's and the bots' figures (tests and tools).
    static val offline_room_figures(const Offline& o) {
        val out = val::object();
        out.set("digest", hex64(sim::digest<G>(o.match.room().state())));
        out.set("tick", number(G::tick(o.match.room().state())));
        out.set("tickHz", G::tick_hz(G::config_of(o.match.room().state())));
        out.set("stats", room_stats_of(o.match.room()));
        val bots = val::array();
        for (const auto& [e, bot] : o.bots) bots.call<void>("push", bot_figures_js(bot));
        out.set("bots", bots);
        return out;
    }

    static void bind() {
        using emscripten::class_;
        using emscripten::function;
        class_<RoomBox>("Room")
            .function("connect", &room_connect)
            .function("receive", &room_receive)
            .function("disconnect", &room_disconnect)
            .function("tick", &room_tick)
            .function("shutDown", &room_shut_down)
            .function("takeOutbox", &room_take_outbox)
            .function("stats", &room_stats)
            .function("client", &room_client)
            .function("limits", &room_limits)
            .function("stateDigest", &room_state_digest)
            .function("stateSections", &room_state_sections)
            .function("stateSnapshot", &room_state_snapshot)
            .function("startRecording", &room_start_recording)
            .function("takeRecording", &room_take_recording);
        function("room_create", &room_create);
        function("replay_check", &replay_check);
        function("replay_state_at", &replay_state_at);
        class_<SessionBox>("ClientSession")
            .function("onConnected", &session_on_connected)
            .function("setTicket", &session_set_ticket)
            .function("receive", &session_receive)
            .function("onDisconnected", &session_on_disconnected)
            .function("onConnectFailed", &session_on_connect_failed)
            .function("setFleet", &session_set_fleet)
            .function("shouldReconnect", &session_should_reconnect)
            .function("reconnectDelayMs", &session_reconnect_delay_ms)
            .function("nextUrl", &session_next_url)
            .function("takeOutgoing", &session_take_outgoing)
            .function("advance", &session_advance)
            .function("onSuspend", &session_on_suspend)
            .function("onResume", &session_on_resume)
            .function("sendCommand", &session_send_command)
            .function("setView", &session_set_view)
            .function("renderView", &session_render_view)
            .function("figures", &session_figures)
            .function("exportReplay", &session_export_replay)
            .function("corruptOnce", &session_corrupt_once);
        function("session_create", &session_create);
        if constexpr (net::HasBot<G>) {
            class_<BotBox>("ScriptedBot")
                .function("onConnected", &bot_on_connected)
                .function("receive", &bot_receive)
                .function("takeOutgoing", &bot_take_outgoing)
                .function("figures", &bot_figures);
            function("bot_create", &bot_create);
            class_<Offline>("OfflineMatch")
                .function("pump", &offline_pump)
                .function("advance", &offline_advance)
                .function("onSuspend", &offline_on_suspend)
                .function("onResume", &offline_on_resume)
                .function("sendCommand", &offline_send_command)
                .function("setView", &offline_set_view)
                .function("renderView", &offline_render_view)
                .function("figures", &offline_figures)
                .function("exportReplay", &offline_export_replay)
                .function("corruptOnce", &offline_corrupt_once)
                .function("roomFigures", &offline_room_figures);
            function("offline_create", &offline_create);
        }
    }
};

}  // namespace tandem::bindings
