// Properties of tandem/predict/link.hpp: the coalescer sends changes and keepalives and
// nothing else; the clock estimator finds the offset of a symmetric link exactly, prefers
// the quickest round trip, and gives the same answer in any unit.
#include "tandem/predict/link.hpp"

#include <catch2/catch.hpp>

using Catch::Detail::Approx;
using tandem::predict::ClockSyncEstimator;
using tandem::predict::InputCoalescer;

TEST_CASE("the coalescer sends the first input, every change, and nothing else within the keepalive") {
    InputCoalescer<int> c(200);
    CHECK(c.should_send(1, 0));
    CHECK_FALSE(c.should_send(1, 16));
    CHECK_FALSE(c.should_send(1, 199));
    CHECK(c.should_send(2, 200 - 1));   // a change goes at once
    CHECK_FALSE(c.should_send(2, 250));
    CHECK(c.sent() == 2);
    CHECK(c.suppressed() == 3);
}

TEST_CASE("an unchanged input is resent once the keepalive has passed since it was last sent") {
    // The keepalive repairs a lost change: the server applies the last input it received.
    InputCoalescer<int> c(200);
    CHECK(c.should_send(5, 1000));
    CHECK_FALSE(c.should_send(5, 1199));
    CHECK(c.should_send(5, 1200));
    CHECK_FALSE(c.should_send(5, 1201));
    CHECK(c.should_send(5, 1400));
}

TEST_CASE("after reset the next input is sent whatever it is") {
    InputCoalescer<int> c(1000);
    c.should_send(3, 0);
    c.reset();
    CHECK(c.should_send(3, 1));
}

TEST_CASE("a symmetric round trip gives the offset exactly, including half units") {
    ClockSyncEstimator e;
    CHECK_FALSE(e.offset().has_value());
    // Remote runs 5000 ahead; each leg takes 21 (round trip 42) and 20.5 cannot be an integer.
    REQUIRE(e.add_sample(100, 100 + 21 + 5000, 142));
    CHECK(*e.offset() == 5000.0);
    REQUIRE(e.add_sample(200, 200 + 20 + 5000, 241));   // legs 20 and 21: offset 5000 - 0.5
    CHECK(*e.round_trip() == 41);
    CHECK(*e.offset() == 4999.5);
    CHECK(*e.remote_time(1000) == 5999.5);
}

TEST_CASE("the quickest round trip in the window decides: queuing only ever lengthens a leg") {
    ClockSyncEstimator e(4);
    e.add_sample(0, 10 + 300, 20);      // clean: legs 10 and 10, offset 300
    e.add_sample(100, 190 + 300, 200);  // return leg queued: legs 90 and 10, would read 340
    e.add_sample(200, 210 + 300, 300);  // outgoing leg queued: legs 10 and 90, would read 260
    CHECK(*e.offset() == 300.0);
    CHECK(*e.round_trip() == 20);
    // Four more samples push the clean one out of the window; the best remaining decides.
    for (int i = 0; i < 4; ++i) e.add_sample(1000 + i * 100, 1000 + i * 100 + 15 + 300, 1000 + i * 100 + 30);
    CHECK(*e.round_trip() == 30);
    CHECK(*e.offset() == 300.0);
}

TEST_CASE("a sample received before it was sent is refused") {
    ClockSyncEstimator e;
    CHECK_FALSE(e.add_sample(100, 0, 99));
    CHECK(e.samples() == 0);
}

TEST_CASE("the estimator is unit-agnostic: microseconds give a thousand times the milliseconds") {
    ClockSyncEstimator ms, us;
    const int64_t sent[] = {0, 50, 90};
    const int64_t remote[] = {1013, 1070, 1101};
    const int64_t received[] = {20, 77, 111};
    for (int i = 0; i < 3; ++i) {
        ms.add_sample(sent[i], remote[i], received[i]);
        us.add_sample(sent[i] * 1000, remote[i] * 1000, received[i] * 1000);
    }
    CHECK(*us.offset() == Approx(*ms.offset() * 1000.0));
    CHECK(*us.round_trip() == *ms.round_trip() * 1000);
}
