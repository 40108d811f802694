// A game's own surface in the ES module, for any game G of the seam: its description (name,
// fingerprint, sections, config knobs, command fields, the state's shape), its config and
// commands from JS objects, its inputs as canonical bytes, a World (one state and the Stepper
// that steps it) and its scenarios. Written once over tandem::sim::Scripted; a game's
// registration (module.hpp) adds only how its events read and what it eases.
// Nothing here decides anything, and nothing here throws: the module has no C++ exceptions,
// so every refusal comes back to tandem.mjs as a value it turns into a JS error.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tandem/bindings/js_bytes.hpp"
#include "tandem/bindings/js_values.hpp"
#include "tandem/bindings/js_view.hpp"
#include "tandem/client/corrections.hpp"
#include "tandem/core/digest.hpp"
#include "tandem/sim/codec.hpp"
#include "tandem/sim/scenario.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::bindings {

namespace sim = tandem::sim;

// ---- What a registration may add (module.hpp) ------------------------------------------------
// Web::event(out, e): how one event reads in JS (out.kind(name), out.field(name, value)).
template <class Web, class G>
concept DescribesEvents = requires(EventOut& out, const typename G::Event& e) { Web::event(out, e); };
// Web::eased: the list and Vec2 field whose rollback corrections are eased (client/corrections.hpp).
template <class Web>
concept EasesCorrections = requires { client::EasedField{Web::eased}; };
// Web::corrupt_field: the field the debug corruption flips (a path of the dump).
template <class Web>
concept NamesCorruptField = requires { std::string_view{Web::corrupt_field}; };

template <class G, class Web>
val event_js(const typename G::Event& e, double tick) {
    EventOut out(tick);
    if constexpr (DescribesEvents<Web, G>) Web::event(out, e);
    return out.out;
}

template <class G, class Web>
val events_js(std::span<const typename G::Event> events, double tick) {
    val out = val::array();
    for (const auto& e : events) out.call<void>("push", event_js<G, Web>(e, tick));
    return out;
}

template <class Web>
client::EasedField eased_of() {
    if constexpr (EasesCorrections<Web>) return client::EasedField{Web::eased};
    else return {};
}

// The field the debug corruption flips: the registration's, else the first field outside the
// lists and the config whose lowest bit can be flipped (a score, a counter: a capture
// count). perturb_field flips it through the field's own codec, so the state stays decodable.
template <class G, class Web>
bool corrupt_state(typename G::State& state, std::string_view path) {
    if (!path.empty()) return sim::perturb_field<G>(state, path);
    if constexpr (NamesCorruptField<Web>) return sim::perturb_field<G>(state, Web::corrupt_field);
    for (const sim::FieldLine& f : sim::fields<G>(state)) {
        // Not the header (the tick), the config (by convention the first section) or a list.
        if (f.section.empty() || f.section == G::sections[0] || f.path.find('[') != std::string::npos) continue;
        if (sim::perturb_field<G>(state, f.path)) return true;
    }
    return false;
}

// The name of the config knob an error refuses, where the game says (config_rules.hpp's
// config_field, found by argument-dependent lookup); "" otherwise.
template <class E>
std::string config_field_of(E error) {
    if constexpr (requires { config_field(error); }) return camel(config_field(error));
    else return {};
}

// {field, code, message}: tandem.mjs makes it a RangeError naming the knob.
template <class G>
val config_refusal(typename G::ConfigError error) {
    val refusal = val::object();
    refusal.set("field", config_field_of(error));
    refusal.set("code", std::string(error_name(error)));
    refusal.set("message", std::string(describe(error)));
    return refusal;
}

template <class G>
val config_to_js(const typename G::Config& config) {
    FlatToJsVisitor v;
    G::visit_config(v, config);
    return v.out;
}

// The game's default config with the knobs the caller set (tandem.mjs has checked each one's
// type and that it is a knob; the ranges are G::validate's). Written into `config` rather than
// returned: a function template's demangled name starts with its return type, and the float
// scan (tests/determinism) would take one returning a game's type for the game's own code.
template <class G>
void config_from_js(const val& overrides, typename G::Config& config) {
    config = typename G::Config{};
    FlatFromJsVisitor v(overrides);
    G::visit_config(v, config);
}

