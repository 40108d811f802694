// libFuzzer target for Room<G>::restore over the arena (clang preset only, tests/fuzz/CMakeLists.txt):
// a checkpoint comes from a store any process of a fleet writes to, so arbitrary bytes must never
// crash, read out of bounds, hit UB or allocate from an unchecked length; every refusal has a
// name and a sentence; a room that restores ticks on and takes a checkpoint of its own that
// restores again to the same state.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "arena/sim.hpp"
#include "tandem/net/room.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace tandem::net;
    using Sim = arena::Sim;
    auto restored = Room<Sim>::restore(std::span<const uint8_t>(data, size));
    if (!restored.ok()) {
        if (error_name(restored.error()).empty() || error_name(restored.error()) == "unknown") std::abort();
        if (describe(restored.error()).empty()) std::abort();
        return 0;
    }
    Room<Sim>& room = restored.value();
    room.enable_checkpoints(4);
    for (int t = 1; t <= 3; ++t) room.tick(t);
    CheckpointBatch batch;
    room.take_checkpoint(batch);
    if (!batch.new_segment) std::abort();   // enable_checkpoints starts one
    auto again = Room<Sim>::restore(batch.bytes);
    if (!again.ok() || !(again->state() == room.state())) std::abort();
    return 0;
}
