// Exhaustive accuracy of exp and log (src/core/fixed_exp.cpp) over every raw input, against
// expl/logl. Inputs whose exact answer is a constant (exp underflow to 0, saturation to max,
// log of x <= 0) are checked for that constant but kept out of the error statistics, where
// two billion zero errors would only dilute the mean and the correctly rounded share.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "exhaustive/sweep.hpp"

namespace {

using tandem::Fx;
using tandem::sweep::Row;
using tandem::sweep::Stats;

constexpr int64_t kExpLow = -(int64_t{12} << 16);  // exp(-12) * 2^16 = 0.40: below, exactly 0
constexpr int64_t kExpSat = 681392;                 // first raw with exp(x) * 2^16 > 2^31 (ln 32768)

long double exp_ref(int64_t raw) { return expl(static_cast<long double>(raw) / 65536.0L) * 65536.0L; }
long double log_ref(int64_t raw) { return logl(static_cast<long double>(raw) / 65536.0L) * 65536.0L; }
int32_t fexp(int64_t raw) { return tandem::exp(Fx::from_raw(static_cast<int32_t>(raw))).raw(); }
int32_t flog(int64_t raw) { return tandem::log(Fx::from_raw(static_cast<int32_t>(raw))).raw(); }

// Counts every input that breaks a stated property other than the error bound (wrong
// constant in a tail, a negative result, a decrease), so one number decides the row.
struct Violations {
    std::atomic<uint64_t> n{0};
    void add(uint64_t k) { if (k) n.fetch_add(k, std::memory_order_relaxed); }
};

// Monotonicity needs the neighbour across a chunk boundary, so each chunk starts from f(lo - 1).
template <class F>
uint64_t decreases(int64_t lo, int64_t hi, int64_t begin, F f) {
    uint64_t bad = 0;
    int32_t prev = lo > begin ? f(lo - 1) : INT32_MIN;
    for (int64_t r = lo; r < hi; ++r) {
        const int32_t y = f(r);
        if (y < prev) ++bad;
        prev = y;
    }
    return bad;
}

}  // namespace

TANDEM_SWEEP("exp") {
    std::vector<Row> rows;
    {
        // x < 0: results below 1, absolute bound. Tail below -12: every input must give 0.
        Violations v;
        const Stats s = tandem::sweep::parallel(kExpLow, 0, [&](int64_t lo, int64_t hi, Stats& st) {
            uint64_t bad = 0;
            for (int64_t r = lo; r < hi; ++r) {
                const int32_t y = fexp(r);
                if (y < 0) ++bad;
                st.add(static_cast<long double>(y) - exp_ref(r), r);
            }
            v.add(bad + decreases(lo, hi, kExpLow, fexp));
        });
        tandem::sweep::parallel(INT32_MIN, kExpLow, [&](int64_t lo, int64_t hi, Stats&) {
            uint64_t bad = 0;
            for (int64_t r = lo; r < hi; ++r) bad += fexp(r) != 0;
            v.add(bad);
        });
        Row row{"exp", "x < 0: raw [-786432, -1] measured; all 2^31 - 786432 below checked == 0",
                "max 1 LSB, >= 0, monotonic", s, false, tandem::sweep::describe_raw(s.worst_input)};
        row.pass = s.max_abs_error <= 1.0L && v.n.load() == 0;
        if (v.n.load()) row.worst += " (" + std::to_string(v.n.load()) + " property violations)";
        rows.push_back(row);
    }
    {
        // x >= 0: results >= 1, relative bound |error| <= result * 2^-16, i.e. exact_raw / 2^16 LSB.
        // Error is still reported in LSB. From raw 681392 up every input must saturate to max.
        Violations v;
        const Stats s = tandem::sweep::parallel(0, kExpSat, [&](int64_t lo, int64_t hi, Stats& st) {
            uint64_t bad = 0;
            for (int64_t r = lo; r < hi; ++r) {
                const long double exact = exp_ref(r);
                const long double err = static_cast<long double>(fexp(r)) - exact;
                if (std::fabs(err) > exact / 65536.0L) ++bad;
                st.add(err, r);
            }
            v.add(bad + decreases(lo, hi, 0, fexp));
        });
        tandem::sweep::parallel(kExpSat, int64_t{INT32_MAX} + 1, [&](int64_t lo, int64_t hi, Stats&) {
            uint64_t bad = 0;
            for (int64_t r = lo; r < hi; ++r) bad += fexp(r) != INT32_MAX;
            v.add(bad);
        });
        // The two rows meet at 0 and at the saturation edge: both must still be monotonic there.
        if (fexp(-1) > fexp(0) || fexp(kExpSat - 1) > fexp(kExpSat)) v.add(1);
        Row row{"exp", "x >= 0: raw [0, 681391] measured; all 2^31 - 681392 above checked == max",
                "relative 2^-16, monotonic", s, false, tandem::sweep::describe_raw(s.worst_input)};
        row.pass = v.n.load() == 0;
        if (v.n.load()) row.worst += " (" + std::to_string(v.n.load()) + " violations)";
        rows.push_back(row);
    }
    return rows;
}

TANDEM_SWEEP("log") {
    Violations v;
    const Stats s = tandem::sweep::parallel(1, int64_t{INT32_MAX} + 1, [&](int64_t lo, int64_t hi, Stats& st) {
        for (int64_t r = lo; r < hi; ++r) st.add(static_cast<long double>(flog(r)) - log_ref(r), r);
        v.add(decreases(lo, hi, 1, flog));
    });
    tandem::sweep::parallel(INT32_MIN, 1, [&](int64_t lo, int64_t hi, Stats&) {
        uint64_t bad = 0;
        for (int64_t r = lo; r < hi; ++r) bad += flog(r) != INT32_MIN;
        v.add(bad);
    });
    // "Unbiased": the mean signed error must be negligible next to the 0.5 LSB of rounding.
    const long double mean = s.count ? s.sum_signed_error / static_cast<long double>(s.count) : 0.0L;
    Row row{"log", "all 2^31 - 1 positive raw values; all x <= 0 checked == min",
            "max 1 LSB, |mean| < 0.01, monotonic", s, false, tandem::sweep::describe_raw(s.worst_input)};
    row.pass = s.max_abs_error <= 1.0L && std::fabs(mean) < 0.01L && v.n.load() == 0;
    if (v.n.load()) row.worst += " (" + std::to_string(v.n.load()) + " violations)";
    return {row};
}
