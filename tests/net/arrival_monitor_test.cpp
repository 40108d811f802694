// Properties of src/net/arrival_monitor.*: the needed delay is a stated quantile of
// lateness plus the send interval (worked by hand), the warm-up is explicit, the window
// forgets, bad configurations are refused; and, end to end over a jittery LatencyLink, a
// render delay of what the monitor names keeps a PlayoutBuffer fed where half of it starves.
#include "tandem/net/arrival_monitor.hpp"

#include <catch2/catch.hpp>

#include <cstdint>

#include "tandem/net/interpolation_clock.hpp"
#include "tandem/net/latency_link.hpp"
#include "tandem/net/playout.hpp"
#include "tandem/net/timeline.hpp"

using tandem::Fx;
using tandem::ratio;
using tandem::net::ArrivalConfig;
using tandem::net::ArrivalMonitor;

namespace {

constexpr int64_t ms = 1'000'000;

ArrivalMonitor monitor(uint32_t window, Fx late_fraction) {
    auto made = ArrivalMonitor::create(ArrivalConfig{window, late_fraction});
    INFO("refused: " << made.message());
    REQUIRE(made.ok());
    return std::move(made).value();
}

}  // namespace

TEST_CASE("an empty or oversized window and a fraction outside 0 <= f < 1 are refused with a code") {
    CHECK(ArrivalMonitor::create(ArrivalConfig{0, ratio(1, 20)}).code() == "window_zero");
    CHECK(ArrivalMonitor::create(ArrivalConfig{tandem::net::max_arrival_window + 1, ratio(1, 20)}).code() ==
          "window_too_large");
    CHECK(ArrivalMonitor::create(ArrivalConfig{20, Fx::one()}).code() == "fraction_out_of_range");
    CHECK(ArrivalMonitor::create(ArrivalConfig{20, -Fx::epsilon()}).code() == "fraction_out_of_range");
    CHECK(ArrivalMonitor::create(ArrivalConfig{tandem::net::max_arrival_window, Fx::zero()}).ok());
    CHECK(ArrivalMonitor::create().ok());
}

TEST_CASE("a steady stream needs its lateness plus one send interval, after an explicit warm-up") {
    auto m = monitor(20, ratio(1, 20));
    CHECK(m.needed_delay() == 0);
    CHECK_FALSE(m.warmed_up());
    for (int64_t k = 0; k < 20; ++k) {
        CHECK_FALSE(m.warmed_up());
        m.observe(k * 50 * ms, k * 50 * ms + 80 * ms);  // stamped every 50 ms, 80 ms old on arrival
    }
    CHECK(m.warmed_up());
    CHECK(m.lateness_quantile() == 80 * ms);
    CHECK(m.send_interval() == 50 * ms);
    CHECK(m.needed_delay() == 130 * ms);
}

TEST_CASE("the quantile leaves exactly floor(fraction * n) of the window's packets late") {
    // Lateness 1..20 ms over a window of 20. ratio(1, 20) is raw 3277, and
    // floor(3277 * 20 / 65536) = floor(1.00006) = 1 packet may be late: the 19th smallest.
    auto m = monitor(20, ratio(1, 20));
    auto all = monitor(20, Fx::zero());
    auto tenth = monitor(20, ratio(1, 10));  // raw 6554: floor(2.0001) = 2 late: the 18th
    for (int64_t k = 1; k <= 20; ++k) {
        const int64_t lateness = ((k * 7) % 20 + 1) * ms;  // 1..20 ms in a scrambled order
        for (auto* x : {&m, &all, &tenth}) x->observe(k * 10 * ms, k * 10 * ms + lateness);
    }
    CHECK(m.lateness_quantile() == 19 * ms);
    CHECK(all.lateness_quantile() == 20 * ms);
    CHECK(tenth.lateness_quantile() == 18 * ms);
    CHECK(m.needed_delay() == 19 * ms + 10 * ms);
}

TEST_CASE("the window forgets a burst of lateness once it has passed") {
    auto m = monitor(20, Fx::zero());
    int64_t t = 0;
    for (int i = 0; i < 20; ++i, t += 50 * ms) m.observe(t, t + 500 * ms);
    CHECK(m.needed_delay() == 550 * ms);
    for (int i = 0; i < 19; ++i, t += 50 * ms) m.observe(t, t + 80 * ms);
    CHECK(m.needed_delay() == 550 * ms);  // one late packet still in the window
    m.observe(t, t + 80 * ms);
    CHECK(m.needed_delay() == 130 * ms);
}

