// Properties of src/core/random.hpp: mix64 and XorShift are pure integer functions of their
// seed, so the golden vectors below must hold on every build (native, i686, aarch64, s390x,
// wasm); a mismatch means the build drifted, never that the constants need refreshing.
#include "tandem/core/random.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <vector>

using tandem::Fx;
using tandem::mix64;
using tandem::XorShift;

namespace {

// Pearson's chi-square statistic of observed counts against a uniform expectation.
double chi_square(const std::vector<uint64_t>& counts, uint64_t draws) {
    const double expected = static_cast<double>(draws) / static_cast<double>(counts.size());
    double chi = 0.0;
    for (uint64_t c : counts) {
        const double d = static_cast<double>(c) - expected;
        chi += d * d / expected;
    }
    return chi;
}

}  // namespace

TEST_CASE("mix64 matches its golden vectors (SplitMix64's finaliser)") {
    // mix64(golden gamma) is SplitMix64's first output for state 0, the published reference.
    CHECK(mix64(0x9E3779B97F4A7C15u) == 0xE220A8397B1DCDAFu);
    CHECK(mix64(0) == 0);
    CHECK(mix64(1) == 0x5692161D100B05E5u);
    CHECK(mix64(2) == 0xDBD238973A2B148Au);
    CHECK(mix64(0xFFFFFFFFFFFFFFFFu) == 0xB4D055FCF2CBBD7Bu);
}

TEST_CASE("mix64 can be evaluated at compile time") {
    static_assert(mix64(1) == 0x5692161D100B05E5u);
    constexpr uint64_t first = [] {
        XorShift r(42);
        return r.next();
    }();
    static_assert(first == 0xD75FB1E86299B002u);
}

TEST_CASE("mix64 driven as SplitMix64 gives the published sequence for seed 1234567") {
    // SplitMix64 is state += golden gamma, output = the finaliser of the state. Its outputs for
    // seed 1234567 are the published reference values (Vigna's splitmix64.c, as reproduced by
    // Rosetta Code's "Pseudo-random numbers/Splitmix64" task).
    const std::array<uint64_t, 5> published{6457827717110365317u, 3203168211198807973u, 9817491932198370423u,
                                            4593380528125082431u, 16408922859458223821u};
    uint64_t state = 1234567;
    for (uint64_t expected : published) {
        state += 0x9E3779B97F4A7C15u;
        CHECK(mix64(state) == expected);
    }
}

namespace {

// A second mix64 that shares no code with the header's: every 64-bit product is built from
// 32-bit halves (schoolbook, mod 2^64), as a platform without a 64-bit multiply would.
uint64_t mul64_by_halves(uint64_t a, uint64_t b) {
    const uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    return al * bl + (((al * bh + ah * bl) & 0xFFFFFFFFu) << 32);
}
uint64_t mix64_by_halves(uint64_t z) {
    z = mul64_by_halves(z ^ (z >> 30), 0xBF58476D1CE4E5B9u);
    z = mul64_by_halves(z ^ (z >> 27), 0x94D049BB133111EBu);
    return z ^ (z >> 31);
}

}  // namespace

TEST_CASE("keyed draws equal an independent transcription, whatever order the entities are visited in") {
    // The stateless pattern: roll = mix64(seed ^ mix64(id) ^ mix64(tick)) % 100. Reference
    // rolls for seed 0xC0FFEE, tick 77, computed with a Python transcription of SplitMix64's
    // finaliser (arbitrary-precision integers masked to 64 bits).
    const uint64_t seed = 0xC0FFEE, tick = 77;
    const std::array<uint64_t, 8> ids{5, 1, 9, 3, 7, 2, 8, 4};
    const std::array<uint64_t, 8> python_rolls{96, 50, 34, 34, 86, 45, 22, 35};
    for (size_t i = 0; i < ids.size(); ++i) {
        INFO("id " << ids[i]);
        CHECK(mix64(seed ^ mix64(ids[i]) ^ mix64(tick)) % 100 == python_rolls[i]);
    }
    CHECK(mix64(seed ^ mix64(5) ^ mix64(tick)) == 0x05F05290426DA94Cu);

    // Many entities visited in a shuffled order, each draw checked against the 32-bit-halves
    // transcription of the same key: a draw that consumed a shared stream would depend on
    // the order and fail here.
    XorShift order(99);
    std::vector<uint64_t> visit(2000);
    for (size_t i = 0; i < visit.size(); ++i) visit[i] = i * 7919u + 13u;
    for (size_t i = visit.size() - 1; i > 0; --i) std::swap(visit[i], visit[order.below(static_cast<uint32_t>(i + 1))]);
    for (uint64_t t : {uint64_t{0}, uint64_t{1}, uint64_t{1} << 40}) {
        for (uint64_t id : visit) {
            REQUIRE(mix64(seed ^ mix64(id) ^ mix64(t)) == mix64_by_halves(seed ^ mix64_by_halves(id) ^ mix64_by_halves(t)));
        }
    }
}

