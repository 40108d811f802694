// libFuzzer target for world::decode: arbitrary bytes must never crash, read out of bounds,
// hit UB or allocate from an unchecked count; whatever decodes must re-encode to the very
// same bytes (the format is canonical). Built only under the clang preset.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "tandem/world/world.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto result = tandem::world::decode(std::span<const uint8_t>(data, size));
    if (result.ok() != result.world.has_value()) std::abort();
    if (tandem::world::error_name(result.error).empty()) std::abort();
    if (result.ok()) {
        const auto again = tandem::world::encode(*result.world);
        if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
    }
    return 0;
}
