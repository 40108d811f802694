// Exhaustive accuracy of the Fx trigonometry: sin, cos and atan over all 2^32 inputs,
// asin/acos over every raw value of [-1, 1], atan2 over 2^32 structured pairs of the plane.
// long double is the reference only; a reference here must never be an Fx function.
#include "tandem/core/fixed.hpp"
#include "exhaustive/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using tandem::Fx;
namespace sweep = tandem::sweep;

constexpr long double lsb = 65536.0L;
constexpr long double half_pi = 1.57079632679489661923132169163975144L;
constexpr long double pi = 3.14159265358979323846264338327950288L;

// glibc's sinl costs ~700 ns here for large arguments: 2^32 calls would take hours. The
// reference instead adds angles, sin(k + j/2^16) = sin k cos(j/2^16) + cos k sin(j/2^16),
// from tables of sinl/cosl; each value is off by a few long double ulps (~1e-14 LSB).
struct SinCosReference {
    std::vector<long double> sin_int, cos_int, sin_frac, cos_frac;
    SinCosReference() : sin_int(32769), cos_int(32769), sin_frac(65536), cos_frac(65536) {
        for (int k = 0; k <= 32768; ++k) {
            sin_int[k] = std::sin(static_cast<long double>(k));
            cos_int[k] = std::cos(static_cast<long double>(k));
        }
        for (int j = 0; j < 65536; ++j) {
            sin_frac[j] = std::sin(static_cast<long double>(j) / lsb);
            cos_frac[j] = std::cos(static_cast<long double>(j) / lsb);
        }
    }
    // For magnitude m <= 2^31 (raw units).
    long double sin_of(uint32_t m) const {
        const uint32_t k = m >> 16, j = m & 0xFFFFu;
        return sin_int[k] * cos_frac[j] + cos_int[k] * sin_frac[j];
    }
    long double cos_of(uint32_t m) const {
        const uint32_t k = m >> 16, j = m & 0xFFFFu;
        return cos_int[k] * cos_frac[j] - sin_int[k] * sin_frac[j];
    }
};

// atan likewise, by atan(q) = atan(c) + atan((q - c) / (1 + q c)) with c on a 1/4096 grid
// (atanl tabled) and the series of the small remainder (|d| <= 2^-13: d^7/7 < 2^-93).
struct AtanReference {
    std::vector<long double> table;
    AtanReference() : table(4097) {
        for (int i = 0; i <= 4096; ++i) table[i] = std::atan(static_cast<long double>(i) / 4096.0L);
    }
    long double unit(long double q) const {  // q in [0, 1]
        const int i = static_cast<int>(q * 4096.0L + 0.5L);
        const long double c = static_cast<long double>(i) / 4096.0L;
        const long double d = (q - c) / (1.0L + q * c);
        const long double d2 = d * d;
        return table[i] + d * (1.0L - d2 * (1.0L / 3.0L - d2 * (1.0L / 5.0L)));
    }
    long double atan(long double x) const {  // any x
        const long double a = std::fabs(x);
        const long double r = a <= 1.0L ? unit(a) : half_pi - unit(1.0L / a);
        return x < 0 ? -r : r;
    }
    long double atan2(long double y, long double x) const {
        const long double ay = std::fabs(y), ax = std::fabs(x);
        if (ay == 0 && ax == 0) return 0;
        long double a = ay <= ax ? unit(ay / ax) : half_pi - unit(ax / ay);
        if (x < 0) a = pi - a;
        return y < 0 ? -a : a;
    }
};

// The fast references are checked against libm's long double functions before use, so a
// mistake in them cannot pass as an accuracy result.
void validate(const SinCosReference& sc, const AtanReference& at) {
    long double worst = 0;
    uint64_t s = 0x2545F4914F6CDD1Du;
    for (int i = 0; i < 20000; ++i) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        const uint32_t m = static_cast<uint32_t>(s) >> 1;
        const long double x = static_cast<long double>(m) / lsb;
        worst = std::max(worst, std::fabs(sc.sin_of(m) - std::sin(x)));
        worst = std::max(worst, std::fabs(sc.cos_of(m) - std::cos(x)));
        const long double q = static_cast<long double>(static_cast<int32_t>(s >> 32)) / lsb;
        worst = std::max(worst, std::fabs(at.atan(q) - std::atan(q)));
        const long double y = static_cast<long double>(static_cast<int32_t>(s)) / 7.0L;
        worst = std::max(worst, std::fabs(at.atan2(y, q) - std::atan2(y, q)));
    }
    if (worst * lsb > 1e-9L) {
        std::fprintf(stderr, "trig sweep: fast reference off by %Lg LSB\n", worst * lsb);
        std::abort();
    }
}

