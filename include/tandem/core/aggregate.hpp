// AggregateTree: a Barnes-Hut quadtree that stands in for a distant crowd with one summary
// (total weight at the weighted centroid) and keeps full detail only nearby. Fixed point
// and integer sums throughout: the tree and every walk are identical on every build, and a
// walk never allocates beyond the caller's output vector or takes a square root.
#pragma once

#include "tandem/core/fixed.hpp"
#include "tandem/core/result.hpp"

#include <array>
#include <cstdint>
#include <utility>
#include <span>
#include <string_view>
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

// Why a build refused its points. The tree's indices and counts are uint32_t on every build
// (wasm32 and x86-64 must agree on everything observable), so it holds at most
// AggregateTree::max_points points; a refused build leaves the tree empty.
enum class AggregateError : uint8_t {
    too_many_points,
};
std::string_view error_name(AggregateError error);  // "too_many_points"
std::string_view describe(AggregateError error);

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
    // so by depth 34 it is narrower than one LSB. It also bounds the per-depth thresholds of
    // an Opening.
    static constexpr uint8_t max_depth_limit = 48;
    // The most points a build takes (indices are uint32_t; reaching it on a 64-bit host
    // takes 48 GiB of points). More are refused with AggregateError::too_many_points.
    static constexpr uint32_t max_points = 0xFFFFFFFEu;

    AggregateTree() = default;

    // Over a square cell fitted to the points: centred on their bounding box, as wide as
    // its longer side (at least 1.0). Convenient, but one point wandering outward rescales
    // the whole subdivision; prefer build_in for a world with known bounds.
    // max_depth bounds the subdivision (coincident points would otherwise split forever);
    // a leaf at the limit holds several points and is always summarised as one group.
    // Values above max_depth_limit are treated as max_depth_limit.
    static Result<AggregateTree, AggregateError> build(std::span<const WeightedPoint> points, uint8_t max_depth);

    // Over a fixed root cell (centre, width; widths below 1.0 are raised to 1.0). Rebuilt
    // every tick over moving points, the partition then depends only on where things are,
    // so a summary changes when its members move and at no other time. Points outside the
    // cell still count: they fall into the quadrant they lie toward (correct, less balanced).
    static Result<AggregateTree, AggregateError> build_in(std::span<const WeightedPoint> points, Fx center_x,
                                                          Fx center_y, Fx size, uint8_t max_depth);

    // The same, reusing this tree's storage: a per-tick rebuild allocates nothing once the
    // vectors have grown to the crowd's size. A refusal leaves the tree empty.
    Result<void, AggregateError> rebuild(std::span<const WeightedPoint> points, uint8_t max_depth);
    Result<void, AggregateError> rebuild_in(std::span<const WeightedPoint> points, Fx center_x, Fx center_y, Fx size,
                                            uint8_t max_depth);

    // Walks from (x, y) and emits the coarsest set of summaries that satisfies the opening
    // angle: a cell of width s whose centroid stands d away is summarised when s < theta * d,
    // decided exactly as s^2 < theta^2 * d^2 (detail::cell_is_far: no square root, no
    // rounding). Leaves are always emitted. theta <= 0 accepts no inner cell, so every input
    // comes back exactly (only points that the depth limit could not separate come back as
    // their leaf), through this same code path: the off switch is not a second implementation.
    // out is cleared first and reused; the walk keeps no stack (the nodes are in preorder with
    // skip links), so after out has grown once nothing allocates. Summaries come out in member order (ascending start).
    // The same as visit() with a callback that appends to out.
    void summarize(Fx x, Fx y, Fx theta, std::vector<Summary>& out) const;

    // The opening test at one theta, precomputed per depth for this tree's root width: a cell
    // at depth k (width root >> k) is far exactly when dx^2 + dy^2 > floor(S_k^2 / theta^2)
    // (raw units, S_k the width scaled to raw^2 units), which is the same decision as
    // detail::cell_is_far, with one integer comparison per cell instead of 128-bit squares.
    // Make one per theta after a build and reuse it for every viewer of that tree: it stays
    // valid until a rebuild changes the root width or the depth of the tree.
    class Opening {
    public:
        Opening() = default;
        Fx theta() const { return Fx::from_raw(theta_raw_); }

        // The decision for a cell at depth (width size_raw == root >> depth) whose centroid
        // lies (dx, dy) away, raw units, |dx|, |dy| < 2^32. theta must be positive.
        bool is_far(uint32_t depth, int64_t size_raw, int64_t dx, int64_t dy) const {
            const uint64_t ax = dx < 0 ? uint64_t{0} - static_cast<uint64_t>(dx) : static_cast<uint64_t>(dx);
            const uint64_t ay = dy < 0 ? uint64_t{0} - static_cast<uint64_t>(dy) : static_cast<uint64_t>(dy);
            // Both below 2^31: the squared distance is below 2^63 and exact in 64 bits.
            if (((ax | ay) >> 31) == 0) return ax * ax + ay * ay > beyond_[depth];
            return detail::cell_is_far(size_raw, dx, dy, theta_raw_);
        }

    private:
        friend class AggregateTree;
        int64_t root_size_ = -1;  // the root width the thresholds were made for
        uint32_t levels_ = 0;     // thresholds for depths [0, levels_)
        int32_t theta_raw_ = 0;
        // beyond_[k] = floor(S_k^2 / t^2), saturated to UINT64_MAX (then nothing in the fast
        // path's range is far, which is exact: the true quotient is >= 2^64 > every d^2 < 2^63).
        std::array<uint64_t, max_depth_limit + 1> beyond_{};
        // The same decisions as one signed comparison per node, for a walk whose every
        // |dx|, |dy| < 2^31 (so d^2 < 2^63): index a node by its level (its depth if inner,
        // leaf_level if a leaf). Inner: beyond_[k] capped at INT64_MAX (above every such d^2,
        // as is beyond_[k] when larger), or INT64_MAX when theta <= 0 (no inner cell is far).
        // Leaf: -1, below every d^2 >= 0 (a leaf is always emitted).
        std::array<int64_t, max_depth_limit + 2> walk_beyond_{};
    };

    // The opening test at theta for this tree, computed once (one division per depth that has
    // an inner cell). theta <= 0 opens every inner cell, as in summarize.
    Opening opening(Fx theta) const;

    // The zero-allocation walk: calls on_summary(const Summary&) for exactly the summaries
    // summarize() would emit, in the same order (summarize is this with a push_back). The
    // opening should come from opening() on this tree since its last rebuild; a stale one
    // (another root width, or too few depths) is never walked with: the walk computes a fresh
    // opening(opening.theta()) for itself instead, so the summaries are the same either way
    // and only the cost of one opening is lost.
    template <class F>
    void visit(Fx x, Fx y, const Opening& opening, F&& on_summary) const;
    // The same, computing the opening for this walk alone: prefer the overload above when
    // one tree is walked from many viewers at one theta.
    template <class F>
    void visit(Fx x, Fx y, Fx theta, F&& on_summary) const {
        visit(x, y, opening(theta), std::forward<F>(on_summary));
    }

    // The input indices a summary stands for: leaf by leaf in cell order, ascending within
    // each leaf (a depth-limited leaf holds several). Only meaningful for a summary from this
    // tree; one whose range lies outside it yields an empty span rather than a bad read.
    std::span<const uint32_t> members(const Summary& summary) const;

    uint32_t size() const { return static_cast<uint32_t>(order_.size()); }  // points that went in
    bool empty() const { return order_.empty(); }
    uint32_t node_count() const { return static_cast<uint32_t>(nodes_.size()); }

    // Same nodes and same member order (the build's scratch buffer is not part of a tree).
    friend bool operator==(const AggregateTree& a, const AggregateTree& b) {
        return a.root_size_ == b.root_size_ && a.nodes_ == b.nodes_ && a.order_ == b.order_;
    }