TEST_CASE("mix64 sends a one-bit input change to about half the output bits") {
    XorShift inputs(3);
    uint64_t flipped_total = 0;
    const int trials = 20000;
    for (int t = 0; t < trials; ++t) {
        const uint64_t x = inputs.next();
        const uint64_t bit = uint64_t{1} << inputs.below(64);
        flipped_total += static_cast<uint64_t>(std::popcount(mix64(x) ^ mix64(x ^ bit)));
    }
    const double mean = static_cast<double>(flipped_total) / trials;
    INFO("mean flipped bits " << mean);
    CHECK(mean > 31.0);
    CHECK(mean < 33.0);
}

TEST_CASE("XorShift next matches its golden vectors") {
    XorShift r(42);
    const std::array<uint64_t, 6> expected{0xD75FB1E86299B002u, 0x8213F6CA8439876Eu, 0x15BC4499665271A8u,
                                           0x91404E1B0070C26Bu, 0x3EFDD40D91326EAAu, 0xBA97AD46D4C83B54u};
    for (uint64_t e : expected) {
        const uint64_t got = r.next();
        INFO("expected 0x" << std::hex << e << " got 0x" << got);
        CHECK(got == e);
    }
}

TEST_CASE("XorShift below and unit_fx match their golden vectors") {
    XorShift b(7);
    const std::array<uint32_t, 10> below10{4, 5, 7, 8, 0, 2, 6, 3, 6, 6};
    for (uint32_t e : below10) CHECK(b.below(10) == e);

    XorShift big(7);
    const std::array<uint32_t, 4> below_big{1314568160u, 1819353587u, 2539407960u, 2615732318u};
    for (uint32_t e : below_big) CHECK(big.below(3u << 30) == e);

    XorShift u(9);
    const std::array<int32_t, 6> unit_fx{25130, 13834, 37019, 45192, 10550, 34252};
    for (int32_t e : unit_fx) CHECK(u.unit_fx().raw() == e);

    XorShift f(9);
    const std::array<float, 4> unit{0x1.88aae8p-2f, 0x1.b055cp-3f, 0x1.2136ap-1f, 0x1.6110e8p-1f};
    for (float e : unit) CHECK(f.unit() == e);
}

TEST_CASE("the same seed replays the same stream, and a copy replays from where it was taken") {
    XorShift a(123), b(123);
    for (int i = 0; i < 1000; ++i) REQUIRE(a.next() == b.next());

    XorShift saved = a;
    XorShift restored = XorShift::from_state(a.state());
    std::array<uint64_t, 16> first{}, second{}, third{};
    for (auto& v : first) v = a.next();
    for (auto& v : second) v = saved.next();
    for (auto& v : third) v = restored.next();
    CHECK(first == second);
    CHECK(first == third);
}

TEST_CASE("neighbouring seeds start unrelated streams") {
    XorShift a(1), b(2);
    CHECK(std::popcount(a.next() ^ b.next()) > 16);
}

TEST_CASE("a zero seed or zero state is replaced by a fixed nonzero state, never a stuck stream") {
    XorShift zero(0);
    CHECK(zero.state() == XorShift::zero_seed_state);
    CHECK(XorShift::from_state(0) == zero);
    // Golden: the stream a zero seed draws.
    CHECK(zero.next() == 0x0D83B3E29A21487Au);
    CHECK(zero.next() == 0x54C44C79F1FE9D67u);
    CHECK(zero.next() == 0xA845F342007A0E78u);
    // And it keeps moving: no state along the way is zero.
    for (int i = 0; i < 100000; ++i) {
        zero.next();
        REQUIRE(zero.state() != 0);
    }
}