TEST_CASE("the send interval is the median step between stamps, ignoring repeats and steps back") {
    auto m = monitor(9, Fx::zero());
    // Stamps 0, 50, 50 (repeat), 100, 90 (back), 150, 400 (a stall), 450, 500: steps
    // 50, 50, 50, 250, 50, 50 -> lower median 50.
    for (int64_t stamp : {0, 50, 50, 100, 90, 150, 400, 450, 500}) m.observe(stamp * ms, stamp * ms);
    CHECK(m.send_interval() == 50 * ms);
}

TEST_CASE("an estimate running ahead of the stamps never asks for a negative delay") {
    auto m = monitor(4, Fx::zero());
    for (int64_t k = 0; k < 4; ++k) m.observe(k * 50 * ms, k * 50 * ms - 400 * ms);
    CHECK(m.lateness_quantile() == -400 * ms);
    CHECK(m.needed_delay() == 0);
}

namespace {

struct Packet {
    uint32_t seq;
    int64_t stamp;
};

// A 20 Hz stream over an ordered link of 80 ms +/- 40 ms for 60 s, played through a
// PlayoutBuffer by a 60 fps client whose render clock starts on the first packet and stays
// at `delay` behind it. A server stamps each packet with its send time; the client's
// timeline estimates server time from those stamps and from a ping every second over the
// same link. Returns the buffer's underruns and what the monitor said the stream needs.
struct StreamRun {
    uint64_t underruns = 0;
    int64_t needed = 0;
    bool warmed_up = false;
};

StreamRun play_stream(int64_t delay) {
    using namespace tandem::net;
    constexpr int64_t interval = 50 * ms, frame = 16'666'667, latency = 80 * ms, jitter = 40 * ms;
    LatencyLink<Packet> down(1234);
    LatencyLink<int64_t> pings(99), pongs(100);  // ping: client send time; pong: responder time
    auto buffer = PlayoutBuffer<Packet>::create(256, 5'000 * ms).value();
    auto clock = InterpolationClock::create(delay).value();
    auto arrival = ArrivalMonitor::create().value();
    Timeline timeline;
    std::optional<Probe> in_flight;
    uint32_t seq = 0;
    int64_t next_send = 0, next_ping = 0;
    for (int64_t now = 0; now < 60'000 * ms; now += frame) {
        // The server (whose clock is the same as the client's here, so truth is `now`).
        while (next_send <= now) {
            down.send(next_send, Packet{seq++, next_send}, latency, jitter, Fx::zero());
            next_send += interval;
        }
        for (int64_t sent_at : pings.drain_due(now)) pongs.send(now, sent_at, latency, jitter, Fx::zero());
        // The client.
        if (!in_flight && now >= next_ping) {
            in_flight = timeline.begin(now);
            pings.send(now, in_flight->sent_at, latency, jitter, Fx::zero());
            next_ping = now + 1'000 * ms;
        }
        for (int64_t responder : pongs.drain_due(now)) {
            if (in_flight) timeline.complete(*in_flight, now, responder);
            in_flight.reset();
        }
        clock.advance(frame);
        for (Packet& p : down.drain_due(now)) {
            timeline.note_stamp(p.stamp, now);
            arrival.observe(p.stamp, *timeline.server_time(now));
            clock.observe(p.stamp);
            buffer.push(p.stamp, p.seq, p, clock.target());
        }
        if (auto target = clock.target()) {
            while (buffer.pop_due(*target)) {
            }
        }
    }
    return StreamRun{buffer.underruns(), arrival.needed_delay(), arrival.warmed_up()};
}

}  // namespace

TEST_CASE("over a jittery link, the delay the monitor names keeps the stream fed where half of it starves") {
    // The clock starts on the first packet to arrive, which is itself 40..120 ms late, so the
    // delay in force is measured from that packet; the monitor's figure is the honest one.
    const StreamRun probe = play_stream(100 * ms);
    REQUIRE(probe.warmed_up);
    INFO("needed " << probe.needed / ms << " ms");
    // 95% of lateness over 80 +/- 40 ms plus a 50 ms interval: between 80 + 50 and 120 + 50.
    CHECK(probe.needed >= 130 * ms);
    CHECK(probe.needed <= 170 * ms + 10 * ms);
    const StreamRun sized = play_stream(probe.needed);
    const StreamRun halved = play_stream(probe.needed / 2);
    INFO("underruns at the needed delay " << sized.underruns << ", at half of it " << halved.underruns);
    CHECK(halved.underruns > 10 * sized.underruns + 50);
}
