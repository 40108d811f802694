// Properties of exp and log (src/core/fixed_exp.cpp): exact points, domain edges, saturation,
// error bounds on a dense sample against expl/logl, and golden hashes that pin every bit of
// the output so a change on any build (or any compiler) is caught here, not in a desync.
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <catch2/catch.hpp>

#include "tandem/core/fixed.hpp"

using tandem::Fx;

namespace {

Fx raw(int64_t r) { return Fx::from_raw(static_cast<int32_t>(r)); }
long double exp_ref(int64_t r) { return expl(static_cast<long double>(r) / 65536.0L) * 65536.0L; }
long double log_ref(int64_t r) { return logl(static_cast<long double>(r) / 65536.0L) * 65536.0L; }

constexpr int64_t kExpLow = -(int64_t{12} << 16);  // exp below -12 rounds to 0
constexpr int64_t kExpSat = 681392;                 // ln(32768) * 2^16 = 681391.40: from here, max

// FNV-1a 64 over the little-endian bytes of each raw output: byte order fixed by shifts,
// so the hash means the same on s390x as on x86.
struct Fnv {
    uint64_t h = 0xcbf29ce484222325u;
    void add(int32_t v) {
        const uint32_t u = static_cast<uint32_t>(v);
        for (int s = 0; s < 32; s += 8) {
            h ^= (u >> s) & 0xFFu;
            h *= 0x100000001b3u;
        }
    }
};

}  // namespace

TEST_CASE("exp(0) is exactly one and log(1) is exactly zero") {
    CHECK(tandem::exp(Fx::zero()) == Fx::one());
    CHECK(tandem::log(Fx::one()) == Fx::zero());
}

TEST_CASE("exp at boundary raw values") {
    CHECK(tandem::exp(raw(INT32_MIN)) == Fx::zero());
    CHECK(tandem::exp(raw(INT32_MAX)) == Fx::max());
    // exp(+-2^-16) * 2^16 = 65536 +- 1 + 7.6e-6: the nearest raw values are 65537 and 65535.
    CHECK(tandem::exp(raw(1)).raw() == 65537);
    CHECK(tandem::exp(raw(-1)).raw() == 65535);
    CHECK(tandem::exp(Fx::from_int(-1)).raw() == 24109);   // 24109.347
    CHECK(tandem::exp(Fx::from_int(1)) == tandem::fx::e);  // 178145.318
}

TEST_CASE("log of a value <= 0 returns Fx::min()") {
    CHECK(tandem::log(Fx::zero()) == Fx::min());
    CHECK(tandem::log(raw(-1)) == Fx::min());
    CHECK(tandem::log(raw(INT32_MIN)) == Fx::min());
    CHECK(tandem::log(Fx::from_int(-5)) == Fx::min());
}

TEST_CASE("log at the smallest and largest positive raw values") {
    // log(2^-16) = -16 ln2: raw -726817.498, 0.002 from a rounding tie (correctly rounded).
    CHECK(tandem::log(raw(1)).raw() == static_cast<int32_t>(std::lround(static_cast<double>(log_ref(1)))));
    CHECK(tandem::log(raw(1)).raw() == -726817);
    // log(32767.99998) * 2^16 = 681391.404; log(2^-15) * 2^16 = -15 ln2 * 2^16 = -681391.404.
    CHECK(tandem::log(raw(INT32_MAX)).raw() == 681391);
    CHECK(tandem::log(raw(2)).raw() == -681391);
}

TEST_CASE("log(e) is within 1 LSB of 1") {
    // fx::e is 178145 / 65536, 0.318 LSB below e, so the exact log is 1 - 1.8e-6: raw 65535.88.
    const Fx l = tandem::log(tandem::fx::e);
    CHECK(std::abs(l.raw() - Fx::one_raw) <= 1);
    CHECK(l == Fx::one());
}

TEST_CASE("exp saturates to Fx::max() exactly where the result exceeds it") {
    // Just below the edge the exact value is 2147470397.39 (2^31 - 13250.6) and representable.
    CHECK(tandem::exp(raw(kExpSat - 1)).raw() == 2147470397);
    CHECK(tandem::exp(raw(kExpSat - 1)) < Fx::max());
    CHECK(tandem::exp(raw(kExpSat)) == Fx::max());
    CHECK(tandem::exp(Fx::from_int(11)) == Fx::max());
    int64_t wrong = 0;
    for (int64_t r = kExpSat; r <= INT32_MAX; r += 9973) wrong += tandem::exp(raw(r)) != Fx::max();
    CHECK(wrong == 0);
}

TEST_CASE("exp of very negative inputs is 0, correctly rounded at the underflow edge") {
    // exp(x) * 2^16 = 0.5 at x = -17 ln2 = raw -772243.59: above it 1, below it 0.
    CHECK(tandem::exp(raw(-772243)).raw() == 1);
    CHECK(tandem::exp(raw(-772244)).raw() == 0);
    int64_t wrong = 0;
    for (int64_t r = kExpLow - 1000; r < -700000; ++r) {
        const int32_t want = exp_ref(r) >= 0.5L ? (exp_ref(r) >= 1.5L ? 2 : 1) : 0;
        wrong += tandem::exp(raw(r)).raw() != want;
    }
    for (int64_t r = INT32_MIN; r < kExpLow; r += 4099) wrong += tandem::exp(raw(r)) != Fx::zero();
    CHECK(wrong == 0);
}

