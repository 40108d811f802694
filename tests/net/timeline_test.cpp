// Properties of src/net/timeline.*: the RFC 6298 estimator to the nanosecond (hand-computed),
// refusal of impossible samples, epochs that discard a probe straddling a resume or a
// reconnect, and a server-time estimate that is never behind a received stamp and within half
// the shortest round trip of the truth (against a simulated link whose true offset is known).
#include "tandem/net/timeline.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>

#include "tandem/core/random.hpp"

using tandem::XorShift;
using tandem::net::Probe;
using tandem::net::ProbeOutcome;
using tandem::net::RttEstimator;
using tandem::net::Timeline;

namespace {
constexpr int64_t ms = 1'000'000;
}

TEST_CASE("the round-trip estimator follows RFC 6298 in integer nanoseconds") {
    RttEstimator e;
    CHECK(e.rtt() == std::nullopt);
    CHECK(e.jitter() == std::nullopt);
    CHECK(e.latest() == std::nullopt);
    // First sample R: SRTT = R, RTTVAR = R / 2.
    REQUIRE(e.observe(100 * ms));
    CHECK(e.rtt() == 100 * ms);
    CHECK(e.jitter() == 50 * ms);
    // R = 120: RTTVAR = 3/4 * 50 + 1/4 * |100 - 120| = 42.5; SRTT = 7/8 * 100 + 1/8 * 120 = 102.5.
    REQUIRE(e.observe(120 * ms));
    CHECK(e.jitter() == 42'500'000);
    CHECK(e.rtt() == 102'500'000);
    // R = 80: RTTVAR = 3/4 * 42.5 + 1/4 * 22.5 = 37.5; SRTT = 7/8 * 102.5 + 1/8 * 80 = 99.6875.
    REQUIRE(e.observe(80 * ms));
    CHECK(e.jitter() == 37'500'000);
    CHECK(e.rtt() == 99'687'500);
    CHECK(e.latest() == 80 * ms);
    CHECK(e.samples() == 3);
}

TEST_CASE("the estimator rounds each division to nearest, halves up") {
    RttEstimator e;
    REQUIRE(e.observe(3));
    CHECK(e.jitter() == 2);  // 1.5 -> 2
    REQUIRE(e.observe(4));
    CHECK(e.jitter() == 2);  // (3 * 2 + 1) / 4 = 1.75 -> 2
    CHECK(e.rtt() == 3);     // (7 * 3 + 4) / 8 = 3.125 -> 3
    REQUIRE(e.observe(7));
    CHECK(e.jitter() == 3);  // (3 * 2 + 4) / 4 = 2.5 -> 3
    CHECK(e.rtt() == 4);     // (7 * 3 + 7) / 8 = 3.5 -> 4
}

TEST_CASE("a negative or absurdly long round trip is refused and changes nothing") {
    RttEstimator e;
    CHECK_FALSE(e.observe(-1));
    CHECK_FALSE(e.observe(tandem::net::longest_rtt_sample_ns + 1));
    CHECK(e.samples() == 0);
    REQUIRE(e.observe(tandem::net::longest_rtt_sample_ns));  // the largest accepted: no overflow
    REQUIRE(e.observe(tandem::net::longest_rtt_sample_ns));
    CHECK(e.rtt() == tandem::net::longest_rtt_sample_ns);
}

