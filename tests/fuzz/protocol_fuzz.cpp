// libFuzzer targets for the wire codec (clang preset only, tests/fuzz/CMakeLists.txt): arbitrary
// bytes given to decode_client (fuzz_protocol_client, built with TANDEM_FUZZ_CLIENT) or
// decode_server (fuzz_protocol_server) must never crash, read out of bounds, hit UB or allocate
// from an unchecked count; every refusal has a name and a sentence; and whatever decodes
// re-encodes to the very same bytes (each message has exactly one encoding). A frame that
// decodes is then given to the typed layer for the arena (game_codec.hpp), which either refuses
// it by name or yields inputs that re-encode to the same frame.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/game_codec.hpp"
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
#if !defined(TANDEM_FUZZ_CLIENT)
    if (const auto* frame = std::get_if<Frame>(&*result)) {
        auto inputs = decode_frame_inputs<arena::Sim>(*frame);
        if (!inputs.ok()) {
            if (error_name(inputs.error()) == "unknown" || describe(inputs.error()).empty()) std::abort();
            return 0;
        }
        std::vector<uint8_t> typed;
        encode_frame<arena::Sim>(typed, frame->tick, frame->digest, *inputs);
        if (typed != again) std::abort();
    }
#endif
    return 0;
}
