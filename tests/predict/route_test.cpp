// Properties of tandem/predict/route.hpp: nothing walks before the seat, a route is walked a
// step per tick on the local clock without jumps, only a route drawn at rest with nothing
// owed is checked, and the server's square is judged against the route that was drawn.
#include "tandem/predict/route.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using Catch::Detail::Approx;
using tandem::predict::Heard;
using tandem::predict::Point2;
using tandem::predict::RoutePredictor;

namespace {
struct Tile {
    int x = 0;
    int y = 0;
    friend bool operator==(Tile, Tile) = default;
};
Point2 tile_point(const Tile& t) { return {static_cast<float>(t.x), static_cast<float>(t.y)}; }
constexpr int64_t tick = 600;

// A straight walk east from (0,0): the route (1,0) .. (n,0).
std::vector<Tile> east(int from, int n) {
    std::vector<Tile> r;
    for (int i = from + 1; i <= from + n; ++i) r.push_back(Tile{i, 0});
    return r;
}

RoutePredictor<Tile> seated() {
    RoutePredictor<Tile> body(Tile{}, tile_point, tick);
    body.jump_to(Tile{0, 0}, 0);
    return body;
}
}  // namespace

TEST_CASE("nothing walks until jump_to has seated the body") {
    RoutePredictor<Tile> body(Tile{}, tile_point, tick);
    CHECK_FALSE(body.is_seeded());
    CHECK_FALSE(body.set_out(east(0, 3), true, 0));
    body.advance(5000, 1);
    CHECK(body.drawn(5000) == Point2{0, 0});
    CHECK_FALSE(body.walking(5000));
    body.jump_to(Tile{7, 7}, 5000);
    CHECK(body.is_seeded());
    CHECK(body.drawn(5000) == Point2{7, 7});
}

TEST_CASE("a route is walked one square per tick on the local clock, without a jump") {
    RoutePredictor<Tile> body = seated();
    CHECK(body.set_out(east(0, 4), true, 1000));
    Point2 previous = body.drawn(1000);
    float largest_move = 0.0f;
    for (int64_t now = 1000; now <= 1000 + 5 * tick; now += 10) {
        body.advance(now, 1);
        const Point2 p = body.drawn(now);
        largest_move = std::max(largest_move, std::fabs(p[0] - previous[0]) + std::fabs(p[1] - previous[1]));
        previous = p;
        if (now == 1000 + tick / 2) CHECK(p[0] == Approx(0.5f));
        if (now == 1000 + 2 * tick + tick / 4) CHECK(p[0] == Approx(2.25f));
    }
    CHECK(largest_move <= 10.0f / tick + 1e-5f);   // 10 ms of a one-square, 600 ms crossing
    CHECK(body.drawn(1000 + 4 * tick) == Point2{4, 0});
    CHECK(body.predicted() == Tile{4, 0});
    CHECK_FALSE(body.walking(1000 + 4 * tick));
}

TEST_CASE("a run covers its steps of squares in one tick") {
    RoutePredictor<Tile> body = seated();
    body.set_out(east(0, 4), true, 0);
    body.advance(0, 2);
    CHECK(body.predicted() == Tile{2, 0});
    CHECK(body.drawn(tick / 2)[0] == Approx(1.0f));
    body.advance(tick, 2);
    body.advance(2 * tick, 2);
    CHECK(body.drawn(2 * tick) == Point2{4, 0});
}

TEST_CASE("a late frame catches up on the local clock instead of slowing the walk") {
    RoutePredictor<Tile> body = seated();
    body.set_out(east(0, 5), false, 0);
    body.advance(0, 1);
    body.advance(2 * tick + tick / 2, 1);   // one frame, 2.5 ticks later
    CHECK(body.drawn(2 * tick + tick / 2)[0] == Approx(2.5f));
}

TEST_CASE("the step length is live and applies from the next crossing") {
    RoutePredictor<Tile> body = seated();
    body.set_out(east(0, 3), false, 0);
    body.advance(0, 1);
    body.set_step_ms(300);
    body.advance(tick, 1);   // the first crossing keeps its 600 ms; the second takes 300
    CHECK(body.drawn(tick + 150)[0] == Approx(1.5f));
    CHECK(body.step_ms() == 300);
}

TEST_CASE("heading and walking follow the crossing in progress") {
    RoutePredictor<Tile> body = seated();
    CHECK_FALSE(body.heading(0).has_value());
    body.set_out({Tile{1, 0}, Tile{1, 1}}, false, 0);
    body.advance(0, 1);
    CHECK(body.walking(10));
    CHECK(body.heading(10) == Point2{1, 0});
    body.advance(tick + 10, 1);
    CHECK(body.heading(tick + 10) == Point2{0, 1});
    body.advance(2 * tick, 1);
    CHECK_FALSE(body.walking(2 * tick));
    CHECK_FALSE(body.heading(2 * tick).has_value());
}

TEST_CASE("an empty route cancels: the crossing in progress finishes and nothing else happens") {
    RoutePredictor<Tile> body = seated();
    body.set_out(east(0, 5), false, 0);
    body.advance(0, 1);
    body.set_out({}, false, tick / 3);
    body.advance(5 * tick, 1);
    CHECK(body.predicted() == Tile{1, 0});
    CHECK(body.drawn(5 * tick) == Point2{1, 0});
}

