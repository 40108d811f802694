// Cost of world::step at 1k..64k pellets, and of a float twin of the same step measured in
// the same run, so the price of determinism is a ratio rather than a guess. The twin is bench
// code only (floats are allowed here, never in src/world); it mirrors the algorithm (the same
// quadtree, opening test, kernel, integration, walls and captures), not the bits.
// Read: Time per iteration = one tick (ms); the _BigO rows fit the growth; fixed/float at
// each n is the cost of determinism (goal <= 1.1x; 4,096 pellets well inside 16.7 ms).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/random.hpp"
#include "world/world.hpp"

using namespace tandem;

namespace {

world::World fixed_world(uint32_t n) {
    world::WorldConfig c = world::default_config();
    c.pellet_count = n;
    world::World w = world::make_world(c);
    const std::vector<world::Input> join{{1, world::InputKind::join, {Fx::from_int(300), Fx::from_int(300)}},
                                         {2, world::InputKind::join, {Fx::from_int(700), Fx::from_int(700)}}};
    world::step(w, join);
    return w;
}

// ---- The float twin.
struct FPellet { float x, y, vx, vy; };
struct FWell { float x, y; };
struct FNode { float cx, cy, strength; uint32_t skip; uint16_t depth, leaf; };

struct FloatWorld {
    float arena = 1024, well_strength = 6000, pellet_strength = 1.0f / 16, soft2 = 64, capture2 = 144;
    float max_speed = 300, restitution = 0.75f, theta = 0.7f, dt = 1.0f / 60;
    uint32_t max_depth = 12;
    std::vector<FPellet> pellets;
    std::vector<FWell> wells;
    std::vector<FNode> nodes;
    std::vector<uint32_t> order, scratch;
    std::vector<float> open2;
    std::vector<float> ax, ay;
    XorShift rng{1};

    void build(uint32_t b, uint32_t e, float x0, float y0, float size, uint32_t depth) {
        const uint32_t index = static_cast<uint32_t>(nodes.size());
        const uint32_t count = e - b;
        float sx = 0, sy = 0;
        for (uint32_t k = b; k < e; ++k) { sx += pellets[order[k]].x; sy += pellets[order[k]].y; }
        const float fcount = static_cast<float>(count);
        nodes.push_back({sx / fcount, sy / fcount, pellet_strength * fcount, 0, static_cast<uint16_t>(depth),
                         static_cast<uint16_t>(count <= 1 || depth >= max_depth)});
        if (!nodes[index].leaf) {
            const float half = size / 2, mx = x0 + half, my = y0 + half;
            uint32_t cnt[4] = {0, 0, 0, 0};
            for (uint32_t k = b; k < e; ++k) {
                const FPellet& p = pellets[order[k]];
                ++cnt[(p.x >= mx ? 1u : 0u) | (p.y >= my ? 2u : 0u)];
            }
            uint32_t start[5] = {b, 0, 0, 0, 0};
            for (int q = 0; q < 4; ++q) start[q + 1] = start[q] + cnt[q];
            uint32_t fill[4] = {start[0], start[1], start[2], start[3]};
            for (uint32_t k = b; k < e; ++k) {
                const FPellet& p = pellets[order[k]];
                scratch[fill[(p.x >= mx ? 1u : 0u) | (p.y >= my ? 2u : 0u)]++] = order[k];
            }
            for (uint32_t k = b; k < e; ++k) order[k] = scratch[k];
            for (uint32_t q = 0; q < 4; ++q) {
                if (start[q] != start[q + 1]) build(start[q], start[q + 1], (q & 1) ? mx : x0, (q & 2) ? my : y0, half, depth + 1);
            }
        }
        nodes[index].skip = static_cast<uint32_t>(nodes.size());
    }

    static void pull(float& ax_, float& ay_, float dx, float dy, float s, float soft2_) {
        const float r2 = dx * dx + dy * dy + soft2_;
        const float inv = s / (r2 * std::sqrt(r2));
        ax_ += dx * inv;
        ay_ += dy * inv;
    }

    static void bounce(float& p, float& v, float arena_, float rest) {
        if (p < 0) { p = -p; v = -v * rest; } else if (p > arena_) { p = 2 * arena_ - p; v = -v * rest; }
        p = std::fmin(std::fmax(p, 0.0f), arena_);
    }

    void step() {
        const uint32_t n = static_cast<uint32_t>(pellets.size());
        nodes.clear();
        order.resize(n);
        scratch.resize(n);
        for (uint32_t i = 0; i < n; ++i) order[i] = i;
        open2.assign(max_depth + 1, 0);
        for (uint32_t d = 0; d <= max_depth; ++d) { const float r = arena / float(1u << d) / theta; open2[d] = r * r; }
        build(0, n, 0, 0, arena, 0);
        ax.assign(n, 0);
        ay.assign(n, 0);
        for (uint32_t i = 0; i < n; ++i) {
            const float px = pellets[i].x, py = pellets[i].y;
            float fx = 0, fy = 0;
            uint32_t k = 0;
            const uint32_t total = static_cast<uint32_t>(nodes.size());
            while (k < total) {
                const FNode& node = nodes[k];
                const float dx = node.cx - px, dy = node.cy - py, d2 = dx * dx + dy * dy;
                if (node.leaf || d2 > open2[node.depth]) {
                    if (d2 != 0) pull(fx, fy, dx, dy, node.strength, soft2);
                    k = node.skip;
                } else {
                    ++k;
                }
            }
            for (const FWell& w : wells) pull(fx, fy, w.x - px, w.y - py, well_strength, soft2);
            ax[i] = fx;
            ay[i] = fy;
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
            for (const FWell& w : wells) {
                const float dx = w.x - p.x, dy = w.y - p.y;
                if (dx * dx + dy * dy <= capture2) {
                    p = {rng.unit() * arena, rng.unit() * arena, 0, 0};
                    break;
                }
            }
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
    for (auto _ : state) {
        world::step(w, {});
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
