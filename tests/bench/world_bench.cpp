// Cost of world::step at 1k..64k pellets, and of a float twin of the same step measured in
// the same run, so the price of determinism is a ratio rather than a guess. The twin is bench
// code only (floats are allowed here, never in src/world); it mirrors the algorithm (a float
// copy of core's AggregateTree, the same walk, kernel, integration, walls and captures), not
// the bits.
// Read: Time per iteration = one tick (ms); the _BigO rows fit the growth; fixed/float at
// each n is the cost of determinism (goal <= 1.1x; 4,096 pellets well inside 16.7 ms).
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tandem/core/random.hpp"
#include "tandem/world/world.hpp"

using namespace tandem;

namespace {

world::World fixed_world(uint32_t n) {
    world::WorldConfig c = world::default_config();
    c.pellet_count = n;
    world::World w = world::make_world(c).value();
    const std::vector<world::Input> join{{1, world::InputKind::join, {Fx::from_int(300), Fx::from_int(300)}},
                                         {2, world::InputKind::join, {Fx::from_int(700), Fx::from_int(700)}}};
    world::step(w, join);
    return w;
}

// ---- The float twin: world::step with float for Fx, and nothing else changed. The tree is
// a float copy of core's AggregateTree (root cell = the arena, the same stable counting split
// by centre lines, bottom-up weight and centroid sums, leaves at the same depth bound), walked
// the same way (stackless, nodes in preorder with skip indices, quadrant 0 first, a visitor that turns each summary not
// centred on the pellet straight into a pull, no buffer). The opening test is the same
// per-depth threshold, d^2 > (size_k / theta)^2, computed once per tick (a leaf's below zero). So the ratio prices
// the number format, not the algorithm.
struct FPellet { float x, y, vx, vy; };
struct FWell { float x, y; };
struct FPoint { float x, y, w; };
struct FSummary { float x, y, w, size; uint32_t count, start; };

class FloatTree {
public:
    void rebuild_in(const std::vector<FPoint>& points, float cx, float cy, float size, uint32_t max_depth) {
        const auto n = static_cast<uint32_t>(points.size());
        nodes_.clear();
        order_.resize(n);
        scratch_.resize(n);
        for (uint32_t i = 0; i < n; ++i) order_[i] = i;
        root_size_ = size < 1.0f ? 1.0f : size;
        if (n == 0) return;
        build(points, 0, n, cx, cy, root_size_, 0, max_depth);
    }

    // The opening test per level, once per tick: a cell at depth k is far when
    // d^2 > (size_k / theta)^2, as core's AggregateTree::Opening; a leaf (level leaf_level)
    // always, its threshold below every d^2.
    void opening(float theta, std::array<float, 50>& beyond) const {
        float size = root_size_;
        for (float& b : beyond) { b = size * size / (theta * theta); size *= 0.5f; }
        beyond[leaf_level] = -1.0f;
    }

    // The visitor walk, as core's: nodes in preorder, stackless (an accepted node jumps past its
    // subtree, an opened one steps to its first child), one comparison per node, quadrant 0
    // first, each summary straight to the callback.
    template <class F>
    void visit(float x, float y, const std::array<float, 50>& beyond, F&& on_summary) const {
        const Node* nodes = nodes_.data();
        const auto end = static_cast<uint32_t>(nodes_.size());
        uint32_t i = 0;
        while (i < end) {
            const Node& node = nodes[i];
            const float dx = node.x - x, dy = node.y - y;
            if (dx * dx + dy * dy > beyond[node.level]) {
                on_summary(FSummary{node.x, node.y, node.w, node.size, node.len, node.start});
                i = node.skip;
            } else {
                ++i;
            }
        }
    }

private:
    static constexpr uint8_t leaf_level = 49;
    struct Node {  // 32 bytes, as core's
        float x, y, w, size;
        uint32_t start, len, skip;
        uint8_t depth, level;
    };
    struct Sums { float w = 0, wx = 0, wy = 0, sx = 0, sy = 0; };

    Sums build(const std::vector<FPoint>& points, uint32_t start, uint32_t len, float cx, float cy, float size,
               uint32_t d, uint32_t max_depth) {
        const auto index = static_cast<uint32_t>(nodes_.size());
        nodes_.push_back({});
        Sums s;
        const bool leaf = len <= 1 || d >= max_depth;
        if (leaf) {
            for (uint32_t i = start; i < start + len; ++i) {
                const FPoint& p = points[order_[i]];
                s.w += p.w; s.wx += p.x * p.w; s.wy += p.y * p.w; s.sx += p.x; s.sy += p.y;
            }
        } else {
            auto quadrant = [&](const FPoint& p) { return (p.x >= cx ? 1u : 0u) | (p.y >= cy ? 2u : 0u); };
            std::array<uint32_t, 4> counts{};
            for (uint32_t i = start; i < start + len; ++i) ++counts[quadrant(points[order_[i]])];
            std::array<uint32_t, 4> next{start, start + counts[0], start + counts[0] + counts[1],
                                         start + counts[0] + counts[1] + counts[2]};
            const auto first = next;
            for (uint32_t i = start; i < start + len; ++i) scratch_[next[quadrant(points[order_[i]])]++] = order_[i];
            for (uint32_t i = start; i < start + len; ++i) order_[i] = scratch_[i];
            const float quarter = size * 0.25f;
            for (uint32_t q = 0; q < 4; ++q) {
                if (counts[q] == 0) continue;
                const Sums c = build(points, first[q], counts[q], cx + ((q & 1u) ? quarter : -quarter),
                                     cy + ((q & 2u) ? quarter : -quarter), size * 0.5f, d + 1, max_depth);
                s.w += c.w; s.wx += c.wx; s.wy += c.wy; s.sx += c.sx; s.sy += c.sy;
            }
        }
        Node& node = nodes_[index];
        const bool weighted = s.w != 0.0f;
        node = {weighted ? s.wx / s.w : s.sx / static_cast<float>(len), weighted ? s.wy / s.w : s.sy / static_cast<float>(len),
                s.w, size, start, len, static_cast<uint32_t>(nodes_.size()), static_cast<uint8_t>(d),
                static_cast<uint8_t>(leaf ? leaf_level : d)};
        return s;
    }

