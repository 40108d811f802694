// The arena's config and a game's section digests as JavaScript sees them, shared by the Embind files
// (embind.cpp's World, embind_net.cpp's Room). The config: every knob of WorldConfig by
// for_each_config_field under its camelCase name; a u32 knob a number, an Fx knob its raw
// int32, the u64 seed as {hi, lo} (two u32 words: a JS number cannot hold it and BigInt would
// need -sWASM_BIGINT). Digests: 16 lowercase hex digits (core's hex64, the CLI's spelling).
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "tandem/core/digest.hpp"
#include "tandem/core/fixed.hpp"
#include "arena/sim.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::bindings {

inline std::string camel(std::string_view snake) {
    std::string out;
    for (std::size_t i = 0; i < snake.size(); ++i) {
        if (snake[i] == '_' && i + 1 < snake.size()) out += static_cast<char>(snake[++i] - 'a' + 'A');
        else out += snake[i];
    }
    return out;
}

inline emscripten::val config_to_js(const arena::WorldConfig& config) {
    emscripten::val out = emscripten::val::object();
    arena::for_each_config_field(config, [&](std::string_view name, auto field) {
        using Field = decltype(field);
        if constexpr (std::is_same_v<Field, uint64_t>) {
            emscripten::val words = emscripten::val::object();
            words.set("hi", static_cast<uint32_t>(field >> 32));
            words.set("lo", static_cast<uint32_t>(field));
            out.set(camel(name), words);
        } else if constexpr (std::is_same_v<Field, uint32_t>) {
            out.set(camel(name), field);
        } else {
            out.set(camel(name), field.raw());
        }
    });
    return out;
}

// default_config() with the knobs the caller set. tandem.mjs has checked each one's type and
// that it is a knob; the ranges are left to validate().
inline arena::WorldConfig config_from_js(const emscripten::val& overrides) {
    arena::WorldConfig config = arena::default_config();
    arena::for_each_config_field(config, [&](std::string_view name, auto& field) {
        const emscripten::val v = overrides[camel(name)];
        if (v.isUndefined()) return;
        using Field = std::remove_reference_t<decltype(field)>;
        if constexpr (std::is_same_v<Field, uint64_t>) {
            field = (uint64_t{v["hi"].as<uint32_t>()} << 32) | v["lo"].as<uint32_t>();
        } else if constexpr (std::is_same_v<Field, uint32_t>) {
            field = v.as<uint32_t>();
        } else {
            field = tandem::Fx::from_raw(v.as<int32_t>());
        }
    });
    return config;
}

// validate()'s refusal as {field, code, message}, which tandem.mjs turns into a RangeError.
inline emscripten::val config_refusal(arena::ConfigError error) {
    emscripten::val refusal = emscripten::val::object();
    refusal.set("field", camel(arena::config_field(error)));
    refusal.set("code", std::string(error_name(error)));
    refusal.set("message", std::string(describe(error)));
    return refusal;
}

// The game's section digests by name ({config, wells, pellets, scores, rng} for the arena),
// each as hex.
template <class G>
emscripten::val sections_to_js(const sim::SectionDigests<G>& d) {
    emscripten::val out = emscripten::val::object();
    for (uint32_t s = 0; s < sim::section_count<G>; ++s) out.set(std::string(G::sections[s]), hex64(d[s]));
    return out;
}

}  // namespace tandem::bindings
