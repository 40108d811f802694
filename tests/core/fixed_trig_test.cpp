// Properties of src/core/fixed_trig.cpp: the 1 LSB bound against a long double reference,
// exact symmetries, the edges of the domain, and golden hashes that make any changed
// output a visible, deliberate break. long double appears here as a reference only.
#include "tandem/core/fixed.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

using tandem::Fx;

namespace {

Fx raw(int64_t r) { return Fx::from_raw(static_cast<int32_t>(r)); }
long double value(int64_t r) { return static_cast<long double>(r) / 65536.0L; }
constexpr long double lsb = 65536.0L;

// A fixed xorshift stream: the same "random" inputs on every build and every run.
struct Stream {
    uint64_t s;
    uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    int32_t raw32() { return static_cast<int32_t>(static_cast<uint32_t>(next())); }
};

// The largest |result - exact| in LSB over a set of inputs, and where it happened.
struct Worst {
    long double error = 0;
    int64_t input = 0;
    int64_t input2 = 0;
    void add(long double e, int64_t in, int64_t in2 = 0) {
        if (std::fabs(e) > error) {
            error = std::fabs(e);
            input = in;
            input2 = in2;
        }
    }
};

// Every stride-th raw value over the whole int32 range, plus a pseudo-random set, plus
// the raw values around each multiple of pi/4 below 32768 rad (where the reduction and the
// segment boundaries of the quarter wave meet): about 1.5 million inputs.
template <class Visit>
void for_dense_unary_sample(Visit visit) {
    for (int64_t r = INT32_MIN; r <= INT32_MAX; r += 8191) visit(r);
    Stream s{0x2545F4914F6CDD1Du};
    for (int i = 0; i < 500000; ++i) visit(s.raw32());
    for (int64_t k = -41721; k <= 41721; k += 1) {
        const int64_t centre = static_cast<int64_t>(std::llround(static_cast<long double>(k) * 3.14159265358979323846264338327950288L / 4.0L * lsb));
        for (int64_t d = -2; d <= 2; ++d) {
            const int64_t r = centre + d;
            if (r >= INT32_MIN && r <= INT32_MAX) visit(r);
        }
    }
}

template <class F, class Ref>
Worst unary_worst(F f, Ref ref) {
    Worst w;
    for_dense_unary_sample([&](int64_t r) { w.add(static_cast<long double>(f(raw(r)).raw()) - ref(value(r)) * lsb, r); });
    return w;
}

// FNV-1a 64 over the little-endian bytes of each raw output: the same on every build and
// every byte order, and any changed output changes it.
struct Fnv1a {
    uint64_t h = 0xcbf29ce484222325u;
    void add(Fx v) {
        const uint32_t u = static_cast<uint32_t>(v.raw());
        for (int i = 0; i < 4; ++i) {
            h ^= (u >> (8 * i)) & 0xFFu;
            h *= 0x100000001b3u;
        }
    }
};

// Every 4099th raw value from INT32_MIN up (1,047,807 inputs).
template <class F>
uint64_t golden_unary(F f) {
    Fnv1a h;
    for (int64_t r = INT32_MIN; r <= INT32_MAX; r += 4099) h.add(f(raw(r)));
    return h.h;
}

// Pairs of the whole plane at every magnitude: each component shifted right by 0..31.
template <class Visit>
void for_plane_sample(uint64_t seed, int count, Visit visit) {
    Stream s{seed};
    for (int i = 0; i < count; ++i) {
        const uint64_t bits = s.next();
        const int32_t y = static_cast<int32_t>(static_cast<uint32_t>(bits)) >> ((bits >> 32) & 31);
        const int32_t x = static_cast<int32_t>(static_cast<uint32_t>(bits >> 37) | ((bits & 1u) << 31)) >> ((bits >> 56) & 31);
        visit(y, x);
    }
}

std::string hex(uint64_t v) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(v));
    return text;
}

long double sinl_(long double x) { return std::sin(x); }
long double cosl_(long double x) { return std::cos(x); }
long double atanl_(long double x) { return std::atan(x); }

}  // namespace

// ---- sin and cos

