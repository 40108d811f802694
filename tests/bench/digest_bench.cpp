// StateDigest throughput on arrays of 32-bit fields, beside memcpy of the same bytes in the
// same run, so the ratio (goal: digest >= half of memcpy's bandwidth) is read off one
// report; and the AVX2 XXH3 engine beside the baseline one. Timing only: nothing here checks digests, tests/core/digest_test.cpp does.
#include "tandem/core/digest.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "tandem/core/random.hpp"
#include "core/xxh3_engine.hpp"  // private: the engines StateDigest chooses between

namespace {

std::vector<uint32_t> random_words(int64_t bytes) {
    std::vector<uint32_t> words(static_cast<size_t>(bytes / 4));
    tandem::XorShift r(1);
    for (auto& w : words) w = static_cast<uint32_t>(r.next());
    return words;
}

void BM_digest_write_u32s(benchmark::State& state) {
    const auto words = random_words(state.range(0));
    for (auto _ : state) {
        tandem::StateDigest d;
        d.write_u32s(words);
        benchmark::DoNotOptimize(d.finish());
    }
    state.SetBytesProcessed(state.iterations() * state.range(0));
}

void BM_memcpy(benchmark::State& state) {
    const auto words = random_words(state.range(0));
    std::vector<uint32_t> copy(words.size());
    for (auto _ : state) {
        std::memcpy(copy.data(), words.data(), words.size() * 4);
        benchmark::DoNotOptimize(copy.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * state.range(0));
}

// The way a world is digested field by field (write_u32 per field, through the buffer).
void BM_digest_write_u32_each(benchmark::State& state) {
    const auto words = random_words(state.range(0));
    for (auto _ : state) {
        tandem::StateDigest d;
        for (uint32_t w : words) d.write_u32(w);
        benchmark::DoNotOptimize(d.finish());
    }
    state.SetBytesProcessed(state.iterations() * state.range(0));
}

// Both in one loop, alternating batches, so load on a shared machine hits them alike.
// Timed in thread CPU time (a busy machine inflates wall time, not CPU time), each batch
// about 1 MiB so the clock's own cost is noise. Reports each bandwidth in GB/s and
// digest_over_memcpy, the goal being >= 0.5.
double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void BM_digest_vs_memcpy_ratio(benchmark::State& state) {
    const auto words = random_words(state.range(0));
    std::vector<uint32_t> copy(words.size());
    const int64_t reps = std::max<int64_t>(1, (int64_t{1} << 20) / state.range(0));
    double digest_s = 0.0, memcpy_s = 0.0;
    for (auto _ : state) {
        const double t0 = thread_cpu_seconds();
        for (int64_t i = 0; i < reps; ++i) {
            tandem::StateDigest d;
            d.write_u32s(words);
            benchmark::DoNotOptimize(d.finish());
        }
        const double t1 = thread_cpu_seconds();
        for (int64_t i = 0; i < reps; ++i) {
            std::memcpy(copy.data(), words.data(), words.size() * 4);
            benchmark::DoNotOptimize(copy.data());
            benchmark::ClobberMemory();
        }
        const double t2 = thread_cpu_seconds();
        digest_s += t1 - t0;
        memcpy_s += t2 - t1;
    }
    const double bytes = static_cast<double>(state.iterations() * reps) * static_cast<double>(state.range(0));
    state.SetBytesProcessed(2 * state.iterations() * reps * state.range(0));
    state.counters["digest_GBps"] = bytes / digest_s / 1e9;
    state.counters["memcpy_GBps"] = bytes / memcpy_s / 1e9;
    state.counters["digest_over_memcpy"] = memcpy_s / digest_s;
}

// The two XXH3 engines on the same bytes, alternating batches as above: what the run-time
// choice of the AVX2 build buys over the baseline (SSE2 on x86-64) on this CPU.
void BM_xxh3_avx2_vs_baseline(benchmark::State& state) {
    const tandem::detail::Xxh3Engine* avx2 = tandem::detail::xxh3_avx2_engine();
    if (avx2 == nullptr) {
        state.SkipWithError("no AVX2 engine on this target or CPU");
        return;
    }
    const tandem::detail::Xxh3Engine& baseline = tandem::detail::xxh3_baseline_engine();
    const auto words = random_words(state.range(0));
    const int64_t reps = std::max<int64_t>(1, (int64_t{1} << 20) / state.range(0));
    double avx2_s = 0.0, baseline_s = 0.0;
    for (auto _ : state) {
        const double t0 = thread_cpu_seconds();
        for (int64_t i = 0; i < reps; ++i) benchmark::DoNotOptimize(avx2->hash(words.data(), words.size() * 4));
        const double t1 = thread_cpu_seconds();
        for (int64_t i = 0; i < reps; ++i) benchmark::DoNotOptimize(baseline.hash(words.data(), words.size() * 4));
        const double t2 = thread_cpu_seconds();
        avx2_s += t1 - t0;
        baseline_s += t2 - t1;
    }
    const double bytes = static_cast<double>(state.iterations() * reps) * static_cast<double>(state.range(0));
    state.counters["avx2_GBps"] = bytes / avx2_s / 1e9;
    state.counters[std::string(baseline.name) + "_GBps"] = bytes / baseline_s / 1e9;
    state.counters["avx2_over_baseline"] = baseline_s / avx2_s;
}

}  // namespace

BENCHMARK(BM_digest_write_u32s)->Arg(4 << 10)->Arg(64 << 10)->Arg(1 << 20);
BENCHMARK(BM_memcpy)->Arg(4 << 10)->Arg(64 << 10)->Arg(1 << 20);
BENCHMARK(BM_digest_write_u32_each)->Arg(4 << 10)->Arg(64 << 10)->Arg(1 << 20);
BENCHMARK(BM_digest_vs_memcpy_ratio)->Arg(4 << 10)->Arg(64 << 10)->Arg(1 << 20);
BENCHMARK(BM_xxh3_avx2_vs_baseline)->Arg(4 << 10)->Arg(64 << 10)->Arg(1 << 20);
