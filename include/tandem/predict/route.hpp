// Predicting a walk by a rule both ends run (a pathfinder over a map both derive): a click
// sends one op for a whole journey, the client expands the same route at once and walks the
// body across its squares on the local clock. The only move that jumps is jump_to; every
// other change of square is walked or glided, so the drawn body never teleports by accident.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace tandem::predict {

using Point2 = std::array<float, 2>;

// What a server square says about the route this client drew.
enum class Heard : uint8_t {
    on_route,    // on the drawn route, no further along than the body plus one tick of steps
    unchecked,   // nothing to check against: the route was not checkable (or there is none)
    diverged,    // off the drawn route: the two ends are not running the same rule (a bug)
};

// P is a square (a tile, a node: whatever the rule routes over), copyable and comparable;
// point(P) maps it to the plane you draw on. Times are integer milliseconds of the local clock.
//
// Each crossing takes one step (step_ms, the server's tick) and covers `steps` squares
// (1 walking, 2 running, as the server's rule defines it). Crossings follow each other on
// the local clock without gaps, so a walk neither drifts nor stutters with the frame rate.
template <class P>
    requires std::equality_comparable<P> && std::copy_constructible<P>
class RoutePredictor {
public:
    using PointOf = std::function<Point2(const P&)>;

    RoutePredictor(P start, PointOf point, int64_t step_ms)
        : point_(std::move(point)), predicted_(std::move(start)), step_ms_(step_ms > 0 ? step_ms : 1) {}

    // Seats the body: the seat assignment, a respawn, a teleport. The only move that jumps,
    // and the one that must come first: nothing walks until it has run once.
    void jump_to(P square, int64_t now_ms) {
        (void)now_ms;
        seeded_ = true;
        predicted_ = square;
        route_.clear();
        crossing_.reset();
        pending_start_.reset();
        checked_.reset();
        hear(std::move(square));  // the seat came from the server: nothing is owed
    }
    bool is_seeded() const { return seeded_; }

    // The step length is live: chase the server's tick. Applies from the next crossing on.
    void set_step_ms(int64_t step_ms) {
        if (step_ms > 0) step_ms_ = step_ms;
    }
    int64_t step_ms() const { return step_ms_; }

    // Walks `route` (the squares after predicted(); a leading predicted() is skipped) from
    // the end of the crossing in progress, or from `now_ms` when at rest. Draw it first and
    // send the op second, so the body already moves when the op leaves. An empty route
    // cancels: the crossing in progress finishes and nothing else happens.
    //
    // `checkable` says the server expands the very same route (a walk to a fixed square);
    // pass false when the rule answers differently on each end (chasing something that
    // moves). A true is honoured only at rest with nothing owed, meaning the body stands still
    // and the server has been heard on that same square: a click mid-walk would make each end
    // expand from a different square. Returns whether the route will be checked.
    bool set_out(std::vector<P> route, bool checkable, int64_t now_ms) {
        if (!seeded_) return false;
        const bool rest = !walking(now_ms);
        if (!route.empty() && route.front() == predicted_) route.erase(route.begin());
        route_.assign(route.begin(), route.end());
        const bool honoured = checkable && rest && !route.empty() && last_server_ && *last_server_ == predicted_;
        if (honoured) {
            checked_.emplace();
            checked_->reserve(route.size() + 1);
            checked_->push_back(predicted_);
            checked_->insert(checked_->end(), route.begin(), route.end());
            reached_ = 0;
        } else {
            checked_.reset();
        }
        if (rest) {
            crossing_.reset();
            pending_start_ = route_.empty() ? std::nullopt : std::optional<int64_t>(now_ms);
        }
        return honoured;
    }

    // Walks the body up to `now_ms`, `steps` squares per crossing (0 counts as 1).
    void advance(int64_t now_ms, uint32_t steps) {
        if (!seeded_) return;
        if (steps == 0) steps = 1;
        for (;;) {
            if (crossing_ && now_ms >= end_of(*crossing_)) {
                const int64_t next_start = end_of(*crossing_);
                crossing_.reset();
                if (!route_.empty()) begin_crossing(next_start, steps);
                continue;
            }
            if (!crossing_ && pending_start_ && !route_.empty()) {
                const int64_t start = *pending_start_;
                pending_start_.reset();
                begin_crossing(start, steps);
                continue;
            }
            return;
        }
    }

    // The only reconciliation: once the body has stopped and the server's square (the last
    // one confirm heard) differs and has stayed the same for two steps (a walking server
    // reports a new square every tick, so it has stopped too), glide there over one step.
    // Both ends normally arrive at the same square, so this usually does nothing.
    bool settle(int64_t now_ms) {
        if (!seeded_ || !last_server_) return false;
        if (server_fresh_) {
            server_fresh_ = false;
            server_since_ms_ = now_ms;
        }
        if (walking(now_ms) || *last_server_ == predicted_) return false;
        if (now_ms - server_since_ms_ < 2 * step_ms_) return false;
        glide_to(*last_server_, now_ms);
        checked_.reset();
        ++settles_;
        return true;
    }

