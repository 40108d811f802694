// Properties of src/net/rate_meter.*: a steady rate reads exactly; the rolling rate decays
// to zero when traffic stops and follows a changed rate within its eight-second window while
// the lifetime rate lags; mean is per sample (empty samples included) over the same window;
// share_of is a fraction in [0, 1]; reset forgets; long jumps and huge amounts are safe.
// Expected values are worked by hand in the comments.
#include "tandem/net/rate_meter.hpp"

#include <catch2/catch.hpp>

#include <cstdint>

using tandem::Fx;
using tandem::net::RateMeter;

namespace {

constexpr int64_t ms = 1'000'000;

// Feeds `per_tick` every 10 ms tick (100 ticks a second) from `from` to `to`, adding before
// the tick's elapsed() as a caller polling a counter would. Returns the time reached.
int64_t feed(RateMeter& m, int64_t from, int64_t to, uint64_t per_tick) {
    int64_t now = from;
    while (now < to) {
        now += 10 * ms;
        if (per_tick > 0) m.add(per_tick);
        m.elapsed(now);
    }
    return now;
}

}  // namespace

TEST_CASE("a new meter reads zero everywhere, and the rolling rate waits for a whole second") {
    RateMeter m;
    CHECK(m.per_sec() == 0);
    CHECK(m.lifetime_per_sec() == 0);
    CHECK(m.mean() == 0);
    m.elapsed(0);
    m.add(500);
    m.elapsed(999 * ms);
    CHECK(m.per_sec() == 0);            // no bucket has closed
    CHECK(m.lifetime_per_sec() == 501);  // 500 / 0.999 s = 500.5 -> 501
    m.elapsed(1000 * ms);
    CHECK(m.per_sec() == 500);
}

TEST_CASE("a steady rate reads exactly, per second, per sample and over the lifetime") {
    RateMeter m;
    m.elapsed(0);
    feed(m, 0, 20'000 * ms, 100);  // 100 per 10 ms tick: 10000 a second
    CHECK(m.per_sec() == 10'000);
    CHECK(m.mean() == 100);
    CHECK(m.lifetime_per_sec() == 10'000);
    CHECK(m.window_covered_ns() == 8'000 * ms);
    CHECK(m.total() == 200'000);
    CHECK(m.samples() == 2000);
}

TEST_CASE("the rolling rate decays to zero when traffic stops, the lifetime rate does not") {
    RateMeter m;
    m.elapsed(0);
    int64_t now = feed(m, 0, 20'000 * ms, 100);
    now = feed(m, now, now + 4'000 * ms, 0);
    CHECK(m.per_sec() == 5'000);  // four busy seconds and four silent ones in the window
    now = feed(m, now, now + 4'000 * ms, 0);
    CHECK(m.per_sec() == 0);
    CHECK(m.mean() == 0);  // no samples in the window
    CHECK(m.lifetime_per_sec() == 7'143);  // 200000 / 28 s = 7142.86
}

TEST_CASE("the rolling rate follows a changed rate within its window while the lifetime rate lags") {
    RateMeter m;
    m.elapsed(0);
    int64_t now = feed(m, 0, 60'000 * ms, 10);  // 1000 a second for a minute
    now = feed(m, now, now + 4'000 * ms, 20);   // then 2000 a second
    CHECK(m.per_sec() == 1'500);
    now = feed(m, now, now + 4'000 * ms, 20);
    CHECK(m.per_sec() == 2'000);
    // (60000 + 16000) / 68 s = 1117.6: a readout built on it would still be creeping.
    CHECK(m.lifetime_per_sec() == 1'118);
}

TEST_CASE("mean is per sample, and an empty sample counts toward it") {
    RateMeter m;
    m.elapsed(0);
    int64_t now = 0;
    for (int i = 0; i < 1000; ++i) {  // ten seconds, alternating 10 and nothing
        now += 10 * ms;
        if (i % 2 == 0) {
            m.add(10);
        } else {
            m.add_empty();
        }
        m.elapsed(now);
    }
    CHECK(m.mean() == 5);
    CHECK(m.per_sec() == 500);
    CHECK(m.window_samples() == 800);
    CHECK(m.window_amount() == 4000);
}

TEST_CASE("share_of is the part's fraction of the whole, between 0 and 1 inclusive") {
    RateMeter positions, despawns, bytes, nothing;
    positions.add(861);
    despawns.add(12);
    bytes.add(1000);
    // 861 / 1000 * 65536 = 56426.496 -> 56426; 12 / 1000 * 65536 = 786.432 -> 786.
    CHECK(positions.share_of(bytes).raw() == 56'426);
    CHECK(despawns.share_of(bytes).raw() == 786);
    CHECK(bytes.share_of(bytes) == Fx::one());
    CHECK(bytes.share_of(positions) == Fx::one());  // a part larger than its whole is clamped
    CHECK(positions.share_of(nothing) == Fx::zero());
}

TEST_CASE("reset forgets the totals, the window and the start") {
    RateMeter m;
    m.elapsed(0);
    feed(m, 0, 10'000 * ms, 100);
    m.reset();
    CHECK(m.per_sec() == 0);
    CHECK(m.total() == 0);
    CHECK(m.lifetime_per_sec() == 0);
    m.elapsed(50'000 * ms);  // starts again here
    feed(m, 50'000 * ms, 52'000 * ms, 30);
    CHECK(m.per_sec() == 3'000);
    CHECK(m.lifetime_per_sec() == 3'000);
}

TEST_CASE("a long silence empties the window in one step and a clock running backward is ignored") {
    RateMeter m;
    m.elapsed(0);
    int64_t now = feed(m, 0, 10'000 * ms, 100);
    m.elapsed(now - 5'000 * ms);  // ignored
    CHECK(m.per_sec() == 10'000);
    m.elapsed(now + 3'600'000 * ms);  // an hour later
    CHECK(m.per_sec() == 0);
    m.add(70);
    m.elapsed(now + 3'601'000 * ms);
    CHECK(m.per_sec() == 9);  // 70 over 8 s = 8.75 -> 9
}

TEST_CASE("huge amounts saturate instead of overflowing") {
    RateMeter m;
    m.elapsed(0);
    m.add(UINT64_MAX);
    m.add(UINT64_MAX);
    m.elapsed(1000 * ms);
    CHECK(m.total() == uint64_t{INT64_MAX});
    CHECK(m.per_sec() == uint64_t{INT64_MAX});
}
