// Trigonometry on Fx: sin, cos, atan2, atan, asin, acos, each within 1 LSB of the exact
// value for every input and bit-identical on every build. Integers only: never float,
// double, libm, __int128 or a pointer-width type here, and no signed overflow.
#include "core/fixed.hpp"

#include <bit>
#include <cstdint>

namespace tandem {
namespace {

// Internal results carry 31 fraction bits (Q31) in int64_t, 15 more than Fx: the
// approximation and the truncations together stay below 2^-27, so the one rounding to
// Q16 at the end decides the result and it is the nearest raw value almost everywhere.
constexpr int q31_shift = 31;

// 2/pi with 64 fraction bits. Inputs reach 32768 rad (20861 quarter turns), so a 32-bit
// constant would put the reduced angle off by far more than an LSB at the top of the range;
// with 64 bits the reduced angle is off by less than 2^-46 quarter turns everywhere.
constexpr uint64_t two_over_pi_hi = 0xA2F9836Eu;
constexpr uint64_t two_over_pi_lo = 0x4E44152Au;

constexpr int64_t pi_q31 = 6746518852;       // round(pi * 2^31)
constexpr int64_t half_pi_q31 = 3373259426;  // round(pi/2 * 2^31)

// sin(pi/2 * u) on [0, 1] in 64 segments of width 1/64; in segment i, sin = b0 + b1 t +
// b2 t^2 + b3 t^3 with t in [-1, 1] across the segment (Chebyshev fit, worst error 2^-33),
// coefficients in Q31. Three multiplies after a 1 KB table load, where one polynomial over
// the whole quarter wave needs degree 11 and six. Generated offline with mpmath.
constexpr int32_t sin_segments[64][4] = {
    {26352928, 26351605, -1984, -661}, {79042909, 26335732, -5952, -661},
    {131685278, 26303995, -9916, -660}, {184248325, 26256413, -13874, -659},
    {236700388, 26193016, -17823, -657}, {289009871, 26113841, -21762, -655},
    {341145265, 26018936, -25688, -653}, {393075166, 25908358, -29598, -650},
    {444768294, 25782174, -33490, -647}, {496193509, 25640460, -37362, -644},
    {547319836, 25483301, -41212, -640}, {598116479, 25310791, -45037, -635},
    {648552838, 25123036, -48835, -631}, {698598533, 24920147, -52603, -625},
    {748223418, 24702247, -56340, -620}, {797397602, 24469468, -60043, -614},
    {846091463, 24221949, -63709, -608}, {894275671, 23959840, -67337, -601},
    {941921200, 23683298, -70925, -594}, {988999351, 23392490, -74470, -587},
    {1035481766, 23087591, -77970, -579}, {1081340445, 22768786, -81423, -571},
    {1126547765, 22436265, -84827, -563}, {1171076495, 22090230, -88180, -554},
    {1214899813, 21730888, -91480, -545}, {1257991320, 21358456, -94724, -536},
    {1300325060, 20973159, -97912, -526}, {1341875533, 20575228, -101041, -516},
    {1382617710, 20164904, -104109, -506}, {1422527050, 19742433, -107114, -496},
    {1461579513, 19308070, -110054, -485}, {1499751576, 18862076, -112929, -473},
    {1537020243, 18404721, -115735, -462}, {1573363068, 17936279, -118471, -450},
    {1608758157, 17457033, -121137, -438}, {1643184191, 16967272, -123729, -426},
    {1676620432, 16467290, -126246, -413}, {1709046739, 15957389, -128688, -401},
    {1740443580, 15437876, -131052, -387}, {1770792044, 14909064, -133337, -374},
    {1800073848, 14371271, -135542, -361}, {1828271356, 13824821, -137665, -347},
    {1855367581, 13270044, -139706, -333}, {1881346202, 12707273, -141662, -319},
    {1906191570, 12136848, -143533, -305}, {1929888720, 11559112, -145317, -290},
    {1952423377, 10974414, -147014, -275}, {1973781967, 10383104, -148622, -261},
    {1993951625, 9785541, -150141, -246}, {2012920200, 9182083, -151569, -230},
    {2030676268, 8573094, -152906, -215}, {2047209133, 7958941, -154151, -200},
    {2062508835, 7339993, -155303, -184}, {2076566159, 6716625, -156362, -169},
    {2089372638, 6089210, -157326, -153}, {2100920556, 5458128, -158195, -137},
    {2111202958, 4823758, -158970, -121}, {2120213651, 4186482, -159648, -105},
    {2127947206, 3546685, -160231, -89}, {2134398965, 2904751, -160716, -73},
    {2139565043, 2261067, -161105, -57}, {2143442326, 1616021, -161397, -41},
    {2146028480, 970002, -161592, -24}, {2147321946, 323399, -161689, -8},
};

// atan on [0, 1] in 32 segments of width 1/32; in segment i, atan(r) = b0 + b1 t + b2 t^2
// + b3 t^3 with t in [-1, 1] across the segment (Chebyshev fit, worst error 2^-29.4),
// coefficients in Q31. Piecewise cubics replace a second division (the classic
// pi/4 + atan((r-1)/(r+1)) step) or a degree-23 polynomial. Generated offline with mpmath.
constexpr int32_t atan_segments[32][4] = {
    {33551701, 33546242, -8186, -2726},      {100589664, 33480866, -24462, -2694},
    {167432070, 33350874, -40455, -2632},    {233951070, 33157769, -55983, -2540},
    {300022521, 32903748, -70880, -2422},    {365527324, 32591642, -84996, -2280},
    {430352615, 32224843, -98202, -2119},    {494392796, 31807210, -110393, -1942},
    {557550381, 31342977, -121488, -1754},   {619736638, 30836651, -131431, -1559},
    {680872042, 30292915, -140189, -1360},   {740886531, 29716530, -147755, -1162},
    {799719572, 29112255, -154140, -967},    {857320072, 28484757, -159374, -779},
    {913646137, 27838557, -163502, -599},    {968664708, 27177962, -166584, -430},
    {1022351100, 26507031, -168685, -273},   {1074688461, 25829535, -169882, -128},
    {1125667179, 25148939, -170252, 3},      {1175284257, 24468391, -169875, 121},
    {1223542666, 23790714, -168833, 225},    {1270450703, 23118411, -167204, 316},
    {1316021362, 22453676, -165064, 395},    {1360271725, 21798407, -162486, 462},
    {1403222382, 21154218, -159537, 519},    {1444896893, 20522466, -156281, 565},
    {1485321285, 19904266, -152773, 603},    {1524523592, 19300513, -149067, 632},
    {1562533439, 18711907, -145209, 653},    {1599381666, 18138967, -141242, 668},
    {1635099998, 17582059, -137201, 678},    {1669720742, 17041408, -133119, 682},
};

// |raw| as an unsigned value: INT32_MIN has no positive int32_t, but 2^31 fits here.
constexpr uint32_t magnitude(int32_t raw) {
    return raw < 0 ? 0u - static_cast<uint32_t>(raw) : static_cast<uint32_t>(raw);
}

// Q31 value (>= 0, or a hair below 0 from a fit's error) to the nearest raw Q16 value.
// Ties go up: the Q31 value is itself off by ~2^-29, so no tie rule could make them exact.
constexpr int32_t round_q31_to_raw(int64_t v) {
    return static_cast<int32_t>((v + (int64_t{1} << 14)) >> 15);
}

// sin(magnitude * 2^-16 + quarter_turns * pi/2) as a raw Q16 value, for magnitude <= 2^31.
// Callers fold signs into quarter_turns (sin(-x) = sin(x + 2 quarter turns)), so a result
// is negated once, and exactly.
int32_t sin_of_magnitude(uint32_t magnitude_raw, uint32_t quarter_turns) {
    // angle / (pi/2) with 48 fraction bits: magnitude * (2/pi * 2^64) / 2^32, the low
    // partial product truncated (an error below 2^-47 quarter turns). At most 2^31 * 2^64
    // * 0.64 / 2^32 < 2^63: no overflow.
    const uint64_t n = magnitude_raw;
    const uint64_t turns48 = n * two_over_pi_hi + ((n * two_over_pi_lo) >> 32);
    const uint32_t quadrant = static_cast<uint32_t>(turns48 >> 48) + quarter_turns;
    // Odd quadrants run the quarter wave backwards, sin(pi/2 (1 - f)) = cos(pi/2 f), taking
    // 1 - f as the complement of f's 48 bits (2^-48 short: nothing at Q16). No branch:
    // random angles would mispredict it half the time.
    constexpr uint64_t mask48 = (uint64_t{1} << 48) - 1;
    const uint64_t u48 = (turns48 ^ (uint64_t{0} - (quadrant & 1u))) & mask48;
    const int32_t* b = sin_segments[u48 >> 42];
    // Position within the segment scaled to [-1, 1), Q31 (truncated: an error of 2^-31).
    const int64_t t = (static_cast<int64_t>(u48 & ((uint64_t{1} << 42) - 1)) - (int64_t{1} << 41)) >> 10;
    int64_t s = b[3];
    s = b[2] + ((s * t) >> q31_shift);
    s = b[1] + ((s * t) >> q31_shift);
    s = b[0] + ((s * t) >> q31_shift);
    const int32_t r = round_q31_to_raw(s);
    return (quadrant & 2u) ? -r : r;
}

// atan(r / 2^31) in Q31 for r in [0, 2^31].
int64_t atan_unit_q31(uint64_t r) {
    const uint32_t segment = static_cast<uint32_t>((r >> 26) - (r >> 31));  // r = 2^31 -> 31
    const int32_t* b = atan_segments[segment];
    // Position within the segment, scaled to [-1, 1] in Q31.
    const int64_t t = (static_cast<int64_t>(r) - (int64_t{segment} << 26) - (int64_t{1} << 25)) << 6;
    int64_t a = b[3];
    a = b[2] + ((a * t) >> q31_shift);
    a = b[1] + ((a * t) >> q31_shift);
    a = b[0] + ((a * t) >> q31_shift);
    return a;
}

// The angle of the point (x, y) in Q31, in [0, pi], from magnitudes ay, ax < 2^32 of the
// same scale; the sign of y is applied by the caller after rounding, so atan2 is exactly
// odd in y.
int64_t angle_q31(uint64_t ay, uint64_t ax, bool x_negative) {
    if ((ay | ax) == 0) return 0;
    const bool steep = ay > ax;
    const uint64_t num = steep ? ax : ay;
    const uint64_t den = steep ? ay : ax;
    // Ratio in [0, 1] as Q31, truncated: an error below 2^-31, which atan (slope <= 1)
    // passes on no larger. num < 2^32, so num << 31 < 2^63.
    const uint64_t r = (num << q31_shift) / den;
    int64_t a = atan_unit_q31(r);
    if (steep) a = half_pi_q31 - a;
    if (x_negative) a = pi_q31 - a;
    return a;
}

// Seeds for isqrt: sqrt((i + 16.5) * 2^58) for the six leading bits 16 + i of a normalised
// operand, to about 2^-6 relative. Computed at compile time, by integers only.
constexpr uint64_t isqrt_seed(uint64_t v) {  // floor(sqrt(v)) one bit at a time
    uint64_t root = 0;
    for (uint64_t bit = uint64_t{1} << 62; bit != 0; bit >>= 2) {
        if (v >= root + bit) {
            v -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
    }
    return root;
}
struct IsqrtSeeds {
    uint32_t value[48];
    constexpr IsqrtSeeds() : value() {
        for (uint64_t i = 0; i < 48; ++i) value[i] = static_cast<uint32_t>(isqrt_seed(((2 * i + 33) << 57)));
    }
};
constexpr IsqrtSeeds isqrt_seeds{};

// floor(sqrt(v)) for any v. Newton's step from a 6-bit seed triples to ~2^-55 in three
// divisions; every step after the first lands at or above the root, so the result is
// the floor or one above it, which the last line settles.
uint64_t isqrt(uint64_t v) {
    if (v == 0) return 0;
    const int shift = std::countl_zero(v) & ~1;  // even, so the root scales by 2^(shift/2)
    const uint64_t vn = v << shift;                // in [2^62, 2^64)
    uint64_t x = isqrt_seeds.value[(vn >> 58) - 16];
    x = (x + vn / x) >> 1;
    x = (x + vn / x) >> 1;
    x = (x + vn / x) >> 1;
    x >>= shift / 2;
    if (x * x > v) --x;  // callers pass v <= 2^62, so x <= 2^31 + 1 and x * x cannot wrap
    return x;
}

// sqrt(1 - a^2) in Q31 for |a| = magnitude_raw <= 2^16: (1 - a)(1 + a) is exact in Q32,
// and the integer square root of it times 2^30 is the Q31 root, truncated (error < 2^-31).
uint64_t cosine_of_sine_q31(uint32_t magnitude_raw) {
    const uint64_t one_minus_sq = (uint64_t{65536} - magnitude_raw) * (uint64_t{65536} + magnitude_raw);
    return isqrt(one_minus_sq << 30);
}

}  // namespace

Fx sin(Fx a) {
    return Fx::from_raw(sin_of_magnitude(magnitude(a.raw()), a.raw() < 0 ? 2u : 0u));
}

Fx cos(Fx a) { return Fx::from_raw(sin_of_magnitude(magnitude(a.raw()), 1)); }

Fx atan2(Fx y, Fx x) {
    const int32_t r = round_q31_to_raw(angle_q31(magnitude(y.raw()), magnitude(x.raw()), x.raw() < 0));
    return Fx::from_raw(y.raw() < 0 ? -r : r);
}

Fx atan(Fx a) {
    // atan(a) = atan2(a, 1): beyond |a| = 1 the core takes pi/2 - atan(1/a) itself.
    const int32_t r = round_q31_to_raw(angle_q31(magnitude(a.raw()), uint64_t{1} << 16, false));
    return Fx::from_raw(a.raw() < 0 ? -r : r);
}

Fx asin(Fx a) {
    const Fx c = clamp(a, -Fx::one(), Fx::one());
    const uint32_t m = magnitude(c.raw());
    // asin(a) = atan2(a, sqrt(1 - a^2)), both sides in Q31 so the core keeps full precision
    // near |a| = 1, where asin is steep.
    const int32_t r = round_q31_to_raw(angle_q31(uint64_t{m} << 15, cosine_of_sine_q31(m), false));
    return Fx::from_raw(c.raw() < 0 ? -r : r);
}

Fx acos(Fx a) {
    const Fx c = clamp(a, -Fx::one(), Fx::one());
    const uint32_t m = magnitude(c.raw());
    // acos(a) = atan2(sqrt(1 - a^2), a): in [0, pi], computed whole rather than as
    // pi/2 - asin(a) so that only one rounding happens.
    return Fx::from_raw(round_q31_to_raw(angle_q31(cosine_of_sine_q31(m), uint64_t{m} << 15, c.raw() < 0)));
}

}  // namespace tandem
