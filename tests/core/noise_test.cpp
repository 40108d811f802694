// Properties of src/core/noise.*: both forms of ValueNoise stay in [0, 1), are continuous,
// hit the lattice values exactly on lattice points, agree with each other, and reproduce
// the golden samples below on every build (the f32 ones included: no libm, no contraction).
#include "tandem/core/noise.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

using tandem::Fx;
using tandem::ValueNoise;

namespace {
constexpr ValueNoise noise(1234);

float fx_to_float(Fx v) { return static_cast<float>(v.raw()) * 0x1p-16f; }
}  // namespace

TEST_CASE("corner and corner_fx match their golden vectors") {
    const std::array<float, 4> f32{0x1.d1ca0cp-1f, 0x1.428ee8p-3f, 0x1.182aa6p-1f, 0x1.ec5a2p-3f};
    const std::array<int32_t, 4> raw{59621, 10321, 35861, 15755};
    for (int32_t i = -1; i < 3; ++i) {
        CHECK(noise.corner(i, 2 * i, 0) == f32[static_cast<size_t>(i + 1)]);
        CHECK(noise.corner_fx(i, 2 * i, 0).raw() == raw[static_cast<size_t>(i + 1)]);
    }
}

TEST_CASE("octave and octave_fx match their golden vectors") {
    const std::array<float, 5> f32{0x1.1e2c7cp-1f, 0x1.055a98p-1f, 0x1.ef728p-2f, 0x1.e727p-2f, 0x1.ce1f82p-2f};
    const std::array<int32_t, 5> raw{36628, 33452, 31707, 31176, 29574};
    for (int i = 0; i < 5; ++i) {
        const float x = 0.37f * static_cast<float>(i) - 1.1f;
        const float z = 2.5f + 0.71f * static_cast<float>(i);
        const float got = noise.octave(x, z, 4.0f, 1);
        INFO("i = " << i << " f32 got " << got);
        CHECK(got == f32[static_cast<size_t>(i)]);
        const Fx fx = noise.octave_fx(Fx::from_raw(24248 * i - 72090), Fx::from_raw(163840 + 46531 * i), Fx::from_int(4), 1);
        INFO("fx got " << fx.raw());
        CHECK(fx.raw() == raw[static_cast<size_t>(i)]);
    }
}

TEST_CASE("corner_fx is corner truncated to 16 fractional bits") {
    for (int32_t x = -50; x < 50; ++x)
        for (int32_t z = -50; z < 50; z += 7) {
            const float c = noise.corner(x, z, 3);
            REQUIRE(c >= 0.0f);
            REQUIRE(c < 1.0f);
            REQUIRE(noise.corner_fx(x, z, 3).raw() == static_cast<int32_t>(c * 65536.0f));
        }
}

TEST_CASE("the same seed gives the same noise, another seed or octave gives other noise") {
    const ValueNoise same(1234), other(1235);
    int differ_seed = 0, differ_octave = 0;
    for (int32_t i = 0; i < 64; ++i) {
        CHECK(same.corner(i, -i, 0) == noise.corner(i, -i, 0));
        CHECK(same.octave_fx(Fx::from_raw(i * 9999), Fx::from_raw(-i * 777), Fx::from_int(3), 2) ==
              noise.octave_fx(Fx::from_raw(i * 9999), Fx::from_raw(-i * 777), Fx::from_int(3), 2));
        differ_seed += other.corner(i, -i, 0) != noise.corner(i, -i, 0);
        differ_octave += noise.corner(i, -i, 1) != noise.corner(i, -i, 0);
    }
    CHECK(differ_seed == 64);
    CHECK(differ_octave == 64);
}

TEST_CASE("on a lattice point both forms return the corner value exactly") {
    for (int32_t xi = -5; xi <= 5; ++xi)
        for (int32_t zi = -5; zi <= 5; ++zi) {
            CHECK(noise.octave(static_cast<float>(xi) * 8.0f, static_cast<float>(zi) * 8.0f, 8.0f, 0) ==
                  noise.corner(xi, zi, 0));
            CHECK(noise.octave_fx(Fx::from_int(xi * 8), Fx::from_int(zi * 8), Fx::from_int(8), 0) ==
                  noise.corner_fx(xi, zi, 0));
        }
}

