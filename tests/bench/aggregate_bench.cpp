// Cost of the aggregate tree: build time per point and summaries per viewer at 1k, 10k and
// 100k points, their growth exponents, and the price of fixed point as a measured ratio
// against a float twin of the same algorithm. The float twin is test code: never product.
#include "tandem/core/aggregate.hpp"

#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <time.h>  // clock_gettime: CPU time for the printed summary (bench only, POSIX)

namespace {

using tandem::AggregateTree;
using tandem::Fx;
using tandem::Summary;
using tandem::WeightedPoint;

constexpr uint8_t depth = 24;
constexpr int32_t theta_num = 1, theta_den = 2;  // theta 0.5
constexpr uint32_t viewers = 64;

struct Lcg {
    uint32_t state;
    uint32_t below(uint32_t bound) {
        state = state * 1664525u + 1013904223u;
        return static_cast<uint32_t>((uint64_t{state} * bound) >> 32);
    }
};

// A uniform crowd in [-1000, 1000)^2 with weights in [0.5, 4.5): the same for every run.
std::vector<WeightedPoint> crowd(uint32_t n, uint32_t seed) {
    Lcg lcg{seed};
    std::vector<WeightedPoint> points(n);
    for (auto& p : points) {
        p.x = Fx::from_raw(static_cast<int32_t>(lcg.below(2000u * 65536u)) - 1000 * 65536);
        p.y = Fx::from_raw(static_cast<int32_t>(lcg.below(2000u * 65536u)) - 1000 * 65536);
        p.weight = Fx::from_raw(32768 + static_cast<int32_t>(lcg.below(4u * 65536u)));
    }
    return points;
}

// ---- The float twin: the seed's construction in f32, with the same stable counting split,
// bottom-up sums and squared opening test, so the ratio measures the number format only.
struct FPoint { float x, y, w; };
struct FSummary { float x, y, w, size; uint32_t count, start; };

class FloatTree {
public:
    void rebuild(const std::vector<FPoint>& points, uint32_t max_depth) {
        const auto n = static_cast<uint32_t>(points.size());
        nodes_.clear();
        order_.resize(n);
        scratch_.resize(n);
        for (uint32_t i = 0; i < n; ++i) order_[i] = i;
        if (n == 0) return;
        float min_x = points[0].x, max_x = min_x, min_y = points[0].y, max_y = min_y;
        for (const auto& p : points) {
            min_x = std::min(min_x, p.x); max_x = std::max(max_x, p.x);
            min_y = std::min(min_y, p.y); max_y = std::max(max_y, p.y);
        }
        const float size = std::max(std::max(max_x - min_x, max_y - min_y), 1.0f);
        build(points, 0, n, (min_x + max_x) * 0.5f, (min_y + max_y) * 0.5f, size, 0, max_depth);
    }

    void summarize(float x, float y, float theta, std::vector<FSummary>& out) const {
        out.clear();
        if (nodes_.empty()) return;
        std::array<uint32_t, 3 * 48 + 4> stack;
        uint32_t top = 0;
        stack[top++] = 0;
        const float theta2 = theta * theta;
        while (top > 0) {
            const Node& node = nodes_[stack[--top]];
            const float dx = node.x - x, dy = node.y - y;
            if (node.leaf || (theta > 0.0f && node.size * node.size < theta2 * (dx * dx + dy * dy))) {
                out.push_back({node.x, node.y, node.w, node.size, node.len, node.start});
            } else {
                for (uint32_t q = 4; q-- > 0;) if (node.children[q] != none) stack[top++] = node.children[q];
            }
        }
    }

private:
    static constexpr uint32_t none = 0xFFFFFFFFu;
    struct Node {
        float x, y, w, size;
        uint32_t start, len;
        std::array<uint32_t, 4> children;
        bool leaf;
    };
    struct Sums { float w = 0, wx = 0, wy = 0, sx = 0, sy = 0; };

