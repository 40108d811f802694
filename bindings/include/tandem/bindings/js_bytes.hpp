// Bytes across the Embind boundary, shared by the Embind files: in, a JS Uint8Array copied
// into a reused vector; out, a fresh Uint8Array copy the JS side owns.
#pragma once

#include <emscripten/val.h>

#include <cstdint>
#include <span>
#include <vector>

namespace tandem::bindings {

// A JS Uint8Array copied into `out`, whose capacity is reused from call to call. The JS layer
// hands over only a plain Uint8Array it made itself (measured by the engine's own accessors
// and within a size limit), so its length is true and reading it runs no caller code.
inline void copy_in(const emscripten::val& bytes, std::vector<uint8_t>& out) {
    out.resize(bytes["length"].as<uint32_t>());
    // After the resize: growing the heap detaches views made before it.
    emscripten::val(emscripten::typed_memory_view(out.size(), out.data())).call<void>("set", bytes);
}

// A fresh Uint8Array holding a copy of the bytes: `new Uint8Array(view)` copies, so the JS
// array outlives the C++ bytes (and any growth of the heap).
inline emscripten::val copy_out(std::span<const uint8_t> bytes) {
    return emscripten::val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
}

}  // namespace tandem::bindings