TEST_CASE("below(n) is always less than n, and below(0) and below(1) return 0") {
    XorShift r(5);
    CHECK(r.below(0) == 0);
    CHECK(r.below(1) == 0);
    for (uint32_t n : {2u, 3u, 7u, 10u, 100u, 1000u, 65537u, 0x7FFFFFFFu, 0x80000001u, 0xFFFFFFFFu}) {
        for (int i = 0; i < 2000; ++i) REQUIRE(r.below(n) < n);
    }
}

TEST_CASE("below(n) is uniform on a small n (chi-square)") {
    XorShift r(2024);
    for (uint32_t n : {2u, 3u, 6u, 7u, 10u, 13u}) {
        std::vector<uint64_t> counts(n, 0);
        const uint64_t draws = 60000ull * n;
        for (uint64_t i = 0; i < draws; ++i) ++counts[r.below(n)];
        const double chi = chi_square(counts, draws);
        // 99.9th percentile of chi-square with df = 12 is 32.9; smaller n have lower ones.
        INFO("n = " << n << ", chi-square = " << chi);
        CHECK(chi < 32.9);
    }
}

TEST_CASE("below(n) has no modulo bias and no multiply bias on a large n") {
    // n = 3 * 2^30: draw % n would return [0, 2^30) twice as often as the rest (1/2 instead
    // of 1/3), and an unrejected multiply-shift would over-represent one residue mod 3.
    XorShift r(99);
    const uint32_t n = 3u << 30;
    const uint64_t draws = 300000;
    uint64_t low_third = 0;
    std::vector<uint64_t> residues(3, 0);
    for (uint64_t i = 0; i < draws; ++i) {
        const uint32_t v = r.below(n);
        if (v < (1u << 30)) ++low_third;
        ++residues[v % 3];
    }
    const double fraction = static_cast<double>(low_third) / static_cast<double>(draws);
    INFO("fraction below 2^30 = " << fraction);
    CHECK(fraction > 0.33);
    CHECK(fraction < 0.337);
    const double chi = chi_square(residues, draws);
    INFO("residue chi-square = " << chi);
    CHECK(chi < 13.8);  // 99.9th percentile, df = 2
}

TEST_CASE("a Fisher-Yates shuffle driven by below is a permutation and is reproducible") {
    auto shuffled = [](uint64_t seed) {
        std::vector<uint32_t> deck(52);
        for (uint32_t i = 0; i < 52; ++i) deck[i] = i;
        XorShift r(seed);
        for (uint32_t i = 51; i > 0; --i) std::swap(deck[i], deck[r.below(i + 1)]);
        return deck;
    };
    const auto a = shuffled(mix64(1) ^ mix64(2));
    CHECK(a == shuffled(mix64(1) ^ mix64(2)));
    auto sorted = a;
    std::sort(sorted.begin(), sorted.end());
    for (uint32_t i = 0; i < 52; ++i) CHECK(sorted[i] == i);
    CHECK(a != shuffled(3));
}

TEST_CASE("unit is in 0 <= v < 1 on a 2^-24 grid and unit_fx is in 0 <= v < 1 and uniform") {
    XorShift r(11);
    for (int i = 0; i < 100000; ++i) {
        const float u = r.unit();
        REQUIRE(u >= 0.0f);
        REQUIRE(u < 1.0f);
        const float scaled = u * 16777216.0f;  // exact: a power of two
        REQUIRE(scaled == static_cast<float>(static_cast<uint32_t>(scaled)));
    }
    XorShift q(12);
    std::vector<uint64_t> buckets(16, 0);
    const uint64_t draws = 160000;
    for (uint64_t i = 0; i < draws; ++i) {
        const Fx v = q.unit_fx();
        REQUIRE(v >= Fx::zero());
        REQUIRE(v < Fx::one());
        ++buckets[static_cast<uint32_t>(v.raw()) >> 12];
    }
    const double chi = chi_square(buckets, draws);
    INFO("unit_fx chi-square over 16 buckets = " << chi);
    CHECK(chi < 37.7);  // 99.9th percentile, df = 15
}

TEST_CASE("unit and unit_fx read the same high bits of the draw") {
    XorShift a(77), b(77);
    for (int i = 0; i < 1000; ++i) {
        const float u = a.unit();
        const Fx f = b.unit_fx();
        // unit keeps 24 bits, unit_fx the top 16 of them.
        REQUIRE(static_cast<int32_t>(u * 65536.0f) == f.raw());
    }
}
