// A game's field values as JavaScript sees them, for any game: one conversion per field type
// of the seam (tandem/sim/fields.hpp), and the visitors that walk a game's config, command and
// state with it (their schema, a state as a plain object, a config or command read from one).
// Nothing here decides anything: it converts. JS numbers hold every field type exactly but the
// 64-bit ones, which cross as BigInt (made from and read as decimal text, so the module needs
// no -sWASM_BIGINT).
#pragma once

#include <emscripten/val.h>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "tandem/core/random.hpp"
#include "tandem/core/slot_key.hpp"
#include "tandem/sim/fields.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::bindings {

using emscripten::val;

// "tick_hz" -> "tickHz": a config knob's and a command field's JS spelling.
inline std::string camel(std::string_view snake) {
    std::string out;
    for (std::size_t i = 0; i < snake.size(); ++i) {
        if (snake[i] == '_' && i + 1 < snake.size()) out += static_cast<char>(snake[++i] - 'a' + 'A');
        else out += snake[i];
    }
    return out;
}

// The name of a field type in a schema: what tandem.mjs checks a value against and what the
// typings generator turns into a TypeScript type.
template <class T>
constexpr std::string_view type_name() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>) return "bool";
    else if constexpr (std::is_same_v<U, uint8_t>) return "u8";
    else if constexpr (std::is_same_v<U, uint16_t>) return "u16";
    else if constexpr (std::is_same_v<U, uint32_t>) return "u32";
    else if constexpr (std::is_same_v<U, uint64_t>) return "u64";
    else if constexpr (std::is_same_v<U, int8_t>) return "i8";
    else if constexpr (std::is_same_v<U, int16_t>) return "i16";
    else if constexpr (std::is_same_v<U, int32_t>) return "i32";
    else if constexpr (std::is_same_v<U, int64_t>) return "i64";
    else if constexpr (std::is_same_v<U, Fx>) return "fx";
    else if constexpr (std::is_same_v<U, Vec2>) return "vec2";
    else if constexpr (std::is_same_v<U, SlotKey>) return "key";
    else if constexpr (std::is_same_v<U, XorShift>) return "rng";
    else static_assert(sizeof(U) == 0, "not a field type of the seam");
}

inline val bigint(const std::string& decimal) { return val::global("BigInt")(decimal); }

// One value to JS: integers and Fx (its raw int32) as numbers, bool as a boolean, Vec2 as
// {x, y} raw, SlotKey as {index, generation}, 64-bit values and an XorShift's state as BigInt.
template <class T>
val to_js(const T& v) {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>) return val(v);
    else if constexpr (std::is_same_v<U, uint64_t> || std::is_same_v<U, int64_t>) return bigint(std::to_string(v));
    else if constexpr (std::is_integral_v<U>) return val(v);
    else if constexpr (std::is_same_v<U, Fx>) return val(v.raw());
    else if constexpr (std::is_same_v<U, Vec2>) {
        val o = val::object();
        o.set("x", v.x.raw());
        o.set("y", v.y.raw());
        return o;
    } else if constexpr (std::is_same_v<U, SlotKey>) {
        val o = val::object();
        o.set("index", v.index);
        o.set("generation", v.generation);
        return o;
    } else if constexpr (std::is_same_v<U, XorShift>) {
        return bigint(std::to_string(v.state()));
    }
}

// A 64-bit value tandem.mjs has checked and handed over as a BigInt in range.
template <class I>
I integer_of_bigint(const val& v) {
    const std::string text = v.call<std::string>("toString");
    I out{};
    std::from_chars(text.data(), text.data() + text.size(), out);
    return out;
}

// One value from JS, in the shape to_js gives it. tandem.mjs has checked the type and range of
// every value (its own plain copies), so reading them runs no caller code.
template <class T>
void from_js(const val& v, T& out) {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>) out = v.as<bool>();
    else if constexpr (std::is_same_v<U, uint64_t> || std::is_same_v<U, int64_t>) out = integer_of_bigint<U>(v);
    else if constexpr (std::is_integral_v<U>) out = static_cast<U>(v.as<double>());
    else if constexpr (std::is_same_v<U, Fx>) out = Fx::from_raw(v.as<int32_t>());
    else if constexpr (std::is_same_v<U, Vec2>) out = Vec2{Fx::from_raw(v["x"].as<int32_t>()), Fx::from_raw(v["y"].as<int32_t>())};
    else if constexpr (std::is_same_v<U, SlotKey>) out = SlotKey{v["index"].as<uint32_t>(), v["generation"].as<uint32_t>()};
    else if constexpr (std::is_same_v<U, XorShift>) out = XorShift::from_state(integer_of_bigint<uint64_t>(v));
}

