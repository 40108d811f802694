// Properties of tandem/predict/mirror.hpp: the mirror's digest is the SetDigest of the keys it
// holds, re-applied deltas are harmless, each of the three counters counts only its cause,
// and the allocator reuses slots in its policy's order, bumping generations on free.
#include "tandem/predict/mirror.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <vector>

using tandem::SetDigest;
using tandem::SlotKey;
using tandem::predict::DeltaMirror;
using tandem::predict::ReusePolicy;
using tandem::predict::SlotAllocator;
using tandem::predict::SlotError;

namespace {
// The reference: the digest of a set of keys, built from scratch.
uint64_t digest_of(std::initializer_list<SlotKey> keys) {
    SetDigest d;
    for (const SlotKey k : keys) d.insert(k.encode());
    return d.digest();
}
}  // namespace

TEST_CASE("the mirror's digest is the digest of the keys it holds, built from scratch") {
    DeltaMirror<int> m;
    m.begin(1, true);
    m.insert({1, 0}, 10);
    m.insert({2, 0}, 20);
    m.insert({5, 3}, 50);
    CHECK(m.settle(digest_of({{1, 0}, {2, 0}, {5, 3}})).agreed());
    m.begin(2, false);
    m.remove({2, 0});
    m.insert({2, 1}, 21);   // the slot's next occupant
    CHECK(m.settle(digest_of({{1, 0}, {2, 1}, {5, 3}})).agreed());
    CHECK(*m.find({2, 1}) == 21);
    CHECK(m.find({2, 0}) == nullptr);
    CHECK(m.divergences() == 0);
}

TEST_CASE("applying the same delta twice, or a superset of it, changes nothing") {
    DeltaMirror<int> m;
    m.begin(1, true);
    m.insert({1, 0}, 10);
    m.insert({2, 0}, 20);
    m.begin(2, false);
    m.insert({2, 0}, 22);
    m.remove({1, 0});
    const uint64_t once = m.digest();
    m.begin(2, false);   // the same packet again
    m.insert({2, 0}, 22);
    m.remove({1, 0});
    CHECK(m.digest() == once);
    CHECK(m.size() == 1);
    CHECK(*m.find({2, 0}) == 22);
    CHECK(m.stale_refs() == 0);
    CHECK(m.frames_lost() == 0);
}

TEST_CASE("a full baseline replaces the whole set") {
    DeltaMirror<int> m;
    m.begin(1, true);
    m.insert({1, 0}, 1);
    m.insert({2, 0}, 2);
    m.begin(2, true);
    m.insert({3, 0}, 3);
    CHECK(m.size() == 1);
    CHECK(m.settle(digest_of({{3, 0}})).agreed());
}

TEST_CASE("frames_lost counts sequence numbers that never arrived, across the u32 wrap") {
    DeltaMirror<int> m;
    m.begin(0xFFFFFFFEu, true);
    m.begin(0xFFFFFFFFu, false);
    m.begin(2, false);   // 0 and 1 lost
    CHECK(m.frames_lost() == 2);
    m.begin(1, false);   // late duplicate: not a loss, not a new newest
    m.begin(3, false);
    CHECK(m.frames_lost() == 2);
    CHECK(m.stale_refs() == 0);
    CHECK(m.divergences() == 0);
}

TEST_CASE("stale_refs counts messages about an occupant older than the one held, and ignores them") {
    DeltaMirror<int> m;
    m.begin(1, true);
    m.insert({4, 2}, 42);
    m.insert({4, 1}, 41);   // about the previous occupant
    m.remove({4, 1});
    CHECK(m.stale_refs() == 2);
    CHECK(*m.find({4, 2}) == 42);
    CHECK(m.settle(digest_of({{4, 2}})).agreed());
    CHECK(m.frames_lost() == 0);
    CHECK(m.divergences() == 0);
}

TEST_CASE("a removal naming a newer occupant empties the slot: the one held died before it") {
    DeltaMirror<int> m;
    m.begin(1, true);
    m.insert({4, 1}, 41);
    m.remove({4, 3});
    CHECK(m.size() == 0);
    CHECK(m.stale_refs() == 0);
    CHECK(m.settle(SetDigest{}.digest()).agreed());
}

