// The baseline XXH3 engine (the target's default kernel) and the run-time choice between it
// and the AVX2 engine of xxh3_engine_avx2.cpp, which CMake builds only on x86-64 and
// announces with TANDEM_XXH3_AVX2.
#include "core/xxh3_engine.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/xxh3_engine_body.inc"

namespace tandem::detail {

#if TANDEM_XXH3_AVX2
const Xxh3Engine& xxh3_avx2_engine_unchecked();  // xxh3_engine_avx2.cpp: call only with AVX2
#endif

const Xxh3Engine& xxh3_baseline_engine() { return this_engine; }

const Xxh3Engine* xxh3_avx2_engine() {
#if TANDEM_XXH3_AVX2
    __builtin_cpu_init();  // safe even when first called from a static initialiser
    if (__builtin_cpu_supports("avx2")) return &xxh3_avx2_engine_unchecked();
#endif
    return nullptr;
}

const Xxh3Engine& xxh3_engine() {
    static const Xxh3Engine& chosen = xxh3_avx2_engine() != nullptr ? *xxh3_avx2_engine() : xxh3_baseline_engine();
    return chosen;
}

}  // namespace tandem::detail
