// SlotKey: the name both ends of a stream give an entity, a slot index plus the generation
// of its current occupant, passed by value. It exists so a message about a dead entity can
// never be applied to whatever reuses its slot; never key by index alone where that matters.
// SlotKeyAllocator: hands out such keys inside a simulation's state, deterministically.
#pragma once

#include <compare>
#include <concepts>
#include <cstdint>
#include <span>
#include <vector>

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

// An entity the allocator can key: it names itself by a SlotKey member `key`.
template <class E>
concept SlotKeyed = std::default_initializable<E> && std::copy_constructible<E> && requires(E& e) {
    { e.key } -> std::same_as<SlotKey&>;
};

// Keys for a varying set of a simulation's entities (bullets, rocks...) kept in one
// std::vector sorted by key, the order a state visitor's list requires (strictly increasing
// keys). A new entity takes the lowest slot index no live entity holds, below a capacity the
// caller passes, under the allocator's count of keys handed out as its generation; so a key
// is not handed out twice before that count wraps (2^32 allocations), and live keys never
// collide at all since their indices differ. The count is the allocator's only state (one u32
// for the game's visitor, `next_generation`): which slots are free is derived from the vector
// itself, so the two cannot disagree and a state decoded from its fields allocates exactly as
// the original would. Removing an entity is erasing it from the vector; nothing else.
// Every operation depends on the vector's keys alone, never on an order a library chooses.
struct SlotKeyAllocator {
    uint32_t next_generation = 0;

    // Keys fresh[0..m) and merges them into `sorted` (keys strictly increasing by index, each
    // index below `capacity`), in fresh's order taking the lowest free indices in increasing
    // order and generations next_generation, next_generation + 1, ... Returns m: all of fresh,
    // or as many as the free slots below `capacity` allow (the rest are dropped, keys
    // unwritten). O(sorted + fresh); allocates only when `sorted` grows past its capacity.
    template <SlotKeyed E>
    uint32_t insert(std::vector<E>& sorted, uint32_t capacity, std::span<E> fresh) {
        const auto n = static_cast<uint32_t>(sorted.size());
        uint32_t m = 0;
        uint32_t candidate = 0;
        uint32_t at = 0;   // the first element of sorted whose index is >= candidate
        while (m < fresh.size() && candidate < capacity) {
            while (at < n && sorted[at].key.index < candidate) ++at;
            if (at < n && sorted[at].key.index == candidate) {
                ++candidate;
                continue;
            }
            fresh[m].key = SlotKey{candidate, next_generation};
            next_generation += 1;   // unsigned: wraps, defined
            ++m;
            ++candidate;
        }
        if (m == 0) return 0;
        // Merge from the back, in place: both runs are sorted by index and no index repeats.
        sorted.resize(n + m);
        int64_t i = int64_t{n} - 1, j = int64_t{m} - 1, w = int64_t{n} + m - 1;
        while (j >= 0) {
            if (i >= 0 && sorted[static_cast<uint32_t>(i)].key.index > fresh[static_cast<uint32_t>(j)].key.index) {
                sorted[static_cast<uint32_t>(w--)] = sorted[static_cast<uint32_t>(i--)];
            } else {
                sorted[static_cast<uint32_t>(w--)] = fresh[static_cast<uint32_t>(j--)];
            }
        }
        return m;
    }

    // One entity: its new key, or false (nothing changed) when every slot below capacity is taken.
    template <SlotKeyed E>
    bool insert_one(std::vector<E>& sorted, uint32_t capacity, E entity, SlotKey* key = nullptr) {
        if (insert(sorted, capacity, std::span<E>(&entity, 1)) == 0) return false;
        if (key != nullptr) *key = entity.key;
        return true;
    }

    friend constexpr bool operator==(const SlotKeyAllocator&, const SlotKeyAllocator&) = default;
};

}  // namespace tandem
