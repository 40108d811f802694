// The core and the arena's world for JavaScript (embind_net.cpp has the net layer), deciding
// nothing.
// Validation, defaults and idiomatic names live in tandem.mjs. Every failure the C++ side can
// report comes back as a value: the module is built without C++ exception support, where a
// throw would abort it, so nothing reachable from here may throw (the world returns Results).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tandem/core/digest.hpp"
#include "tandem/core/fixed.hpp"
#include "tandem/core/noise.hpp"
#include "tandem/core/timestep.hpp"
#include "arena/scenario.hpp"
#include "arena/sim.hpp"
#include "tandem/sim/codec.hpp"
#include "tandem/sim/scenario.hpp"
#include "js_bytes.hpp"
#include "js_config.hpp"

using emscripten::val;

namespace {

// ---- Plain conversions -------------------------------------------------------------------

// 64-bit values leave as 16 lowercase hex digits (the CLI's spelling, core's hex64): a JS
// number cannot hold them and BigInt would need -sWASM_BIGINT on every consumer.
using tandem::hex64;

// int64 nanoseconds as a JS number of nanoseconds (exact below 2^53 ns, 104 days).
double ns_number(int64_t ns) { return static_cast<double>(ns); }

// A refusal or a value: the value as a JS handle, a refusal as its sentence (a string), which
// tandem.mjs turns into a RangeError.
template <class T>
val time_result(tandem::Result<T, tandem::TimeError>&& r) {
    if (!r.ok()) return val(std::string(r.message()));
    return val(std::move(r).value());
}
val time_refusal(const tandem::Result<void, tandem::TimeError>& r) {
    return r.ok() ? val::null() : val(std::string(r.message()));
}

// ---- Fx: crosses the boundary as its raw Q16.16 int32, which a JS number holds exactly ----

using Raw = int32_t;
tandem::Fx fx(Raw raw) { return tandem::Fx::from_raw(raw); }

Raw fx_from_int(int32_t i) { return tandem::Fx::from_int(i).raw(); }
Raw fx_add(Raw a, Raw b) { return (fx(a) + fx(b)).raw(); }
Raw fx_sub(Raw a, Raw b) { return (fx(a) - fx(b)).raw(); }
Raw fx_mul(Raw a, Raw b) { return (fx(a) * fx(b)).raw(); }
Raw fx_div(Raw a, Raw b) { return (fx(a) / fx(b)).raw(); }
Raw fx_sqrt(Raw a) { return tandem::sqrt(fx(a)).raw(); }
Raw fx_sin(Raw a) { return tandem::sin(fx(a)).raw(); }
Raw fx_cos(Raw a) { return tandem::cos(fx(a)).raw(); }
Raw fx_atan2(Raw y, Raw x) { return tandem::atan2(fx(y), fx(x)).raw(); }
Raw fx_atan(Raw a) { return tandem::atan(fx(a)).raw(); }
Raw fx_asin(Raw a) { return tandem::asin(fx(a)).raw(); }
Raw fx_acos(Raw a) { return tandem::acos(fx(a)).raw(); }
Raw fx_exp(Raw a) { return tandem::exp(fx(a)).raw(); }
Raw fx_log(Raw a) { return tandem::log(fx(a)).raw(); }
double fx_to_number(Raw a) { return tandem::to_f64(fx(a)); }
std::string fx_to_string(Raw a) { return tandem::to_string(fx(a)); }
// The raw value, or null when the text is not a decimal in range.
val fx_parse(const std::string& text) {
    const auto parsed = tandem::parse(text);
    return parsed ? val(parsed->raw()) : val::null();
}

// ---- Time: milliseconds arrive as JS doubles and enter through the core's one conversion --

using tandem::FixedTimestep;
using tandem::Periodic;

int64_t ns_from_ms(double ms) { return tandem::elapsed_ns_from_ms_f64(ms); }

val timestep_from_step_ms(double ms) { return time_result(FixedTimestep::from_step_ns(ns_from_ms(ms))); }
val timestep_from_hz(int32_t hz) { return time_result(FixedTimestep::from_hz(hz)); }
val timestep_with_max_frame_ms(const FixedTimestep& t, double ms) { return time_result(t.with_max_frame_ns(ns_from_ms(ms))); }
val timestep_with_max_steps(const FixedTimestep& t, uint32_t n) { return time_result(t.with_max_steps(n)); }
double timestep_advance_ms(FixedTimestep& t, double ms) { return static_cast<double>(t.advance_ns(ns_from_ms(ms)).count()); }
val timestep_set_step_ms(FixedTimestep& t, double ms) { return time_refusal(t.set_step_ns(ns_from_ms(ms))); }
double timestep_step_ns(const FixedTimestep& t) { return ns_number(t.step_ns()); }
double timestep_max_frame_ns(const FixedTimestep& t) { return ns_number(t.max_frame_ns()); }
double timestep_pending_ns(const FixedTimestep& t) { return ns_number(t.pending_ns()); }
double timestep_dropped_ns(const FixedTimestep& t) { return ns_number(t.dropped_ns()); }
Raw timestep_alpha(const FixedTimestep& t) { return t.alpha().raw(); }
Raw timestep_step_seconds(const FixedTimestep& t) { return t.step_seconds().raw(); }
void timestep_reset(FixedTimestep& t) { t.reset(); }

val periodic_from_interval_ms(double ms) { return time_result(Periodic::from_interval_ns(ns_from_ms(ms))); }
val periodic_from_hz(int32_t hz) { return time_result(Periodic::from_hz(hz)); }
bool periodic_due_ms(Periodic& p, double ms) { return p.due_ns(ns_from_ms(ms)); }
double periodic_advance_ms(Periodic& p, double ms) { return static_cast<double>(p.advance_ns(ns_from_ms(ms))); }
val periodic_set_interval_ms(Periodic& p, double ms) { return time_refusal(p.set_interval_ns(ns_from_ms(ms))); }
double periodic_interval_ns(const Periodic& p) { return ns_number(p.interval_ns()); }
double periodic_pending_ns(const Periodic& p) { return ns_number(p.pending_ns()); }
double periodic_remaining_ns(const Periodic& p) { return ns_number(p.remaining_ns()); }
void periodic_reset(Periodic& p) { p.reset(); }

namespace w = arena;
namespace sim = tandem::sim;
using tandem::bindings::copy_in;
using tandem::bindings::copy_out;

// ---- Inputs: the arena's canonical 13-byte records (the kit's input codec over
// arena::Sim) are the only form an input takes into the world. Objects from JS are written
// into records by append_input and every record is read back by decode_input, so the ES
// module, the wire and replays share one encoding.

// The kind names JS uses, indexed by the kind byte of the encoding (InputKind's value).
constexpr std::string_view kind_names[] = {"join", "leave", "steer"};
static_assert(static_cast<uint8_t>(w::InputKind::join) == 0 && static_cast<uint8_t>(w::InputKind::leave) == 1 &&
              static_cast<uint8_t>(w::InputKind::command) == 2 && std::size(kind_names) == 3);

val input_kind_names() {
    val out = val::array();
    for (std::string_view name : kind_names) out.call<void>("push", std::string(name));
    return out;
}

// Objects {player, kind, target: {x, y}} as records appended to `out`. They are tandem.mjs's
// own plain copies, every field checked (kind one of kind_names), so reading them runs no
// caller code: a JS exception thrown through these C++ frames would skip their destructors.
void append_objects(const val& inputs, std::vector<uint8_t>& out) {
    const uint32_t n = inputs["length"].as<uint32_t>();
    for (uint32_t i = 0; i < n; ++i) {
        const val o = inputs[i];
        w::Input input;
        input.player = o["player"].as<uint32_t>();
        const std::string kind = o["kind"].as<std::string>();
        for (uint8_t k = 0; k < std::size(kind_names); ++k) {
            if (kind == kind_names[k]) input.kind = static_cast<w::InputKind>(k);
        }
        const val target = o["target"];
        input.command.target = tandem::Vec2{fx(target["x"].as<int32_t>()), fx(target["y"].as<int32_t>())};
        sim::append_input<w::Sim>(out, input);
    }
}

// The records of `bytes` decoded into `out`, or the first refused record: {index, code,
// message} for tandem.mjs's InputError. A length that is not a multiple of 13 leaves a short
// last record, refused as truncated.
val read_records(std::span<const uint8_t> bytes, std::vector<w::Input>& out) {
    out.clear();
    uint32_t index = 0;
    const std::size_t record = sim::input_bytes<w::Sim>();
    for (std::size_t at = 0; at < bytes.size(); at += record, ++index) {
        const auto read = sim::decode_input<w::Sim>(bytes.subspan(at, std::min<std::size_t>(record, bytes.size() - at)));
        if (!read) {
            val refusal = val::object();
            refusal.set("index", index);
            refusal.set("code", std::string(read.code()));
            refusal.set("message", std::string(read.message()));
            return refusal;
        }
        out.push_back(*read);
    }
    return val::null();
}

// tandem.encodeInputs: objects to the canonical bytes.
val inputs_encode(const val& inputs) {
    std::vector<uint8_t> bytes;
    append_objects(inputs, bytes);
    return copy_out(bytes);
}

// tandem.decodeInputs: canonical bytes to objects, or the refusal of read_records.
val inputs_decode(const val& js_bytes) {
    std::vector<uint8_t> bytes;
    copy_in(js_bytes, bytes);
    std::vector<w::Input> inputs;
    if (val refusal = read_records(bytes, inputs); !refusal.isNull()) return refusal;
    val out = val::array();
    for (const w::Input& input : inputs) {
        val o = val::object();
        o.set("player", input.player);
        o.set("kind", std::string(kind_names[static_cast<uint8_t>(input.kind)]));
        val target = val::object();
        target.set("x", input.command.target.x.raw());
        target.set("y", input.command.target.y.raw());
        o.set("target", target);
        out.call<void>("push", o);
    }
    return out;
}

// ---- World ---------------------------------------------------------------------------------

// A world, the Stepper that steps it (its scratch, and the events of its last step), and the
// buffers the JS calls reuse. A tick reuses all of them: once they have grown to the largest
// tick seen, stepping allocates no C++ memory (the JS handles Embind makes for the arguments
// aside). The float copy is the render edge: positions leave through to_f32, one way, and
// nothing reads them back.
struct WorldBox {
    w::World world;
    w::Stepper stepper;
    std::vector<float> positions;      // pelletPositions(): x0 y0 x1 y1 ...
    std::vector<uint8_t> input_bytes;  // step(): this tick's inputs as canonical records
    std::vector<w::Input> inputs;      // step(): the same, decoded
};

WorldBox box(w::World world) { return WorldBox{std::move(world), {}, {}, {}, {}}; }

// ---- Config: every knob of WorldConfig under its camelCase name (js_config.hpp).

using tandem::bindings::camel;
using tandem::bindings::config_to_js;

template <class Field>
constexpr const char* knob_type() {
    if constexpr (std::is_same_v<Field, uint64_t>) return "u64";
    else if constexpr (std::is_same_v<Field, uint32_t>) return "u32";
    else return "fx";
}

// [{name, type}] in for_each_config_field order: what tandem.mjs checks a config against.
val config_knobs() {
    val out = val::array();
    const w::WorldConfig defaults = w::default_config();
    w::for_each_config_field(defaults, [&](std::string_view name, auto field) {
        val o = val::object();
        o.set("name", camel(name));
        o.set("type", std::string(knob_type<decltype(field)>()));
        out.call<void>("push", o);
    });
    return out;
}

val default_config_js() { return config_to_js(w::default_config()); }

// A fresh world: default_config() with the knobs the caller set (tandem.mjs has checked each
// one's type and that it is a knob), or validate()'s refusal as {field, code, message}.
val world_create(const val& overrides) {
    auto made = w::make_world(tandem::bindings::config_from_js(overrides));
    if (!made) return tandem::bindings::config_refusal(made.error());
    return val(box(std::move(made).value()));
}

val world_config(const WorldBox& b) { return config_to_js(b.world.config); }

double world_tick(const WorldBox& b) { return static_cast<double>(b.world.tick); }

// One tick with the records in b.input_bytes: every record is read before the world is
// touched, so a refused one (returned as read_records says) leaves the world as it was.
val step_records(WorldBox& b) {
    if (val refusal = read_records(b.input_bytes, b.inputs); !refusal.isNull()) return refusal;
    b.stepper.step(b.world, b.inputs);
    return val::null();
}
// World.step(Uint8Array): the caller's canonical records.
val world_step_bytes(WorldBox& b, const val& bytes) {
    copy_in(bytes, b.input_bytes);
    return step_records(b);
}
// World.step(objects): each object through append_input, then the same path as bytes.
val world_step_objects(WorldBox& b, const val& inputs) {
    b.input_bytes.clear();
    append_objects(inputs, b.input_bytes);
    return step_records(b);
}

std::string world_digest(const WorldBox& b) { return hex64(w::digest(b.world)); }
val world_section_digests(const WorldBox& b) { return tandem::bindings::sections_to_js<w::Sim>(w::section_digests(b.world)); }
val world_snapshot(const WorldBox& b) { return copy_out(w::encode(b.world)); }
// A world, or the decoder's typed reason as its stable name ("truncated", "bad_magic", ...).
val world_from_snapshot(const val& bytes) {
    std::vector<uint8_t> data;
    copy_in(bytes, data);
    auto r = w::decode(std::span<const uint8_t>(data));
    if (!r) return val(std::string(r.code()));
    return val(box(std::move(r).value()));
}

val world_pellet_positions(WorldBox& b) {
    const auto& pellets = b.world.pellets;
    b.positions.resize(pellets.size() * 2);
    for (std::size_t i = 0; i < pellets.size(); ++i) {
        b.positions[2 * i] = tandem::to_f32(pellets[i].pos.x);
        b.positions[2 * i + 1] = tandem::to_f32(pellets[i].pos.y);
    }
    return val(emscripten::typed_memory_view(b.positions.size(), b.positions.data()));
}

// Wells as plain objects, every Fx as its raw value.
val vec2_raw(tandem::Vec2 v) {
    val o = val::object();
    o.set("x", v.x.raw());
    o.set("y", v.y.raw());
    return o;
}
val world_wells(const WorldBox& b) {
    val out = val::array();
    for (const w::Well& well : b.world.wells) {
        val o = val::object();
        o.set("player", well.player);
        o.set("pos", vec2_raw(well.pos));
        o.set("vel", vec2_raw(well.vel));
        o.set("target", vec2_raw(well.target));
        o.set("score", well.score);
        out.call<void>("push", o);
    }
    return out;
}
val world_scores(const WorldBox& b) {
    val out = val::array();
    for (const w::Well& well : b.world.wells) {
        val o = val::object();
        o.set("player", well.player);
        o.set("score", well.score);
        out.call<void>("push", o);
    }
    return out;
}
// The events of the world's last step (the Stepper's list, valid until the next step) as
// fresh objects {kind, player, pellet}, in the order the step reported them.
val world_events(const WorldBox& b) {
    val out = val::array();
    for (const w::Event& e : b.stepper.events()) {
        val o = val::object();
        o.set("kind", std::string(w::event_name(e.kind)));
        o.set("player", e.player);
        o.set("pellet", e.pellet);
        out.call<void>("push", o);
    }
    return out;
}
double world_captures(const WorldBox& b) { return static_cast<double>(b.world.captures); }
uint32_t world_pellet_count(const WorldBox& b) { return static_cast<uint32_t>(b.world.pellets.size()); }
std::string world_dump(const WorldBox& b) { return w::dump(b.world); }
bool world_equals(const WorldBox& a, const WorldBox& b) { return a.world == b.world; }
WorldBox world_clone(const WorldBox& b) { return box(b.world); }

// ---- ValueNoise: the core's noise, so a page draws from the very function the simulation
// would derive terrain from. A ValueNoise is its seed: it crosses as {hi, lo} u32 words on
// every call, and nothing is allocated.

tandem::ValueNoise value_noise(uint32_t hi, uint32_t lo) { return tandem::ValueNoise((uint64_t{hi} << 32) | lo); }
float noise_corner(uint32_t hi, uint32_t lo, int32_t xi, int32_t zi, uint32_t octave) {
    return value_noise(hi, lo).corner(xi, zi, octave);
}
Raw noise_corner_fx(uint32_t hi, uint32_t lo, int32_t xi, int32_t zi, uint32_t octave) {
    return value_noise(hi, lo).corner_fx(xi, zi, octave).raw();
}
float noise_octave(uint32_t hi, uint32_t lo, float x, float z, float lattice, uint32_t octave) {
    return value_noise(hi, lo).octave(x, z, lattice, octave);
}
Raw noise_octave_fx(uint32_t hi, uint32_t lo, Raw x, Raw z, Raw lattice, uint32_t octave) {
    return value_noise(hi, lo).octave_fx(fx(x), fx(z), fx(lattice), octave).raw();
}

// ---- Scenarios -------------------------------------------------------------------------------

val scenario_list() {
    val out = val::array();
    for (const w::Scenario& s : w::scenarios()) {
        val o = val::object();
        o.set("name", std::string(s.name));
        o.set("description", std::string(s.description));
        out.call<void>("push", o);
    }
    return out;
}

// A scenario and the world it drives; JS reaches the world through a non-owning handle.
struct ScenarioBox {
    w::Scenario scenario;
    WorldBox box;
};

val scenario_open(const std::string& name) {
    auto s = w::find_scenario(name);
    if (!s) return val(std::string(s.message()));
    return val(ScenarioBox{*s, box(w::start(*s))});
}
// The scenario's script driving a copy of `from` (e.g. a world decoded from a snapshot).
val scenario_resume(const std::string& name, const WorldBox& from) {
    auto s = w::find_scenario(name);
    if (!s) return val(std::string(s.message()));
    return val(ScenarioBox{*s, box(from.world)});
}
std::string scenario_name(const ScenarioBox& s) { return s.scenario.name; }
double scenario_tick(const ScenarioBox& s) { return static_cast<double>(s.box.world.tick); }
void scenario_step(ScenarioBox& s, uint32_t ticks) { w::advance(s.scenario, s.box.world, ticks, s.box.stepper); }
std::string scenario_digest(const ScenarioBox& s) { return hex64(w::digest(s.box.world)); }
WorldBox* scenario_world(ScenarioBox& s) { return &s.box; }

// The digest stream of `tandem run --scenario NAME --ticks N --every K`: {tick, digest} at
// tick 0, after every K-th tick and after the last.
val scenario_run(const std::string& name, uint32_t ticks, uint32_t every) {
    auto s = w::find_scenario(name);
    if (!s) return val(std::string(s.message()));
    w::World world = w::start(*s);
    val out = val::array();
    sim::digest_stream<w::Sim>(*s, world, ticks, every, [&](const sim::StreamPoint& p) {
        val o = val::object();
        o.set("tick", static_cast<double>(p.tick));
        o.set("digest", hex64(p.digest));
        out.call<void>("push", o);
    });
    return out;
}

std::string fingerprint() { return w::fingerprint(); }
std::string version() { return TANDEM_VERSION; }

}  // namespace

