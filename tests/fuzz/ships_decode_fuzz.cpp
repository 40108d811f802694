// libFuzzer target for the kit's snapshot decoder over ships (sim::decode_snapshot of
// ships::Sim): arbitrary bytes never crash, read out of bounds, hit UB or allocate from an
// unchecked count, and every refusal has a name and a sentence. Built twice like the arena's:
//  - fuzz_ships_snapshot_decode: whatever decodes re-encodes to the very same bytes.
//  - fuzz_ships_snapshot_decode_fields (TANDEM_FUZZ_SKIP_SNAPSHOT_DIGEST): the digest check
//    skipped so mutants reach the field checks; whatever they accept re-encodes to the same
//    bytes but the digest, and steps without UB into a state the decoder accepts again (the
//    visitor's requires guard everything step relies on).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "ships/sim.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ships;
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
    if (!std::equal(again.begin(), again.end() - 8, data)) std::abort();
    State s = std::move(result).value();
    Stepper stepper;
    const Input some[] = {hold(1, all_buttons), join(2), leave(3)};
    for (int t = 0; t < 3; ++t) {
        stepper.step(s, t == 0 ? std::span<const Input>(some) : std::span<const Input>{});
        const auto stepped = tandem::sim::decode_snapshot<Sim>(encode(s));
        if (!stepped.ok() || !(*stepped == s)) std::abort();
    }
#else
    if (!std::equal(again.begin(), again.end(), data)) std::abort();
#endif
    return 0;
}