    Sums build(const std::vector<FPoint>& points, uint32_t start, uint32_t len, float cx, float cy, float size,
               uint32_t d, uint32_t max_depth) {
        const auto index = static_cast<uint32_t>(nodes_.size());
        nodes_.push_back({});
        std::array<uint32_t, 4> children{none, none, none, none};
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
                children[q] = static_cast<uint32_t>(nodes_.size());
                const Sums c = build(points, first[q], counts[q], cx + ((q & 1u) ? quarter : -quarter),
                                     cy + ((q & 2u) ? quarter : -quarter), size * 0.5f, d + 1, max_depth);
                s.w += c.w; s.wx += c.wx; s.wy += c.wy; s.sx += c.sx; s.sy += c.sy;
            }
        }
        Node& node = nodes_[index];
        const bool weighted = std::fabs(s.w) > 1.1920929e-7f;
        node = {weighted ? s.wx / s.w : s.sx / static_cast<float>(len), weighted ? s.wy / s.w : s.sy / static_cast<float>(len),
                s.w, size, start, len, children, leaf};
        return s;
    }

    std::vector<Node> nodes_;
    std::vector<uint32_t> order_, scratch_;
};

std::vector<FPoint> to_float(const std::vector<WeightedPoint>& points) {
    std::vector<FPoint> out;
    out.reserve(points.size());
    for (const auto& p : points) {
        out.push_back({static_cast<float>(p.x.raw()) / 65536.0f, static_cast<float>(p.y.raw()) / 65536.0f,
                       static_cast<float>(p.weight.raw()) / 65536.0f});
    }
    return out;
}

// ---- Results, printed once at exit as exponents and ratios.
struct Measured {
    double build_ns_per_point = 0;
    double walk_ns_per_viewer = 0;
    double summaries_per_viewer = 0;
};
// At namespace scope and before `report`, so it is destroyed after report has printed it.
std::map<std::string, std::map<uint32_t, Measured>> measured;
std::map<std::string, std::map<uint32_t, Measured>>& results() { return measured; }

// This thread's CPU time, not wall time: the machine is shared, and the printed exponents
// and ratios should not move with other people's load.
double cpu_now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}
double elapsed_ns(double since) { return cpu_now_ns() - since; }

void BM_BuildFixed(benchmark::State& state) {
    const auto n = static_cast<uint32_t>(state.range(0));
    const auto points = crowd(n, 1);
    AggregateTree tree;
    if (!tree.rebuild(points, depth)) state.SkipWithError("rebuild refused");  // warm: storage grown
    const double start = cpu_now_ns();
    for (auto _ : state) {
        benchmark::DoNotOptimize(tree.rebuild(points, depth).ok());
        benchmark::DoNotOptimize(tree.node_count());
    }
    const double per_point = elapsed_ns(start) / static_cast<double>(state.iterations()) / n;
    results()["fixed"][n].build_ns_per_point = per_point;
    state.counters["ns_per_point"] = per_point;
    state.counters["nodes"] = tree.node_count();
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n);
}

void BM_BuildFloat(benchmark::State& state) {
    const auto n = static_cast<uint32_t>(state.range(0));
    const auto points = to_float(crowd(n, 1));
    FloatTree tree;
    tree.rebuild(points, depth);
    const double start = cpu_now_ns();
    for (auto _ : state) {
        tree.rebuild(points, depth);
        benchmark::ClobberMemory();
    }
    const double per_point = elapsed_ns(start) / static_cast<double>(state.iterations()) / n;
    results()["float"][n].build_ns_per_point = per_point;
    state.counters["ns_per_point"] = per_point;
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n);
}

void BM_SummarizeFixed(benchmark::State& state) {
    const auto n = static_cast<uint32_t>(state.range(0));
    const auto tree = AggregateTree::build(crowd(n, 1), depth).value();
    const auto eyes = crowd(viewers, 99);  // viewers inside the crowd: the expensive case
    const Fx theta = tandem::ratio(theta_num, theta_den);
    std::vector<Summary> out;
    uint64_t emitted = 0, walks = 0;
    const double start = cpu_now_ns();
    for (auto _ : state) {
        const auto& eye = eyes[walks % viewers];
        tree.summarize(eye.x, eye.y, theta, out);
        emitted += out.size();
        ++walks;
        benchmark::DoNotOptimize(out.data());
    }
    const double ns = elapsed_ns(start) / static_cast<double>(walks);
    benchmark::DoNotOptimize(emitted);
    auto& m = results()["fixed"][n];
    m.walk_ns_per_viewer = ns;
    // The count is exact, not timed: the mean over all viewers, whatever the iteration count.
    uint64_t total = 0;
    for (const auto& eye : eyes) { tree.summarize(eye.x, eye.y, theta, out); total += out.size(); }
    m.summaries_per_viewer = static_cast<double>(total) / viewers;
    state.counters["summaries_per_viewer"] = m.summaries_per_viewer;
}

