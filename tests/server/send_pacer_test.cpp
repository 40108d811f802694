// Properties of src/server/send_pacer.hpp, with time passed in: a tick whose boundary passes
// while a backlog of sends is being flushed starts within one slice (plus one send) of its
// boundary, not after the whole backlog; the backlog is still flushed whole and in order; a
// slice always makes progress.
#include "server/send_pacer.hpp"

#include <catch2/catch.hpp>

#include <deque>
#include <numeric>
#include <vector>

using namespace tandem::server;

namespace {
constexpr int64_t us = 1'000;
constexpr int64_t ms = 1'000'000;
}  // namespace

TEST_CASE("a tick is not delayed past one slice by a backlog of sends") {
    // The transport's thread, modelled: 1,000 connections to flush at 10 us each (10 ms of
    // sends, as at 1,000 watchers) queued at t = 0, the next tick due at 2 ms. Between slices
    // the thread runs what is ready, the tick first once its boundary has passed.
    int64_t clock = 0;
    std::deque<int> pending(1000);
    std::iota(pending.begin(), pending.end(), 0);
    std::vector<int> flushed;
    const int64_t boundary = 2 * ms;
    int64_t tick_started = -1;
    while (!pending.empty()) {
        run_send_slice(
            pending, send_slice_ns, [&] { return clock; },
            [&](int who) {
                flushed.push_back(who);
                clock += 10 * us;
            });
        if (tick_started < 0 && clock >= boundary) tick_started = clock;
    }
    REQUIRE(tick_started >= boundary);
    CHECK(tick_started - boundary <= send_slice_ns + 10 * us);
    std::vector<int> in_order(1000);
    std::iota(in_order.begin(), in_order.end(), 0);
    CHECK(flushed == in_order);
}

TEST_CASE("a slice flushes at least one connection even with no time left, and nothing when none waits") {
    int64_t clock = 0;
    std::deque<int> pending{7, 8};
    int count = 0;
    auto now = [&] { return clock; };
    auto flush = [&](int) {
        ++count;
        clock += 1 * ms;
    };
    CHECK(run_send_slice(pending, 0, now, flush) == 1);
    CHECK(pending.size() == 1);
    std::deque<int> none;
    CHECK(run_send_slice(none, send_slice_ns, now, flush) == 0);
    CHECK(count == 1);
}