TEST_CASE("divergences counts digest mismatches, which the other counters do not predict") {
    DeltaMirror<int> m;
    m.begin(1, true);
    m.insert({1, 0}, 1);
    const auto a = m.settle(digest_of({{1, 0}, {2, 0}}));   // the server also holds (2,0)
    CHECK_FALSE(a.agreed());
    CHECK(a.theirs == digest_of({{1, 0}, {2, 0}}));
    CHECK(m.divergences() == 1);
    CHECK(m.frames_lost() == 0);
    CHECK(m.stale_refs() == 0);
}

TEST_CASE("divergence_from names the keys missing here and the extra ones") {
    DeltaMirror<int> m;
    m.begin(1, true);
    m.insert({1, 0}, 1);
    m.insert({2, 0}, 2);
    m.insert({3, 5}, 3);
    const std::vector<SlotKey> theirs{{3, 6}, {1, 0}, {9, 0}, {1, 0}};
    const auto d = m.divergence_from(theirs);
    CHECK(std::set<SlotKey>(d.missing.begin(), d.missing.end()) == std::set<SlotKey>{{3, 6}, {9, 0}});
    CHECK(std::set<SlotKey>(d.extra.begin(), d.extra.end()) == std::set<SlotKey>{{2, 0}, {3, 5}});
    CHECK(m.divergence_from(std::vector<SlotKey>{{1, 0}, {2, 0}, {3, 5}}).empty());
}

TEST_CASE("clear drops the mirror and the skipped stretch is not counted as lost") {
    DeltaMirror<int> m;
    m.begin(1, true);
    m.insert({1, 0}, 1);
    m.clear();
    CHECK(m.size() == 0);
    m.begin(500, true);
    CHECK(m.frames_lost() == 0);
    CHECK(m.settle(SetDigest{}.digest()).agreed());
}

TEST_CASE("FIFO reuses the slot freed longest ago, LIFO the one freed last") {
    for (const ReusePolicy policy : {ReusePolicy::fifo, ReusePolicy::lifo}) {
        SlotAllocator slots = SlotAllocator::with_capacity(8).with_policy(policy);
        std::vector<SlotKey> keys;
        for (int i = 0; i < 5; ++i) keys.push_back(slots.alloc());
        REQUIRE(slots.free(keys[3]).ok());
        REQUIRE(slots.free(keys[1]).ok());
        REQUIRE(slots.free(keys[4]).ok());
        std::vector<uint32_t> reused;
        for (int i = 0; i < 3; ++i) reused.push_back(slots.alloc().index);
        if (policy == ReusePolicy::fifo) CHECK(reused == std::vector<uint32_t>{3, 1, 4});
        else CHECK(reused == std::vector<uint32_t>{4, 1, 3});
        CHECK(slots.index_space() == 5);   // no new index while a freed one waited
        CHECK(slots.alloc().index == 5);
    }
}

TEST_CASE("the generation bumps when a slot is freed, never when it is allocated") {
    SlotAllocator slots;
    const SlotKey first = slots.alloc();
    CHECK(first == SlotKey{0, 0});
    REQUIRE(slots.free(first).ok());
    CHECK_FALSE(slots.is_live(first));
    const SlotKey second = slots.alloc();
    CHECK(second == SlotKey{0, 1});
    const SlotKey other = slots.alloc();
    CHECK(other == SlotKey{1, 0});   // a fresh index starts at generation 0
    CHECK(slots.live() == 2);
}

TEST_CASE("freeing a stale or unknown key is refused and changes nothing") {
    SlotAllocator slots;
    const SlotKey a = slots.alloc();
    REQUIRE(slots.free(a).ok());
    const SlotKey b = slots.alloc();   // same slot, next generation
    const auto refused = slots.free(a);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error() == SlotError::not_live);
    CHECK(slots.is_live(b));
    CHECK_FALSE(slots.free(SlotKey{7, 0}).ok());
    CHECK(slots.live() == 1);
}
