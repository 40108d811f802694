// Properties of include/tandem/net/latency_link.hpp: delivery after the latency, jitter
// within its bounds, an ordered link that never reorders under jitter (and an unordered one
// that does), loss at the stated fraction (checked against the binomial spread), and runs
// that repeat exactly for a seed.
#include "tandem/net/latency_link.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

using tandem::Fx;
using tandem::ratio;
using tandem::XorShift;
using tandem::net::LatencyLink;
using tandem::net::LinkOrdering;

namespace {

constexpr int64_t ms = 1'000'000;

struct Sent {
    uint32_t seq;
    int64_t sent_at;
};

struct Delivery {
    uint32_t seq;
    int64_t sent_at;
    int64_t delivered_at;
};

// Sends one packet a millisecond for `count` ms and drains every millisecond until empty.
std::vector<Delivery> run(LatencyLink<Sent>& link, uint32_t count, int64_t latency, int64_t jitter, Fx loss) {
    std::vector<Delivery> out;
    for (int64_t now = 0; now < int64_t{count} * ms || link.in_flight() > 0; now += ms) {
        if (now < int64_t{count} * ms) link.send(now, Sent{static_cast<uint32_t>(now / ms), now}, latency, jitter, loss);
        for (const Sent& s : link.drain_due(now)) out.push_back(Delivery{s.seq, s.sent_at, now});
    }
    return out;
}

}  // namespace

TEST_CASE("a packet arrives after its latency, not before") {
    LatencyLink<int> link(1);
    link.send(0, 7, 80 * ms, 0, Fx::zero());
    CHECK(link.next_due() == 80 * ms);
    CHECK(link.drain_due(80 * ms - 1).empty());
    CHECK(link.drain_due(80 * ms) == std::vector<int>{7});
    CHECK(link.in_flight() == 0);
    CHECK(link.next_due() == std::nullopt);
}

TEST_CASE("an ordered link never reorders under jitter, and an unordered one does") {
    LatencyLink<Sent> ordered(5);
    CHECK(ordered.ordering() == LinkOrdering::ordered);  // the default: what TCP and WebSocket are
    const std::vector<Delivery> in_order = run(ordered, 10'000, 80 * ms, 60 * ms, Fx::zero());
    REQUIRE(in_order.size() == 10'000);
    for (size_t i = 1; i < in_order.size(); ++i) REQUIRE(in_order[i].seq == in_order[i - 1].seq + 1);

    LatencyLink<Sent> unordered(5, LinkOrdering::unordered);
    const std::vector<Delivery> shuffled = run(unordered, 10'000, 80 * ms, 60 * ms, Fx::zero());
    REQUIRE(shuffled.size() == 10'000);
    int inversions = 0;
    for (size_t i = 1; i < shuffled.size(); ++i) inversions += shuffled[i].seq < shuffled[i - 1].seq ? 1 : 0;
    CHECK(inversions > 1000);
}

TEST_CASE("jitter stays within latency +/- jitter, ordering only ever holds a packet back") {
    LatencyLink<Sent> unordered(8, LinkOrdering::unordered);
    int64_t least = INT64_MAX, most = INT64_MIN;
    for (const Delivery& d : run(unordered, 20'000, 80 * ms, 15 * ms, Fx::zero())) {
        least = std::min(least, d.delivered_at - d.sent_at);
        most = std::max(most, d.delivered_at - d.sent_at);
    }
    // Draining every millisecond rounds delivery up to the next whole millisecond, and 20000
    // draws spread over 30 ms come within a millisecond of both ends.
    CHECK(least >= 65 * ms);
    CHECK(least <= 66 * ms);
    CHECK(most <= 95 * ms);
    CHECK(most >= 94 * ms);
    LatencyLink<Sent> ordered(8);
    for (const Delivery& d : run(ordered, 20'000, 80 * ms, 15 * ms, Fx::zero())) REQUIRE(d.delivered_at - d.sent_at >= 65 * ms);
}

TEST_CASE("a latency shorter than the jitter never delivers before the send") {
    LatencyLink<Sent> link(3, LinkOrdering::unordered);
    for (const Delivery& d : run(link, 5000, 2 * ms, 30 * ms, Fx::zero())) REQUIRE(d.delivered_at >= d.sent_at);
}

TEST_CASE("loss drops the stated fraction of packets") {
    // ratio(2, 100) is raw 1311: p = 1311 / 65536 = 0.020004. Over 100000 sends the count is
    // binomial with mean 2000.4 and standard deviation 44.3; five deviations either side.
    LatencyLink<int> link(21);
    for (int i = 0; i < 100'000; ++i) link.send(0, i, 10 * ms, 0, ratio(2, 100));
    CHECK(link.sent() == 100'000);
    CHECK(link.lost() >= 1779);
    CHECK(link.lost() <= 2222);
    CHECK(link.lost() + link.in_flight() == 100'000);
    // The ends are exact, not merely likely: a 1-in-65536 slip at zero loss would show as
    // about 4.6 drops in 300000 sends.
    LatencyLink<int> none(21), all(21);
    for (int i = 0; i < 300'000; ++i) {
        none.send(i, i, 0, 0, Fx::zero());
        all.send(i, i, 0, 0, Fx::one());
        (void)none.drain_due(i);
    }
    CHECK(none.lost() == 0);
    CHECK(all.lost() == 300'000);
}

TEST_CASE("the same seed delivers the same packets at the same instants, another seed does not") {
    LatencyLink<Sent> a(42), b(42), c(43);
    const auto da = run(a, 3000, 80 * ms, 15 * ms, ratio(5, 100));
    const auto db = run(b, 3000, 80 * ms, 15 * ms, ratio(5, 100));
    const auto dc = run(c, 3000, 80 * ms, 15 * ms, ratio(5, 100));
    auto same = [](const std::vector<Delivery>& x, const std::vector<Delivery>& y) {
        if (x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); ++i) {
            if (x[i].seq != y[i].seq || x[i].delivered_at != y[i].delivered_at) return false;
        }
        return true;
    };
    CHECK(same(da, db));
    CHECK_FALSE(same(da, dc));
}

TEST_CASE("changing the loss leaves the survivors' delays unchanged") {
    // Every send draws loss and jitter whatever the outcome, so the streams stay aligned.
    LatencyLink<Sent> lossless(9, LinkOrdering::unordered), lossy(9, LinkOrdering::unordered);
    const auto all = run(lossless, 5000, 80 * ms, 30 * ms, Fx::zero());
    const auto some = run(lossy, 5000, 80 * ms, 30 * ms, ratio(1, 2));
    std::vector<int64_t> delay_of(5000, -1);
    for (const Delivery& d : all) delay_of[d.seq] = d.delivered_at - d.sent_at;
    REQUIRE(some.size() < all.size());
    for (const Delivery& d : some) REQUIRE(d.delivered_at - d.sent_at == delay_of[d.seq]);
}

TEST_CASE("uniform_through covers its whole range, both ends included") {
    XorShift rng(77);
    std::vector<int> seen(5, 0);
    for (int i = 0; i < 5000; ++i) {
        const uint64_t v = tandem::net::uniform_through(rng, 4);
        REQUIRE(v <= 4);
        ++seen[v];
    }
    // Each of 5 values: mean 1000, standard deviation 28.3; six deviations either side.
    for (int count : seen) {
        CHECK(count > 830);
        CHECK(count < 1170);
    }
    CHECK(tandem::net::uniform_through(rng, 0) == 0);
    (void)tandem::net::uniform_through(rng, UINT64_MAX);  // the full range: no endless loop
}