private:
    // The walk's whole working set, 32 bytes (two to a cache line, and an index scales by a
    // shift). Nodes are stored in preorder with the children in quadrant order, so a node's
    // first child is the next node and `skip` (the first node after its subtree) is where the
    // walk goes when it accepts the node: the walk needs no child list and no stack, and visits
    // exactly the nodes, in exactly the order, of a depth-first walk quadrant 0 first.
    // A cell's width is not stored: it is the root's width >> depth.
    static constexpr uint8_t leaf_level = max_depth_limit + 1;  // above every inner depth
    struct Node {
        int32_t com_x = 0;      // Fx raw
        int32_t com_y = 0;
        int64_t weight_raw = 0;
        uint32_t start = 0;
        uint32_t len = 0;
        uint32_t skip = 0;      // index of the first node after this one's subtree
        uint8_t depth = 0;      // root 0; the cell width is root_size_ >> depth
        uint8_t level = leaf_level;  // depth for an inner node, leaf_level for a leaf
        friend bool operator==(const Node&, const Node&) = default;
    };
    struct Sums;

    Result<void, AggregateError> rebuild_cell(std::span<const WeightedPoint> points, int64_t center_x, int64_t center_y,
                                              int64_t size, uint8_t max_depth);
    Sums build_node(std::span<const WeightedPoint> points, uint32_t start, uint32_t len, int64_t cx, int64_t cy,
                    int64_t size, uint32_t depth, uint32_t max_depth, uint32_t& index_out);

    bool opening_fits(const Opening& opening) const;  // made for a tree of this root width and depth

    std::vector<Node> nodes_;
    int64_t root_size_ = 0;          // exact root width; can exceed the Fx range for a fitted root
    // The bounding box of every node's centroid (empty tree: unused). A viewer within 2^31 - 1
    // of it on both axes is within 2^31 - 1 of every centroid: its walk takes the fast path.
    int32_t com_min_x_ = 0, com_min_y_ = 0, com_max_x_ = 0, com_max_y_ = 0;
    uint32_t inner_levels_ = 0;      // 1 + the deepest inner (non-leaf) node's depth; 0 if none
    std::vector<uint32_t> order_;    // input indices, each node's members contiguous
    std::vector<uint32_t> scratch_;  // the stable split's buffer; kept to reuse on rebuild
};