    std::vector<Node> nodes_;
    std::vector<uint32_t> order_, scratch_;
    float root_size_ = 1.0f;
};

struct FloatWorld {
    float arena = 1024, well_strength = 6000, pellet_strength = 1.0f / 16, soft2 = 64, capture2 = 144;
    float max_speed = 300, restitution = 0.75f, theta = 0.7f, dt = 1.0f / 60;
    uint32_t max_depth = 12;
    std::vector<FPellet> pellets;
    std::vector<FWell> wells;
    FloatTree tree;
    std::vector<FPoint> points;
    std::vector<float> ax, ay;
    XorShift rng{1};

    static void pull(float& ax_, float& ay_, float dx, float dy, float s, float soft2_) {
        const float r2 = dx * dx + dy * dy + soft2_;
        const float inv = s / (r2 * std::sqrt(r2));
        ax_ += dx * inv;
        ay_ += dy * inv;
    }

    static void bounce(float& p, float& v, float arena_, float rest) {
        if (p < 0) { p = -p; v = -(v * rest); } else if (p > arena_) { p = arena_ - (p - arena_); v = -(v * rest); }
        p = std::fmin(std::fmax(p, 0.0f), arena_);
    }

    // noinline: one call per tick, so a profiler can attribute a tick's cost (callgrind).
    [[gnu::noinline]] void step() {
        const uint32_t n = static_cast<uint32_t>(pellets.size());
        points.resize(n);
        for (uint32_t i = 0; i < n; ++i) points[i] = {pellets[i].x, pellets[i].y, pellet_strength};
        tree.rebuild_in(points, arena / 2, arena / 2, arena, max_depth);
        ax.assign(n, 0);
        ay.assign(n, 0);
        std::array<float, 50> beyond;
        tree.opening(theta, beyond);
        for (uint32_t i = 0; i < n; ++i) {
            const float px = pellets[i].x, py = pellets[i].y;
            float fx = ax[i], fy = ay[i];
            tree.visit(px, py, beyond, [&fx, &fy, px, py, this](const FSummary& s) {
                const float dx = s.x - px, dy = s.y - py;
                if (dx == 0 && dy == 0) return;
                pull(fx, fy, dx, dy, s.w, soft2);
            });
            ax[i] = fx;
            ay[i] = fy;
        }
        for (uint32_t i = 0; i < n; ++i) {
            for (const FWell& w : wells) pull(ax[i], ay[i], w.x - pellets[i].x, w.y - pellets[i].y, well_strength, soft2);
        }
        for (uint32_t i = 0; i < n; ++i) {
            FPellet& p = pellets[i];
            p.vx += ax[i] * dt;
            p.vy += ay[i] * dt;
            p.x += p.vx * dt;
            p.y += p.vy * dt;
            bounce(p.x, p.vx, arena, restitution);
            bounce(p.y, p.vy, arena, restitution);
            p.vx = std::fmin(std::fmax(p.vx, -max_speed), max_speed);
            p.vy = std::fmin(std::fmax(p.vy, -max_speed), max_speed);
            uint32_t taker = UINT32_MAX;
            float best = capture2;
            for (uint32_t k = 0; k < static_cast<uint32_t>(wells.size()); ++k) {
                const float dx = wells[k].x - p.x, dy = wells[k].y - p.y, d2 = dx * dx + dy * dy;
                if (d2 < best || (d2 == best && taker == UINT32_MAX)) { best = d2; taker = k; }
            }
            if (taker != UINT32_MAX) p = {rng.unit() * arena, rng.unit() * arena, 0, 0};
        }
    }
};

FloatWorld float_world(const world::World& from) {
    FloatWorld f;
    for (const world::Pellet& p : from.pellets) f.pellets.push_back({to_f32(p.pos.x), to_f32(p.pos.y), 0, 0});
    for (const world::Well& w : from.wells) f.wells.push_back({to_f32(w.pos.x), to_f32(w.pos.y)});
    return f;
}

void BM_step_fixed(benchmark::State& state) {
    world::World w = fixed_world(static_cast<uint32_t>(state.range(0)));
    world::Stepper stepper;  // reused, as a server or a page keeps one: a tick allocates nothing
    for (auto _ : state) {
        stepper.step(w, {});
        benchmark::DoNotOptimize(w.tick);
    }
    state.SetComplexityN(state.range(0));
}

void BM_step_float_twin(benchmark::State& state) {
    FloatWorld f = float_world(fixed_world(static_cast<uint32_t>(state.range(0))));
    for (auto _ : state) {
        f.step();
        benchmark::DoNotOptimize(f.pellets.data());
    }
    state.SetComplexityN(state.range(0));
}

}  // namespace

BENCHMARK(BM_step_fixed)->Arg(1024)->Arg(4096)->Arg(16384)->Arg(65536)->Unit(benchmark::kMillisecond)->Complexity();
BENCHMARK(BM_step_float_twin)->Arg(1024)->Arg(4096)->Arg(16384)->Arg(65536)->Unit(benchmark::kMillisecond)->Complexity();
