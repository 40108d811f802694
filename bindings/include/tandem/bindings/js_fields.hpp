// A struct's figures as a JavaScript object, from one list of {JS name, member}: the bindings
// state which fields JS sees, once, instead of one hand-written o.set per field. Counters leave
// as JS numbers (exact below 2^53, which no counter reaches), flags as booleans.
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <type_traits>

namespace tandem::bindings {

template <class T, class M>
struct JsField {
    const char* name;
    M T::*member;
};
template <class T, class M>
constexpr JsField<T, M> js_field(const char* name, M T::*member) {
    return {name, member};
}

template <class M>
emscripten::val js_value(const M& v) {
    if constexpr (std::is_same_v<M, bool>) return emscripten::val(v);
    else if constexpr (std::is_integral_v<M>) return emscripten::val(static_cast<double>(v));
    else return emscripten::val(v);
}

// Sets each listed field of `value` on `out` (an object made by the caller, so a binding can
// add the fields that need a conversion of their own).
template <class T, class... Ms>
void set_fields(emscripten::val& out, const T& value, const JsField<T, Ms>&... fields) {
    (out.set(fields.name, js_value(value.*(fields.member))), ...);
}

}  // namespace tandem::bindings
