// Properties of src/core/slot_key.hpp: encode packs index and generation losslessly in a
// fixed layout (generation high, index low) that both ends of a stream hash alike.
#include "tandem/core/slot_key.hpp"

#include <catch2/catch.hpp>

using tandem::SlotKey;

TEST_CASE("encode puts the generation in the high half and the index in the low half") {
    static_assert(SlotKey{0x12345678u, 0x9ABCDEF0u}.encode() == 0x9ABCDEF012345678u);
    CHECK(SlotKey{1, 0}.encode() == 1);
    CHECK(SlotKey{0, 1}.encode() == 0x100000000u);
}

TEST_CASE("decode inverts encode for every boundary value") {
    for (uint32_t index : {0u, 1u, 0x7FFFFFFFu, 0xFFFFFFFFu})
        for (uint32_t generation : {0u, 1u, 0x80000000u, 0xFFFFFFFFu}) {
            const SlotKey key{index, generation};
            CHECK(SlotKey::decode(key.encode()) == key);
        }
}

TEST_CASE("the same slot with another generation is another key") {
    const SlotKey a{5, 1}, b{5, 2};
    CHECK(a != b);
    CHECK(a.encode() != b.encode());
    CHECK(a < b);                      // ordered by index, then generation
    CHECK(SlotKey{4, 9} < SlotKey{5, 0});
}

// ---- SlotKeyAllocator ---------------------------------------------------------------------
namespace {
struct Thing {
    tandem::SlotKey key;
    int tag = 0;
    friend bool operator==(const Thing&, const Thing&) = default;
};
std::vector<SlotKey> keys_of(const std::vector<Thing>& v) {
    std::vector<SlotKey> out;
    for (const Thing& t : v) out.push_back(t.key);
    return out;
}
}  // namespace

TEST_CASE("the allocator fills the lowest free indices in order, generations counting every key handed out") {
    tandem::SlotKeyAllocator a;
    std::vector<Thing> v;
    std::vector<Thing> fresh{{{}, 1}, {{}, 2}, {{}, 3}};
    CHECK(a.insert(v, 10, std::span<Thing>(fresh)) == 3);
    CHECK(keys_of(v) == std::vector<SlotKey>{{0, 0}, {1, 1}, {2, 2}});
    CHECK(v[1].tag == 2);
    v.erase(v.begin());   // slot 0 frees
    v.erase(v.begin() + 1);   // slot 2 frees
    std::vector<Thing> more{{{}, 4}, {{}, 5}, {{}, 6}};
    CHECK(a.insert(v, 10, std::span<Thing>(more)) == 3);
    // Slots 0 and 2 are reused under new generations, then 3; the vector stays sorted by key.
    CHECK(keys_of(v) == std::vector<SlotKey>{{0, 3}, {1, 1}, {2, 4}, {3, 5}});
    CHECK(v[0].tag == 4);
    CHECK(v[2].tag == 5);
    CHECK(v[3].tag == 6);
    CHECK(a.next_generation == 6);
}

TEST_CASE("the allocator refuses past capacity and changes nothing for what it drops") {
    tandem::SlotKeyAllocator a;
    std::vector<Thing> v;
    std::vector<Thing> fresh(5);
    CHECK(a.insert(v, 3, std::span<Thing>(fresh)) == 3);
    CHECK(v.size() == 3);
    CHECK(a.next_generation == 3);
    SlotKey k{};
    CHECK_FALSE(a.insert_one(v, 3, Thing{}, &k));
    CHECK(a.next_generation == 3);
    v.erase(v.begin() + 1);
    CHECK(a.insert_one(v, 3, Thing{{}, 9}, &k));
    CHECK(k == SlotKey{1, 3});
    CHECK(keys_of(v) == std::vector<SlotKey>{{0, 0}, {1, 3}, {2, 2}});
    CHECK(a.insert(v, 0, std::span<Thing>(fresh)) == 0);
}

TEST_CASE("the allocator's only state is its count: two allocators with equal counts key alike") {
    tandem::SlotKeyAllocator a, b;
    a.next_generation = b.next_generation = 0xFFFFFFFEu;   // wraps after two keys, defined
    std::vector<Thing> va{{{4, 1}, 0}}, vb = va;
    std::vector<Thing> fa(3), fb(3);
    CHECK(a.insert(va, 8, std::span<Thing>(fa)) == 3);
    CHECK(b.insert(vb, 8, std::span<Thing>(fb)) == 3);
    CHECK(va == vb);
    CHECK(keys_of(va) == std::vector<SlotKey>{{0, 0xFFFFFFFEu}, {1, 0xFFFFFFFFu}, {2, 0}, {4, 1}});
    CHECK(a == b);
}