// ---- Flat walks: a config or a command ----------------------------------------------------
// [{name, type}] in visit order; names camelCase (objects as "outer.inner").
class FlatSchemaVisitor {
public:
    val out = val::array();
    template <class T>
    void field(std::string_view name, const T&) {
        val o = val::object();
        o.set("name", prefix_ + camel(name));
        o.set("type", std::string(type_name<T>()));
        out.call<void>("push", o);
    }
    template <class F>
    void object(std::string_view name, F&& walk) {
        sim::walk_nested(prefix_, camel(name), walk);
    }
    template <class F>
    void require(F&&) {}

private:
    std::string prefix_;
};

// A config or command as {camelName: value}; objects nest.
class FlatToJsVisitor {
public:
    val out = val::object();
    template <class T>
    void field(std::string_view name, const T& v) {
        target().set(camel(name), to_js(v));
    }
    template <class F>
    void object(std::string_view name, F&& walk) {
        val inner = val::object();
        target().set(camel(name), inner);
        stack_.push_back(inner);
        walk();
        stack_.pop_back();
    }
    template <class F>
    void require(F&&) {}

private:
    val& target() { return stack_.empty() ? out : stack_.back(); }
    std::vector<val> stack_;
};

// The fields a JS object sets (tandem.mjs's checked copy; an absent one keeps its value).
class FlatFromJsVisitor {
public:
    explicit FlatFromJsVisitor(val from) { stack_.push_back(std::move(from)); }
    template <class T>
    void field(std::string_view name, T& v) {
        const val x = stack_.back()[camel(name)];
        if (!x.isUndefined()) from_js(x, v);
    }
    template <class F>
    void object(std::string_view name, F&& walk) {
        const val inner = stack_.back()[camel(name)];
        if (inner.isUndefined() || inner.isNull()) return;
        stack_.push_back(inner);
        walk();
        stack_.pop_back();
    }
    template <class F>
    void require(F&&) {}

private:
    std::vector<val> stack_;
};

// ---- The state ------------------------------------------------------------------------------
// Its shape: {fields: [{path, type, section}], lists: [{name, section, key: {name, type},
// fields: [{name, type, section}]}]}: every field outside a list by its dump path, and each
// list with its element's fields by their names within the element. Walked over a default
// state, each list's element once (a default one), so an empty list still has its shape.
// A list inside an element is not described (no game of this kit nests them).
template <class G>
class StateSchemaVisitor {
public:
    val fields = val::array();
    val lists = val::array();

