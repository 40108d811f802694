// libFuzzer target for the replay reader over the arena (clang preset only, tests/fuzz/CMakeLists.txt):
// arbitrary bytes must never crash, read out of bounds, hit UB or allocate from an unchecked
// record length; every refusal has a name and a sentence; whatever reads re-writes to the very
// same bytes (header, then each record's message re-encoded), and the checker and the dump run
// on it without UB.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/replay.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace tandem::net;
    using Sim = arena::Sim;
    const auto result = read_replay<Sim>(std::span<const uint8_t>(data, size));
    if (!result.ok()) {
        if (error_name(result.error()).empty() || error_name(result.error()) == "unknown") std::abort();
        if (describe(result.error()).empty()) std::abort();
        return 0;
    }
    std::vector<uint8_t> again, message;
    append_replay_header<Sim>(again);
    for (const ServerMessage& m : result->records) {
        message.clear();
        encode(message, m);
        append_replay_record(again, message);
    }
    if (result->end == ReplayEnd::marked) append_replay_end(again);
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
    const ReplayCheck check = check_replay<Sim>(*result);
    if (check.last_tick < check.first_tick) std::abort();
    const auto at = replay_state_at<Sim>(*result, check.first_tick);
    if (!at.ok() || at->tick != check.first_tick) std::abort();
    // A field diff, when there is one, names at most its limit and counts the rest.
    if (check.divergence && check.divergence->fields &&
        check.divergence->fields->differences.size() > check.divergence->fields->total) {
        std::abort();
    }
    return 0;
}
