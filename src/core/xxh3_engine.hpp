// XXH3-64 behind a small table of functions, so that StateDigest never includes xxhash.h and
// the AVX2 build of XXH3 can live in its own translation unit (compiled with -mavx2) and be
// chosen at run time. Every engine is xxHash's public streaming API compiled once; XXH3 is
// specified to give the same value from every kernel, and digest_test checks it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tandem::detail {

// The caller's storage for one XXH3_state_t: this size and alignment, checked against
// xxhash.h by static_asserts in each engine's translation unit.
inline constexpr std::size_t xxh3_state_bytes = 640;
inline constexpr std::size_t xxh3_state_align = 64;

struct Xxh3Engine {
    const char* name;  // the kernel xxHash compiled for it: "scalar", "sse2", "avx2", ...
    void (*reset)(void* state);  // default secret, seed 0: what the one-shot hash computes
    void (*update)(void* state, const void* data, std::size_t size);
    std::uint64_t (*digest)(const void* state);  // does not consume the state
    std::uint64_t (*hash)(const void* data, std::size_t size);  // one-shot XXH3_64bits
};

// The target's default build of XXH3 (SSE2 on x86-64, NEON on aarch64, scalar elsewhere).
const Xxh3Engine& xxh3_baseline_engine();
// The AVX2 build, or nullptr when this target has none or the CPU lacks AVX2.
const Xxh3Engine* xxh3_avx2_engine();
// The fastest engine this CPU runs, chosen once: what StateDigest uses.
const Xxh3Engine& xxh3_engine();

}  // namespace tandem::detail
