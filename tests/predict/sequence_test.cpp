// Properties of tandem/predict/sequence.hpp: sequence order survives the wrap, and the input
// buffer keeps exactly the unacknowledged inputs, bounded, handing each out first only once.
#include "tandem/predict/sequence.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

using tandem::predict::ClientInputBuffer;
using tandem::predict::Seq16;
using tandem::predict::Seq32;

TEST_CASE("a u16 sequence wraps from 65535 to 0 and 0 is after 65535") {
    const Seq16 last(65535);
    CHECK(last.next() == Seq16(0));
    CHECK(Seq16(0).is_after(last));
    CHECK(last.is_at_or_before(Seq16(0)));
    CHECK_FALSE(last.is_after(Seq16(0)));
    CHECK(Seq16(3).distance_from(Seq16(65534)) == 5);
    CHECK(Seq16(65534).distance_from(Seq16(3)) == -5);
}

TEST_CASE("u16 order agrees with the unwrapped order for every start and every distance under half") {
    // Reference: unwrapped integers a and a + d, compared exactly; the sequence sees them mod 2^16.
    for (int64_t a = 0; a < 65536; a += 97) {
        for (int64_t d = -32767; d <= 32767; d += (d > -40 && d < 40) ? 1 : 131) {
            const Seq16 sa(static_cast<uint16_t>(a));
            const Seq16 sb(static_cast<uint16_t>((a + d) & 0xFFFF));
            INFO("a=" << a << " d=" << d);
            REQUIRE(sb.is_after(sa) == (d > 0));
            REQUIRE(sb.distance_from(sa) == d);
        }
    }
}

TEST_CASE("at exactly half the space neither sequence is after the other") {
    CHECK_FALSE(Seq16(32768).is_after(Seq16(0)));
    CHECK_FALSE(Seq16(0).is_after(Seq16(32768)));
}

TEST_CASE("a u32 sequence orders correctly across its wrap") {
    const Seq32 last(0xFFFFFFFFu);
    CHECK(last.next() == Seq32(0));
    CHECK(Seq32(0).is_after(last));
    CHECK(Seq32(1000).distance_from(Seq32(0xFFFFFF00u)) == 1256);
    CHECK(Seq32(0x7FFFFFFFu).is_after(Seq32(0)));
    CHECK_FALSE(Seq32(0x80000001u).is_after(Seq32(0)));
}

namespace {
std::vector<int> ops(const ClientInputBuffer<int>& buffer) {
    std::vector<int> out;
    for (const auto& e : buffer.unacknowledged()) out.push_back(e.op);
    return out;
}
}  // namespace

TEST_CASE("sequences start at 1, so an echo of 0 acknowledges nothing") {
    ClientInputBuffer<int> buffer(8);
    CHECK(buffer.push(10) == Seq16(1));
    CHECK(buffer.push(11) == Seq16(2));
    buffer.acknowledge(Seq16(0));
    CHECK(ops(buffer) == std::vector<int>{10, 11});
}

TEST_CASE("acknowledging drops every input at or before the echo and keeps the rest in order") {
    ClientInputBuffer<int> buffer(8);
    for (int i = 1; i <= 5; ++i) buffer.push(i * 10);
    buffer.acknowledge(Seq16(3));
    CHECK(ops(buffer) == std::vector<int>{40, 50});
    CHECK(buffer.last_acknowledged() == Seq16(3));
}

TEST_CASE("a stale echo from a reordered packet does not bring inputs back or move the acknowledgement") {
    ClientInputBuffer<int> buffer(8);
    for (int i = 1; i <= 5; ++i) buffer.push(i);
    buffer.acknowledge(Seq16(4));
    buffer.acknowledge(Seq16(2));
    CHECK(buffer.last_acknowledged() == Seq16(4));
    CHECK(ops(buffer) == std::vector<int>{5});
}

TEST_CASE("an echo past anything sent acknowledges everything sent and no later input") {
    ClientInputBuffer<int> buffer(8);
    buffer.push(1);
    buffer.push(2);
    buffer.acknowledge(Seq16(40));
    CHECK(buffer.empty());
    CHECK(buffer.last_acknowledged() == Seq16(2));
    buffer.push(3);   // sequence 3: must survive, it was never acknowledged
    buffer.acknowledge(Seq16(2));
    CHECK(ops(buffer) == std::vector<int>{3});
}

TEST_CASE("a full buffer drops its oldest input and counts it") {
    ClientInputBuffer<int> buffer(3);
    for (int i = 1; i <= 5; ++i) buffer.push(i);
    CHECK(buffer.size() == 3);
    CHECK(buffer.overflowed() == 2);
    CHECK(ops(buffer) == std::vector<int>{3, 4, 5});
}

TEST_CASE("unacknowledged_with_pass hands each input out first exactly once") {
    ClientInputBuffer<int> buffer(8);
    buffer.push(1);
    buffer.push(2);
    auto first = buffer.unacknowledged_with_pass(Seq16(0));
    REQUIRE(first.size() == 2);
    CHECK(first[0].first.op == 1);
    CHECK(first[0].second);
    CHECK(first[1].second);
    buffer.push(3);
    auto second = buffer.unacknowledged_with_pass(Seq16(1));   // 1 acknowledged; 2 again, 3 new
    REQUIRE(second.size() == 2);
    CHECK(second[0].first.op == 2);
    CHECK_FALSE(second[0].second);
    CHECK(second[1].first.op == 3);
    CHECK(second[1].second);
    auto third = buffer.unacknowledged_with_pass(Seq16(1));
    REQUIRE(third.size() == 2);
    CHECK_FALSE(third[0].second);
    CHECK_FALSE(third[1].second);
}

TEST_CASE("the buffer stays exact across many wraps of a u16 sequence") {
    // Reference: the unwrapped count of inputs sent and acknowledged.
    ClientInputBuffer<int> buffer(64);
    int64_t sent = 0;
    int64_t acked = 0;
    for (int round = 0; round < 5000; ++round) {
        for (int k = 0; k < 40; ++k) {
            buffer.push(static_cast<int>(++sent));
        }
        acked = sent - (round % 7);   // leave a few unacknowledged, a different number each time
        buffer.acknowledge(Seq16(static_cast<uint16_t>(acked & 0xFFFF)));
        const auto pending = buffer.unacknowledged();
        REQUIRE(pending.size() == static_cast<size_t>(sent - acked));
        for (size_t i = 0; i < pending.size(); ++i) REQUIRE(pending[i].op == static_cast<int>(acked + 1 + static_cast<int64_t>(i)));
    }
    CHECK(sent > 3 * 65536);
}

TEST_CASE("an acknowledgement left half the space behind does not make fresh echoes look stale") {
    ClientInputBuffer<int> buffer(16);
    buffer.push(0);
    buffer.acknowledge(Seq16(1));
    // 40,000 inputs with no echo at all (a long stall), then an echo of the newest but two.
    for (int i = 1; i <= 40000; ++i) buffer.push(i);
    const uint16_t newest = static_cast<uint16_t>(1 + 40000);
    buffer.acknowledge(Seq16(static_cast<uint16_t>(newest - 2)));
    CHECK(ops(buffer) == std::vector<int>{39999, 40000});
}
