// libFuzzer target for world::decode: arbitrary bytes must never crash, read out of bounds,
// hit UB or allocate from an unchecked count, and every refusal has a name and a sentence.
// Built twice (clang preset only, tests/fuzz/CMakeLists.txt):
//  - fuzz_snapshot_decode, against the real decoder: whatever decodes re-encodes to the very
//    same bytes (the format is canonical). Nearly every mutant dies at the trailing digest.
//  - fuzz_snapshot_decode_fields, against a decoder built with TANDEM_FUZZ_SKIP_SNAPSHOT_DIGEST,
//    so mutants reach the field checks behind the digest: whatever they accept re-encodes to
//    the same bytes but the digest, and is a world step() can advance without UB into a world
//    the decoder accepts again (the checks guard everything step relies on).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "tandem/world/world.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace tandem::world;
    auto result = decode(std::span<const uint8_t>(data, size));
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
    const auto stepped = decode(encode(w));
    if (!stepped.ok() || !(*stepped == w)) std::abort();
#else
    if (!std::equal(again.begin(), again.end(), data)) std::abort();
#endif
    return 0;
}