template <class G>
val sections_to_js(const sim::SectionDigests<G>& d) {
    val out = val::object();
    for (uint32_t s = 0; s < sim::section_count<G>; ++s) out.set(std::string(G::sections[s]), hex64(d[s]));
    return out;
}

inline val names_js(const std::vector<std::string_view>& names) {
    val out = val::array();
    for (std::string_view n : names) out.call<void>("push", std::string(n));
    return out;
}

// [{path, section, a, b}]: a field diff with the sides named as the caller reads them.
inline val field_diff_js(const sim::FieldDiff& d, const char* a, const char* b) {
    val fields = val::array();
    for (const sim::FieldDifference& f : d.differences) {
        val one = val::object();
        one.set("path", f.path);
        one.set("section", std::string(f.section));
        one.set(a, f.a ? val(*f.a) : val::null());
        one.set(b, f.b ? val(*f.b) : val::null());
        fields.call<void>("push", one);
    }
    return fields;
}

// A selection from JS ({lists: {name: [field, ...]}, scalars: [path, ...]}, checked by
// tandem.mjs against the game's state schema).
inline ViewSelection selection_from_js(const val& js) {
    ViewSelection s;
    const val lists = js["lists"];
    const val names = val::global("Object").call<val>("keys", lists);
    for (uint32_t i = 0, n = names["length"].as<uint32_t>(); i < n; ++i) {
        ViewSelection::List l;
        l.name = names[i].as<std::string>();
        const val fields = lists[l.name];
        for (uint32_t j = 0, m = fields["length"].as<uint32_t>(); j < m; ++j) l.fields.push_back(fields[j].as<std::string>());
        s.lists.push_back(std::move(l));
    }
    const val scalars = js["scalars"];
    for (uint32_t i = 0, n = scalars["length"].as<uint32_t>(); i < n; ++i) s.scalars.push_back(scalars[i].as<std::string>());
    return s;
}

// The drawn view of a state and the one before it (the same state twice when there is none),
// with the fraction of a tick between them and the events of the last step.
inline val view_js(const ViewColumns& current, const ViewColumns* previous) {
    val o = val::object();
    o.set("current", current.to_js());
    o.set("previous", previous ? previous->to_js() : val::null());
    return o;
}

template <class G, class Web>
struct GameBinding {
    using State = typename G::State;
    using Input = sim::Input<G>;
    using Command = typename G::Command;

    // ---- The description --------------------------------------------------------------------
    static val info() {
        val o = val::object();
        o.set("name", std::string(G::name));
        o.set("fingerprint", sim::fingerprint<G>());
        o.set("version", static_cast<uint32_t>(G::version));
        val sections = val::array();
        for (std::string_view s : G::sections) sections.call<void>("push", std::string(s));
        o.set("sections", sections);
        FlatSchemaVisitor knobs;
        const typename G::Config config{};
        G::visit_config(knobs, config);
        o.set("configKnobs", knobs.out);
        FlatSchemaVisitor fields;
        const Command command{};
        G::visit_command(fields, command);
        o.set("commandFields", fields.out);
        StateSchemaVisitor<G> state;
        const State probe{};
        G::visit_state(state, probe);
        val shape = val::object();
        shape.set("fields", state.fields);
        shape.set("lists", state.lists);
        o.set("state", shape);
        EventSchemaOut events;
        if constexpr (DescribesEvents<Web, G>) Web::event(events, typename G::Event{});
        o.set("eventFields", events.out);
        o.set("inputBytes", sim::input_bytes<G>());
        o.set("commandBytes", sim::command_bytes<G>());
        const client::EasedField eased = eased_of<Web>();
        if (eased.list.empty()) {
            o.set("eased", val::null());
        } else {
            val e = val::object();
            e.set("list", std::string(eased.list));
            e.set("field", std::string(eased.field));
            o.set("eased", e);
        }
        return o;
    }

    static val default_config() { return config_to_js<G>(typename G::Config{}); }
    // The config the overrides make, or validate()'s refusal ({field, code, message}).
    static val resolve_config(const val& overrides) {
        typename G::Config config;
        config_from_js<G>(overrides, config);
        if (auto v = G::validate(config); !v.ok()) return config_refusal<G>(v.error());
        return config_to_js<G>(config);
    }