sweep::Row row(std::string function, std::string domain, const sweep::Stats& stats, std::string worst) {
    sweep::Row r;
    r.function = std::move(function);
    r.domain = std::move(domain);
    r.bound = "max 1 LSB";
    r.stats = stats;
    r.pass = stats.max_abs_error <= 1.0L;
    r.worst = std::move(worst);
    return r;
}

uint32_t magnitude(int64_t raw) { return static_cast<uint32_t>(raw < 0 ? -raw : raw); }

// Pairs encoded as (y << 32) | (uint32)x so Stats can name the worst one.
int64_t encode(int32_t y, int32_t x) {
    return static_cast<int64_t>((static_cast<uint64_t>(static_cast<uint32_t>(y)) << 32) | static_cast<uint32_t>(x));
}
std::string describe_pair(int64_t code) {
    const int32_t y = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(code) >> 32));
    const int32_t x = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(code)));
    return "y " + sweep::describe_raw(y) + ", x " + sweep::describe_raw(x);
}

// The i-th point (0 <= i < 8R) of the square ring max(|x|, |y|) = R: every lattice
// direction at resolution 1/R, each point once.
void ring_point(int64_t radius, int64_t i, int32_t& y, int32_t& x) {
    const int64_t side = i / (2 * radius);
    const int64_t o = i % (2 * radius) - radius;
    int64_t px = 0, py = 0;
    switch (side) {
        case 0: px = radius; py = o; break;
        case 1: px = -o; py = radius; break;
        case 2: px = -radius; py = -o; break;
        default: px = o; py = -radius; break;
    }
    // radius <= 2^31 - 1 here, so every coordinate fits.
    x = static_cast<int32_t>(px);
    y = static_cast<int32_t>(py);
}

uint64_t splitmix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

}  // namespace

