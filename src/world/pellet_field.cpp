// Barnes-Hut over the pellets: build (a stable counting partition per level) and the
// stackless walk. Members keep pellet-index order inside every cell, so the tree is a pure
// function of the positions; never sort here, never depend on allocation addresses.
#include "world/pellet_field.hpp"

namespace tandem::world {

void PelletField::build(const std::vector<Pellet>& pellets, const WorldConfig& c) {
    const uint32_t n = static_cast<uint32_t>(pellets.size());
    nodes_.clear();
    order_.resize(n);
    scratch_.resize(n);
    for (uint32_t i = 0; i < n; ++i) order_[i] = i;
    max_depth_ = c.tree_max_depth;
    pellet_strength_ = static_cast<uint32_t>(c.pellet_strength.raw());

    // The opening test "width < theta * distance" becomes "distance^2 > (width / theta)^2",
    // one compare per node with the right side precomputed per depth (every cell of a depth
    // has the same width). theta == 0 opens everything: the exact sum, same code path.
    open_distance2_.assign(max_depth_ + 1, UINT64_MAX);
    if (c.theta.raw() > 0) {
        for (uint32_t d = 0; d <= max_depth_; ++d) {
            const uint64_t width = static_cast<uint64_t>(c.arena_size.raw()) >> d;            // <= 2^28
            const uint64_t reach = (width << 16) / static_cast<uint64_t>(c.theta.raw());       // Q16.16
            open_distance2_[d] = reach >= (uint64_t{1} << 32) ? UINT64_MAX : reach * reach;
        }
    }
    if (n == 0) return;
    nodes_.reserve(2 * static_cast<uint64_t>(n));
    build_node(pellets, 0, n, 0, 0, c.arena_size.raw(), 0);
}

uint32_t PelletField::build_node(const std::vector<Pellet>& pellets, uint32_t begin, uint32_t end, int64_t x0,
                                 int64_t y0, int64_t size, uint32_t depth) {
    const uint32_t index = static_cast<uint32_t>(nodes_.size());
    const uint32_t count = end - begin;
    // Positions are in [0, 2^28], so the sums stay below 2^45 and the centroid rounds half up.
    int64_t sx = 0, sy = 0;
    for (uint32_t k = begin; k < end; ++k) {
        sx += pellets[order_[k]].pos.x.raw();
        sy += pellets[order_[k]].pos.y.raw();
    }
    const int64_t strength = int64_t{pellet_strength_} * count;
    Node node{};
    node.com_x = static_cast<int32_t>((sx + count / 2) / count);
    node.com_y = static_cast<int32_t>((sy + count / 2) / count);
    node.strength = static_cast<uint32_t>(strength > INT32_MAX ? INT32_MAX : strength);
    node.depth = static_cast<uint16_t>(depth);
    node.leaf = (count <= 1 || depth >= max_depth_) ? 1 : 0;
    nodes_.push_back(node);

    if (node.leaf == 0) {
        // Stable counting partition into quadrants 0..3 (bit 0: right half, bit 1: top half).
        const int64_t half = size / 2;
        const int64_t mx = x0 + half, my = y0 + half;
        uint32_t bucket_count[4] = {0, 0, 0, 0};
        for (uint32_t k = begin; k < end; ++k) {
            const Pellet& p = pellets[order_[k]];
            const uint32_t q = (p.pos.x.raw() >= mx ? 1u : 0u) | (p.pos.y.raw() >= my ? 2u : 0u);
            ++bucket_count[q];
        }
        uint32_t start[5] = {begin, 0, 0, 0, 0};
        for (int q = 0; q < 4; ++q) start[q + 1] = start[q] + bucket_count[q];
        uint32_t fill[4] = {start[0], start[1], start[2], start[3]};
        for (uint32_t k = begin; k < end; ++k) {
            const Pellet& p = pellets[order_[k]];
            const uint32_t q = (p.pos.x.raw() >= mx ? 1u : 0u) | (p.pos.y.raw() >= my ? 2u : 0u);
            scratch_[fill[q]++] = order_[k];
        }
        for (uint32_t k = begin; k < end; ++k) order_[k] = scratch_[k];
        for (uint32_t q = 0; q < 4; ++q) {
            if (start[q] == start[q + 1]) continue;
            build_node(pellets, start[q], start[q + 1], (q & 1) ? mx : x0, (q & 2) ? my : y0, size - half, depth + 1);
        }
    }
    nodes_[index].skip = static_cast<uint32_t>(nodes_.size());
    return index;
}

void PelletField::add_pellet_pulls(const std::vector<Pellet>& pellets, const WorldConfig& c,
                                   std::vector<detail::Pull>& pulls) const {
    const uint64_t soft2 = static_cast<uint64_t>(int64_t{c.softening.raw()} * c.softening.raw());
    const uint32_t n = static_cast<uint32_t>(pellets.size());
    const uint32_t node_total = static_cast<uint32_t>(nodes_.size());
    const Node* nodes = nodes_.data();
    const uint64_t* open2 = open_distance2_.data();
    for (uint32_t i = 0; i < n; ++i) {
        const int32_t px = pellets[i].pos.x.raw(), py = pellets[i].pos.y.raw();
        detail::Pull acc = pulls[i];
        uint32_t k = 0;
        while (k < node_total) {
            const Node& node = nodes[k];
            const int32_t dx = node.com_x - px, dy = node.com_y - py;  // both in [0, 2^28]: no overflow
            const uint64_t d2 = static_cast<uint64_t>(int64_t{dx} * dx) + static_cast<uint64_t>(int64_t{dy} * dy);
            if (node.leaf != 0 || d2 > open2[node.depth]) {
                if (d2 != 0) detail::add_pull(acc, dx, dy, node.strength, soft2);
                k = node.skip;
            } else {
                k += 1;
            }
        }
        pulls[i] = acc;
    }
}

}  // namespace tandem::world
