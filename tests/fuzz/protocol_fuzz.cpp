// libFuzzer targets for the wire codec (clang preset only, tests/fuzz/CMakeLists.txt): arbitrary
// bytes given to decode_client (fuzz_protocol_client, built with TANDEM_FUZZ_CLIENT) or
// decode_server (fuzz_protocol_server) must never crash, read out of bounds, hit UB or allocate
// from an unchecked count; every refusal has a name and a sentence; and whatever decodes
// re-encodes to the very same bytes (each message has exactly one encoding).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "tandem/net/protocol.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace tandem::net;
    const std::span<const uint8_t> bytes(data, size);
#if defined(TANDEM_FUZZ_CLIENT)
    auto result = decode_client(bytes);
#else
    auto result = decode_server(bytes);
#endif
    if (!result.ok()) {
        if (error_name(result.error()).empty() || error_name(result.error()) == "unknown") std::abort();
        if (describe(result.error()).empty()) std::abort();
        return 0;
    }
    std::vector<uint8_t> again;
    encode(again, *result);
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
    if (peek_type(bytes) != static_cast<MessageType>(data[0])) std::abort();
    return 0;
}
