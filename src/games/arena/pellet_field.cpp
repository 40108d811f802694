// The pellets as AggregateTree input and the per-pellet walk that turns summaries into pulls.
// The tree (core) fixes the partition, the centroids and the order of the summaries; this file
// only adds integer pulls, so nothing here may sort, hash or depend on addresses.
#include "pellet_field.hpp"

namespace arena {

using namespace tandem;

void PelletField::build(const std::vector<Pellet>& pellets, const WorldConfig& c) {
    points_.resize(pellets.size());
    for (uint32_t i = 0; i < static_cast<uint32_t>(pellets.size()); ++i) {
        points_[i] = WeightedPoint{pellets[i].pos.x, pellets[i].pos.y, c.pellet_strength};
    }
    // The arena [0, A]^2 is the root: centre A/2, width A. A is a whole number of units
    // (validate() bounds it to [16, 4096]), so with A a power of two every cell edge is exact.
    const Fx half = Fx::from_raw(c.arena_size.raw() / 2);
    // validate() bounds tree_max_depth to [1, 24], below AggregateTree::max_depth_limit, and
    // pellet_count to max_pellet_count (2^17), far below AggregateTree::max_points: the
    // rebuild cannot refuse, so its Result carries nothing to act on.
    static_assert(max_pellet_count <= AggregateTree::max_points);
    static_cast<void>(tree_.rebuild_in(points_, half, half, c.arena_size, static_cast<uint8_t>(c.tree_max_depth)));
}

namespace {

// One pellet's walk: summaries from its position, one pull each, straight from the tree's
// visitor (no buffer of summaries). Clamp as in detail::add_pull.
template <bool Clamp, bool Saturate>
void add_pulls_through(const AggregateTree& tree, const std::vector<Pellet>& pellets,
                       const AggregateTree::Opening& opening, uint64_t soft2, std::vector<detail::Pull>& pulls) {
    const uint32_t n = static_cast<uint32_t>(pellets.size());
    for (uint32_t i = 0; i < n; ++i) {
        const int32_t px = pellets[i].pos.x.raw(), py = pellets[i].pos.y.raw();
        detail::Pull acc = pulls[i];
        tree.visit(pellets[i].pos.x, pellets[i].pos.y, opening, [&acc, px, py, soft2](const Summary& s) {
            // Centroids lie inside the arena like the pellets (|d| <= 2^28 raw): no overflow.
            const int32_t dx = s.x.raw() - px, dy = s.y.raw() - py;
            if ((dx | dy) == 0) return;
            // weight_raw >= 0 (pellet_strength >= 0 after validate()), saturated like
            // Summary::weight() but without its branches. Saturate = false: the caller has
            // checked that all pellets together weigh at most INT32_MAX, so no summary can.
            const uint32_t strength = static_cast<uint32_t>(
                !Saturate || s.weight_raw < INT32_MAX ? s.weight_raw : INT32_MAX);
            detail::add_pull<Clamp>(acc, dx, dy, strength, soft2);
        });
        pulls[i] = acc;
    }
}

}  // namespace

void PelletField::add_pellet_pulls(const std::vector<Pellet>& pellets, const WorldConfig& c, bool never_clamps,
                                   std::vector<detail::Pull>& pulls) {
    const uint64_t soft2 = static_cast<uint64_t>(int64_t{c.softening.raw()} * c.softening.raw());
    // One opening per tick: the per-depth thresholds at config.theta for this tree.
    const AggregateTree::Opening opening = tree_.opening(c.theta);
    // Every summary weighs count * pellet_strength <= pellets.size() * pellet_strength.
    const bool saturate = int64_t{c.pellet_strength.raw()} * static_cast<int64_t>(pellets.size()) > INT32_MAX;
    if (never_clamps) {
        if (saturate) add_pulls_through<false, true>(tree_, pellets, opening, soft2, pulls);
        else add_pulls_through<false, false>(tree_, pellets, opening, soft2, pulls);
    } else {
        if (saturate) add_pulls_through<true, true>(tree_, pellets, opening, soft2, pulls);
        else add_pulls_through<true, false>(tree_, pellets, opening, soft2, pulls);
    }
}

}  // namespace arena
