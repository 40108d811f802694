// Properties of src/server/activity_trace.*: the handler that held the thread at a tick's
// boundary is named, the time from the boundary to the tick's start is divided among the
// marked handlers without counting a nested mark twice, and the rest is reported unmarked.
#include "server/activity_trace.hpp"

#include <catch2/catch.hpp>

using namespace tandem::server;

namespace {
constexpr int64_t us = 1'000;
int64_t within(const ActivityTrace::Report& r, Activity a) { return r.within_ns[static_cast<size_t>(a)]; }
}  // namespace

TEST_CASE("the handler running across the boundary is named with how long it ran on either side") {
    ActivityTrace trace;
    trace.begin(Activity::send, 100 * us);
    trace.end(900 * us);
    trace.begin(Activity::ws_read, 950 * us);
    trace.end(990 * us);
    const auto r = trace.explain(500 * us, 1000 * us);
    CHECK(r.at_boundary == Activity::send);
    CHECK(r.at_boundary_before_ns == 400 * us);
    CHECK(r.at_boundary_after_ns == 400 * us);
    CHECK(within(r, Activity::send) == 400 * us);   // 500..900
    CHECK(within(r, Activity::ws_read) == 40 * us);  // 950..990
    CHECK(r.unmarked_ns == 60 * us);                 // 900..950 and 990..1000
}

TEST_CASE("a nested mark suspends the outer one: nothing is counted twice") {
    ActivityTrace trace;
    trace.begin(Activity::ws_read, 0);
    trace.begin(Activity::send, 100 * us);
    trace.end(300 * us);
    trace.end(400 * us);
    const auto r = trace.explain(0, 400 * us);
    CHECK(within(r, Activity::ws_read) == 200 * us);
    CHECK(within(r, Activity::send) == 200 * us);
    CHECK(r.unmarked_ns == 0);
}

TEST_CASE("a thread idle at the boundary names no handler, and old segments are forgotten") {
    ActivityTrace trace;
    trace.begin(Activity::step, 0);
    trace.end(100 * us);
    auto r = trace.explain(200 * us, 300 * us);
    CHECK(r.at_boundary == Activity::count);
    CHECK(r.unmarked_ns == 100 * us);
    // The step ended before the last tick started: a later question does not see it.
    r = trace.explain(0, 400 * us);
    CHECK(within(r, Activity::step) == 0);
}