    // ---- Commands and inputs -------------------------------------------------------------------
    // A command from JS (fields checked by tandem.mjs), through the game's codec so its own
    // require()s hold: the command, or the codec's refusal.
    // (Into `out`, as config_from_js: a template returning the game's type reads as the game's.)
    static bool command_from_js(const val& js, Command& out) {
        Command c{};
        FlatFromJsVisitor v(js);
        G::visit_command(v, c);
        std::vector<uint8_t> bytes;
        ByteWriter w(bytes);
        sim::encode_command<G>(w, c);
        auto decoded = sim::decode_command<G>(bytes);
        if (!decoded) return false;
        out = *decoded;
        return true;
    }
    static val command_to_js(const Command& c) {
        FlatToJsVisitor v;
        G::visit_command(v, c);
        return v.out;
    }
    // null, or {code, message} for a command the game's codec refuses.
    static val command_refusal(const val& js) {
        Command c;
        if (command_from_js(js, c)) return val::null();
        // Refused: the game's codec says why (the only refusal left once tandem.mjs has checked
        // every field's type and range is the game's own require()).
        val o = val::object();
        o.set("code", std::string(error_name(sim::CodecError::value_out_of_range)));
        o.set("message", std::string(describe(sim::CodecError::value_out_of_range)));
        return o;
    }

