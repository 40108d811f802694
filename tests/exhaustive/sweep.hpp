// The exhaustive accuracy harness: each sweep walks a whole input domain (usually all 2^32
// raw values) against an exact or long double reference and reports one table row. The
// table is printed and written to docs/accuracy.md; a row over its stated bound fails.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tandem::sweep {

// Error statistics of one function over its domain, in LSB (1 LSB = 2^-16).
struct Stats {
    uint64_t count = 0;
    uint64_t correctly_rounded = 0;  // samples whose |error| <= 0.5 LSB (nearest raw value)
    long double max_abs_error = 0;
    long double sum_signed_error = 0;
    int64_t worst_input = 0;  // the input (raw, or an encoded pair) with the largest |error|

    // error = (result_raw - exact_raw) where exact_raw is the exact value in raw units.
    void add(long double error, int64_t input);
    void merge(const Stats& other);
};

struct Row {
    std::string function;   // "sin"
    std::string domain;     // "all 2^32 raw values"
    std::string bound;      // "max 1 LSB"
    Stats stats;
    bool pass = false;
    std::string worst;      // human-readable worst input, e.g. "raw 0x0001234 (0.071...)"
};

// Runs body(lo, hi, stats) over [begin, end) split across the machine's cores and merges
// the per-thread statistics. body must be pure with respect to shared state.
Stats parallel(int64_t begin, int64_t end, const std::function<void(int64_t, int64_t, Stats&)>& body);

using SweepFn = std::vector<Row> (*)();
struct Register {
    Register(const char* name, SweepFn fn);
};

std::string describe_raw(int64_t raw);  // "raw 205887 (3.1415863)"

}  // namespace tandem::sweep

// TANDEM_SWEEP(name) { ... return rows; } registers a sweep run by tandem_exhaustive.
#define TANDEM_SWEEP_CAT2(a, b) a##b
#define TANDEM_SWEEP_CAT(a, b) TANDEM_SWEEP_CAT2(a, b)
#define TANDEM_SWEEP(name)                                                                  \
    static std::vector<::tandem::sweep::Row> TANDEM_SWEEP_CAT(sweep_fn_, __LINE__)();        \
    static const ::tandem::sweep::Register TANDEM_SWEEP_CAT(sweep_reg_, __LINE__){           \
        name, &TANDEM_SWEEP_CAT(sweep_fn_, __LINE__)};                                       \
    static std::vector<::tandem::sweep::Row> TANDEM_SWEEP_CAT(sweep_fn_, __LINE__)()
