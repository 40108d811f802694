// Properties of src/net/ack_window.*: the newest number plus a 64-bit mask, worked by hand;
// the two readings (missing_since for retransmitting, contiguous_base for re-deriving) that
// differ on the same acknowledgement; the window's edges; and agreement with a plain set of
// unwrapped numbers over a long stream that crosses the u32 wrap.
#include "tandem/net/ack_window.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "tandem/core/random.hpp"

using tandem::XorShift;
using tandem::net::AckState;
using tandem::net::AckWindow;

TEST_CASE("an empty window acknowledges nothing and reports nothing") {
    AckWindow w;
    CHECK(w.encode() == std::nullopt);
    CHECK_FALSE(w.received(0));
    CHECK(w.missing_since(0).empty());
    CHECK(w.contiguous_base(0) == std::nullopt);
}

TEST_CASE("the acknowledgement is the newest number and a bit for each of the 64 before it") {
    AckWindow w;
    w.observe(10);
    CHECK(w.encode() == AckState{10, 0});
    w.observe(12);  // 10 is now newest - 2: bit 1
    w.observe(13);  // 12 -> bit 0, 10 -> bit 2
    CHECK(w.encode() == AckState{13, 0b101});
    w.observe(11);  // late, inside the window: bit 1
    CHECK(w.encode() == AckState{13, 0b111});
    w.observe(11);  // a duplicate changes nothing
    CHECK(w.encode() == AckState{13, 0b111});
}

TEST_CASE("a retransmitting reader and a re-deriving reader want different answers from one ack") {
    AckWindow w;
    for (uint32_t s : {10u, 12u, 13u}) w.observe(s);
    // Retransmit: the held packets 9..13 that are not known to have arrived.
    CHECK(w.missing_since(9) == std::vector<uint32_t>{9, 11});
    // Re-derive: 12 arrived after 11 was lost, but only the run from 10 is provable.
    CHECK(w.contiguous_base(10) == 10u);
    CHECK(w.contiguous_base(12) == 13u);
    CHECK(w.contiguous_base(11) == std::nullopt);
    // Packets newer than the newest are in flight, not missing; a start after it proves nothing.
    CHECK(w.missing_since(14).empty());
    CHECK(w.contiguous_base(14) == std::nullopt);
}

TEST_CASE("a jump of exactly 64 keeps the old newest in the top bit, 65 drops it") {
    AckWindow w;
    w.observe(100);
    w.observe(164);
    CHECK(w.encode() == AckState{164, uint64_t{1} << 63});
    CHECK(w.received(100));
    AckWindow v;
    v.observe(100);
    v.observe(165);
    CHECK(v.encode() == AckState{165, 0});
    CHECK_FALSE(v.received(100));
    // An arrival older than the window changes nothing.
    v.observe(100);
    CHECK(v.encode() == AckState{165, 0});
    v.observe(101);  // newest - 64: the top bit
    CHECK(v.encode() == AckState{165, uint64_t{1} << 63});
}

TEST_CASE("held packets older than the window are reported missing, a run starting there is not provable") {
    AckWindow w;
    for (uint32_t s = 0; s <= 100; ++s) w.observe(s);  // every one arrived
    // 0..35 lie outside this acknowledgement (the window covers 36..100).
    const std::vector<uint32_t> missing = w.missing_since(30);
    CHECK(missing == std::vector<uint32_t>{30, 31, 32, 33, 34, 35});
    CHECK(w.contiguous_base(35) == std::nullopt);
    CHECK(w.contiguous_base(36) == 100u);
}

TEST_CASE("sequence numbers wrap around 2^32") {
    AckWindow w;
    w.observe(0xFFFFFFFEu);
    w.observe(0xFFFFFFFFu);
    w.observe(1u);
    // 0xFFFFFFFF is newest - 2 (bit 1), 0xFFFFFFFE newest - 3 (bit 2).
    CHECK(w.encode() == AckState{1u, 0b110});
    CHECK(w.missing_since(0xFFFFFFFEu) == std::vector<uint32_t>{0u});
    CHECK(w.contiguous_base(0xFFFFFFFEu) == 0xFFFFFFFFu);
    w.observe(0u);
    CHECK(w.contiguous_base(0xFFFFFFFEu) == 1u);
    // A number exactly 2^31 away is neither newer nor inside the window.
    w.observe(1u + 0x80000000u);
    CHECK(w.encode() == AckState{1u, 0b111});
}

TEST_CASE("the sender's copy answers like the receiver's window") {
    AckWindow receiver;
    for (uint32_t s : {5u, 6u, 9u, 40u, 41u, 43u}) receiver.observe(s);
    const AckWindow sender = AckWindow::from_encoded(*receiver.encode());
    CHECK(sender.encode() == receiver.encode());
    CHECK(sender.missing_since(5) == receiver.missing_since(5));
    CHECK(sender.contiguous_base(40) == receiver.contiguous_base(40));
    CHECK(sender.contiguous_base(40) == 41u);
}

TEST_CASE("the window agrees with a plain set of unwrapped numbers across the wrap") {
    // The reference: a std::set of 64-bit sequence numbers that never wrap, starting 2000
    // below 2^32 so the stream crosses it. Packets are lost (1 in 8) and reordered within
    // a short distance, as an unordered link would.
    const int64_t base = (int64_t{1} << 32) - 2000;
    std::set<int64_t> arrived;
    int64_t newest = -1;
    AckWindow w;
    XorShift rng(11);
    std::vector<int64_t> pending;
    for (int64_t next = base; next < base + 6000 || !pending.empty();) {
        if (next < base + 6000 && (pending.size() < 4 || rng.below(2) == 0)) {
            if (rng.below(8) != 0) pending.push_back(next);
            ++next;
            continue;
        }
        if (pending.empty()) continue;
        const uint32_t pick = rng.below(static_cast<uint32_t>(pending.size()));
        const int64_t s = pending[pick];
        pending.erase(pending.begin() + pick);
        w.observe(static_cast<uint32_t>(s));
        arrived.insert(s);
        if (s > newest) newest = s;

        // encode(): bit i is newest - 1 - i.
        uint64_t mask = 0;
        for (int i = 0; i < 64; ++i) {
            if (arrived.count(newest - 1 - i)) mask |= uint64_t{1} << i;
        }
        REQUIRE(w.encode() == AckState{static_cast<uint32_t>(newest), mask});
        // missing_since: held from 100 back, everything not arrived or outside the window.
        const int64_t oldest_held = newest - 100;
        std::vector<uint32_t> missing;
        for (int64_t q = oldest_held; q < newest; ++q) {
            if (q < newest - 64 || !arrived.count(q)) missing.push_back(static_cast<uint32_t>(q));
        }
        REQUIRE(w.missing_since(static_cast<uint32_t>(oldest_held)) == missing);
        // contiguous_base from a point inside the window.
        const int64_t first = newest - 20;
        std::optional<uint32_t> base_seq;
        if (arrived.count(first)) {
            int64_t q = first;
            while (q < newest && arrived.count(q + 1)) ++q;
            base_seq = static_cast<uint32_t>(q);
        }
        REQUIRE(w.contiguous_base(static_cast<uint32_t>(first)) == base_seq);
    }
    CHECK(newest > (int64_t{1} << 32));  // the stream did cross the wrap
}