TEST_CASE("octave_fx stays in 0 <= v < 1 and is continuous at every raw step across cells") {
    // Lattice 0.5 (32768 raw): a one-raw step moves the fraction by 2^-15, and the
    // smoothstep slope is at most 1.5, so a step moves the value by at most 1.5 * 2 raw
    // plus 2 raw of truncation in the two lerps; crossing a cell boundary is no exception.
    const Fx lattice = Fx::from_raw(32768);
    const Fx z = Fx::from_raw(12345);
    Fx previous = noise.octave_fx(Fx::from_raw(-200000), z, lattice, 0);
    int32_t worst = 0;
    for (int32_t raw = -199999; raw <= 200000; ++raw) {
        const Fx v = noise.octave_fx(Fx::from_raw(raw), z, lattice, 0);
        REQUIRE(v >= Fx::zero());
        REQUIRE(v < Fx::one());
        const int32_t step = v.raw() > previous.raw() ? v.raw() - previous.raw() : previous.raw() - v.raw();
        worst = step > worst ? step : worst;
        previous = v;
    }
    INFO("largest change between neighbouring raw inputs: " << worst << " raw");
    CHECK(worst <= 5);
}

TEST_CASE("octave stays in 0 <= v < 1 and is continuous along a fine sweep") {
    // Steps of 1/256 on a lattice of 2: slope at most 1.5 per lattice unit gives
    // 1.5 / 512 per step, plus a few ulps of rounding.
    float worst = 0.0f;
    float previous = noise.octave(-40.0f, 3.3f, 2.0f, 0);
    for (int i = 1; i <= 80 * 256; ++i) {
        const float x = -40.0f + static_cast<float>(i) * 0x1p-8f;
        const float v = noise.octave(x, 3.3f, 2.0f, 0);
        REQUIRE(v >= 0.0f);
        REQUIRE(v < 1.0f);
        const float step = v > previous ? v - previous : previous - v;
        worst = step > worst ? step : worst;
        previous = v;
    }
    INFO("largest step " << worst);
    CHECK(worst <= 1.5f / 512.0f + 1e-5f);
}

TEST_CASE("the f32 and Fx forms sample the same surface") {
    // Same inputs (exactly representable in both), same lattice: the forms differ only by
    // the 16-bit fraction and truncation of the Fx form, a few 2^-16 at most.
    float worst = 0.0f;
    for (int32_t i = -300; i <= 300; ++i) {
        const int32_t xr = i * 4099, zr = 70000 - i * 2053;
        const float f = noise.octave(static_cast<float>(xr) * 0x1p-16f, static_cast<float>(zr) * 0x1p-16f, 3.0f, 4);
        const float q = fx_to_float(noise.octave_fx(Fx::from_raw(xr), Fx::from_raw(zr), Fx::from_int(3), 4));
        const float d = f > q ? f - q : q - f;
        worst = d > worst ? d : worst;
    }
    INFO("largest difference " << worst << " (" << worst * 65536.0f << " LSB)");
    CHECK(worst <= 4.0f * 0x1p-16f);
}

TEST_CASE("extreme and degenerate inputs stay defined and in range") {
    const float big = 3.0e38f, nan = __builtin_nanf("");
    for (float x : {big, -big, nan, 0.0f, -0.0f, 1.0e-30f})
        for (float lattice : {1.0f, 0.0f, -2.0f, nan, 1.0e-30f}) {
            const float v = noise.octave(x, -x, lattice, 0);
            REQUIRE(v >= 0.0f);
            REQUIRE(v < 1.0f);
        }
    CHECK(noise.octave(nan, nan, 1.0f, 0) == noise.corner(0, 0, 0));
    CHECK(noise.octave(5.0f, 5.0f, 0.0f, 0) == noise.octave(5.0f, 5.0f, 1.0f, 0));

    for (Fx x : {Fx::max(), Fx::min(), Fx::zero(), Fx::epsilon()})
        for (Fx lattice : {Fx::epsilon(), Fx::one(), Fx::max(), Fx::zero(), Fx::min()}) {
            const Fx v = noise.octave_fx(x, -x, lattice, 0);
            REQUIRE(v >= Fx::zero());
            REQUIRE(v < Fx::one());
        }
    CHECK(noise.octave_fx(Fx::from_int(5), Fx::from_int(5), Fx::zero(), 0) ==
          noise.octave_fx(Fx::from_int(5), Fx::from_int(5), Fx::one(), 0));
}
