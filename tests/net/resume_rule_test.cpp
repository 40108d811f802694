// Properties of the resume rule (tandem/net/resume_rule.hpp): the wall time of each path from
// the measured costs, worked out by hand (exact fractions, rounded), and both sides of the
// choice between them.
#include <catch2/catch.hpp>

#include "tandem/net/resume_rule.hpp"

using namespace tandem::net;

namespace {
// A default arena in a page: 1.4 ms a step, an 8 ms slice in each 16.7 ms frame.
ResumeCosts page(uint64_t behind) {
    ResumeCosts c;
    c.behind_ticks = behind;
    c.tick_hz = 60;
    c.step_cost_ns = 1'400'000;
    c.step_share_permille = 480;
    c.baseline_fetch_ns = 40'000'000;
    c.baseline_decode_ns = 2'000'000;
    return c;
}
}  // namespace

TEST_CASE("catching up costs the ticks behind plus those arriving meanwhile: n x cost / (share - cost x rate)") {
    // 480 x 1.4 ms / (0.48 - 0.084) = 1.696969697 s
    CHECK(catch_up_wall_ns(480, page(0)) == 1'696'969'697);
    // 3 x 1.4 ms / 0.396 = 10.606061 ms
    CHECK(catch_up_wall_ns(3, page(0)) == 10'606'061);
    CHECK(catch_up_wall_ns(0, page(0)) == 0);
}

TEST_CASE("a baseline costs its fetch, its decode and stepping the ticks the room ran during the fetch") {
    // 40 ms at 60 Hz is 2.4 ticks, 2 rounded, and one in progress: 3 ticks after it.
    const ResumeEstimate e = weigh_resume(page(480));
    CHECK(e.baseline_ns == 40'000'000 + 2'000'000 + 10'606'061);
    CHECK(e.catch_up_ns == 1'696'969'697);
    CHECK_FALSE(e.catch_up);
}

TEST_CASE("both sides of the choice: a few ticks behind catch up, more than a baseline's worth resync") {
    // A baseline's 52.6 ms buys 52.6 / (1.4 / 0.396) = 14.88 ticks of catching up.
    CHECK(weigh_resume(page(14)).catch_up);
    CHECK_FALSE(weigh_resume(page(15)).catch_up);
    // A slower link moves the line: a 500 ms fetch leaves 31 ticks to step after it, and
    // the line moves to 172 behind (611.6 ms against 608.1 for catching up, 611.6 for 173).
    ResumeCosts slow = page(0);
    slow.baseline_fetch_ns = 500'000'000;
    slow.behind_ticks = 172;
    CHECK(weigh_resume(slow).catch_up);
    slow.behind_ticks = 173;
    CHECK_FALSE(weigh_resume(slow).catch_up);
}

TEST_CASE("a tie catches up (it drops no time), one tick more does not") {
    ResumeCosts c;
    c.tick_hz = 60;
    c.step_cost_ns = 1'000'000;
    c.step_share_permille = 1000;
    c.baseline_fetch_ns = 0;
    c.baseline_decode_ns = 0;
    // Nothing to fetch: the baseline still leaves one tick to step, 1 ms / 0.94 = 1,063,830 ns.
    c.behind_ticks = 1;
    ResumeEstimate e = weigh_resume(c);
    CHECK(e.baseline_ns == 1'063'830);
    CHECK(e.catch_up_ns == 1'063'830);
    CHECK(e.catch_up);
    c.behind_ticks = 2;
    e = weigh_resume(c);
    CHECK(e.catch_up_ns == 2'127'660);
    CHECK_FALSE(e.catch_up);
}

TEST_CASE("a session that cannot step faster than the room never catches up, and takes the baseline") {
    ResumeCosts c = page(1);
    c.step_cost_ns = 10'000'000;   // 10 ms x 60 Hz = 0.6 of the wall, above the 0.48 share
    const ResumeEstimate e = weigh_resume(c);
    CHECK(e.catch_up_ns == never_ns);
    CHECK(e.baseline_ns == never_ns);
    CHECK_FALSE(e.catch_up);
}

TEST_CASE("a day's sleep is weighed without overflow, and a worker's whole share counts") {
    ResumeCosts c = page(5'184'000);   // a day at 60 Hz
    c.step_share_permille = 1000;
    // 5,184,000 x 1.4 ms / 0.916 = 7,923.144104803 s
    CHECK(catch_up_wall_ns(c.behind_ticks, c) == 7'923'144'104'803);
    CHECK_FALSE(weigh_resume(c).catch_up);
    c.behind_ticks = UINT64_MAX;
    CHECK(catch_up_wall_ns(c.behind_ticks, c) > 0);
    c.step_share_permille = 5000;   // more than all of it reads as all of it
    CHECK(catch_up_wall_ns(3, c) == 4'585'153);   // 3 x 1.4 ms / 0.916
}

TEST_CASE("ticks not received yet come a flow window per round trip: a long round trip makes catching up slower than a baseline") {
    // 5 s away behind a 1 s round trip: 120 ticks arrived before the room paused the stream,
    // 180 did not; they come 120 a round trip, two round trips, 2 s.
    ResumeCosts c = page(300);
    c.baseline_fetch_ns = 1'000'000'000;
    c.round_trip_ns = 1'000'000'000;
    c.window_ticks = 120;
    c.ring_ticks = 600;
    c.undelivered_ticks = 180;
    ResumeEstimate e = weigh_resume(c);
    CHECK(e.catch_up_ns == 2'000'000'000);
    // The baseline: 1 s, 2 ms, and the 60 + 1 ticks of the fetch, 61 x 1.4 ms / 0.396.
    CHECK(e.baseline_ns == 1'000'000'000 + 2'000'000 + 215'656'566);
    CHECK_FALSE(e.catch_up);
    // Everything received: stepping alone decides, 300 x 3.5354 ms = 1.06 s, the faster.
    c.undelivered_ticks = 0;
    e = weigh_resume(c);
    CHECK(e.catch_up_ns == 1'060'606'061);
    CHECK(e.catch_up);
}

TEST_CASE("more ticks missing than the room's ring holds can only end in a baseline") {
    ResumeCosts c = page(700);
    c.ring_ticks = 600;
    c.undelivered_ticks = 601;
    CHECK(weigh_resume(c).catch_up_ns == never_ns);
    CHECK_FALSE(weigh_resume(c).catch_up);
    c.undelivered_ticks = 600;
    CHECK(weigh_resume(c).catch_up_ns == catch_up_wall_ns(700, c));
}

TEST_CASE("what the room sent before it paused is already in the socket: a frozen page behind less than a window steps it all at once") {
    // Frozen 1 s (60 ticks, nothing read) behind a 200 ms round trip with a 120-tick window:
    // the room sent all 60 before pausing, so no round trip is waited for and stepping alone
    // decides: 60 x 1.4 ms / 0.396 (the page's share less the ticks arriving meanwhile).
    ResumeCosts c = page(60);
    c.baseline_fetch_ns = 200'000'000;
    c.round_trip_ns = 200'000'000;
    c.window_ticks = 120;
    c.ring_ticks = 600;
    c.undelivered_ticks = 60;
    ResumeEstimate e = weigh_resume(c);
    CHECK(e.catch_up_ns == catch_up_wall_ns(60, c));
    CHECK(e.catch_up_ns == 212'121'212);
    // Frozen 3 s (180 ticks, none read): 120 were sent and wait in the socket, 60 were never
    // sent and take one round trip after the page acks; stepping 180 takes longer still.
    c = page(180);
    c.round_trip_ns = 1'000'000'000;
    c.window_ticks = 120;
    c.ring_ticks = 600;
    c.undelivered_ticks = 180;
    CHECK(weigh_resume(c).catch_up_ns == std::max<int64_t>(1'000'000'000, catch_up_wall_ns(180, c)));
    // 241 never read: 121 unsent, two round trips.
    c = page(241);
    c.round_trip_ns = 1'000'000'000;
    c.window_ticks = 120;
    c.ring_ticks = 600;
    c.undelivered_ticks = 241;
    CHECK(weigh_resume(c).catch_up_ns == std::max<int64_t>(2'000'000'000, catch_up_wall_ns(241, c)));
}
