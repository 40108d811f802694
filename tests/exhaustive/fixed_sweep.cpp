// Exhaustive sweeps of src/core/fixed.*: sqrt over all 2^31 non-negative inputs, the
// to_string -> parse round trip (and shortness) over all 2^32 values, and large samples of
// *, /, length and normalize, each against an exact integer reference (long double only
// measures the size of the error; pass/fail is decided by exact integer criteria).
#include "exhaustive/sweep.hpp"

#include "tandem/core/fixed.hpp"

#include <cmath>
#include <string>

namespace {

using tandem::Fx;
using tandem::Wide;
using tandem::sweep::Row;
using tandem::sweep::Stats;

// splitmix64, seeded per index so the sample does not depend on the thread split.
uint64_t mix(uint64_t x) {
    uint64_t z = x * 0x9E3779B97F4A7C15u + 0x632BE59BD9B4E019u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
// A raw value with a random bit length so that every magnitude is sampled.
int32_t sample_raw(uint64_t x) {
    const uint64_t h = mix(x);
    const int bits = static_cast<int>((h >> 32) % 33);
    const uint32_t m = bits == 0 ? 0 : static_cast<uint32_t>(h) >> (32 - bits);
    return static_cast<int32_t>(((h >> 40) & 1) ? m : 0u - m);
}

// Exact: r^2 - r < n <= r^2 + r (r == 0: only the upper bound), i.e. r is the nearest integer.
bool nearest_sqrt_u64(uint64_t n, uint64_t r) {
    const tandem::detail::U128 sq = tandem::detail::mul_u64(r, r);
    const Wide w = Wide::from_parts(static_cast<int64_t>(sq.hi), sq.lo);
    const Wide nn = Wide::from_parts(0, n);
    return (r == 0 || w - Wide::from_parts(0, r) < nn) && nn <= w + Wide::from_parts(0, r);
}

// What parse makes of the decimal c / 10^k (magnitudes): round(c * 2^16 / 10^k), ties to even.
constexpr uint64_t pow10[7] = {1, 10, 100, 1000, 10000, 100000, 1000000};
uint64_t decimal_to_raw(uint64_t c, int k) {
    const uint64_t p = c << 16, d = pow10[k];
    uint64_t q = p / d;
    const uint64_t r = p % d;
    if (2 * r > d || (2 * r == d && (q & 1) != 0)) ++q;
    return q;
}

Row finish(Row r, long double bound) {
    r.pass = r.stats.count > 0 && r.stats.max_abs_error <= bound;
    r.worst = tandem::sweep::describe_raw(r.stats.worst_input);
    return r;
}

}  // namespace

TANDEM_SWEEP("fixed") {
    std::vector<Row> rows;

    {  // sqrt: every non-negative input. A result that fails the exact criterion is charged
       // an error of at least 1 so that it cannot hide behind long double rounding.
        Row r{"sqrt", "all 2^31 raw values >= 0", "correctly rounded (max 0.5 LSB)", {}, false, ""};
        r.stats = tandem::sweep::parallel(0, int64_t{1} << 31, [](int64_t lo, int64_t hi, Stats& s) {
            for (int64_t x = lo; x < hi; ++x) {
                const uint64_t n = static_cast<uint64_t>(x) << 16;
                const int32_t got = tandem::sqrt(Fx::from_raw(static_cast<int32_t>(x))).raw();
                long double err = static_cast<long double>(got) - std::sqrt(static_cast<long double>(n));
                if (!nearest_sqrt_u64(n, static_cast<uint64_t>(got))) err = err < 0 ? std::fmin(err, -1.0L) : std::fmax(err, 1.0L);
                s.add(err, x);
            }
        });
        rows.push_back(finish(r, 0.5L));
    }

    {  // Text: every value prints, parses back to itself, and no decimal with one digit fewer
       // (the two neighbours of the value at that precision) would parse back to it.
        Row r{"to_string/parse", "all 2^32 raw values", "0 inputs that fail to round-trip or are not shortest", {}, false, ""};
        r.stats = tandem::sweep::parallel(INT32_MIN, int64_t{INT32_MAX} + 1, [](int64_t lo, int64_t hi, Stats& s) {
            for (int64_t x = lo; x < hi; ++x) {
                const Fx v = Fx::from_raw(static_cast<int32_t>(x));
                const std::string text = tandem::to_string(v);
                const auto back = tandem::parse(text);
                bool ok = back.has_value() && *back == v;
                const auto dot = text.find('.');
                if (ok && dot != std::string::npos) {
                    const int k = static_cast<int>(text.size() - dot - 1);  // digits printed
                    const uint64_t m = static_cast<uint64_t>(x < 0 ? -x : x);
                    const uint64_t below = (m * pow10[k - 1]) >> 16;     // floor at k - 1 digits
                    ok = k <= 5 && decimal_to_raw(below, k - 1) != m && decimal_to_raw(below + 1, k - 1) != m;
                }
                s.add(ok ? 0.0L : 1.0L, x);
            }
        });
        rows.push_back(finish(r, 0.0L));
    }

    {  // a * b over 2^30 random pairs of every magnitude (saturated results excluded).
        Row r{"mul", "2^30 random pairs (in range)", "correctly rounded, ties to even", {}, false, ""};
        r.stats = tandem::sweep::parallel(0, int64_t{1} << 30, [](int64_t lo, int64_t hi, Stats& s) {
            for (int64_t i = lo; i < hi; ++i) {
                const int32_t a = sample_raw(2 * static_cast<uint64_t>(i)), b = sample_raw(2 * static_cast<uint64_t>(i) + 1);
                const int64_t p = int64_t{a} * b;
                const long double exact = static_cast<long double>(p) / 65536.0L;
                if (exact > INT32_MAX || exact < INT32_MIN) continue;
                const int32_t got = (Fx::from_raw(a) * Fx::from_raw(b)).raw();
                // exact tie rule: 2 * (got * 2^16 - p) in [-2^16, 2^16], even at the ends
                const int64_t twice = 2 * (int64_t{got} * 65536 - p);
                const bool ok = twice >= -65536 && twice <= 65536 && (std::abs(twice) != 65536 || (got & 1) == 0);
                long double err = static_cast<long double>(got) - exact;
                if (!ok) err = err < 0 ? std::fmin(err, -1.0L) : std::fmax(err, 1.0L);
                s.add(err, a);
            }
        });
        rows.push_back(finish(r, 0.5L));
    }

    {  // a / b over 2^30 random pairs (b != 0, in range), decided by Wide's exact division.
        Row r{"div", "2^30 random pairs (in range)", "correctly rounded, ties to even", {}, false, ""};
        r.stats = tandem::sweep::parallel(0, int64_t{1} << 30, [](int64_t lo, int64_t hi, Stats& s) {
            for (int64_t i = lo; i < hi; ++i) {
                const int32_t a = sample_raw(2 * static_cast<uint64_t>(i) + 7), b = sample_raw(2 * static_cast<uint64_t>(i) + 8);
                if (b == 0) continue;
                const int64_t ref = Wide::from_i64(int64_t{a} * 65536).div_round(b);
                if (ref > INT32_MAX || ref < INT32_MIN) continue;
                const int32_t got = (Fx::from_raw(a) / Fx::from_raw(b)).raw();
                const long double exact = static_cast<long double>(a) * 65536.0L / static_cast<long double>(b);
                long double err = static_cast<long double>(got) - exact;
                if (got != ref) err = err < 0 ? std::fmin(err, -1.0L) : std::fmax(err, 1.0L);
                s.add(err, a);
            }
        });
        rows.push_back(finish(r, 0.5L));
    }

    {  // length over 2^28 random vectors (saturated results excluded).
        Row r{"length", "2^28 random vectors (in range)", "correctly rounded (max 0.5 LSB)", {}, false, ""};
        r.stats = tandem::sweep::parallel(0, int64_t{1} << 28, [](int64_t lo, int64_t hi, Stats& s) {
            for (int64_t i = lo; i < hi; ++i) {
                const int32_t x = sample_raw(2 * static_cast<uint64_t>(i) + 3), y = sample_raw(2 * static_cast<uint64_t>(i) + 4);
                const uint64_t ax = static_cast<uint64_t>(x < 0 ? -int64_t{x} : x), ay = static_cast<uint64_t>(y < 0 ? -int64_t{y} : y);
                const uint64_t n = ax * ax + ay * ay;
                const long double exact = std::sqrt(static_cast<long double>(n));
                if (exact > INT32_MAX) continue;
                const int32_t got = tandem::length({Fx::from_raw(x), Fx::from_raw(y)}).raw();
                long double err = static_cast<long double>(got) - exact;
                if (!nearest_sqrt_u64(n, static_cast<uint64_t>(got))) err = err < 0 ? std::fmin(err, -1.0L) : std::fmax(err, 1.0L);
                s.add(err, x);
            }
        });
        rows.push_back(finish(r, 0.5L));
    }

    {  // normalize: x component of 2^26 random vectors against long double (the exact
       // criterion is in tests/core; here the size of the error is measured).
        Row r{"normalize (x)", "2^26 random vectors", "correctly rounded (max 0.5 LSB)", {}, false, ""};
        r.stats = tandem::sweep::parallel(0, int64_t{1} << 26, [](int64_t lo, int64_t hi, Stats& s) {
            for (int64_t i = lo; i < hi; ++i) {
                const int32_t x = sample_raw(2 * static_cast<uint64_t>(i) + 5), y = sample_raw(2 * static_cast<uint64_t>(i) + 6);
                if (x == 0 && y == 0) continue;
                const long double lx = x, ly = y;
                const long double exact = 65536.0L * lx / std::sqrt(lx * lx + ly * ly);
                s.add(static_cast<long double>(tandem::normalize({Fx::from_raw(x), Fx::from_raw(y)}).x.raw()) - exact, x);
            }
        });
        rows.push_back(finish(r, 0.5L + 1e-9L));
    }
    return rows;
}
