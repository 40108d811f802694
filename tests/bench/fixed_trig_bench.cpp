// Cost of the Fx trigonometry next to glibc's float functions, over the same inputs in the
// same run, so the ratio survives a busy or throttled machine. Floats here are only the
// controls being timed against; nothing measured here feeds a simulation.
#include "tandem/core/fixed.hpp"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using tandem::Fx;

constexpr int kInputs = 4096;

// A fixed xorshift stream, so every run and every build times the same inputs.
uint64_t next(uint64_t& s) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

// Raw values spread over [-limit, limit): varied quadrants and magnitudes, unpredictable
// branches, as a simulation's angles would be.
std::vector<int32_t> raw_inputs(int64_t limit, uint64_t seed) {
    std::vector<int32_t> v(kInputs);
    for (auto& r : v) r = static_cast<int32_t>(static_cast<int64_t>(next(seed) % static_cast<uint64_t>(2 * limit)) - limit);
    return v;
}

std::vector<Fx> fx_of(const std::vector<int32_t>& raw) {
    std::vector<Fx> v;
    for (int32_t r : raw) v.push_back(Fx::from_raw(r));
    return v;
}

std::vector<float> f32_of(const std::vector<int32_t>& raw) {
    std::vector<float> v;
    for (int32_t r : raw) v.push_back(static_cast<float>(r) / 65536.0f);
    return v;
}

// Angles up to 64 rad: the range a simulation's headings occupy (sinf's fast path).
constexpr int64_t kAngleLimit = int64_t{64} << 16;
// The whole Fx range, where sinf takes its slow large-argument reduction.
constexpr int64_t kFullLimit = int64_t{1} << 31;

template <Fx (*F)(Fx)>
void fixed_unary(benchmark::State& state, int64_t limit) {
    const auto in = fx_of(raw_inputs(limit, 0x9E3779B97F4A7C15u));
    for (auto _ : state) {
        for (Fx x : in) benchmark::DoNotOptimize(F(x));
    }
    state.SetItemsProcessed(state.iterations() * kInputs);
}

template <float (*F)(float)>
void float_unary(benchmark::State& state, int64_t limit) {
    const auto in = f32_of(raw_inputs(limit, 0x9E3779B97F4A7C15u));
    for (auto _ : state) {
        for (float x : in) benchmark::DoNotOptimize(F(x));
    }
    state.SetItemsProcessed(state.iterations() * kInputs);
}

Fx fx_sin(Fx a) { return tandem::sin(a); }
Fx fx_cos(Fx a) { return tandem::cos(a); }
Fx fx_atan(Fx a) { return tandem::atan(a); }
Fx fx_asin(Fx a) { return tandem::asin(a); }
Fx fx_acos(Fx a) { return tandem::acos(a); }
float f_sin(float a) { return ::sinf(a); }
float f_cos(float a) { return ::cosf(a); }
float f_atan(float a) { return ::atanf(a); }
float f_asin(float a) { return ::asinf(a); }
float f_acos(float a) { return ::acosf(a); }

void BM_fx_sin(benchmark::State& s) { fixed_unary<fx_sin>(s, kAngleLimit); }
void BM_f32_sinf(benchmark::State& s) { float_unary<f_sin>(s, kAngleLimit); }
void BM_fx_cos(benchmark::State& s) { fixed_unary<fx_cos>(s, kAngleLimit); }
void BM_f32_cosf(benchmark::State& s) { float_unary<f_cos>(s, kAngleLimit); }
void BM_fx_sin_full_range(benchmark::State& s) { fixed_unary<fx_sin>(s, kFullLimit); }
void BM_f32_sinf_full_range(benchmark::State& s) { float_unary<f_sin>(s, kFullLimit); }
void BM_fx_atan(benchmark::State& s) { fixed_unary<fx_atan>(s, kFullLimit); }
void BM_f32_atanf(benchmark::State& s) { float_unary<f_atan>(s, kFullLimit); }
void BM_fx_asin(benchmark::State& s) { fixed_unary<fx_asin>(s, 65537); }
void BM_f32_asinf(benchmark::State& s) { float_unary<f_asin>(s, 65537); }
void BM_fx_acos(benchmark::State& s) { fixed_unary<fx_acos>(s, 65537); }
void BM_f32_acosf(benchmark::State& s) { float_unary<f_acos>(s, 65537); }

// atan2 over points whose magnitudes range from a few LSB to the full Fx range, in every
// quadrant: the division's operand sizes vary as they would in a simulation.
std::vector<int32_t> plane_inputs(uint64_t seed) {
    std::vector<int32_t> v(2 * kInputs);
    for (auto& r : v) {
        const uint64_t bits = next(seed);
        r = static_cast<int32_t>(static_cast<uint32_t>(bits)) >> (bits >> 59);  // shift 0..31
    }
    return v;
}

void BM_fx_atan2(benchmark::State& state) {
    const auto in = fx_of(plane_inputs(0xD1B54A32D192ED03u));
    for (auto _ : state) {
        for (int i = 0; i < kInputs; ++i) benchmark::DoNotOptimize(tandem::atan2(in[2 * i], in[2 * i + 1]));
    }
    state.SetItemsProcessed(state.iterations() * kInputs);
}

void BM_f32_atan2f(benchmark::State& state) {
    const auto in = f32_of(plane_inputs(0xD1B54A32D192ED03u));
    for (auto _ : state) {
        for (int i = 0; i < kInputs; ++i) benchmark::DoNotOptimize(::atan2f(in[2 * i], in[2 * i + 1]));
    }
    state.SetItemsProcessed(state.iterations() * kInputs);
}

}  // namespace

BENCHMARK(BM_fx_sin);
BENCHMARK(BM_f32_sinf);
BENCHMARK(BM_fx_cos);
BENCHMARK(BM_f32_cosf);
BENCHMARK(BM_fx_sin_full_range);
BENCHMARK(BM_f32_sinf_full_range);
BENCHMARK(BM_fx_atan2);
BENCHMARK(BM_f32_atan2f);
BENCHMARK(BM_fx_atan);
BENCHMARK(BM_f32_atanf);
BENCHMARK(BM_fx_asin);
BENCHMARK(BM_f32_asinf);
BENCHMARK(BM_fx_acos);
BENCHMARK(BM_f32_acosf);
