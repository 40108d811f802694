// Properties of src/server/write_queue.*: the byte count is exact (Beast's frames included),
// the cap is never exceeded by the room's messages nor by pongs the reader lets in, a refused
// message leaves the queue untouched, and recipients share one buffer.
#include "server/write_queue.hpp"

#include <catch2/catch.hpp>

using namespace tandem::server;

namespace {
SharedBytes bytes(size_t n) { return std::make_shared<const std::vector<uint8_t>>(n, uint8_t{7}); }
}  // namespace

TEST_CASE("a stalled client costs bounded memory: the queue never holds more than its cap") {
    WriteQueue queue(1000);
    uint64_t refused = 0;
    for (int i = 0; i < 10'000; ++i) {
        if (!queue.push(bytes(64))) ++refused;
        REQUIRE(queue.bytes() <= 1000);
    }
    CHECK(queue.messages() == 15);  // floor(1000 / 64)
    CHECK(queue.bytes() == 960);
    CHECK(refused == 10'000 - 15);
}

TEST_CASE("a message that fits exactly is queued, and one byte more is refused and changes nothing") {
    WriteQueue queue(100);
    REQUIRE(queue.push(bytes(60)));
    CHECK(queue.push(bytes(40)));
    CHECK(queue.bytes() == 100);
    CHECK_FALSE(queue.push(bytes(1)));
    CHECK(queue.bytes() == 100);
    CHECK(queue.messages() == 2);
    WriteQueue small(10);
    CHECK_FALSE(small.push(bytes(11)));
    CHECK(small.empty());
}

TEST_CASE("messages leave in order and the count follows them") {
    WriteQueue queue(1000);
    REQUIRE(queue.push(bytes(10)));
    REQUIRE(queue.push(bytes(20)));
    REQUIRE(queue.push(bytes(30)));
    CHECK(queue.front()->size() == 10);
    queue.pop_front();
    CHECK(queue.bytes() == 50);
    CHECK(queue.front()->size() == 20);
    queue.drop_all_but_front();
    CHECK(queue.messages() == 1);
    CHECK(queue.bytes() == 20);
    queue.pop_front();
    CHECK(queue.empty());
    CHECK(queue.bytes() == 0);
}

TEST_CASE("recipients share one buffer: queuing a frame does not copy it") {
    const SharedBytes frame = bytes(4096);
    WriteQueue a(1 << 20);
    WriteQueue b(1 << 20);
    REQUIRE(a.push(frame));
    REQUIRE(b.push(frame));
    CHECK(a.front().get() == frame.get());
    CHECK(b.front().get() == frame.get());
    CHECK(frame.use_count() == 3);
    a.pop_front();
    b.pop_front();
    CHECK(frame.use_count() == 1);  // released when the last write of it ends
}

// The expected bytes are RFC 6455's own examples (section 5.7) and its length rules (5.2).
TEST_CASE("a server frame header is RFC 6455's unmasked binary header, in the shortest length form") {
    std::array<uint8_t, 10> h{};
    using Bytes = std::vector<uint8_t>;
    auto header = [&](uint64_t n) {
        const size_t size = binary_frame_header(n, h);
        return Bytes(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(size));
    };
    CHECK(header(5) == Bytes{0x82, 0x05});
    CHECK(header(125) == Bytes{0x82, 0x7D});
    CHECK(header(126) == Bytes{0x82, 0x7E, 0x00, 0x7E});
    CHECK(header(256) == Bytes{0x82, 0x7E, 0x01, 0x00});  // 5.7: "256 bytes binary message"
    CHECK(header(65535) == Bytes{0x82, 0x7E, 0xFF, 0xFF});
    CHECK(header(65536) == Bytes{0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00});  // 5.7: "64KiB"
    CHECK(header(0x0102030405060708) == Bytes{0x82, 0x7F, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08});
}

TEST_CASE("Beast's frames count against the same cap: queued pongs leave a room message no room past it") {
    WriteQueue queue(100);
    queue.push_control(std::vector<uint8_t>(70, 0x8A));
    CHECK(queue.bytes() == 70);
    CHECK(queue.messages() == 0);
    CHECK(queue.push(bytes(30)));
    CHECK_FALSE(queue.push(bytes(1)));
    queue.pop_control();
    CHECK(queue.bytes() == 30);
    CHECK(queue.push(bytes(70)));
}

TEST_CASE("a frame of Beast's is never refused, and past the cap it refuses every room message until it leaves") {
    WriteQueue queue(10);
    queue.push_control(std::vector<uint8_t>(8, 0x8A));
    queue.push_control(std::vector<uint8_t>(6, 0x88));  // a close frame must go out
    CHECK(queue.bytes() == 14);
    CHECK_FALSE(queue.push(bytes(1)));
    CHECK_FALSE(queue.reading_allowed(0));
    queue.pop_control();
    CHECK(queue.bytes() == 0);
    CHECK(queue.push(bytes(4)));
}

TEST_CASE("Beast's frames not yet sent are joined in order, so a burst of pongs leaves in one write") {
    WriteQueue queue(1000);
    queue.push_control(std::vector<uint8_t>{0x8A, 0x01, 'a'});
    queue.push_control(std::vector<uint8_t>{0x8A, 0x01, 'b'});
    queue.push_control(std::vector<uint8_t>{0x88, 0x02, 0x03, 0xE8});
    CHECK(queue.control_front() == std::vector<uint8_t>{0x8A, 0x01, 'a', 0x8A, 0x01, 'b', 0x88, 0x02, 0x03, 0xE8});
    CHECK(queue.bytes() == 10);
    queue.pop_control();
    CHECK(queue.control_empty());
    CHECK(queue.bytes() == 0);
}

TEST_CASE("reading stops while one more read's pongs might not fit, so pings that are never read back cannot pass the cap") {
    // A peer that pings without end and never reads: each read of up to 1536 bytes of empty
    // masked pings (6 bytes each) makes 256 pongs of 2 bytes; nothing is ever sent.
    constexpr uint64_t cap = 64 * 1024;
    constexpr uint64_t read = 1536;
    WriteQueue queue(cap);
    uint64_t reads = 0;
    while (queue.reading_allowed(read) && reads < 1'000'000) {
        for (uint64_t i = 0; i < read / 6; ++i) queue.push_control(std::vector<uint8_t>{0x8A, 0x00});
        ++reads;
    }
    CHECK(reads < 1'000'000);
    CHECK(queue.bytes() <= cap);
    CHECK(queue.bytes() > cap - read);  // it stopped only once near the cap
    while (!queue.control_empty()) queue.pop_control();
    CHECK(queue.reading_allowed(read));
}

TEST_CASE("clear drops the room's messages and Beast's frames and zeroes the count") {
    WriteQueue queue(1000);
    REQUIRE(queue.push(bytes(100)));
    queue.push_control(std::vector<uint8_t>{0x8A, 0x00});
    queue.clear();
    CHECK(queue.empty());
    CHECK(queue.control_empty());
    CHECK(queue.bytes() == 0);
}