void BM_SummarizeFloat(benchmark::State& state) {
    const auto n = static_cast<uint32_t>(state.range(0));
    FloatTree tree;
    tree.rebuild(to_float(crowd(n, 1)), depth);
    const auto eyes = to_float(crowd(viewers, 99));
    const float theta = static_cast<float>(theta_num) / static_cast<float>(theta_den);
    std::vector<FSummary> out;
    uint64_t emitted = 0, walks = 0;
    const double start = cpu_now_ns();
    for (auto _ : state) {
        const auto& eye = eyes[walks % viewers];
        tree.summarize(eye.x, eye.y, theta, out);
        emitted += out.size();
        ++walks;
        benchmark::DoNotOptimize(out.data());
    }
    const double ns = elapsed_ns(start) / static_cast<double>(walks);
    benchmark::DoNotOptimize(emitted);
    auto& m = results()["float"][n];
    m.walk_ns_per_viewer = ns;
    uint64_t total = 0;
    for (const auto& eye : eyes) { tree.summarize(eye.x, eye.y, theta, out); total += out.size(); }
    m.summaries_per_viewer = static_cast<double>(total) / viewers;
    state.counters["summaries_per_viewer"] = m.summaries_per_viewer;
}

BENCHMARK(BM_BuildFixed)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BuildFloat)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SummarizeFixed)->Arg(1000)->Arg(10000)->Arg(100000);
BENCHMARK(BM_SummarizeFloat)->Arg(1000)->Arg(10000)->Arg(100000);

// Growth exponent between two sizes: log(cost ratio) / log(size ratio). Build time O(n log n)
// shows as a total-time exponent a little above 1 (per point: a little above 0); an O(log n)
// walk as a summary-count exponent near 0.
double exponent(double small, double big, double n_small, double n_big) {
    return std::log(big / small) / std::log(n_big / n_small);
}

struct Report {
    ~Report() {
        auto& r = results();
        if (r["fixed"].size() < 3 || r["float"].size() < 3) return;  // a filtered run
        std::printf("\naggregate tree, uniform crowd in [-1000,1000)^2, depth %u, theta %d/%d, %u viewers inside\n",
                    unsigned{depth}, theta_num, theta_den, viewers);
        std::printf("%8s %14s %14s %8s %16s %16s %8s %15s %8s\n", "n", "build ns/pt fx", "build ns/pt f32", "ratio",
                    "walk ns/view fx", "walk ns/view f32", "ratio", "summ/viewer fx", "f32");
        for (const auto& [n, fx] : r["fixed"]) {
            const Measured& fl = r["float"][n];
            std::printf("%8u %14.1f %14.1f %8.2f %16.0f %16.0f %8.2f %15.2f %8.2f\n", n, fx.build_ns_per_point,
                        fl.build_ns_per_point, fx.build_ns_per_point / fl.build_ns_per_point, fx.walk_ns_per_viewer,
                        fl.walk_ns_per_viewer, fx.walk_ns_per_viewer / fl.walk_ns_per_viewer, fx.summaries_per_viewer,
                        fl.summaries_per_viewer);
        }
        const uint32_t sizes[3] = {1000, 10000, 100000};
        for (int i = 0; i < 2; ++i) {
            const uint32_t a = sizes[i], b = sizes[i + 1];
            const Measured &fa = r["fixed"][a], &fb = r["fixed"][b];
            // Total build time = per point * n, so its exponent is 1 + the per-point one.
            std::printf("growth %u -> %u: build total time n^%.3f (n log n ~ n^%.3f), summaries n^%.3f, walk time n^%.3f\n",
                        a, b, 1.0 + exponent(fa.build_ns_per_point, fb.build_ns_per_point, a, b),
                        1.0 + exponent(std::log(double(a)), std::log(double(b)), a, b),
                        exponent(fa.summaries_per_viewer, fb.summaries_per_viewer, a, b),
                        exponent(fa.walk_ns_per_viewer, fb.walk_ns_per_viewer, a, b));
        }
    }
} report;

}  // namespace