    template <class T>
    void field(std::string_view name, const T&) {
        emit(name, type_name<T>(), current_);
    }
    template <class T, class S>
    void field(std::string_view name, const T&, S section) {
        emit(name, type_name<T>(), static_cast<uint8_t>(section));
    }
    template <class S>
    void section(S s) {
        current_ = static_cast<uint8_t>(s);
    }
    template <class C>
    void config(std::string_view name, const C& c) {
        object(name, [&] { G::visit_config(*this, c); });
    }
    template <class Vec, class F>
    void list(std::string_view name, const Vec& v, sim::Count count, F&& element) {
        list(name, v, count, sim::Also{}, element);
    }
    template <class Vec, class F>
    void list(std::string_view name, const Vec&, sim::Count, sim::Also, F&& element) {
        if (element_ != nullptr) return;   // nested: not described
        val list = val::object();
        list.set("name", prefix_ + std::string(name));
        list.set("section", section_name(current_));
        list.set("key", val::null());
        list.set("fields", val::array());
        element_ = &list;
        const std::string outer = prefix_;
        prefix_.clear();
        const typename Vec::value_type probe{};
        element(probe);
        prefix_ = outer;
        element_ = nullptr;
        lists.call<void>("push", list);
    }
    template <class T>
    void key(std::string_view name, const T&) {
        if (element_ == nullptr) return;
        val k = val::object();
        k.set("name", prefix_ + std::string(name));
        k.set("type", std::string(type_name<T>()));
        element_->set("key", k);
        emit(name, type_name<T>(), current_);
    }
    template <class F>
    void object(std::string_view name, F&& walk) {
        sim::walk_nested(prefix_, name, walk);
    }
    template <class F>
    void derived(std::string_view name, F&&) {
        emit(name, "u64", current_);
    }
    template <class F>
    void require(F&&) {}

private:
    std::string section_name(uint8_t s) const { return s == sim::detail::header_section ? "" : std::string(G::sections[s]); }
    void emit(std::string_view name, std::string_view type, uint8_t section) {
        val o = val::object();
        o.set(element_ ? "name" : "path", prefix_ + std::string(name));
        o.set("type", std::string(type));
        o.set("section", section_name(section));
        if (element_) (*element_)["fields"].call<void>("push", o);
        else fields.call<void>("push", o);
    }

    std::string prefix_;
    val* element_ = nullptr;
    uint8_t current_ = sim::detail::header_section;
};

// A state as a plain object, keyed by the visitor's own names (the dump's: snake_case, so
// `state.wells[1].pos.x` is the field the dump calls wells[1].pos.x, here by position in the
// list). Derived values are BigInts. For tests, tools and a HUD: not for every frame (that is
// the column view, js_view.hpp).
template <class G>
class StateToJsVisitor {
public:
    val out = val::object();
    template <class T>
    void field(std::string_view name, const T& v) {
        target().set(std::string(name), to_js(v));
    }
    template <class T, class S>
    void field(std::string_view name, const T& v, S) {
        field(name, v);
    }
    template <class S>
    void section(S) {}
    template <class C>
    void config(std::string_view name, const C& c) {
        object(name, [&] { G::visit_config(*this, c); });
    }
    template <class Vec, class F>
    void list(std::string_view name, const Vec& v, sim::Count count, F&& element) {
        list(name, v, count, sim::Also{}, element);
    }
    template <class Vec, class F>
    void list(std::string_view name, const Vec& v, sim::Count, sim::Also, F&& element) {
        val array = val::array();
        target().set(std::string(name), array);
        for (const auto& e : v) {
            val item = val::object();
            stack_.push_back(item);
            element(e);
            stack_.pop_back();
            array.call<void>("push", item);
        }
    }
    template <class T>
    void key(std::string_view name, const T& v) {
        field(name, v);
    }
    template <class F>
    void object(std::string_view name, F&& walk) {
        val inner = val::object();
        target().set(std::string(name), inner);
        stack_.push_back(inner);
        walk();
        stack_.pop_back();
    }
    template <class F>
    void derived(std::string_view name, F&& compute) {
        target().set(std::string(name), bigint(std::to_string(compute())));
    }
    template <class F>
    void require(F&&) {}

private:
    val& target() { return stack_.empty() ? out : stack_.back(); }
    std::vector<val> stack_;
};

// ---- Events -------------------------------------------------------------------------------
// What a game's registration writes an event with (its Web::event(out, e)): the kind's name,
// then the fields it carries, in the field types of the seam. Each event becomes
// {kind, tick, ...fields}.
class EventOut {
public:
    explicit EventOut(double tick) {
        out.set("kind", std::string());
        out.set("tick", tick);
    }
    void kind(std::string_view name) { out.set("kind", std::string(name)); }
    template <class T>
    void field(std::string_view name, const T& v) {
        out.set(std::string(name), to_js(v));
    }
    val out = val::object();
};

// The fields a game's events carry ([{name, type}]), read from one default event.
class EventSchemaOut {
public:
    void kind(std::string_view) {}
    template <class T>
    void field(std::string_view name, const T&) {
        val o = val::object();
        o.set("name", std::string(name));
        o.set("type", std::string(type_name<T>()));
        out.call<void>("push", o);
    }
    val out = val::array();
};

}  // namespace tandem::bindings
