// Speed of tandem::exp / tandem::log next to glibc's expf / logf over the same inputs in the
// same run (the goal: within 2x of the float functions). Throughput over a 4096-entry array;
// the "per_call" counter is the time of one call.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <benchmark/benchmark.h>

#include "tandem/core/fixed.hpp"

namespace {

using tandem::Fx;
constexpr int kN = 4096;

// Deterministic inputs (a fixed LCG), so every run times the same values.
struct Inputs {
    std::vector<Fx> fx;
    std::vector<float> f;
    Inputs(int32_t lo, int32_t hi) {
        uint64_t s = 0x9E3779B97F4A7C15u;
        const uint64_t span = static_cast<uint64_t>(int64_t{hi} - lo);
        for (int i = 0; i < kN; ++i) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            const int32_t r = static_cast<int32_t>(lo + static_cast<int64_t>((s >> 32) % span));
            fx.push_back(Fx::from_raw(r));
            f.push_back(static_cast<float>(r) / 65536.0f);
        }
    }
};

// exp: the whole range where the result is neither 0 nor saturated, x in [-12, 10.4).
const Inputs& exp_inputs() { static const Inputs in(-(12 << 16), 681392); return in; }
// log: every positive raw value is equally likely.
const Inputs& log_inputs() { static const Inputs in(1, INT32_MAX); return in; }

void per_call(benchmark::State& state) {
    state.counters["per_call"] =
        benchmark::Counter(kN, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_fx_exp(benchmark::State& state) {
    const auto& in = exp_inputs().fx;
    for (auto _ : state) {
        for (Fx x : in) benchmark::DoNotOptimize(tandem::exp(x));
    }
    per_call(state);
}
void BM_expf(benchmark::State& state) {
    const auto& in = exp_inputs().f;
    for (auto _ : state) {
        for (float x : in) benchmark::DoNotOptimize(std::exp(x));
    }
    per_call(state);
}
void BM_fx_log(benchmark::State& state) {
    const auto& in = log_inputs().fx;
    for (auto _ : state) {
        for (Fx x : in) benchmark::DoNotOptimize(tandem::log(x));
    }
    per_call(state);
}
void BM_logf(benchmark::State& state) {
    const auto& in = log_inputs().f;
    for (auto _ : state) {
        for (float x : in) benchmark::DoNotOptimize(std::log(x));
    }
    per_call(state);
}

// Latency: each input depends on the previous result (its low bit xored into the input's
// bits, for float through the bit pattern, so both sides pay the same ~1-cycle link), as in
// a chain of dependent simulation steps, where throughput numbers flatter both sides.
float xor_low_bit(float x, float carry) {
    uint32_t a, b;
    std::memcpy(&a, &x, 4);
    std::memcpy(&b, &carry, 4);
    a ^= b & 1u;
    std::memcpy(&x, &a, 4);
    return x;
}
void BM_fx_exp_chain(benchmark::State& state) {
    const auto& in = exp_inputs().fx;
    for (auto _ : state) {
        int32_t carry = 0;
        for (Fx x : in) carry = tandem::exp(Fx::from_raw(x.raw() ^ (carry & 1))).raw();
        benchmark::DoNotOptimize(carry);
    }
    per_call(state);
}
void BM_expf_chain(benchmark::State& state) {
    const auto& in = exp_inputs().f;
    for (auto _ : state) {
        float carry = 0.0f;
        for (float x : in) carry = std::exp(xor_low_bit(x, carry));
        benchmark::DoNotOptimize(carry);
    }
    per_call(state);
}
void BM_fx_log_chain(benchmark::State& state) {
    const auto& in = log_inputs().fx;
    for (auto _ : state) {
        int32_t carry = 0;
        for (Fx x : in) carry = tandem::log(Fx::from_raw(x.raw() ^ (carry & 1))).raw();
        benchmark::DoNotOptimize(carry);
    }
    per_call(state);
}
void BM_logf_chain(benchmark::State& state) {
    const auto& in = log_inputs().f;
    for (auto _ : state) {
        float carry = 0.0f;
        for (float x : in) carry = std::log(xor_low_bit(x, carry));
        benchmark::DoNotOptimize(carry);
    }
    per_call(state);
}

}  // namespace

BENCHMARK(BM_fx_exp);
BENCHMARK(BM_expf);
BENCHMARK(BM_fx_log);
BENCHMARK(BM_logf);
BENCHMARK(BM_fx_exp_chain);
BENCHMARK(BM_expf_chain);
BENCHMARK(BM_fx_log_chain);
BENCHMARK(BM_logf_chain);
