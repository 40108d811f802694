// SlotKey: the name both ends of a stream give an entity, a slot index plus the generation
// of its current occupant, passed by value. It exists so a message about a dead entity can
// never be applied to whatever reuses its slot; never key by index alone where that matters.
#pragma once

#include <compare>
#include <cstdint>

namespace tandem {

struct SlotKey {
    uint32_t index = 0;
    uint32_t generation = 0;

    // One u64 naming the occupant: generation in the high half, index in the low half.
    // This is what SetDigest and StateDigest take, so both ends hash the same number;
    // hashing the bare index instead checks membership but not occupancy.
    constexpr uint64_t encode() const { return (uint64_t{generation} << 32) | index; }
    static constexpr SlotKey decode(uint64_t encoded) {
        return {static_cast<uint32_t>(encoded), static_cast<uint32_t>(encoded >> 32)};
    }

    // Ordered by (index, generation): a total order, so sorting keys never depends on ties.
    friend constexpr bool operator==(SlotKey, SlotKey) = default;
    friend constexpr auto operator<=>(SlotKey, SlotKey) = default;
};

}  // namespace tandem