    // The kind names JS uses, indexed by the kind byte (InputKind's value).
    static val kind_names() {
        val out = val::array();
        for (const char* k : {"join", "leave", "command"}) out.call<void>("push", std::string(k));
        return out;
    }
    static sim::InputKind kind_of(const std::string& name) {
        return name == "join" ? sim::InputKind::join : name == "leave" ? sim::InputKind::leave : sim::InputKind::command;
    }
    // Objects {player, kind, command} (tandem.mjs's checked copies) appended as records; the
    // first whose command the codec refuses, as {index, code, message}.
    static val append_objects(const val& inputs, std::vector<uint8_t>& out) {
        for (uint32_t i = 0, n = inputs["length"].as<uint32_t>(); i < n; ++i) {
            const val o = inputs[i];
            Input input;
            input.player = o["player"].as<uint32_t>();
            input.kind = kind_of(o["kind"].as<std::string>());
            if (!command_from_js(o["command"], input.command)) {
                val refusal = command_refusal(o["command"]);
                refusal.set("index", i);
                return refusal;
            }
            sim::append_input<G>(out, input);
        }
        return val::null();
    }
    // The records of `bytes` decoded into `out`, or the first refused record as {index, code,
    // message}. A length that is not a multiple of the record leaves a short last record,
    // refused as truncated.
    static val read_records(std::span<const uint8_t> bytes, std::vector<Input>& out) {
        out.clear();
        uint32_t index = 0;
        const std::size_t record = sim::input_bytes<G>();
        for (std::size_t at = 0; at < bytes.size(); at += record, ++index) {
            const auto read = sim::decode_input<G>(bytes.subspan(at, std::min<std::size_t>(record, bytes.size() - at)));
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
    static val inputs_encode(const val& inputs) {
        std::vector<uint8_t> bytes;
        if (val refusal = append_objects(inputs, bytes); !refusal.isNull()) return refusal;
        return copy_out(bytes);
    }
    static val inputs_decode(const val& js_bytes) {
        std::vector<uint8_t> bytes;
        copy_in(js_bytes, bytes);
        std::vector<Input> inputs;
        if (val refusal = read_records(bytes, inputs); !refusal.isNull()) return refusal;
        static const char* const names[] = {"join", "leave", "command"};
        val out = val::array();
        for (const Input& input : inputs) {
            val o = val::object();
            o.set("player", input.player);
            o.set("kind", std::string(names[static_cast<uint8_t>(input.kind)]));
            o.set("command", command_to_js(input.command));
            out.call<void>("push", o);
        }
        return out;
    }

    // ---- World: one state, the Stepper that steps it, and the buffers the JS calls reuse -------
    struct World {
        State state;
        typename G::Stepper stepper;
        bool has_events = false;          // the stepper's events belong to this state
        std::vector<uint8_t> input_bytes; // step(): this tick's inputs as canonical records
        std::vector<Input> inputs;        // step(): the same, decoded
        // With a view selected: the state before the last step, and the columns drawn.
        bool viewing = false;
        std::optional<State> previous;
        ViewColumns current_view, previous_view;
    };
    static World world_of(State state) { return World{std::move(state), {}, false, {}, {}, false, {}, {}, {}}; }

    static val world_create(const val& overrides) {
        typename G::Config config;
        config_from_js<G>(overrides, config);
        auto made = G::make(config);
        if (!made) return config_refusal<G>(made.error());
        return val(std::make_unique<World>(world_of(std::move(made).value())));
    }
    static val world_from_snapshot(const val& js_bytes) {
        std::vector<uint8_t> bytes;
        copy_in(js_bytes, bytes);
        auto r = sim::decode_snapshot<G>(bytes);
        if (!r) return val(std::string(r.code()));
        return val(std::make_unique<World>(world_of(std::move(r).value())));
    }
    static double world_tick(const World& w) { return static_cast<double>(G::tick(w.state)); }
    static val world_config(const World& w) { return config_to_js<G>(G::config_of(w.state)); }
    static uint32_t world_tick_hz(const World& w) { return G::tick_hz(G::config_of(w.state)); }
    static void step_decoded(World& w) {
        if (w.viewing) w.previous = w.state;
        w.stepper.step(w.state, w.inputs);
        w.has_events = true;
    }
    // One tick with the caller's records: every record is read before the state is touched, so
    // a refused one leaves it as it was.
    static val world_step_bytes(World& w, const val& bytes) {
        copy_in(bytes, w.input_bytes);
        if (val refusal = read_records(w.input_bytes, w.inputs); !refusal.isNull()) return refusal;
        step_decoded(w);
        return val::null();
    }
    static val world_step_objects(World& w, const val& inputs) {
        w.input_bytes.clear();
        if (val refusal = append_objects(inputs, w.input_bytes); !refusal.isNull()) return refusal;
        return world_step_bytes_owned(w);
    }
    static val world_step_bytes_owned(World& w) {
        if (val refusal = read_records(w.input_bytes, w.inputs); !refusal.isNull()) return refusal;
        step_decoded(w);
        return val::null();
    }
    static std::string world_digest(const World& w) { return hex64(sim::digest<G>(w.state)); }
    static val world_section_digests(const World& w) { return sections_to_js<G>(sim::digests<G>(w.state).sections); }
    static val world_snapshot(const World& w) { return copy_out(sim::encode_snapshot<G>(w.state)); }
    static std::string world_dump(const World& w) { return sim::dump<G>(w.state); }
    static val world_state(const World& w) {
        StateToJsVisitor<G> v;
        G::visit_state(v, w.state);
        return v.out;
    }
    // Every field as [{path, section, value}] (the dump's paths and values).
    static val world_fields(const World& w) {
        val out = val::array();
        for (const sim::FieldLine& f : sim::fields<G>(w.state)) {
            val o = val::object();
            o.set("path", f.path);
            o.set("section", std::string(f.section));
            o.set("value", f.value);
            out.call<void>("push", o);
        }
        return out;
    }
    // The fields that differ from `other`: {fields: [{path, section, self, other}], total}.
    static val world_diff(const World& a, const World& b, uint32_t limit) {
        const sim::FieldDiff d = sim::diff<G>(a.state, b.state, limit);
        val o = val::object();
        o.set("fields", field_diff_js(d, "self", "other"));
        o.set("total", static_cast<double>(d.total));
        return o;
    }
    static val world_events(const World& w) {
        if (!w.has_events) return val::array();
        return events_js<G, Web>(w.stepper.events(), world_tick(w));
    }
    static bool world_equals(const World& a, const World& b) { return a.state == b.state; }
    static val world_clone(const World& w) { return val(std::make_unique<World>(world_of(w.state))); }
    static void world_set_view(World& w, const val& selection) {
        const ViewSelection s = selection_from_js(selection);
        w.current_view.select(s);
        w.previous_view.select(s);
        w.viewing = true;
    }
    // The drawn view of this world's state and the one before its last step.
    static val world_view(World& w) {
        if (!w.viewing) return val::null();
        w.current_view.template read<G>(w.state);
        const bool prev = w.previous.has_value();
        if (prev) w.previous_view.template read<G>(*w.previous);
        val o = view_js(w.current_view, prev ? &w.previous_view : nullptr);
        o.set("tick", world_tick(w));
        o.set("events", world_events(w));
        return o;
    }
    static bool world_corrupt(World& w, const std::string& path) { return corrupt_state<G, Web>(w.state, path); }

    // ---- Scenarios --------------------------------------------------------------------------
    struct Scenario {
        typename G::Scenario scenario;
        World world;
    };
    static val scenario_list() {
        val out = val::array();
        for (const typename G::Scenario& s : G::scenarios()) {
            val o = val::object();
            o.set("name", std::string(s.name));
            o.set("description", std::string(s.description));
            out.call<void>("push", o);
        }
        return out;
    }
    static val scenario_open(const std::string& name) {
        auto s = G::find_scenario(name);
        if (!s) return val(std::string(s.message()));
        return val(std::make_unique<Scenario>(Scenario{*s, world_of(G::start(*s))}));
    }
    // The scenario's script driving a copy of `from` (a world decoded from a snapshot, say).
    static val scenario_resume(const std::string& name, const World& from) {
        auto s = G::find_scenario(name);
        if (!s) return val(std::string(s.message()));
        return val(std::make_unique<Scenario>(Scenario{*s, world_of(from.state)}));
    }
    static std::string scenario_name(const Scenario& s) { return std::string(s.scenario.name); }
    static double scenario_tick(const Scenario& s) { return world_tick(s.world); }
    static void scenario_step(Scenario& s, uint32_t ticks) {
        for (uint32_t i = 0; i < ticks; ++i) {
            s.world.inputs = G::scenario_inputs(s.scenario, s.world.state);
            step_decoded(s.world);
        }
    }
    static std::string scenario_digest(const Scenario& s) { return world_digest(s.world); }
    static val scenario_sections(const Scenario& s) { return world_section_digests(s.world); }
    static std::string scenario_dump(const Scenario& s) { return world_dump(s.world); }
    static World* scenario_world(Scenario& s) { return &s.world; }
    // The digest stream of `tandem run --scenario NAME --ticks N --every K`.
    static val scenario_run(const std::string& name, uint32_t ticks, uint32_t every) {
        auto s = G::find_scenario(name);
        if (!s) return val(std::string(s.message()));
        State state = G::start(*s);
        val out = val::array();
        sim::digest_stream<G>(*s, state, ticks, every, [&](const sim::StreamPoint& p) {
            val o = val::object();
            o.set("tick", static_cast<double>(p.tick));
            o.set("digest", hex64(p.digest));
            out.call<void>("push", o);
        });
        return out;
    }
    static std::string scenario_names_accepted() { return G::scenario_names_accepted(); }

    static void bind() {
        using emscripten::allow_raw_pointers;
        using emscripten::class_;
        using emscripten::function;
        function("game_info", &info);
        function("default_config", &default_config);
        function("resolve_config", &resolve_config);
        function("command_refusal", &command_refusal);
        function("input_kind_names", &kind_names);
        function("inputs_encode", &inputs_encode);
        function("inputs_decode", &inputs_decode);
        class_<World>("World")
            .function("tick", &world_tick)
            .function("config", &world_config)
            .function("tickHz", &world_tick_hz)
            .function("stepBytes", &world_step_bytes)
            .function("stepObjects", &world_step_objects)
            .function("digest", &world_digest)
            .function("sectionDigests", &world_section_digests)
            .function("snapshot", &world_snapshot)
            .function("dump", &world_dump)
            .function("state", &world_state)
            .function("fields", &world_fields)
            .function("diff", &world_diff)
            .function("events", &world_events)
            .function("equals", &world_equals)
            .function("clone", &world_clone)
            .function("setView", &world_set_view)
            .function("view", &world_view)
            .function("corrupt", &world_corrupt);
        function("world_create", &world_create);
        function("world_from_snapshot", &world_from_snapshot);
        class_<Scenario>("Scenario")
            .function("name", &scenario_name)
            .function("tick", &scenario_tick)
            .function("step", &scenario_step)
            .function("digest", &scenario_digest)
            .function("sectionDigests", &scenario_sections)
            .function("dump", &scenario_dump)
            .function("world", &scenario_world, allow_raw_pointers());
        function("scenario_list", &scenario_list);
        function("scenario_open", &scenario_open);
        function("scenario_resume", &scenario_resume);
        function("scenario_run", &scenario_run);
        function("scenario_names_accepted", &scenario_names_accepted);
    }
};

}  // namespace tandem::bindings