TEST_CASE("exp never returns a negative value") {
    int64_t negative = 0;
    for (int64_t r = INT32_MIN; r <= INT32_MAX; r += 4099) negative += tandem::exp(raw(r)).raw() < 0;
    for (int64_t r = kExpLow - 256; r < kExpSat + 256; ++r) negative += tandem::exp(raw(r)).raw() < 0;
    CHECK(negative == 0);
}

TEST_CASE("exp and log are monotonic non-decreasing") {
    int64_t decreases = 0;
    int32_t prev = INT32_MIN;
    for (int64_t r = kExpLow - 256; r < kExpSat + 256; ++r) {
        const int32_t y = tandem::exp(raw(r)).raw();
        decreases += y < prev;
        prev = y;
    }
    CHECK(decreases == 0);
    prev = INT32_MIN;
    for (int64_t r = 1; r <= INT32_MAX; r += (r < (1 << 20) ? 1 : 1021)) {
        const int32_t y = tandem::log(raw(r)).raw();
        decreases += y < prev;
        prev = y;
    }
    CHECK(decreases == 0);
}

TEST_CASE("exp is within 1 LSB below 1.0 and within relative 2^-16 above, on every non-constant input") {
    // Every input in [-12, ln 32768): the whole range where the answer is neither 0 nor max.
    long double worst_abs = 0, worst_rel = 0;
    int64_t worst_abs_in = 0, worst_rel_in = 0, over = 0, exact = 0, n = 0;
    for (int64_t r = kExpLow; r < kExpSat; ++r) {
        const long double ref = exp_ref(r);
        const long double err = static_cast<long double>(tandem::exp(raw(r)).raw()) - ref;
        const long double a = std::fabs(err);
        ++n;
        exact += a <= 0.5L;
        if (r < 0) {
            over += a > 1.0L;
            if (a > worst_abs) { worst_abs = a; worst_abs_in = r; }
        } else {
            const long double rel = a / ref;  // in units of 1: bound 2^-16
            over += rel > 1.0L / 65536.0L;
            if (rel > worst_rel) { worst_rel = rel; worst_rel_in = r; }
        }
    }
    const double share = static_cast<double>(exact) / static_cast<double>(n);
    std::printf("exp x<0: worst %.4Lf LSB at raw %lld; x>=0: worst relative %.3Le (2^-16 = 1.526e-05) at raw %lld; "
                "correctly rounded %.6f%% of %lld\n",
                worst_abs, static_cast<long long>(worst_abs_in), worst_rel, static_cast<long long>(worst_rel_in),
                100.0 * share, static_cast<long long>(n));
    CHECK(over == 0);
    CHECK(worst_abs <= 1.0L);
    CHECK(share >= 0.999);
}

TEST_CASE("log is within 1 LSB and unbiased on a dense sample") {
    // Every raw value up to 2^20 (x < 16, where log bends most) and every 1021st beyond.
    long double worst = 0, sum = 0;
    int64_t worst_in = 0, exact = 0, n = 0;
    for (int64_t r = 1; r <= INT32_MAX; r += (r < (1 << 20) ? 1 : 1021)) {
        const long double err = static_cast<long double>(tandem::log(raw(r)).raw()) - log_ref(r);
        const long double a = std::fabs(err);
        ++n;
        sum += err;
        exact += a <= 0.5L;
        if (a > worst) { worst = a; worst_in = r; }
    }
    const long double mean = sum / static_cast<long double>(n);
    const double share = static_cast<double>(exact) / static_cast<double>(n);
    std::printf("log: worst %.4Lf LSB at raw %lld, mean signed error %+.3Le LSB, correctly rounded %.6f%% of %lld\n",
                worst, static_cast<long long>(worst_in), mean, 100.0 * share, static_cast<long long>(n));
    CHECK(worst <= 1.0L);
    CHECK(std::fabs(mean) < 0.01L);
    CHECK(share >= 0.999);
}

// The golden values were produced by this implementation and agree on every preset; a change
// here means every recorded digest stream changes too, so it must be deliberate.
TEST_CASE("exp output matches its golden hash") {
    Fnv h;
    for (int64_t r = INT32_MIN; r <= INT32_MAX; r += 4099) h.add(tandem::exp(raw(r)).raw());
    for (int64_t r = kExpLow - 256; r < kExpSat + 256; ++r) h.add(tandem::exp(raw(r)).raw());
    CHECK(h.h == 0x1a063a8f80dee79fu);
}

TEST_CASE("log output matches its golden hash") {
    Fnv h;
    for (int64_t r = INT32_MIN; r <= INT32_MAX; r += 4099) h.add(tandem::log(raw(r)).raw());
    for (int64_t r = 1; r <= (int64_t{1} << 18); ++r) h.add(tandem::log(raw(r)).raw());
    CHECK(h.h == 0xe63646d6aabcf7fbu);
}
