// The pellets' mutual attraction, summarised through core's AggregateTree over a fixed root
// cell (the arena), so each pellet feels O(log n) bodies and a tick costs O(n log n).
// Private to src/world. Integer only; what a pellet feels must depend on the positions
// alone, never on allocation, pointer values or a library's ordering.
#pragma once

#include <cstdint>
#include <vector>

#include "tandem/core/aggregate.hpp"
#include "gravity.hpp"
#include "arena/world.hpp"

namespace arena {

using namespace tandem;

// Holds the tree and the buffers between ticks, so a tick's rebuild and walks allocate
// nothing once they have grown to the crowd. Holds no state of the world: rebuilding from
// the same pellets gives the same pulls whatever it held before.
class PelletField {
public:
    // Rebuilds over the pellets' current positions: every pellet weighs pellet_strength, the
    // root cell is the arena, the depth bound tree_max_depth.
    void build(const std::vector<Pellet>& pellets, const WorldConfig& config);
    // Adds to pulls[i] the attraction on pellet i of every other pellet: the summaries
    // AggregateTree::visit (the same as summarize) gives from the pellet's position at config.theta, each pulling
    // from its centroid with its total weight. A summary centred exactly on the pellet (its
    // own leaf) adds nothing; the sum is over int64 so its order cannot show. never_clamps:
    // the caller has checked detail::pull_never_clamps for the heaviest possible summary, so
    // the unclamped kernel may run (same bits).
    void add_pellet_pulls(const std::vector<Pellet>& pellets, const WorldConfig& config, bool never_clamps,
                          std::vector<detail::Pull>& pulls);

    uint32_t node_count() const { return tree_.node_count(); }

private:
    AggregateTree tree_;
    std::vector<WeightedPoint> points_;
};

}  // namespace arena
