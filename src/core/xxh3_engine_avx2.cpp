// XXH3 compiled for AVX2 (this file alone gets -mavx2 and XXH_VECTOR=XXH_AVX2, x86-64 only),
// reached only through xxh3_avx2_engine(), which checks the CPU first. It includes nothing
// but xxhash.h (whose functions are all static here) and the engine header: an inline
// function from any other header could be emitted with AVX2 code and picked by the linker
// for the whole program, which would then fault on a CPU without AVX2.
#include "core/xxh3_engine.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

static_assert(XXH_VECTOR == XXH_AVX2, "this file must be compiled with -mavx2 -DXXH_VECTOR=XXH_AVX2");

#include "core/xxh3_engine_body.inc"

namespace tandem::detail {

const Xxh3Engine& xxh3_avx2_engine_unchecked() { return this_engine; }

}  // namespace tandem::detail
