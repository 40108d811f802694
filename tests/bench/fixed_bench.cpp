// Cost of Fx arithmetic next to the float operation it replaces, over the same input arrays
// in the same run: *, /, sqrt, length (and distance). Reported per element ("per_op").
// Each loop writes an output array, so the float loops may be vectorised by the compiler:
// that is the real alternative the simulation gives up, so it is what we compare against.
#include "tandem/core/fixed.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using tandem::Fx;
constexpr int kN = 4096;

uint64_t mix(uint64_t x) {
    uint64_t z = x * 0x9E3779B97F4A7C15u + 0x632BE59BD9B4E019u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

// Values in a simulation-like range (|v| < 256), never zero, with their float twins.
struct Inputs {
    std::vector<Fx> a, b;
    std::vector<float> fa, fb;
    Inputs() {
        for (int i = 0; i < kN; ++i) {
            int32_t x = static_cast<int32_t>(mix(2 * i) % (256u << 16)) - (128 << 16);
            int32_t y = static_cast<int32_t>(mix(2 * i + 1) % (256u << 16)) - (128 << 16);
            if (x == 0) x = 1;
            if (y == 0) y = 1;
            a.push_back(Fx::from_raw(x));
            b.push_back(Fx::from_raw(y));
            fa.push_back(tandem::to_f32(a.back()));
            fb.push_back(tandem::to_f32(b.back()));
        }
    }
};
const Inputs& inputs() {
    static const Inputs in;
    return in;
}

void per_op(benchmark::State& state) {
    state.counters["per_op"] = benchmark::Counter(kN, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_fx_mul(benchmark::State& state) {
    const auto& in = inputs();
    std::vector<Fx> out(kN);
    for (auto _ : state) {
        for (int i = 0; i < kN; ++i) out[i] = in.a[i] * in.b[i];
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_op(state);
}
void BM_f32_mul(benchmark::State& state) {
    const auto& in = inputs();
    std::vector<float> out(kN);
    for (auto _ : state) {
        for (int i = 0; i < kN; ++i) out[i] = in.fa[i] * in.fb[i];
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_op(state);
}

void BM_fx_div(benchmark::State& state) {
    const auto& in = inputs();
    std::vector<Fx> out(kN);
    for (auto _ : state) {
        for (int i = 0; i < kN; ++i) out[i] = in.a[i] / in.b[i];
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_op(state);
}
void BM_f32_div(benchmark::State& state) {
    const auto& in = inputs();
    std::vector<float> out(kN);
    for (auto _ : state) {
        for (int i = 0; i < kN; ++i) out[i] = in.fa[i] / in.fb[i];
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_op(state);
}

void BM_fx_sqrt(benchmark::State& state) {
    const auto& in = inputs();
    std::vector<Fx> out(kN);
    for (auto _ : state) {
        for (int i = 0; i < kN; ++i) out[i] = tandem::sqrt(tandem::abs(in.a[i]));
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_op(state);
}
void BM_f32_sqrt(benchmark::State& state) {
    const auto& in = inputs();
    std::vector<float> out(kN);
    for (auto _ : state) {
        for (int i = 0; i < kN; ++i) out[i] = std::sqrt(std::fabs(in.fa[i]));
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_op(state);
}

void BM_fx_length(benchmark::State& state) {
    const auto& in = inputs();
    std::vector<Fx> out(kN);
    for (auto _ : state) {
        for (int i = 0; i < kN; ++i) out[i] = tandem::length({in.a[i], in.b[i]});
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_op(state);
}
void BM_f32_length(benchmark::State& state) {
    const auto& in = inputs();
    std::vector<float> out(kN);
    for (auto _ : state) {
        for (int i = 0; i < kN; ++i) out[i] = std::sqrt(in.fa[i] * in.fa[i] + in.fb[i] * in.fb[i]);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_op(state);
}

void BM_fx_distance(benchmark::State& state) {
    const auto& in = inputs();
    std::vector<Fx> out(kN);
    for (auto _ : state) {
        for (int i = 0; i + 1 < kN; ++i) out[i] = tandem::distance({in.a[i], in.b[i]}, {in.b[i + 1], in.a[i + 1]});
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_op(state);
}
void BM_f32_distance(benchmark::State& state) {
    const auto& in = inputs();
    std::vector<float> out(kN);
    for (auto _ : state) {
        for (int i = 0; i + 1 < kN; ++i) {
            const float dx = in.fb[i + 1] - in.fa[i], dy = in.fa[i + 1] - in.fb[i];
            out[i] = std::sqrt(dx * dx + dy * dy);
        }
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    per_op(state);
}

}  // namespace

BENCHMARK(BM_fx_mul);
BENCHMARK(BM_f32_mul);
BENCHMARK(BM_fx_div);
BENCHMARK(BM_f32_div);
BENCHMARK(BM_fx_sqrt);
BENCHMARK(BM_f32_sqrt);
BENCHMARK(BM_fx_length);
BENCHMARK(BM_f32_length);
BENCHMARK(BM_fx_distance);
BENCHMARK(BM_f32_distance);
