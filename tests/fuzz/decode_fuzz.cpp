// libFuzzer target for the kit's snapshot decoder over the arena (sim::decode_snapshot of
// arena::Sim): arbitrary bytes must never crash, read out of bounds, hit UB or allocate from an
// unchecked count, and every refusal has a name and a sentence. Built twice (clang preset
// only, tests/fuzz/CMakeLists.txt):
//  - fuzz_snapshot_decode, against the real decoder: whatever decodes re-encodes to the very
//    same bytes (the format is canonical). Nearly every mutant dies at the trailing digest.
//  - fuzz_snapshot_decode_fields, built with TANDEM_FUZZ_SKIP_SNAPSHOT_DIGEST, which asks the
//    decoder to skip its digest check, so mutants reach the field checks behind the digest:
//    whatever they accept re-encodes to the same bytes but the digest, and is a world step()
//    can advance without UB into a world the decoder accepts again (the checks guard
//    everything step relies on).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "arena/sim.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace arena;
    using tandem::sim::DigestCheck;
#if defined(TANDEM_FUZZ_SKIP_SNAPSHOT_DIGEST)
    constexpr DigestCheck check = DigestCheck::skip_for_fuzzing;
#else
    constexpr DigestCheck check = DigestCheck::check;
#endif
    auto result = tandem::sim::decode_snapshot<Sim>(std::span<const uint8_t>(data, size), check);
    if (!result.ok()) {
        if (error_name(result.error()).empty() || error_name(result.error()) == "unknown") std::abort();
        if (describe(result.error()).empty()) std::abort();
        return 0;
    }
    const auto again = encode(*result);
    if (again.size() != size) std::abort();
#if defined(TANDEM_FUZZ_SKIP_SNAPSHOT_DIGEST)
    // The digest is the last 8 bytes; the encoder writes the true one.
    if (!std::equal(again.begin(), again.end() - 8, data)) std::abort();
    World w = std::move(result).value();
    Stepper stepper;
    stepper.step(w, {});
    const auto stepped = tandem::sim::decode_snapshot<Sim>(encode(w));
    if (!stepped.ok() || !(*stepped == w)) std::abort();
#else
    if (!std::equal(again.begin(), again.end(), data)) std::abort();
#endif
    return 0;
}
