// The net layer's Embind half for the arena's room: the Room, the replay reader and checker,
// and the scripted bot (the page's offline mode), exposed to net.mjs and deciding nothing.
// Times arrive as JS milliseconds (doubles) and become int64 nanoseconds here, at the boundary;
// src/net sees only integers. Every failure comes back as a value (no C++ exceptions).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "arena/sim.hpp"
#include "js_bytes.hpp"
#include "js_config.hpp"
#include "js_fields.hpp"
#include "tandem/core/digest.hpp"
#include "tandem/core/timestep.hpp"
#include "tandem/net/bot.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/net/room.hpp"

using emscripten::val;

namespace {

namespace net = tandem::net;
using tandem::hex64;
using tandem::bindings::copy_in;
using tandem::bindings::copy_out;
using tandem::bindings::sections_to_js;

int64_t ns_from_ms(double ms) { return tandem::elapsed_ns_from_ms_f64(ms); }
// Counters and ticks leave as JS numbers: exact below 2^53, which no counter reaches.
double number(uint64_t v) { return static_cast<double>(v); }
double ms_from_ns(int64_t ns) { return static_cast<double>(ns) / 1e6; }

val names_js(const std::vector<std::string_view>& names) {
    val out = val::array();
    for (std::string_view n : names) out.call<void>("push", std::string(n));
    return out;
}

// ---- Room -------------------------------------------------------------------------------------

using Room = net::Room<arena::Sim>;

struct RoomBox {
    Room room;
    std::vector<uint8_t> message;  // receive(): the caller's bytes, reused
    std::vector<net::Outgoing> sends;
    std::vector<net::CloseRequest> closes;
    std::vector<uint8_t> recording;
};

// {world: knob overrides, inputDelayTicks?, maxWatchers?, idleTimeoutMs?}: net.mjs has checked
// every type. The room's seats are the world's maxPlayers (one well per seat). A refusal comes
// back as {field, code, message}.
val room_create(const val& js) {
    net::RoomConfig<arena::Sim> config;
    config.game = tandem::bindings::config_from_js(js["world"]);
    config.max_players = config.game.max_players;
    if (const val v = js["inputDelayTicks"]; !v.isUndefined()) config.input_delay_ticks = v.as<uint32_t>();
    if (const val v = js["maxWatchers"]; !v.isUndefined()) config.max_watchers = v.as<uint32_t>();
    if (const val v = js["idleTimeoutMs"]; !v.isUndefined()) config.idle_timeout_ns = ns_from_ms(v.as<double>());
    auto made = Room::create(config);
    if (!made) {
        const net::RoomConfigError<arena::Sim> e = made.error();
        if (e.code == net::RoomConfigCode::game_config) return tandem::bindings::config_refusal(e.game);
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
    return val(std::make_unique<RoomBox>(RoomBox{std::move(made).value(), {}, {}, {}, {}}));
}

uint32_t room_connect(RoomBox& b, double now_ms) { return b.room.connect(ns_from_ms(now_ms)); }
void room_receive(RoomBox& b, uint32_t id, const val& bytes, double now_ms) {
    copy_in(bytes, b.message);
    b.room.receive(id, b.message, ns_from_ms(now_ms));
}
void room_disconnect(RoomBox& b, uint32_t id, double now_ms) { b.room.disconnect(id, ns_from_ms(now_ms)); }
void room_tick(RoomBox& b, double now_ms) { b.room.tick(ns_from_ms(now_ms)); }
void room_shut_down(RoomBox& b, double now_ms) { b.room.shut_down(ns_from_ms(now_ms)); }

// {sends: [{to, bytes}], closes: [{who, reason, code}]}. A buffer the room shares between
// recipients (a frame) becomes one Uint8Array shared by their entries, as the transport would
// write one buffer to each.
val room_take_outbox(RoomBox& b) {
    b.sends.clear();
    b.closes.clear();
    b.room.take_outbox(b.sends, b.closes);
    std::unordered_map<const std::vector<uint8_t>*, val> copies;  // lookup only, never iterated
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

constexpr std::array close_reasons{net::CloseReason::protocol_error, net::CloseReason::rate_limited,
                                   net::CloseReason::room_full,      net::CloseReason::too_slow,
                                   net::CloseReason::idle,           net::CloseReason::shutting_down,
                                   net::CloseReason::resume_refused, net::CloseReason::resumed_elsewhere};

val room_stats(const RoomBox& b) {
    using S = net::RoomStats;
    using tandem::bindings::js_field;
    const S& s = b.room.stats();
    val o = val::object();
    tandem::bindings::set_fields(o, s, js_field("tick", &S::tick), js_field("players", &S::players),
                                 js_field("watchers", &S::watchers), js_field("framesEncoded", &S::frames_encoded),
                                 js_field("baselinesSent", &S::baselines_sent), js_field("flowPauses", &S::flow_pauses),
                                 js_field("inputsAccepted", &S::inputs_accepted), js_field("inputsDropped", &S::inputs_dropped),
                                 js_field("inputsStale", &S::inputs_stale), js_field("desyncReports", &S::desync_reports),
                                 js_field("ackMismatches", &S::ack_mismatches), js_field("repliesDropped", &S::replies_dropped),
                                 js_field("messagesReceived", &S::messages_received), js_field("bytesReceived", &S::bytes_received),
                                 js_field("messagesSent", &S::messages_sent), js_field("bytesSent", &S::bytes_sent));
    val closes = val::object();
    for (net::CloseReason r : close_reasons) closes.set(std::string(net::error_name(r)), number(s.closes[static_cast<uint8_t>(r)]));
    o.set("closes", closes);
    return o;
}

// What the room holds for one connection, or null for an id it does not know.
val room_client(const RoomBox& b, uint32_t id) {
    const auto c = b.room.client(id);
    if (!c) return val::null();
    using C = net::ClientFigures;
    using tandem::bindings::js_field;
    val o = val::object();
    tandem::bindings::set_fields(o, *c, js_field("admitted", &C::admitted), js_field("closed", &C::closed),
                                 js_field("paused", &C::paused), js_field("sentTick", &C::sent_tick),
                                 js_field("baseTick", &C::base_tick), js_field("unackedBytes", &C::unacked_bytes),
                                 js_field("heldBytes", &C::held_bytes));
    o.set("role", std::string(c->role == net::Role::play ? "play" : "watch"));
    o.set("player", c->player == net::watcher_id ? val::null() : val(c->player));
    return o;
}

val room_limits(const RoomBox& b) {
    const net::RoomConfig<arena::Sim>& c = b.room.config();
    val o = val::object();
    o.set("inputDelayTicks", c.input_delay_ticks);
    o.set("maxPlayers", c.max_players);
    o.set("maxWatchers", c.max_watchers);
    o.set("idleTimeoutMs", ms_from_ns(c.idle_timeout_ns));
    o.set("ringTicks", b.room.ring_ticks());
    o.set("flowWindowTicks", b.room.flow_window_ticks());
    o.set("flowWindowBytes", net::flow_window_bytes);
    o.set("baselineRepeatTicks", b.room.baseline_repeat_ticks());
    o.set("world", tandem::bindings::config_to_js(c.game));
    return o;
}

std::string room_world_digest(const RoomBox& b) { return hex64(arena::digest(b.room.state())); }
val room_world_sections(const RoomBox& b) { return sections_to_js<arena::Sim>(arena::section_digests(b.room.state())); }
val room_world_snapshot(const RoomBox& b) { return copy_out(arena::encode(b.room.state())); }
void room_start_recording(RoomBox& b) { b.room.start_recording(); }
val room_take_recording(RoomBox& b) {
    b.recording.clear();
    b.room.take_recording(b.recording);
    return copy_out(b.recording);
}

// ---- Replay -----------------------------------------------------------------------------------

// The reader's refusal as {code, record, offset, message} for net.mjs's ReplayError.
val replay_fault(const net::ReplayFault& f) {
    val o = val::object();
    o.set("code", std::string(net::error_name(f.error)));
    o.set("record", number(f.record));
    o.set("offset", number(f.offset));
    o.set("message", f.text);
    return o;
}

// {firstTick, lastTick, framesChecked, baselinesChecked, baselinesAdopted, divergence}, or the
// reader's refusal (it has a .code).
val replay_check(const val& js_bytes) {
    std::vector<uint8_t> bytes;
    copy_in(js_bytes, bytes);
    auto read = net::read_replay<arena::Sim>(bytes);
    if (!read) return replay_fault(read.error());
    const net::ReplayCheck c = net::check_replay<arena::Sim>(read.value());
    val o = val::object();
    o.set("firstTick", number(c.first_tick));
    o.set("lastTick", number(c.last_tick));
    o.set("framesChecked", number(c.frames_checked));
    o.set("baselinesChecked", number(c.baselines_checked));
    o.set("baselinesAdopted", number(c.baselines_adopted));
    if (!c.divergence) {
        o.set("divergence", val::null());
    } else {
        const net::Divergence& d = *c.divergence;
        val div = val::object();
        div.set("tick", number(d.tick));
        div.set("expected", hex64(d.expected_digest));
        div.set("actual", hex64(d.actual_digest));
        div.set("sections", d.sections_known ? names_js(d.sections) : val::null());
        // The fields that differ at the first state the replay holds at or after the tick.
        if (d.fields) {
            val fields = val::array();
            for (const tandem::sim::FieldDifference& f : d.fields->differences) {
                val one = val::object();
                one.set("path", f.path);
                one.set("section", std::string(f.section));
                one.set("replay", f.a ? val(*f.a) : val::null());
                one.set("thisBuild", f.b ? val(*f.b) : val::null());
                fields.call<void>("push", one);
            }
            div.set("fields", fields);
            div.set("fieldsTick", number(d.fields_tick));
            div.set("fieldsDiffering", number(d.fields->total));
        } else {
            // No state at or after the tick to compare with: the same keys, all null.
            div.set("fields", val::null());
            div.set("fieldsTick", val::null());
            div.set("fieldsDiffering", val::null());
        }
        o.set("divergence", div);
    }
    return o;
}

// This build's re-run world at `tick` as a snapshot (net.mjs makes it a World), or the refusal.
val replay_world_at(const val& js_bytes, double tick) {
    std::vector<uint8_t> bytes;
    copy_in(js_bytes, bytes);
    auto read = net::read_replay<arena::Sim>(bytes);
    if (!read) return replay_fault(read.error());
    auto world = net::replay_state_at<arena::Sim>(read.value(), static_cast<uint64_t>(tick));
    if (!world) return replay_fault(world.error());
    return copy_out(arena::encode(world.value()));
}

// ---- ScriptedBot --------------------------------------------------------------------------------

// A room's scripted player (the page's offline mode): bytes in, bytes out, figures.
struct BotBox {
    net::ScriptedBot<arena::Sim> bot;
    std::vector<uint8_t> message;               // receive(): the caller's bytes, reused
    std::vector<std::vector<uint8_t>> outgoing;
};

// The seed arrives as a JS number net.mjs has checked to be a safe integer >= 0.
val bot_create(double seed) { return val(std::make_unique<BotBox>(BotBox{net::ScriptedBot<arena::Sim>(static_cast<uint64_t>(seed)), {}, {}})); }
void bot_on_connected(BotBox& b) { b.bot.on_connected(); }
void bot_receive(BotBox& b, const val& bytes) {
    copy_in(bytes, b.message);
    b.bot.receive(b.message);
}
val bot_take_outgoing(BotBox& b) {
    b.outgoing.clear();
    b.bot.take_outgoing(b.outgoing);
    val out = val::array();
    for (const auto& m : b.outgoing) out.call<void>("push", copy_out(m));
    b.outgoing.clear();
    return out;
}
val bot_figures(const BotBox& b) {
    const net::BotFigures& f = b.bot.figures();
    using F = net::BotFigures;
    using tandem::bindings::js_field;
    val o = val::object();
    tandem::bindings::set_fields(o, f, js_field("welcomed", &F::welcomed), js_field("tick", &F::tick),
                                 js_field("steersSent", &F::commands_sent), js_field("acksSent", &F::acks_sent),
                                 js_field("malformedIn", &F::malformed_in), js_field("refused", &F::refused));
    o.set("player", f.player == net::watcher_id ? val::null() : val(f.player));
    val target = val::object();
    target.set("x", b.bot.command().target.x.raw());
    target.set("y", b.bot.command().target.y.raw());
    o.set("target", target);
    return o;
}

}  // namespace

EMSCRIPTEN_BINDINGS(tandem_room) {
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
        .function("worldDigest", &room_world_digest)
        .function("worldSections", &room_world_sections)
        .function("worldSnapshot", &room_world_snapshot)
        .function("startRecording", &room_start_recording)
        .function("takeRecording", &room_take_recording);
    function("room_create", &room_create);

    function("replay_check", &replay_check);
    function("replay_world_at", &replay_world_at);

    class_<BotBox>("ScriptedBot")
        .function("onConnected", &bot_on_connected)
        .function("receive", &bot_receive)
        .function("takeOutgoing", &bot_take_outgoing)
        .function("figures", &bot_figures);
    function("bot_create", &bot_create);
}
