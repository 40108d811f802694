// Cost of arena::step at 1k..64k pellets, and of a float twin of the same step measured in
// the same run, so the price of determinism is a ratio rather than a guess. The twin is bench
// code only (floats are allowed here, never in src/games/arena); it mirrors the algorithm (a float
// copy of core's AggregateTree, the same walk, kernel, integration, walls and captures), not
// the bits.
// Read: Time per iteration = one tick (ms); the _BigO rows fit the growth; fixed/float at
// each n is the cost of determinism (goal <= 1.1x; 4,096 pellets well inside 16.7 ms).
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <vector>

#include "tandem/core/random.hpp"
#include "arena/world.hpp"
#include "games/arena/pellet_field.hpp"  // private: the step's pellet-pull phase, timed alone

using namespace tandem;

namespace {

arena::World fixed_world(uint32_t n) {
    arena::WorldConfig c = arena::default_config();
    c.pellet_count = n;
    arena::World w = arena::make_world(c).value();
    const std::vector<arena::Input> join{{1, arena::InputKind::join, {Fx::from_int(300), Fx::from_int(300)}},
                                         {2, arena::InputKind::join, {Fx::from_int(700), Fx::from_int(700)}}};
    arena::step(w, join);
    return w;
}

// ---- The float twin: arena::step with float for Fx, and nothing else changed. The tree is
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

    // The pellets' mutual pull alone (tree build and walk): the part the fixed step does
    // through core's AggregateTree. noinline, as step, so a profiler can attribute it.
    [[gnu::noinline]] void pellet_pulls() {
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
    }

    // noinline: one call per tick, so a profiler can attribute a tick's cost (callgrind).
    [[gnu::noinline]] void step() {
        const uint32_t n = static_cast<uint32_t>(pellets.size());
        pellet_pulls();
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

FloatWorld float_world(const arena::World& from) {
    FloatWorld f;
    for (const arena::Pellet& p : from.pellets) f.pellets.push_back({to_f32(p.pos.x), to_f32(p.pos.y), 0, 0});
    for (const arena::Well& w : from.wells) f.wells.push_back({to_f32(w.pos.x), to_f32(w.pos.y)});
    return f;
}

void BM_step_fixed(benchmark::State& state) {
    arena::World w = fixed_world(static_cast<uint32_t>(state.range(0)));
    arena::Stepper stepper;  // reused, as a server or a page keeps one: a tick allocates nothing
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

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The fixed step, its pellet-pull part (PelletField: tree build and walk with the pull
// kernel, as step's phase 3 runs it), and the bare tree (the same build and walk with a
// visitor that only counts), then the same three for the float twin, alternating within each
// iteration so a loaded machine slows all six alike (thread CPU time). Reports the ratio
// fixed/float of each part, which says where the cost of determinism lies: in the tree
// (build and walk), in the pull kernel (integer x^(-3/2) against a float sqrt and divide),
// or in the rest (wells' pulls, integration, walls, captures).
void BM_step_ratio(benchmark::State& state) {
    const auto n = static_cast<uint32_t>(state.range(0));
    arena::World w = fixed_world(n);
    arena::Stepper stepper;
    FloatWorld f = float_world(w);
    arena::PelletField field;
    std::vector<arena::detail::Pull> pulls;
    const arena::WorldConfig& c = w.config;
    const int64_t all_pellets = int64_t{c.pellet_strength.raw()} * n;
    const auto crowd = static_cast<uint32_t>(all_pellets < INT32_MAX ? all_pellets : INT32_MAX);
    const auto well = static_cast<uint32_t>(c.well_strength.raw());
    const bool never_clamps = arena::detail::pull_never_clamps(well > crowd ? well : crowd, c.softening.raw());
    AggregateTree bare;
    std::vector<WeightedPoint> points(n);
    const Fx half = Fx::from_raw(c.arena_size.raw() / 2);
    FloatTree fbare;
    std::vector<FPoint> fpoints(n);
    std::array<float, 50> fbeyond{};
    uint64_t counted = 0;
    double fixed_step = 0, fixed_tree = 0, float_step = 0, float_tree = 0, fixed_bare = 0, float_bare = 0;
    for (auto _ : state) {
        const double t0 = thread_cpu_seconds();
        stepper.step(w, {});
        benchmark::DoNotOptimize(w.tick);
        const double t1 = thread_cpu_seconds();
        pulls.assign(n, arena::detail::Pull{});
        field.build(w.pellets, c);
        field.add_pellet_pulls(w.pellets, c, never_clamps, pulls);
        benchmark::DoNotOptimize(pulls.data());
        const double t2 = thread_cpu_seconds();
        f.step();
        benchmark::DoNotOptimize(f.pellets.data());
        const double t3 = thread_cpu_seconds();
        f.pellet_pulls();  // clears and fills ax, ay
        benchmark::DoNotOptimize(f.ax.data());
        const double t4 = thread_cpu_seconds();
        for (uint32_t i = 0; i < n; ++i) points[i] = {w.pellets[i].pos.x, w.pellets[i].pos.y, c.pellet_strength};
        if (!bare.rebuild_in(points, half, half, c.arena_size, static_cast<uint8_t>(c.tree_max_depth))) break;
        const AggregateTree::Opening opening = bare.opening(c.theta);
        for (uint32_t i = 0; i < n; ++i) bare.visit(points[i].x, points[i].y, opening, [&counted](const Summary&) { ++counted; });
        const double t5 = thread_cpu_seconds();
        for (uint32_t i = 0; i < n; ++i) fpoints[i] = {f.pellets[i].x, f.pellets[i].y, f.pellet_strength};
        fbare.rebuild_in(fpoints, f.arena / 2, f.arena / 2, f.arena, f.max_depth);
        fbare.opening(f.theta, fbeyond);
        for (uint32_t i = 0; i < n; ++i) fbare.visit(fpoints[i].x, fpoints[i].y, fbeyond, [&counted](const FSummary&) { ++counted; });
        const double t6 = thread_cpu_seconds();
        benchmark::DoNotOptimize(counted);
        fixed_bare += t5 - t4;
        float_bare += t6 - t5;
        fixed_step += t1 - t0;
        fixed_tree += t2 - t1;
        float_step += t3 - t2;
        float_tree += t4 - t3;
    }
    const double iters = static_cast<double>(state.iterations());
    state.counters["fixed_ms"] = fixed_step / iters * 1e3;
    state.counters["float_ms"] = float_step / iters * 1e3;
    state.counters["step_ratio"] = fixed_step / float_step;
    state.counters["tree_ratio"] = fixed_tree / float_tree;
    state.counters["rest_ratio"] = (fixed_step - fixed_tree) / (float_step - float_tree);
    state.counters["bare_tree_ratio"] = fixed_bare / float_bare;
    state.counters["kernel_ratio"] = (fixed_tree - fixed_bare) / (float_tree - float_bare);
    state.counters["fixed_tree_share"] = fixed_tree / fixed_step;
    state.counters["fixed_bare_share"] = fixed_bare / fixed_step;
    state.counters["float_bare_share"] = float_bare / float_step;
}

}  // namespace

BENCHMARK(BM_step_ratio)->Arg(1024)->Arg(4096)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_step_fixed)->Arg(1024)->Arg(4096)->Arg(16384)->Arg(65536)->Unit(benchmark::kMillisecond)->Complexity();
BENCHMARK(BM_step_float_twin)->Arg(1024)->Arg(4096)->Arg(16384)->Arg(65536)->Unit(benchmark::kMillisecond)->Complexity();
