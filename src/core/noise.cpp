// ValueNoise: the lattice hash and both interpolations. The Fx path is integer-only; the f32
// path uses only int<->float conversion and + - * / on floats, never libm (not even floor),
// and must never be evaluated with excess precision (guarded below).
#include "tandem/core/noise.hpp"

#include <cfloat>

// x87 evaluates float expressions in 80-bit registers and rounds when it spills, so the
// same source would give different noise on i686 than everywhere else. Build i686 with
// -msse2 -mfpmath=sse (FLT_EVAL_METHOD 0) instead of silently diverging.
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "ValueNoise's f32 form needs FLT_EVAL_METHOD == 0 (on i686: -msse2 -mfpmath=sse)"
#endif

namespace tandem {
namespace {

constexpr uint64_t golden_gamma = 0x9E3779B97F4A7C15u;

// Largest float below 1: the f32 form's results stay in [0, 1) like corner's.
constexpr float below_one = 0x1.fffffep-1f;
// Beyond 2^23 every float is an integer (no fraction left); 2^30 keeps cell + 1 inside int32.
constexpr float max_cell = 0x1p30f;

struct CellF {
    int32_t cell;
    float frac;  // [0, 1]; may round up to exactly 1 just below a lattice line, which is
                 // the next cell's corner value, so continuity and range both hold.
};

// floor without libm: truncation toward zero is exact for |t| < 2^31, then step down once
// for negative non-integers. Converting the cell back is exact: below 2^23 an int32 is
// representable, and above it t itself is an integer, so cell == t.
CellF split_f32(float t) {
    if (!(t == t)) t = 0.0f;  // NaN
    if (t > max_cell) t = max_cell;
    if (t < -max_cell) t = -max_cell;
    int32_t cell = static_cast<int32_t>(t);
    if (static_cast<float>(cell) > t) --cell;
    return {cell, t - static_cast<float>(cell)};
}

float smooth_f32(float f) { return (f * f) * (3.0f - 2.0f * f); }
float lerp_f32(float a, float b, float s) { return a + (b - a) * s; }

struct CellFx {
    int64_t cell;  // floor(raw / lattice_raw): within [-2^31, 2^31 - 1]
    int64_t frac;  // [0, 65536): 16 fractional bits of the position inside the cell
};

CellFx split_fx(int32_t raw, int32_t lattice_raw) {
    int64_t q = raw / lattice_raw;
    int64_t rem = raw % lattice_raw;
    if (rem < 0) {  // C++ division truncates; the lattice needs floor
        --q;
        rem += lattice_raw;
    }
    return {q, (rem << Fx::frac_bits) / lattice_raw};
}

// 3f^2 - 2f^3 with f in [0, 2^16) and the result in [0, 2^16): f*f*(3*2^16 - 2f) < 2^50.
int64_t smooth_fx(int64_t f) { return (f * f * (3 * int64_t{Fx::one_raw} - 2 * f)) >> 32; }

// a + (b - a) * s / 2^16, rounded toward minus infinity; with s < 2^16 the result lies
// between a and b inclusive, so it never leaves [0, 1).
int64_t lerp_fx(int64_t a, int64_t b, int64_t s) { return a + (((b - a) * s) >> Fx::frac_bits); }

}  // namespace

uint64_t ValueNoise::corner_hash(int64_t xi, int64_t zi, uint32_t octave) const {
    // Cells are packed as two's-complement 32-bit halves, so (xi, zi) -> pack is injective
    // over int32 and mix64 (a bijection) keeps distinct cells of an octave distinct.
    const uint64_t pack = uint64_t{static_cast<uint32_t>(static_cast<uint64_t>(xi))} |
                          (uint64_t{static_cast<uint32_t>(static_cast<uint64_t>(zi))} << 32);
    const uint64_t octave_key = mix64(seed_ + (uint64_t{octave} + 1) * golden_gamma);
    return mix64(octave_key ^ mix64(pack));
}

float ValueNoise::corner(int32_t xi, int32_t zi, uint32_t octave) const {
    // 24 bits fit a float's significand: the conversion and the power-of-two scale are exact.
    return static_cast<float>(static_cast<uint32_t>(corner_hash(xi, zi, octave) >> 40)) * 0x1p-24f;
}

Fx ValueNoise::corner_fx(int32_t xi, int32_t zi, uint32_t octave) const {
    return Fx::from_raw(static_cast<int32_t>(corner_hash(xi, zi, octave) >> 48));
}

float ValueNoise::octave(float x, float z, float lattice, uint32_t octave) const {
    if (!(lattice > 0.0f)) lattice = 1.0f;
    const CellF cx = split_f32(x / lattice);
    const CellF cz = split_f32(z / lattice);
    const float sx = smooth_f32(cx.frac);
    const float sz = smooth_f32(cz.frac);
    // Cells stay within +-2^30, so cell + 1 cannot overflow.
    const float c00 = corner(cx.cell, cz.cell, octave);
    const float c10 = corner(cx.cell + 1, cz.cell, octave);
    const float c01 = corner(cx.cell, cz.cell + 1, octave);
    const float c11 = corner(cx.cell + 1, cz.cell + 1, octave);
    float v = lerp_f32(lerp_f32(c00, c10, sx), lerp_f32(c01, c11, sx), sz);
    // The second lerp works on already-rounded values and can overshoot by one ulp.
    if (v > below_one) v = below_one;
    if (v < 0.0f) v = 0.0f;
    return v;
}

Fx ValueNoise::octave_fx(Fx x, Fx z, Fx lattice, uint32_t octave) const {
    const int32_t lattice_raw = lattice.raw() > 0 ? lattice.raw() : Fx::one_raw;
    const CellFx cx = split_fx(x.raw(), lattice_raw);
    const CellFx cz = split_fx(z.raw(), lattice_raw);
    const int64_t sx = smooth_fx(cx.frac);
    const int64_t sz = smooth_fx(cz.frac);
    // cell + 1 may reach 2^31; corner_hash wraps it to 32 bits like every other cell.
    const int64_t c00 = static_cast<int64_t>(corner_hash(cx.cell, cz.cell, octave) >> 48);
    const int64_t c10 = static_cast<int64_t>(corner_hash(cx.cell + 1, cz.cell, octave) >> 48);
    const int64_t c01 = static_cast<int64_t>(corner_hash(cx.cell, cz.cell + 1, octave) >> 48);
    const int64_t c11 = static_cast<int64_t>(corner_hash(cx.cell + 1, cz.cell + 1, octave) >> 48);
    const int64_t v = lerp_fx(lerp_fx(c00, c10, sx), lerp_fx(c01, c11, sx), sz);
    return Fx::from_raw(static_cast<int32_t>(v));
}

}  // namespace tandem
