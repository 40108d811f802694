// AggregateTree: a Barnes-Hut quadtree that stands in for a distant crowd with one summary
// (total weight at the weighted centroid) and keeps full detail only nearby. Fixed point
// and integer sums throughout: the tree and every walk are identical on every build, and a
// walk never allocates beyond the caller's output vector or takes a square root.
#pragma once

#include "core/fixed.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace tandem {

// One input: a position and an additive quantity (mass, headcount, threat, noise...). The
// tree only assumes the quantity adds and that a distant group acts from its weighted
// centroid.
struct WeightedPoint {
    Fx x;
    Fx y;
    Fx weight;
    friend constexpr bool operator==(WeightedPoint, WeightedPoint) = default;
};

// What a walk emits: one input exactly (count == 1, x/y/weight are the input's own), or a
// stand-in for a group. The members are recoverable through AggregateTree::members.
class Summary {
public:
    Fx x;                    // weighted centroid, correctly rounded (plain centroid if the
    Fx y;                    // weights sum to exactly zero); saturates only for mixed signs
    int64_t weight_raw = 0;  // exact sum of the member weights in Q16.16 units: 64 bits
                             // cannot overflow (count < 2^32, |weight.raw| <= 2^31)
    uint32_t count = 0;      // how many inputs this stands for
    Fx size;                 // width of the cell it came from (how coarse it is), saturated

    // The total weight as an Fx, saturated: a crowd can outweigh the Fx range.
    constexpr Fx weight() const { return Fx::from_raw(detail::saturate32(weight_raw)); }

    friend constexpr bool operator==(const Summary&, const Summary&) = default;

private:
    friend class AggregateTree;
    uint32_t start_ = 0;  // first member in the tree's order
};

namespace detail {
// The opening test: may a cell of width size_raw whose centroid lies (dx, dy) away (raw
// units) be summarised at angle theta_raw? Exactly size < theta * distance, with no square
// root and no rounding. For 0 <= size_raw < 2^33, |dx|, |dy| < 2^32, theta_raw > 0.
bool cell_is_far(int64_t size_raw, int64_t dx, int64_t dy, int32_t theta_raw);
}  // namespace detail

// A quadtree of weighted points. Build once per tick over the whole set, then walk it once
// per viewer: the walk is const, so one tree serves every client in a frame.
//
// Determinism: the partition at every cell is a stable counting split by quadrant (ties
// broken by input index), the cell geometry is integer arithmetic, and the weight and
// centroid sums are exact integers (int64 / Wide), so the same points give the same tree
// bit for bit on every compiler and word size. Permuting the input changes nothing a walk
// reports (summaries, their order, their centroids and weights) except which indices
// members() returns: the same set, listed leaf by leaf in cell order and by ascending input
// index within each leaf.
class AggregateTree {
public:
    // Depths beyond this cannot separate anything: a cell is at most 2^33 raw units wide,
    // so by depth 34 it is narrower than one LSB. It also bounds the walk's fixed stack.
    static constexpr uint8_t max_depth_limit = 48;

    AggregateTree() = default;

    // Over a square cell fitted to the points: centred on their bounding box, as wide as
    // its longer side (at least 1.0). Convenient, but one point wandering outward rescales
    // the whole subdivision; prefer build_in for a world with known bounds.
    // max_depth bounds the subdivision (coincident points would otherwise split forever);
    // a leaf at the limit holds several points and is always summarised as one group.
    // Values above max_depth_limit are treated as max_depth_limit.
    static AggregateTree build(std::span<const WeightedPoint> points, uint8_t max_depth);

    // Over a fixed root cell (centre, width; widths below 1.0 are raised to 1.0). Rebuilt
    // every tick over moving points, the partition then depends only on where things are,
    // so a summary changes when its members move and at no other time. Points outside the
    // cell still count: they fall into the quadrant they lie toward (correct, less balanced).
    static AggregateTree build_in(std::span<const WeightedPoint> points, Fx center_x, Fx center_y, Fx size, uint8_t max_depth);

    // The same, reusing this tree's storage: a per-tick rebuild allocates nothing once the
    // vectors have grown to the crowd's size.
    void rebuild(std::span<const WeightedPoint> points, uint8_t max_depth);
    void rebuild_in(std::span<const WeightedPoint> points, Fx center_x, Fx center_y, Fx size, uint8_t max_depth);

    // Walks from (x, y) and emits the coarsest set of summaries that satisfies the opening
    // angle: a cell of width s whose centroid stands d away is summarised when s < theta * d,
    // decided exactly as s^2 < theta^2 * d^2 (detail::cell_is_far: no square root, no
    // rounding). Leaves are always emitted. theta <= 0 accepts no inner cell, so every input
    // comes back exactly (only points that the depth limit could not separate come back as
    // their leaf), through this same code path: the off switch is not a second implementation.
    // out is cleared first and reused; the walk's stack is a fixed array, so after out has
    // grown once nothing allocates. Summaries come out in member order (ascending start).
    void summarize(Fx x, Fx y, Fx theta, std::vector<Summary>& out) const;

    // The input indices a summary stands for: leaf by leaf in cell order, ascending within
    // each leaf (a depth-limited leaf holds several). Only meaningful for a summary from this
    // tree; one whose range lies outside it yields an empty span rather than a bad read.
    std::span<const uint32_t> members(const Summary& summary) const;

    uint32_t size() const { return static_cast<uint32_t>(order_.size()); }  // points that went in
    bool empty() const { return order_.empty(); }
    uint32_t node_count() const { return static_cast<uint32_t>(nodes_.size()); }

    // Same nodes and same member order (the build's scratch buffer is not part of a tree).
    friend bool operator==(const AggregateTree& a, const AggregateTree& b) {
        return a.nodes_ == b.nodes_ && a.order_ == b.order_;
    }

private:
    static constexpr uint32_t no_child = 0xFFFFFFFFu;

    struct Node {
        int32_t com_x = 0;      // Fx raw
        int32_t com_y = 0;
        int64_t weight_raw = 0;
        int64_t size_raw = 0;   // exact cell width; can exceed the Fx range for a fitted root
        uint32_t start = 0;
        uint32_t len = 0;
        std::array<uint32_t, 4> children{no_child, no_child, no_child, no_child};
        bool leaf = true;
        friend bool operator==(const Node&, const Node&) = default;
    };
    struct Sums;

    void rebuild_cell(std::span<const WeightedPoint> points, int64_t center_x, int64_t center_y, int64_t size, uint8_t max_depth);
    Sums build_node(std::span<const WeightedPoint> points, uint32_t start, uint32_t len, int64_t cx, int64_t cy,
                    int64_t size, uint32_t depth, uint32_t max_depth, uint32_t& index_out);

    std::vector<Node> nodes_;
    std::vector<uint32_t> order_;    // input indices, each node's members contiguous
    std::vector<uint32_t> scratch_;  // the stable split's buffer; kept to reuse on rebuild
};

}  // namespace tandem