TEST_CASE("a probe answered within its epoch records a round trip") {
    Timeline t;
    const Probe p = t.begin(1000 * ms);
    CHECK(p.sent_at == 1000 * ms);
    CHECK(t.complete(p, 1080 * ms, 50'000 * ms) == ProbeOutcome::recorded);
    CHECK(t.rtt() == 80 * ms);
    CHECK(t.jitter() == 40 * ms);
}

TEST_CASE("a probe answered after on_resume is discarded rather than recorded") {
    // Sent just before a 10 s suspend, answered just after: it measured the suspend.
    Timeline t;
    REQUIRE(t.complete(t.begin(0), 80 * ms, 1000 * ms) == ProbeOutcome::recorded);
    const Probe straddling = t.begin(1000 * ms);
    t.on_resume();
    CHECK(t.complete(straddling, 11'080 * ms, 12'000 * ms) == ProbeOutcome::stale_epoch);
    CHECK(t.rtt() == 80 * ms);
    CHECK(t.discarded_probes() == 1);
    // Without the epoch, the same answer would have been recorded as a 10 s round trip.
    Timeline unaware;
    REQUIRE(unaware.complete(unaware.begin(0), 80 * ms, 1000 * ms) == ProbeOutcome::recorded);
    REQUIRE(unaware.complete(unaware.begin(1000 * ms), 11'080 * ms, 12'000 * ms) == ProbeOutcome::recorded);
    CHECK(unaware.estimator().latest() == 10'080 * ms);
    // A probe begun after the resume is recorded.
    CHECK(t.complete(t.begin(11'100 * ms), 11'190 * ms, 12'100 * ms) == ProbeOutcome::recorded);
    CHECK(t.estimator().latest() == 90 * ms);
}

TEST_CASE("a probe answered after on_reconnect is discarded, and the old server clock is forgotten") {
    Timeline t;
    REQUIRE(t.complete(t.begin(0), 100 * ms, 5000 * ms) == ProbeOutcome::recorded);
    REQUIRE(t.server_time(100 * ms).has_value());
    const Probe old = t.begin(200 * ms);
    const uint32_t epoch = t.epoch();
    t.on_reconnect();
    CHECK(t.epoch() == epoch + 1);
    CHECK(t.complete(old, 260 * ms, 5200 * ms) == ProbeOutcome::stale_epoch);
    CHECK(t.server_time(300 * ms) == std::nullopt);
    CHECK(t.rtt() == 100 * ms);  // the round trip is kept as a prior
}

TEST_CASE("a probe answered before it was sent is impossible and discarded") {
    Timeline t;
    const Probe p = t.begin(500 * ms);
    CHECK(t.complete(p, 499 * ms, 0) == ProbeOutcome::impossible);
    CHECK(t.rtt() == std::nullopt);
    CHECK(t.server_time(500 * ms) == std::nullopt);
    CHECK(t.discarded_probes() == 1);
}

TEST_CASE("server time is the midpoint of what the probes and stamps allow") {
    Timeline t;
    CHECK(t.server_time(0) == std::nullopt);
    // A stamp alone proves only a lower bound: the server had reached 5000 by local 1000.
    t.note_stamp(5000 * ms, 1000 * ms);
    CHECK(t.server_time(1000 * ms) == 5000 * ms);
    CHECK(t.server_time(1010 * ms) == 5010 * ms);
    // A probe sent at 1000, answered at 1100 with responder 5040: offset in [3940, 4040];
    // with the stamp's offset >= 4000, [4000, 4040]: midpoint 4020.
    REQUIRE(t.complete(t.begin(1000 * ms), 1100 * ms, 5040 * ms) == ProbeOutcome::recorded);
    CHECK(t.server_time(1100 * ms) == 5120 * ms);
    // A later stamp that raises the lower bound to 4030: [4030, 4040], midpoint 4035.
    t.note_stamp(5230 * ms, 1200 * ms);
    CHECK(t.server_time(1200 * ms) == 5235 * ms);
    CHECK(t.clock_resets() == 0);
}

TEST_CASE("bounds that contradict each other restart from the newest observation") {
    Timeline t;
    REQUIRE(t.complete(t.begin(0), 100 * ms, 1000 * ms) == ProbeOutcome::recorded);  // [900, 1000]
    // The server's clock jumped 10 s ahead: a stamp proving offset >= 10900 contradicts <= 1000.
    t.note_stamp(11'000 * ms, 100 * ms);
    CHECK(t.clock_resets() == 1);
    CHECK(t.server_time(100 * ms) == 11'000 * ms);
}

TEST_CASE("the estimate is never behind a received stamp and within half the shortest round trip of the truth") {
    // A simulated link with a known offset and independent random delays each way.
    constexpr int64_t true_offset = 123'456'789'012;
    Timeline t;
    XorShift rng(7);
    int64_t shortest_rtt = INT64_MAX;
    int64_t now = 0;
    for (int i = 0; i < 2000; ++i) {
        now += 10 * ms;
        if (i % 10 == 0) {
            const int64_t up = 10 * ms + rng.below(80'000'000), down = 10 * ms + rng.below(80'000'000);
            const Probe p = t.begin(now);
            const int64_t responder = now + up + true_offset;
            REQUIRE(t.complete(p, now + up + down, responder) == ProbeOutcome::recorded);
            if (up + down < shortest_rtt) shortest_rtt = up + down;
            const int64_t at = now + up + down;
            const int64_t error = *t.server_time(at) - (at + true_offset);
            REQUIRE(error <= (shortest_rtt + 1) / 2);
            REQUIRE(error >= -(shortest_rtt + 1) / 2);
        }
        // A frame stamped when sent, delivered after a random one-way delay.
        const int64_t down = 5 * ms + rng.below(60'000'000);
        const int64_t stamp = now + true_offset;
        t.note_stamp(stamp, now + down);
        REQUIRE(*t.server_time(now + down) >= stamp);
    }
    CHECK(t.clock_resets() == 0);
}

TEST_CASE("stamps at the ends of the time range saturate instead of overflowing") {
    Timeline t;
    t.note_stamp(INT64_MAX, INT64_MIN);
    CHECK(t.server_time(INT64_MAX) == INT64_MAX);
    REQUIRE(t.complete(t.begin(INT64_MIN), INT64_MIN + 5, INT64_MIN) == ProbeOutcome::recorded);
    CHECK(t.server_time(0).has_value());
}