TEST_CASE("sin and cos are exact at zero and at the quarter turns nearest raw values") {
    CHECK(tandem::sin(Fx::zero()) == Fx::zero());
    CHECK(tandem::cos(Fx::zero()) == Fx::one());
    CHECK(tandem::sin(tandem::fx::half_pi) == Fx::one());
    CHECK(tandem::cos(tandem::fx::half_pi) == Fx::zero());
    CHECK(tandem::sin(tandem::fx::pi) == Fx::zero());
    CHECK(tandem::cos(tandem::fx::pi) == -Fx::one());
    CHECK(tandem::sin(-tandem::fx::half_pi) == -Fx::one());
    CHECK(tandem::cos(tandem::fx::two_pi) == Fx::one());
    CHECK(tandem::sin(tandem::fx::two_pi) == Fx::zero());
}

TEST_CASE("sin and cos are within 1 LSB at the boundary raw values") {
    for (int64_t r : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{2}, int64_t{INT32_MIN}, int64_t{INT32_MIN} + 1,
                      int64_t{INT32_MAX}, int64_t{INT32_MAX} - 1}) {
        CAPTURE(r);
        CHECK(std::fabs(tandem::sin(raw(r)).raw() - std::sin(value(r)) * lsb) <= 1.0L);
        CHECK(std::fabs(tandem::cos(raw(r)).raw() - std::cos(value(r)) * lsb) <= 1.0L);
    }
    CHECK(tandem::sin(raw(1)).raw() == 1);
    CHECK(tandem::cos(raw(1)).raw() == 65536);
}

TEST_CASE("sin and cos are within 1 LSB at every multiple of pi/2 in range") {
    Worst ws, wc;
    for (int64_t k = -20860; k <= 20860; ++k) {
        const int64_t r = static_cast<int64_t>(std::llround(static_cast<long double>(k) * 3.14159265358979323846264338327950288L / 2.0L * lsb));
        ws.add(tandem::sin(raw(r)).raw() - std::sin(value(r)) * lsb, r);
        wc.add(tandem::cos(raw(r)).raw() - std::cos(value(r)) * lsb, r);
    }
    CAPTURE(ws.input, wc.input);
    CHECK(ws.error <= 1.0L);
    CHECK(wc.error <= 1.0L);
}

TEST_CASE("sin is odd: sin(-x) == -sin(x) exactly") {
    int64_t mismatches = 0;
    for_dense_unary_sample([&](int64_t r) {
        if (r == INT32_MIN) return;  // -INT32_MIN is not an Fx
        if (tandem::sin(raw(-r)) != -tandem::sin(raw(r))) ++mismatches;
    });
    CHECK(mismatches == 0);
    CHECK(tandem::sin(Fx::max()) == -tandem::sin(raw(-int64_t{INT32_MAX})));
}

TEST_CASE("cos is even: cos(-x) == cos(x) exactly") {
    int64_t mismatches = 0;
    for_dense_unary_sample([&](int64_t r) {
        if (r == INT32_MIN) return;
        if (tandem::cos(raw(-r)) != tandem::cos(raw(r))) ++mismatches;
    });
    CHECK(mismatches == 0);
}

TEST_CASE("sin is within 1 LSB of the exact value over a dense sample of the whole range") {
    const Worst w = unary_worst(tandem::sin, sinl_);
    INFO("worst input raw " << w.input << " error " << static_cast<double>(w.error) << " LSB");
    CHECK(w.error <= 1.0L);
}

TEST_CASE("cos is within 1 LSB of the exact value over a dense sample of the whole range") {
    const Worst w = unary_worst(tandem::cos, cosl_);
    INFO("worst input raw " << w.input << " error " << static_cast<double>(w.error) << " LSB");
    CHECK(w.error <= 1.0L);
}

// ---- atan2 and atan

TEST_CASE("atan2(0, 0) is 0") { CHECK(tandem::atan2(Fx::zero(), Fx::zero()) == Fx::zero()); }

TEST_CASE("atan2 on the axes is exactly 0, pi/2, pi and -pi/2") {
    for (int32_t m : {1, 2, 65536, INT32_MAX}) {
        CAPTURE(m);
        CHECK(tandem::atan2(Fx::zero(), Fx::from_raw(m)) == Fx::zero());
        CHECK(tandem::atan2(Fx::from_raw(m), Fx::zero()) == tandem::fx::half_pi);
        CHECK(tandem::atan2(Fx::zero(), Fx::from_raw(-m)) == tandem::fx::pi);
        CHECK(tandem::atan2(Fx::from_raw(-m), Fx::zero()) == -tandem::fx::half_pi);
    }
    CHECK(tandem::atan2(Fx::zero(), Fx::min()) == tandem::fx::pi);
    CHECK(tandem::atan2(Fx::min(), Fx::zero()) == -tandem::fx::half_pi);
}

