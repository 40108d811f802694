// The pellets' mutual attraction, summarised Barnes-Hut style over a quadtree with a fixed
// root cell (the arena), so each pellet feels O(log n) bodies and a tick costs O(n log n).
// Private to src/world. Integer only; the tree's shape and every sum must depend on the
// pellet positions alone, never on allocation, pointer values or a library's ordering.
#pragma once

#include <cstdint>
#include <vector>

#include "world/gravity.hpp"
#include "world/world.hpp"

namespace tandem::world {

class PelletField {
public:
    // Rebuilds over the pellets' current positions (all inside [0, arena]^2).
    void build(const std::vector<Pellet>& pellets, const WorldConfig& config);
    // Adds to pulls[i] the attraction on pellet i of every other pellet, through the tree:
    // a cell is taken whole when its width over its distance is below theta, as in the seed's
    // AggregateTree::summarize, and a leaf always. A pellet's own leaf sits at distance 0 and
    // adds nothing.
    void add_pellet_pulls(const std::vector<Pellet>& pellets, const WorldConfig& config,
                          std::vector<detail::Pull>& pulls) const;

    uint32_t node_count() const { return static_cast<uint32_t>(nodes_.size()); }

private:
    // Nodes in depth-first pre-order: a node's first child follows it, and `skip` is the
    // index just past its subtree, so the walk needs no stack.
    struct Node {
        int32_t com_x;      // centroid of the members (equal masses), Q16.16 raw
        int32_t com_y;
        uint32_t strength;  // pellet_strength * count, Q16.16 raw, saturated
        uint32_t skip;
        uint16_t depth;
        uint16_t leaf;
    };

    uint32_t build_node(const std::vector<Pellet>& pellets, uint32_t begin, uint32_t end, int64_t x0, int64_t y0,
                        int64_t size, uint32_t depth);

    std::vector<Node> nodes_;
    std::vector<uint32_t> order_;     // pellet indices grouped by cell
    std::vector<uint32_t> scratch_;
    std::vector<uint64_t> open_distance2_;  // per depth: (cell width / theta)^2, Q32.32
    uint32_t max_depth_ = 0;
    uint32_t pellet_strength_ = 0;
};

}  // namespace tandem::world