template <class F>
void AggregateTree::visit(Fx x, Fx y, const Opening& opening, F&& on_summary) const {
    if (nodes_.empty()) return;
    if (!opening_fits(opening)) {
        visit(x, y, this->opening(opening.theta()), std::forward<F>(on_summary));
        return;
    }
    // Stackless preorder walk, the per-viewer hot path: an accepted node (a leaf, or a cell far
    // enough to summarise) is emitted and its subtree skipped; an opened node goes on to its
    // first child, the next node. The same nodes in the same order as a depth-first walk with
    // quadrant 0 first, so summaries come out in member order.
    const int64_t vx = x.raw(), vy = y.raw();
    const int64_t root_size = root_size_;
    const Node* const nodes = nodes_.data();
    const uint32_t end = static_cast<uint32_t>(nodes_.size());
    auto emit = [&on_summary, root_size](const Node& node) {
        Summary s;
        s.x = Fx::from_raw(node.com_x);
        s.y = Fx::from_raw(node.com_y);
        s.weight_raw = node.weight_raw;
        s.count = node.len;
        s.size = Fx::from_raw(detail::saturate32(root_size >> node.depth));
        s.start_ = node.start;
        on_summary(static_cast<const Summary&>(s));
    };
    constexpr int64_t near = (int64_t{1} << 31) - 1;
    if (vx - com_min_x_ <= near && com_max_x_ - vx <= near && vy - com_min_y_ <= near && com_max_y_ - vy <= near) {
        // Every |dx|, |dy| < 2^31: the decision is Opening::is_far's fast path (or "leaf"), one
        // signed comparison against the node's level's threshold.
        const int64_t* const beyond = opening.walk_beyond_.data();
        uint32_t i = 0;
        while (i < end) {
            const Node& node = nodes[i];
            const int64_t dx = int64_t{node.com_x} - vx, dy = int64_t{node.com_y} - vy;
            if (dx * dx + dy * dy > beyond[node.level]) {
                emit(node);
                i = node.skip;
            } else {
                ++i;  // an inner node has at least one child, stored right after it
            }
        }
        return;
    }
    const bool aggregate = opening.theta_raw_ > 0;
    uint32_t i = 0;
    while (i < end) {
        const Node& node = nodes[i];
        bool accept = node.level == leaf_level;
        if (!accept && aggregate) {
            // |dx|, |dy| < 2^32 (two Fx apart); the width < 2^33 (the widest fitted root).
            accept = opening.is_far(node.depth, root_size >> node.depth, int64_t{node.com_x} - vx,
                                    int64_t{node.com_y} - vy);
        }
        if (accept) {
            emit(node);
            i = node.skip;
        } else {
            ++i;  // an inner node has at least one child, stored right after it
        }
    }
}

}  // namespace tandem