TEST_CASE("atan2 on the diagonals is exactly +-pi/4 and +-3pi/4, also at INT32_MIN") {
    const Fx quarter = Fx::from_raw(51472);        // pi/4 * 65536 = 51471.854
    const Fx three_quarters = Fx::from_raw(154416);  // 3pi/4 * 65536 = 154415.56
    for (int32_t m : {1, 65536, INT32_MAX, INT32_MIN}) {
        CAPTURE(m);
        const Fx p = m == INT32_MIN ? Fx::min() : Fx::from_raw(m);
        const Fx n = m == INT32_MIN ? Fx::min() : Fx::from_raw(-m);
        if (m != INT32_MIN) {
            CHECK(tandem::atan2(p, p) == quarter);
            CHECK(tandem::atan2(p, n) == three_quarters);
            CHECK(tandem::atan2(n, p) == -quarter);
        }
        CHECK(tandem::atan2(n, n) == -three_quarters);
    }
}

TEST_CASE("atan2 lands in the quadrant of its point and within -pi..pi") {
    int64_t wrong = 0;
    for_plane_sample(0x9E3779B97F4A7C15u, 200000, [&](int32_t y, int32_t x) {
        const int32_t a = tandem::atan2(Fx::from_raw(y), Fx::from_raw(x)).raw();
        if (a < -tandem::fx::pi.raw() || a > tandem::fx::pi.raw()) ++wrong;
        // Rounding may put a point within 1 LSB of an axis onto it, never beyond it.
        if (y > 0 && a < 0) ++wrong;
        if (y < 0 && a > 0) ++wrong;
        if (x > 0 && (a > tandem::fx::half_pi.raw() || a < -tandem::fx::half_pi.raw())) ++wrong;
        if (x < 0 && y != 0 && a < tandem::fx::half_pi.raw() - 1 && a > -tandem::fx::half_pi.raw() + 1) ++wrong;
    });
    CHECK(wrong == 0);
}

TEST_CASE("atan2 is odd in y: atan2(-y, x) == -atan2(y, x) exactly, except on the negative x axis") {
    int64_t mismatches = 0;
    for_plane_sample(0xBF58476D1CE4E5B9u, 200000, [&](int32_t y, int32_t x) {
        if (y == INT32_MIN || y == 0) return;  // -INT32_MIN is not an Fx; atan2(0, x<0) is pi
        if (tandem::atan2(Fx::from_raw(-y), Fx::from_raw(x)) != -tandem::atan2(Fx::from_raw(y), Fx::from_raw(x))) ++mismatches;
    });
    CHECK(mismatches == 0);
}

TEST_CASE("atan2 is within 1 LSB of the exact angle with INT32_MIN and INT32_MAX components") {
    const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -65536, -1, 0, 1, 65536, INT32_MAX - 1, INT32_MAX};
    for (int32_t y : edges) {
        for (int32_t x : edges) {
            CAPTURE(y, x);
            const long double exact = std::atan2(static_cast<long double>(y), static_cast<long double>(x)) * lsb;
            CHECK(std::fabs(tandem::atan2(Fx::from_raw(y), Fx::from_raw(x)).raw() - exact) <= 1.0L);
        }
    }
}

TEST_CASE("atan2 is within 1 LSB of the exact angle over a dense sample of the plane") {
    Worst w;
    auto visit = [&](int32_t y, int32_t x) {
        const long double exact = std::atan2(static_cast<long double>(y), static_cast<long double>(x)) * lsb;
        w.add(tandem::atan2(Fx::from_raw(y), Fx::from_raw(x)).raw() - exact, y, x);
    };
    for_plane_sample(0x94D049BB133111EBu, 1000000, visit);
    // Every angle of a small ring, where the ratio's truncation matters most.
    for (int32_t i = -300; i <= 300; ++i) {
        visit(i, 300);
        visit(i, -300);
        visit(300, i);
        visit(-300, i);
    }
    INFO("worst input y raw " << w.input << ", x raw " << w.input2 << ": error " << static_cast<double>(w.error) << " LSB");
    CHECK(w.error <= 1.0L);
}

