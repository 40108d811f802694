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
