// libFuzzer target for world::decode: arbitrary bytes must never crash, read out of bounds,
// hit UB or allocate from an unchecked count, and every refusal has a name and a sentence;
// whatever decodes must re-encode to the very same bytes (the format is canonical). Built
// only under the clang preset.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "tandem/world/world.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace tandem::world;
    const auto result = decode(std::span<const uint8_t>(data, size));
    if (!result.ok()) {
        if (error_name(result.error()).empty() || error_name(result.error()) == "unknown") std::abort();
        if (describe(result.error()).empty()) std::abort();
        return 0;
    }
    const auto again = encode(*result);
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
    return 0;
}
