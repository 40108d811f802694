// The aggregate tree's build (stable quadrant splits, exact integer sums) and its walk's
// opening thresholds (exact squared opening test); the stackless walk itself is in the
// header. Nothing here may depend on a library's choice of order, round a sum, or allocate
// during a walk. Nothing here throws: a refusal is a Result.
#include "tandem/core/aggregate.hpp"

#include "tandem/core/wide.hpp"

namespace tandem {

// Exact sums over a cell's members. weight, sum_x and sum_y fit int64 for any crowd that
// fits uint32_t indices (count * 2^31 < 2^63); the weighted sums need 94 bits: Wide.
struct AggregateTree::Sums {
    int64_t weight = 0;
    Wide weighted_x;
    Wide weighted_y;
    int64_t sum_x = 0;
    int64_t sum_y = 0;

    void add(const WeightedPoint& p) {
        weight += p.weight.raw();
        weighted_x += Wide::mul(p.weight.raw(), p.x.raw());
        weighted_y += Wide::mul(p.weight.raw(), p.y.raw());
        sum_x += p.x.raw();
        sum_y += p.y.raw();
    }
    void add(const Sums& s) {
        weight += s.weight;
        weighted_x += s.weighted_x;
        weighted_y += s.weighted_y;
        sum_x += s.sum_x;
        sum_y += s.sum_y;
    }
};

namespace {

constexpr int64_t one_raw = Fx::one_raw;

// Which child a point falls in: bit 0 east (x >= cx), bit 1 north (y >= cy). Points on the
// centre line go east/north (the documented rule), so every point has exactly one quadrant.
constexpr uint32_t quadrant(const WeightedPoint& p, int64_t cx, int64_t cy) {
    return (int64_t{p.x.raw()} >= cx ? 1u : 0u) | (int64_t{p.y.raw()} >= cy ? 2u : 0u);
}

// Sum / d correctly rounded (ties to even) and saturated to Fx: Wide::div_round does the
// rounding so the centroid has one rounding whatever the crowd's size.
int32_t centroid(Wide weighted_sum, int64_t weight) { return detail::saturate32(weighted_sum.div_round(weight)); }

}  // namespace

bool detail::cell_is_far(int64_t size_raw, int64_t dx, int64_t dy, int32_t theta_raw) {
    // In raw units the test is S < T where S = size * 2^16 and T = sqrt((t*dx)^2 + (t*dy)^2).
    // Most cells are far from the boundary, so two cheap 64-bit bounds on T settle them and
    // only the narrow band between the bounds pays for the exact 128-bit squares. Both
    // bounds are conservative, so the answer is the exact one in every case.
    const uint64_t t = static_cast<uint64_t>(theta_raw);
    const uint64_t ax = static_cast<uint64_t>(dx < 0 ? -dx : dx), ay = static_cast<uint64_t>(dy < 0 ? -dy : dy);
    const uint64_t big = (ax > ay ? ax : ay) * t;    // < 2^32 * 2^31 = 2^63
    const uint64_t small = (ax > ay ? ay : ax) * t;  // <= big
    const uint64_t s = static_cast<uint64_t>(size_raw) << Fx::frac_bits;  // < 2^49
    // T >= big, and T >= (big + small) / sqrt(2) > (big + small) * 181/256 (0.70703).
    const uint64_t low_from_sum = ((big + small) >> 8) * 181;  // big + small < 2^64
    if (s < (big > low_from_sum ? big : low_from_sum)) return true;
    // T <= big + small * (sqrt(2) - 1) < big + small * 107/256 (0.41797): the hypotenuse lies
    // under the chord, sqrt(a^2 + b^2) being convex in b.
    const uint64_t high = big + ((small + 255) >> 8) * 107;  // < 2^63 + 2^62
    if (s >= high) return false;
    // The band: S^2 < (t*dx)^2 + (t*dy)^2 exactly, each square < 2^126, the sum < 2^127.
    const auto sb = static_cast<int64_t>(big), ss = static_cast<int64_t>(small), si = static_cast<int64_t>(s);
    return Wide::mul(si, si) < Wide::mul(sb, sb) + Wide::mul(ss, ss);
}

std::string_view error_name(AggregateError error) {
    switch (error) {
        case AggregateError::too_many_points: return "too_many_points";
    }
    return "unknown_aggregate_error";
}

std::string_view describe(AggregateError error) {
    switch (error) {
        case AggregateError::too_many_points:
            return "an aggregate tree holds at most 2^32 - 2 points: its indices are 32-bit on every build";
    }
    return "unknown aggregate tree error";
}

Result<AggregateTree, AggregateError> AggregateTree::build(std::span<const WeightedPoint> points, uint8_t max_depth) {
    AggregateTree tree;
    if (auto built = tree.rebuild(points, max_depth); !built) return built.error();
    return tree;
}

Result<AggregateTree, AggregateError> AggregateTree::build_in(std::span<const WeightedPoint> points, Fx center_x,
                                                              Fx center_y, Fx size, uint8_t max_depth) {
    AggregateTree tree;
    if (auto built = tree.rebuild_in(points, center_x, center_y, size, max_depth); !built) return built.error();
    return tree;
}

Result<void, AggregateError> AggregateTree::rebuild(std::span<const WeightedPoint> points, uint8_t max_depth) {
    // Refused before the bounding box is scanned: reading a crowd this module cannot describe
    // (up to 48 GiB) only to refuse it afterwards took minutes.
    if (points.empty() || points.size() > max_points) return rebuild_cell(points, 0, 0, one_raw, max_depth);
    int32_t min_x = INT32_MAX, min_y = INT32_MAX, max_x = INT32_MIN, max_y = INT32_MIN;
    for (const WeightedPoint& p : points) {
        min_x = p.x.raw() < min_x ? p.x.raw() : min_x;
        min_y = p.y.raw() < min_y ? p.y.raw() : min_y;
        max_x = p.x.raw() > max_x ? p.x.raw() : max_x;
        max_y = p.y.raw() > max_y ? p.y.raw() : max_y;
    }
    // In int64: the extent of two Fx can reach 2^32 - 1, beyond what an Fx holds. The centre
    // is floored, which only moves the split line by half an LSB.
    const int64_t cx = (int64_t{min_x} + max_x) >> 1;
    const int64_t cy = (int64_t{min_y} + max_y) >> 1;
    const int64_t extent_x = int64_t{max_x} - min_x, extent_y = int64_t{max_y} - min_y;
    return rebuild_cell(points, cx, cy, extent_x > extent_y ? extent_x : extent_y, max_depth);
}

Result<void, AggregateError> AggregateTree::rebuild_in(std::span<const WeightedPoint> points, Fx center_x, Fx center_y,
                                                       Fx size, uint8_t max_depth) {
    return rebuild_cell(points, center_x.raw(), center_y.raw(), size.raw(), max_depth);
}

Result<void, AggregateError> AggregateTree::rebuild_cell(std::span<const WeightedPoint> points, int64_t center_x,
                                                         int64_t center_y, int64_t size, uint8_t max_depth) {
    nodes_.clear();
    inner_levels_ = 0;
    root_size_ = 0;
    // Indices and counts are uint32_t in everything observable (wasm32 and x86-64 must agree);
    // a crowd beyond that is not a tree this module can describe. Refused, the tree is empty.
    if (points.size() > max_points) {
        order_.clear();
        return AggregateError::too_many_points;
    }
    const uint32_t n = static_cast<uint32_t>(points.size());
    order_.resize(n);
    scratch_.resize(n);
    for (uint32_t i = 0; i < n; ++i) order_[i] = i;
    if (n == 0) return {};
    const uint32_t depth_limit = max_depth < max_depth_limit ? max_depth : max_depth_limit;
    uint32_t root = 0;
    root_size_ = size < one_raw ? one_raw : size;
    build_node(points, 0, n, center_x, center_y, root_size_, 0, depth_limit, root);
    com_min_x_ = com_max_x_ = nodes_[0].com_x;
    com_min_y_ = com_max_y_ = nodes_[0].com_y;
    for (const Node& node : nodes_) {
        com_min_x_ = node.com_x < com_min_x_ ? node.com_x : com_min_x_;
        com_max_x_ = node.com_x > com_max_x_ ? node.com_x : com_max_x_;
        com_min_y_ = node.com_y < com_min_y_ ? node.com_y : com_min_y_;
        com_max_y_ = node.com_y > com_max_y_ ? node.com_y : com_max_y_;
    }
    return {};
}

AggregateTree::Sums AggregateTree::build_node(std::span<const WeightedPoint> points, uint32_t start, uint32_t len,
                                              int64_t cx, int64_t cy, int64_t size, uint32_t depth,
                                              uint32_t max_depth, uint32_t& index_out) {
    const uint32_t index = static_cast<uint32_t>(nodes_.size());
    index_out = index;
    nodes_.push_back(Node{});  // filled in below: children push more nodes, so no reference is held
    Sums sums;
    const bool leaf = len <= 1 || depth >= max_depth;
    if (leaf) {
        for (uint32_t i = start; i < start + len; ++i) sums.add(points[order_[i]]);
    } else {
        // Stable counting split: each quadrant's members stay in the order they came in,
        // which is ascending input index, so ties need no comparator and no library sort.
        std::array<uint32_t, 4> counts{};
        for (uint32_t i = start; i < start + len; ++i) ++counts[quadrant(points[order_[i]], cx, cy)];
        std::array<uint32_t, 4> next{start, start + counts[0], start + counts[0] + counts[1],
                                     start + counts[0] + counts[1] + counts[2]};
        const std::array<uint32_t, 4> first = next;
        for (uint32_t i = start; i < start + len; ++i) {
            const uint32_t member = order_[i];
            scratch_[next[quadrant(points[member], cx, cy)]++] = member;
        }
        for (uint32_t i = start; i < start + len; ++i) order_[i] = scratch_[i];

        // Children: centres a quarter width out, half the width. Both floor on odd widths;
        // the split is by centre only, so that moves a line by under an LSB, never a point
        // out of every cell.
        const int64_t quarter = size >> 2;
        for (uint32_t q = 0; q < 4; ++q) {
            if (counts[q] == 0) continue;
            const int64_t child_cx = cx + ((q & 1u) != 0 ? quarter : -quarter);
            const int64_t child_cy = cy + ((q & 2u) != 0 ? quarter : -quarter);
            uint32_t child = 0;  // preorder: the children follow in quadrant order
            sums.add(build_node(points, first[q], counts[q], child_cx, child_cy, size >> 1, depth + 1, max_depth,
                                child));
        }
    }

    Node& node = nodes_[index];
    node.start = start;
    node.len = len;
    node.weight_raw = sums.weight;
    node.skip = static_cast<uint32_t>(nodes_.size());  // the subtree is [index, skip)
    node.level = leaf ? leaf_level : static_cast<uint8_t>(depth);
    node.depth = static_cast<uint8_t>(depth);  // <= max_depth_limit
    if (!leaf && depth + 1 > inner_levels_) inner_levels_ = depth + 1;
    if (sums.weight != 0) {
        node.com_x = centroid(sums.weighted_x, sums.weight);
        node.com_y = centroid(sums.weighted_y, sums.weight);
    } else {
        // Weightless (or exactly cancelling) groups still have a place: the plain centroid,
        // rather than a division by zero.
        node.com_x = centroid(Wide::from_i64(sums.sum_x), len);
        node.com_y = centroid(Wide::from_i64(sums.sum_y), len);
    }
    return sums;
}

void AggregateTree::summarize(Fx x, Fx y, Fx theta, std::vector<Summary>& out) const {
    out.clear();
    visit(x, y, theta, [&out](const Summary& s) { out.push_back(s); });
}

AggregateTree::Opening AggregateTree::opening(Fx theta) const {
    Opening o;
    o.root_size_ = nodes_.empty() ? -1 : root_size_;
    o.levels_ = inner_levels_;
    o.theta_raw_ = theta.raw();
    o.walk_beyond_.fill(INT64_MAX);
    o.walk_beyond_[leaf_level] = -1;
    if (theta.raw() <= 0) return o;  // no inner cell is ever tested
    const uint64_t t = static_cast<uint64_t>(theta.raw());
    const uint64_t t2 = t * t;  // < 2^62, > 0
    for (uint32_t k = 0; k < inner_levels_; ++k) {
        // S_k = (root >> k) * 2^16 < 2^49, S_k^2 < 2^98: the cell at depth k is far exactly when
        // S_k^2 < t^2 * d^2, i.e. d^2 > S_k^2 / t^2, i.e. (d^2 an integer) d^2 > floor(S_k^2 / t^2).
        const uint64_t s = static_cast<uint64_t>(o.root_size_ >> k) << Fx::frac_bits;
        const detail::U128 sq = detail::mul_u64(s, s);
        if (sq.hi >= t2) {
            o.beyond_[k] = UINT64_MAX;  // the quotient is >= 2^64
        } else {
            uint64_t rem = 0;
            o.beyond_[k] = detail::div_u128_u64(sq.hi, sq.lo, t2, rem);
        }
        o.walk_beyond_[k] = o.beyond_[k] > uint64_t{INT64_MAX} ? INT64_MAX : static_cast<int64_t>(o.beyond_[k]);
    }
    return o;
}

bool AggregateTree::opening_fits(const Opening& opening) const {
    // The thresholds depend on the root width and theta alone; the depth bound says which
    // were computed. An opening from another tree of the same root width is as good.
    return opening.root_size_ == root_size_ && opening.levels_ >= inner_levels_;
}

std::span<const uint32_t> AggregateTree::members(const Summary& summary) const {
    if (uint64_t{summary.start_} + summary.count > order_.size()) return {};
    return std::span<const uint32_t>(order_).subspan(summary.start_, summary.count);
}

}  // namespace tandem