EMSCRIPTEN_BINDINGS(tandem) {
    using emscripten::class_;
    using emscripten::function;

    function("version", &version);
    function("fingerprint", &fingerprint);

    function("fx_from_int", &fx_from_int);
    function("fx_add", &fx_add);
    function("fx_sub", &fx_sub);
    function("fx_mul", &fx_mul);
    function("fx_div", &fx_div);
    function("fx_sqrt", &fx_sqrt);
    function("fx_sin", &fx_sin);
    function("fx_cos", &fx_cos);
    function("fx_atan2", &fx_atan2);
    function("fx_atan", &fx_atan);
    function("fx_asin", &fx_asin);
    function("fx_acos", &fx_acos);
    function("fx_exp", &fx_exp);
    function("fx_log", &fx_log);
    function("fx_to_number", &fx_to_number);
    function("fx_to_string", &fx_to_string);
    function("fx_parse", &fx_parse);

    class_<FixedTimestep>("FixedTimestep")
        .function("withMaxFrameMs", &timestep_with_max_frame_ms)
        .function("withMaxSteps", &timestep_with_max_steps)
        .function("advanceMs", &timestep_advance_ms)
        .function("setStepMs", &timestep_set_step_ms)
        .function("stepNs", &timestep_step_ns)
        .function("maxFrameNs", &timestep_max_frame_ns)
        .function("pendingNs", &timestep_pending_ns)
        .function("droppedNs", &timestep_dropped_ns)
        .function("alpha", &timestep_alpha)
        .function("stepSeconds", &timestep_step_seconds)
        .function("reset", &timestep_reset);
    function("timestep_from_step_ms", &timestep_from_step_ms);
    function("timestep_from_hz", &timestep_from_hz);

    class_<Periodic>("Periodic")
        .function("dueMs", &periodic_due_ms)
        .function("advanceMs", &periodic_advance_ms)
        .function("setIntervalMs", &periodic_set_interval_ms)
        .function("intervalNs", &periodic_interval_ns)
        .function("pendingNs", &periodic_pending_ns)
        .function("remainingNs", &periodic_remaining_ns)
        .function("reset", &periodic_reset);
    function("periodic_from_interval_ms", &periodic_from_interval_ms);
    function("periodic_from_hz", &periodic_from_hz);

    class_<WorldBox>("World")
        .function("tick", &world_tick)
        .function("config", &world_config)
        .function("stepBytes", &world_step_bytes)
        .function("stepObjects", &world_step_objects)
        .function("digest", &world_digest)
        .function("sectionDigests", &world_section_digests)
        .function("snapshot", &world_snapshot)
        .function("pelletPositions", &world_pellet_positions)
        .function("wells", &world_wells)
        .function("scores", &world_scores)
        .function("captures", &world_captures)
        .function("events", &world_events)
        .function("pelletCount", &world_pellet_count)
        .function("dump", &world_dump)
        .function("equals", &world_equals)
        .function("clone", &world_clone);
    function("world_create", &world_create);
    function("config_knobs", &config_knobs);
    function("default_config", &default_config_js);
    function("input_kind_names", &input_kind_names);
    function("inputs_encode", &inputs_encode);
    function("inputs_decode", &inputs_decode);
    function("world_from_snapshot", &world_from_snapshot);

    class_<ScenarioBox>("Scenario")
        .function("name", &scenario_name)
        .function("tick", &scenario_tick)
        .function("step", &scenario_step)
        .function("digest", &scenario_digest)
        .function("world", &scenario_world, emscripten::allow_raw_pointers());
    function("noise_corner", &noise_corner);
    function("noise_corner_fx", &noise_corner_fx);
    function("noise_octave", &noise_octave);
    function("noise_octave_fx", &noise_octave_fx);

    function("scenario_list", &scenario_list);
    function("scenario_open", &scenario_open);
    function("scenario_resume", &scenario_resume);
    function("scenario_run", &scenario_run);
}