TEST_CASE("atan is odd and within 1 LSB over a dense sample of the whole range") {
    const Worst w = unary_worst(tandem::atan, atanl_);
    INFO("worst input raw " << w.input << " error " << static_cast<double>(w.error) << " LSB");
    CHECK(w.error <= 1.0L);
    int64_t mismatches = 0;
    for_dense_unary_sample([&](int64_t r) {
        if (r != INT32_MIN && tandem::atan(raw(-r)) != -tandem::atan(raw(r))) ++mismatches;
    });
    CHECK(mismatches == 0);
    CHECK(tandem::atan(Fx::one()).raw() == 51472);
    // pi/2 - 1/32768 = 102941.708 raw: the far end is not rounded onto pi/2.
    CHECK(tandem::atan(Fx::max()).raw() == 102942);
    CHECK(tandem::atan(Fx::min()).raw() == -102942);
}

// ---- asin and acos

TEST_CASE("asin and acos are within 1 LSB at every raw value of -1..1") {
    Worst ws, wc;
    for (int64_t r = -65536; r <= 65536; ++r) {
        ws.add(tandem::asin(raw(r)).raw() - std::asin(value(r)) * lsb, r);
        wc.add(tandem::acos(raw(r)).raw() - std::acos(value(r)) * lsb, r);
    }
    INFO("asin worst raw " << ws.input << " (" << static_cast<double>(ws.error) << " LSB), acos worst raw "
                           << wc.input << " (" << static_cast<double>(wc.error) << " LSB)");
    CHECK(ws.error <= 1.0L);
    CHECK(wc.error <= 1.0L);
}

TEST_CASE("asin and acos hit their end points exactly and clamp inputs outside -1..1") {
    CHECK(tandem::asin(Fx::one()) == tandem::fx::half_pi);
    CHECK(tandem::asin(-Fx::one()) == -tandem::fx::half_pi);
    CHECK(tandem::asin(Fx::zero()) == Fx::zero());
    CHECK(tandem::acos(Fx::one()) == Fx::zero());
    CHECK(tandem::acos(-Fx::one()) == tandem::fx::pi);
    CHECK(tandem::acos(Fx::zero()) == tandem::fx::half_pi);
    for (Fx big : {Fx::from_raw(65537), Fx::from_int(2), Fx::max()}) {
        CHECK(tandem::asin(big) == tandem::fx::half_pi);
        CHECK(tandem::asin(-big) == -tandem::fx::half_pi);
        CHECK(tandem::acos(big) == Fx::zero());
        CHECK(tandem::acos(-big) == tandem::fx::pi);
    }
    CHECK(tandem::asin(Fx::min()) == -tandem::fx::half_pi);
    CHECK(tandem::acos(Fx::min()) == tandem::fx::pi);
}

TEST_CASE("asin is odd and acos(-x) == pi - acos(x) within 1 LSB") {
    for (int64_t r = -65536; r <= 65536; ++r) {
        if (tandem::asin(raw(-r)) != -tandem::asin(raw(r))) FAIL("asin not odd at raw " << r);
        const int64_t sum = int64_t{tandem::acos(raw(-r)).raw()} + tandem::acos(raw(r)).raw();
        if (sum < tandem::fx::pi.raw() - 1 || sum > tandem::fx::pi.raw() + 1) FAIL("acos symmetry off at raw " << r);
    }
}

// ---- golden hashes: a changed constant here is a breaking change of every replay.

TEST_CASE("trig outputs match their golden hashes") {
    const uint64_t sin_hash = golden_unary(tandem::sin);
    const uint64_t cos_hash = golden_unary(tandem::cos);
    const uint64_t atan_hash = golden_unary(tandem::atan);
    Fnv1a atan2_h;
    for_plane_sample(0x5851F42D4C957F2Du, 1000000,
                     [&](int32_t y, int32_t x) { atan2_h.add(tandem::atan2(Fx::from_raw(y), Fx::from_raw(x))); });
    // Every raw value of [-1, 1] and 1000 beyond each end (the clamping).
    Fnv1a asin_h, acos_h;
    for (int64_t r = -66536; r <= 66536; ++r) {
        asin_h.add(tandem::asin(raw(r)));
        acos_h.add(tandem::acos(raw(r)));
    }
    // Compared as text so that a failure prints the new value, ready to paste.
    CHECK(hex(sin_hash) == "0xc99c830dcef93216");
    CHECK(hex(cos_hash) == "0x49d5bcbdd2c1c296");
    CHECK(hex(atan_hash) == "0x8988483fe137652d");
    CHECK(hex(atan2_h.h) == "0x915734bfea19957a");
    CHECK(hex(asin_h.h) == "0x6285d8fa81b009bc");
    CHECK(hex(acos_h.h) == "0x75b4f98c03b483ca");
}
