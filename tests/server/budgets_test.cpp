// Properties of src/server/budgets.*: what one address may hold and in which order its
// limits refuse, that the table forgets an address with nothing open, and that the ping
// bucket gives exactly its rate and burst with time passed in.
#include "server/budgets.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

using namespace tandem::server;

namespace {
const AddressKey a = address_key_v4(0x7F000003);  // 127.0.0.3
const AddressKey b = address_key_v4(0x7F000004);
constexpr int64_t second = 1'000'000'000;
}  // namespace

TEST_CASE("an IPv4 address is keyed as its v4-mapped IPv6 form, so both families of one peer share a count") {
    const AddressKey mapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 3};
    CHECK(a == mapped);
    CHECK(address_key_v4(0xC0A80001) == AddressKey{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 168, 0, 1});
}

TEST_CASE("an IPv6 address is keyed by its /64, the block one subscriber is given, and a v4-mapped one as itself") {
    const std::array<uint8_t, 16> one{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0xaa, 0xbb, 0xcc, 0xdd, 0, 0, 0, 1};
    std::array<uint8_t, 16> other = one;
    other[15] = 2;
    other[8] = 0x11;
    CHECK(address_key_v6(one) == address_key_v6(other));
    CHECK(address_key_v6(one) == AddressKey{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0});
    std::array<uint8_t, 16> next_block = one;
    next_block[7] = 3;
    CHECK(address_key_v6(next_block) != address_key_v6(one));
    CHECK(address_key_v6(AddressKey{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 3}) == a);
    CHECK(address_key_v6(AddressKey{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 4}) == b);
}

TEST_CASE("unfinished requests past the per-address budget are refused with handshakes_per_address, another address is admitted") {
    AddressBook book({.connections = 32, .handshakes = 8});
    for (int i = 0; i < 8; ++i) REQUIRE(book.admit(a).what == Admission::admit);
    for (int i = 0; i < 16; ++i) {
        const AdmissionDecision d = book.admit(a);
        CHECK(d.what == Admission::refuse);
        CHECK(d.reason == "handshakes_per_address");
    }
    CHECK(book.admit(b).what == Admission::admit);
    CHECK(book.connections(a) == 8);
    CHECK(book.handshakes(a) == 8);
    CHECK(book.refusals(a) == 16);
}

TEST_CASE("a finished request frees its handshake place but the connection still counts against connections_per_address") {
    AddressBook book({.connections = 10, .handshakes = 2});
    for (int i = 0; i < 10; ++i) {
        REQUIRE(book.admit(a).what == Admission::admit);
        book.handshake_ended(a);  // upgraded: an open WebSocket, no longer a handshake
    }
    CHECK(book.handshakes(a) == 0);
    const AdmissionDecision over = book.admit(a);
    CHECK(over.what == Admission::refuse);
    CHECK(over.reason == "connections_per_address");
    book.closed(a);
    CHECK(book.admit(a).what == Admission::admit);
}

TEST_CASE("connections are checked before handshakes, so a full address names connections_per_address") {
    AddressBook book({.connections = 4, .handshakes = 4});
    for (int i = 0; i < 4; ++i) REQUIRE(book.admit(a).what == Admission::admit);
    CHECK(book.admit(a).reason == "connections_per_address");
}

TEST_CASE("a keep-alive connection's next request counts as unfinished and holds a handshake place until it ends") {
    AddressBook book({.connections = 8, .handshakes = 1});
    REQUIRE(book.admit(a).what == Admission::admit);
    book.handshake_ended(a);
    REQUIRE(book.admit(a).what == Admission::admit);  // the first request of a second connection
    book.handshake_ended(a);
    book.handshake_begun(a);  // the first connection sends its next request
    CHECK(book.admit(a).reason == "handshakes_per_address");
    book.handshake_ended(a);
    CHECK(book.admit(a).what == Admission::admit);
}

TEST_CASE("refusals being answered are bounded too: past as many as the address may hold connections, it is dropped unanswered") {
    AddressBook book({.connections = 3, .handshakes = 1});
    REQUIRE(book.admit(a).what == Admission::admit);
    for (int i = 0; i < 3; ++i) REQUIRE(book.admit(a).what == Admission::refuse);
    const AdmissionDecision dropped = book.admit(a);
    CHECK(dropped.what == Admission::drop);
    CHECK(dropped.reason == "handshakes_per_address");
    book.refusal_ended(a);
    CHECK(book.admit(a).what == Admission::refuse);
}

TEST_CASE("an address with nothing open is forgotten, so the table never outgrows the open sockets") {
    AddressBook book({.connections = 2, .handshakes = 2});
    REQUIRE(book.admit(a).what == Admission::admit);
    REQUIRE(book.admit(b).what == Admission::admit);
    REQUIRE(book.admit(b).what == Admission::admit);
    REQUIRE(book.admit(b).what == Admission::refuse);
    CHECK(book.addresses() == 2);
    book.handshake_ended(a);
    book.closed(a);
    CHECK(book.addresses() == 1);
    book.handshake_ended(b);
    book.handshake_ended(b);
    book.closed(b);
    book.closed(b);
    CHECK(book.addresses() == 1);  // its refusal is still being answered
    book.refusal_ended(b);
    CHECK(book.addresses() == 0);
    // Ending what was never counted changes nothing and creates no entry.
    book.closed(a);
    book.handshake_ended(a);
    book.refusal_ended(a);
    CHECK(book.addresses() == 0);
}

TEST_CASE("a full ping bucket allows its burst at once, then exactly its rate") {
    TokenBucket bucket(4, 8, 0);
    int taken = 0;
    while (bucket.take(0)) ++taken;
    CHECK(taken == 8);
    // 4 a second: one every 250 ms.
    CHECK_FALSE(bucket.take(second / 4 - 1));
    CHECK(bucket.take(second / 4));
    CHECK_FALSE(bucket.take(second / 4));
    int in_ten_seconds = 0;
    for (int64_t t = second / 4; t <= second / 4 + 10 * second; t += second / 100) in_ten_seconds += bucket.take(t) ? 1 : 0;
    CHECK(in_ten_seconds == 40);
}

TEST_CASE("the ping bucket saves up no more than its burst however long the peer was quiet") {
    TokenBucket bucket(2, 5, 0);
    while (bucket.take(0)) {
    }
    const int64_t much_later = int64_t{1} << 62;  // would overflow elapsed * rate
    int taken = 0;
    while (bucket.take(much_later)) ++taken;
    CHECK(taken == 5);
}

TEST_CASE("a clock that goes backwards gives the ping bucket nothing") {
    TokenBucket bucket(1, 1, 10 * second);
    REQUIRE(bucket.take(10 * second));
    CHECK_FALSE(bucket.take(0));
    CHECK_FALSE(bucket.take(10 * second + second - 1));
    CHECK(bucket.take(11 * second));
}

TEST_CASE("a rate of zero means no ping limit") {
    TokenBucket bucket(0, 0, 0);
    for (int i = 0; i < 100'000; ++i) REQUIRE(bucket.take(0));
}
