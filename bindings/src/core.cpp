// The ES module's game-agnostic half: the core's fixed point, time and noise, the frame budget
// and the module's version, compiled once for every game's package (each game's registration
// adds its own half: include/tandem/bindings/module.hpp). It names no game and decides nothing.
// Every failure comes back as a value: the module has no C++ exceptions.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <utility>

#include "tandem/bindings/net.hpp"
#include "tandem/core/fixed.hpp"
#include "tandem/core/noise.hpp"
#include "tandem/core/timestep.hpp"

using emscripten::val;

namespace {

using tandem::bindings::ns_from_ms;

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

Raw fx_one() { return tandem::Fx::one().raw(); }
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

// ---- ValueNoise: the core's noise, so a page draws from the very function a simulation would
// derive terrain from. A ValueNoise is its seed: it crosses as {hi, lo} u32 words on every
// call, and nothing is allocated.

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

std::string version() { return TANDEM_VERSION; }

}  // namespace

EMSCRIPTEN_BINDINGS(tandem_core) {
    using emscripten::class_;
    using emscripten::function;

    function("version", &version);
    function("frame_budget_ms", &tandem::bindings::frame_budget_ms);
    function("worker_budget_ms", &tandem::bindings::worker_budget_ms);

    function("fx_one", &fx_one);
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

    function("noise_corner", &noise_corner);
    function("noise_corner_fx", &noise_corner_fx);
    function("noise_octave", &noise_octave);
    function("noise_octave_fx", &noise_octave_fx);
}