TANDEM_SWEEP("trig") {
    const SinCosReference sc;
    const AtanReference at;
    validate(sc, at);
    std::vector<sweep::Row> rows;

    const auto sin_stats = sweep::parallel(INT32_MIN, int64_t{INT32_MAX} + 1, [&](int64_t lo, int64_t hi, sweep::Stats& s) {
        for (int64_t r = lo; r < hi; ++r) {
            const long double exact = sc.sin_of(magnitude(r)) * (r < 0 ? -lsb : lsb);
            s.add(tandem::sin(Fx::from_raw(static_cast<int32_t>(r))).raw() - exact, r);
        }
    });
    rows.push_back(row("sin", "all 2^32 raw values", sin_stats, sweep::describe_raw(sin_stats.worst_input)));

    const auto cos_stats = sweep::parallel(INT32_MIN, int64_t{INT32_MAX} + 1, [&](int64_t lo, int64_t hi, sweep::Stats& s) {
        for (int64_t r = lo; r < hi; ++r) {
            s.add(tandem::cos(Fx::from_raw(static_cast<int32_t>(r))).raw() - sc.cos_of(magnitude(r)) * lsb, r);
        }
    });
    rows.push_back(row("cos", "all 2^32 raw values", cos_stats, sweep::describe_raw(cos_stats.worst_input)));

    const auto atan_stats = sweep::parallel(INT32_MIN, int64_t{INT32_MAX} + 1, [&](int64_t lo, int64_t hi, sweep::Stats& s) {
        for (int64_t r = lo; r < hi; ++r) {
            const long double exact = at.atan(static_cast<long double>(r) / lsb) * lsb;
            s.add(tandem::atan(Fx::from_raw(static_cast<int32_t>(r))).raw() - exact, r);
        }
    });
    rows.push_back(row("atan", "all 2^32 raw values", atan_stats, sweep::describe_raw(atan_stats.worst_input)));

    // asin/acos: libm's own long double functions, the domain is small.
    const auto asin_stats = sweep::parallel(-65536, 65537, [&](int64_t lo, int64_t hi, sweep::Stats& s) {
        for (int64_t r = lo; r < hi; ++r) {
            s.add(tandem::asin(Fx::from_raw(static_cast<int32_t>(r))).raw() - std::asin(static_cast<long double>(r) / lsb) * lsb, r);
        }
    });
    rows.push_back(row("asin", "all raw in [-1, 1] (131073)", asin_stats, sweep::describe_raw(asin_stats.worst_input)));
    const auto acos_stats = sweep::parallel(-65536, 65537, [&](int64_t lo, int64_t hi, sweep::Stats& s) {
        for (int64_t r = lo; r < hi; ++r) {
            s.add(tandem::acos(Fx::from_raw(static_cast<int32_t>(r))).raw() - std::acos(static_cast<long double>(r) / lsb) * lsb, r);
        }
    });
    rows.push_back(row("acos", "all raw in [-1, 1] (131073)", acos_stats, sweep::describe_raw(acos_stats.worst_input)));

    // atan2 over exactly 2^32 pairs, in four structured sets.
    auto check_pair = [&](int32_t y, int32_t x, sweep::Stats& s) {
        const long double exact = at.atan2(static_cast<long double>(y), static_cast<long double>(x)) * lsb;
        s.add(tandem::atan2(Fx::from_raw(y), Fx::from_raw(x)).raw() - exact, encode(y, x));
    };
    sweep::Stats atan2_stats;
    // (a) every point of the square rings of radius 1..4096 raw: 67,125,248 pairs.
    constexpr int64_t small_rings = 4096;
    const int64_t small_count = 4 * small_rings * (small_rings + 1);
    atan2_stats.merge(sweep::parallel(0, small_count, [&](int64_t lo, int64_t hi, sweep::Stats& s) {
        int64_t radius = 1;
        while (4 * radius * (radius + 1) <= lo) ++radius;  // ring R starts at 4R(R-1)
        int64_t i = lo - 4 * radius * (radius - 1);
        for (int64_t n = lo; n < hi; ++n) {
            if (i == 8 * radius) { ++radius; i = 0; }
            int32_t y = 0, x = 0;
            ring_point(radius, i++, y, x);
            check_pair(y, x, s);
        }
    }));
    // (b) every point of the rings of radius 2^16 (1.0), 2^20 and 2^24: 142,082,048 pairs.
    int64_t structured = small_count;
    for (int64_t radius : {int64_t{1} << 16, int64_t{1} << 20, int64_t{1} << 24}) {
        atan2_stats.merge(sweep::parallel(0, 8 * radius, [&](int64_t lo, int64_t hi, sweep::Stats& s) {
            for (int64_t i = lo; i < hi; ++i) {
                int32_t y = 0, x = 0;
                ring_point(radius, i, y, x);
                check_pair(y, x, s);
            }
        }));
        structured += 8 * radius;
    }
    // (c) the extreme edges: x or y at INT32_MIN or INT32_MAX, the other every 16th raw
    // value: 2^30 pairs.
    atan2_stats.merge(sweep::parallel(0, int64_t{1} << 30, [&](int64_t lo, int64_t hi, sweep::Stats& s) {
        for (int64_t i = lo; i < hi; ++i) {
            const int32_t other = static_cast<int32_t>(INT32_MIN + (i & ((int64_t{1} << 28) - 1)) * 16);
            const int32_t edge = (i >> 28) & 1 ? INT32_MAX : INT32_MIN;
            if ((i >> 29) & 1) check_pair(edge, other, s);
            else check_pair(other, edge, s);
        }
    }));
    structured += int64_t{1} << 30;
    // (d) the rest of 2^32: pseudo-random pairs (splitmix64 of the index), each component
    // shifted right by 0..31 so that every magnitude from 1 LSB to the full range appears.
    const int64_t random_count = (int64_t{1} << 32) - structured;
    atan2_stats.merge(sweep::parallel(0, random_count, [&](int64_t lo, int64_t hi, sweep::Stats& s) {
        for (int64_t i = lo; i < hi; ++i) {
            const uint64_t a = splitmix64(static_cast<uint64_t>(i));
            const int32_t y = static_cast<int32_t>(static_cast<uint32_t>(a)) >> ((a >> 32) & 31);
            const int32_t x = static_cast<int32_t>(static_cast<uint32_t>(a >> 37) | ((a & 1u) << 31)) >> ((a >> 59) & 31);
            check_pair(y, x, s);
        }
    }));
    rows.push_back(row("atan2",
                       "2^32 pairs: every point of square rings r = 1..4096, 2^16, 2^20, 2^24 raw; x or y at "
                       "INT32_MIN/INT32_MAX with the other every 16th raw; the rest pseudo-random at every magnitude",
                       atan2_stats, describe_pair(atan2_stats.worst_input)));
    return rows;
}