TEST_CASE("a click mid-walk continues from the end of the crossing in progress") {
    RoutePredictor<Tile> body = seated();
    body.set_out(east(0, 5), false, 0);
    body.advance(0, 1);
    // Routed from predicted() == (1,0), which the route may list first.
    body.set_out({Tile{1, 0}, Tile{1, 1}, Tile{1, 2}}, false, tick / 2);
    body.advance(tick, 1);
    CHECK(body.predicted() == Tile{1, 1});
    body.advance(3 * tick, 1);
    CHECK(body.drawn(3 * tick) == Point2{1, 2});
}

TEST_CASE("checkable is honoured only at rest with nothing owed") {
    RoutePredictor<Tile> body = seated();
    CHECK(body.set_out(east(0, 3), true, 0));   // at rest, the server seated it here
    body.advance(0, 1);
    CHECK_FALSE(body.set_out(east(1, 2), true, 100));   // mid-walk: each end expands elsewhere
    CHECK_FALSE(body.checking());
    body.confirm(Tile{1, 0}, 1);   // even with the server heard on the square it heads for
    CHECK_FALSE(body.set_out(east(1, 2), true, 200));
    body.advance(10 * tick, 1);
    // At rest on (3,0), but the server has not been heard there yet: still owed.
    CHECK_FALSE(body.set_out(east(3, 1), true, 10 * tick));
    body.advance(20 * tick, 1);
    CHECK(body.confirm(Tile{4, 0}, 1) == Heard::unchecked);
    CHECK(body.set_out(east(4, 2), true, 20 * tick));   // at rest where the server stands
    CHECK(body.checking());
    CHECK_FALSE(body.set_out(east(6, 2), false, 30 * tick));   // not checkable: never checked
}

TEST_CASE("the server's square is judged against the drawn route, not the body's square") {
    RoutePredictor<Tile> body = seated();
    REQUIRE(body.set_out(east(0, 6), true, 0));
    body.advance(0, 1);
    body.advance(3 * tick, 1);   // the body is crossing to (4,0)
    CHECK(body.confirm(Tile{0, 0}, 1) == Heard::on_route);   // far behind: latency, fine
    CHECK(body.confirm(Tile{2, 0}, 1) == Heard::on_route);
    CHECK(body.confirm(Tile{5, 0}, 1) == Heard::on_route);   // a tick ahead: phase, fine
    CHECK(body.confirm(Tile{6, 0}, 1) == Heard::diverged);   // two ticks ahead of the body
    CHECK(body.confirm(Tile{2, 1}, 1) == Heard::diverged);   // off the route
    CHECK(body.confirmations() == 3);
    CHECK(body.diverged() == 2);
}

TEST_CASE("an unchecked route is never judged") {
    RoutePredictor<Tile> body = seated();
    body.set_out(east(0, 3), false, 0);
    body.advance(tick, 1);
    CHECK(body.confirm(Tile{9, 9}, 1) == Heard::unchecked);
    CHECK(body.diverged() == 0);
}

TEST_CASE("settle takes the server's square once both have stopped, gliding there") {
    RoutePredictor<Tile> body = seated();
    body.set_out(east(0, 2), false, 0);
    body.advance(0, 1);
    body.advance(2 * tick, 1);   // the body stands on (2,0)
    body.confirm(Tile{1, 0}, 1);   // the server stopped short on (1,0)
    CHECK_FALSE(body.settle(2 * tick));            // first heard now: maybe it is still walking
    CHECK_FALSE(body.settle(3 * tick));
    CHECK(body.settle(4 * tick));                  // unchanged for two steps: it has stopped
    CHECK(body.drawn(4 * tick) == Point2{2, 0});   // no jump at the moment of settling
    CHECK(body.drawn(4 * tick + tick / 2)[0] == Approx(1.5f));
    CHECK(body.drawn(5 * tick) == Point2{1, 0});
    CHECK(body.predicted() == Tile{1, 0});
    CHECK_FALSE(body.settle(6 * tick));
    CHECK(body.settles() == 1);
}

TEST_CASE("settle waits while the body walks or the server agrees") {
    RoutePredictor<Tile> body = seated();
    body.set_out(east(0, 3), false, 0);
    body.advance(0, 1);
    body.confirm(Tile{0, 0}, 1);
    CHECK_FALSE(body.settle(5 * tick / 2));   // the body is still walking
    body.advance(5 * tick, 1);
    body.confirm(Tile{3, 0}, 1);
    CHECK_FALSE(body.settle(5 * tick));
    CHECK_FALSE(body.settle(9 * tick));       // same square: nothing to do
}

TEST_CASE("abandon keeps the drawn position, drops the plan and glides to the server's square") {
    RoutePredictor<Tile> body = seated();
    body.set_out(east(0, 5), true, 0);
    body.advance(0, 1);
    body.advance(tick + tick / 2, 1);   // drawn at 1.5
    body.abandon(Tile{0, 0}, tick + tick / 2);
    CHECK(body.drawn(tick + tick / 2)[0] == Approx(1.5f));
    CHECK_FALSE(body.checking());
    CHECK(body.owed() == 0);
    body.advance(5 * tick, 1);
    CHECK(body.drawn(5 * tick) == Point2{0, 0});
    CHECK(body.predicted() == Tile{0, 0});
}