    // Where to draw the body at `now_ms`: along the crossing in progress, else on its square.
    Point2 drawn(int64_t now_ms) const {
        if (!crossing_) return point_(predicted_);
        const Crossing& c = *crossing_;
        const int64_t into = std::clamp<int64_t>(now_ms - c.start_ms, 0, c.duration_ms);
        const size_t segments = c.path.size() - 1;
        const float along = static_cast<float>(into) / static_cast<float>(c.duration_ms) * static_cast<float>(segments);
        size_t k = static_cast<size_t>(along);
        if (k >= segments) k = segments - 1;
        const float f = along - static_cast<float>(k);
        const Point2& a = c.path[k];
        const Point2& b = c.path[k + 1];
        return {a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f};
    }

    // The direction of travel (not normalised), or nothing when standing still.
    std::optional<Point2> heading(int64_t now_ms) const {
        Point2 from{}, to{};
        if (crossing_ && now_ms < end_of(*crossing_)) {
            const Crossing& c = *crossing_;
            const int64_t into = std::clamp<int64_t>(now_ms - c.start_ms, 0, c.duration_ms);
            const size_t segments = c.path.size() - 1;
            size_t k = static_cast<size_t>(into * static_cast<int64_t>(segments) / c.duration_ms);
            if (k >= segments) k = segments - 1;
            from = c.path[k];
            to = c.path[k + 1];
        } else if (!route_.empty()) {
            from = point_(predicted_);
            to = point_(route_.front());
        } else {
            return std::nullopt;
        }
        const Point2 d{to[0] - from[0], to[1] - from[1]};
        if (d[0] == 0.0f && d[1] == 0.0f) return std::nullopt;
        return d;
    }

    // Whether the body is crossing or has squares still to walk (animate a walk cycle).
    bool walking(int64_t now_ms) const { return (crossing_ && now_ms < end_of(*crossing_)) || !route_.empty(); }

    // Checks the server's square against the route this client drew (not against the body's
    // square: the two ends are out of phase by design). On the route, anywhere behind the
    // body (latency) or at most `slack` squares ahead of it (slack: the server's steps per
    // tick), is on_route. Also records the square for settle.
    Heard confirm(const P& server_square, uint32_t slack) {
        hear(server_square);
        if (!checked_) return Heard::unchecked;
        const size_t limit = std::min(checked_->size() - 1, reached_ + static_cast<size_t>(slack));
        for (size_t j = 0; j <= limit; ++j) {
            if ((*checked_)[j] == server_square) {
                ++confirmations_;
                return Heard::on_route;
            }
        }
        ++diverged_;
        return Heard::diverged;
    }

    // The server refused the walk (no route) and holds the body on `tile`: drop the plan and
    // keep the drawn position, gliding from it to `tile` rather than jumping.
    void abandon(P tile, int64_t now_ms) {
        route_.clear();
        pending_start_.reset();
        checked_.reset();
        const bool crossing_there = crossing_ && now_ms < end_of(*crossing_) && predicted_ == tile;
        if (!crossing_there && !(predicted_ == tile && !walking(now_ms))) glide_to(tile, now_ms);
        hear(std::move(tile));
    }

    // The square the body stands on once the crossing in progress ends: route from here.
    const P& predicted() const { return predicted_; }
    // Squares still to walk after the crossing in progress.
    uint32_t owed() const { return static_cast<uint32_t>(route_.size()); }
    bool checking() const { return checked_.has_value(); }
    // Server squares found on the drawn route, and found off it. diverged() should read 0.
    uint64_t confirmations() const { return confirmations_; }
    uint64_t diverged() const { return diverged_; }
    uint64_t settles() const { return settles_; }

private:
    struct Crossing {
        int64_t start_ms = 0;
        int64_t duration_ms = 1;
        std::vector<Point2> path;   // the drawn position at the start, then one point per square
    };

    static int64_t end_of(const Crossing& c) { return c.start_ms + c.duration_ms; }

    void begin_crossing(int64_t start_ms, uint32_t steps) {
        Crossing c{start_ms, step_ms_, {point_(predicted_)}};
        for (uint32_t k = 0; k < steps && !route_.empty(); ++k) {
            predicted_ = route_.front();
            route_.pop_front();
            c.path.push_back(point_(predicted_));
            if (checked_) ++reached_;
        }
        crossing_ = std::move(c);
    }

    void glide_to(const P& square, int64_t now_ms) {
        crossing_ = Crossing{now_ms, step_ms_, {drawn(now_ms), point_(square)}};
        predicted_ = square;
    }

    void hear(P square) {
        if (last_server_ && *last_server_ == square) return;
        last_server_ = std::move(square);
        server_fresh_ = true;
    }

    PointOf point_;
    P predicted_;
    int64_t step_ms_;
    bool seeded_ = false;
    std::optional<Crossing> crossing_;
    std::deque<P> route_;
    std::optional<int64_t> pending_start_;
    std::optional<std::vector<P>> checked_;   // the checkable route, its start square first
    size_t reached_ = 0;                      // index in checked_ of predicted_
    std::optional<P> last_server_;
    bool server_fresh_ = false;
    int64_t server_since_ms_ = 0;
    uint64_t confirmations_ = 0;
    uint64_t diverged_ = 0;
    uint64_t settles_ = 0;
};

}  // namespace tandem::predict
