// Trigonometry on Fx: sin, cos, atan2, atan, asin, acos, each within 1 LSB of the exact
// value for every input and bit-identical on every build. Integers only: never float,
// double, libm, __int128 or a pointer-width type here, and no signed overflow.
#include "tandem/core/fixed.hpp"
#include "core/sqrt_segments.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace tandem {
namespace {

// Internal results carry 31 fraction bits (Q31) in int64_t, 15 more than Fx: the
// approximation and the truncations together stay below 2^-27 (asin/acos: below 2^-24, at
// most 0.0008 LSB; 30 of their 131073 inputs in [-1, 1] miss the nearest raw value, each
// by under 0.001 LSB beyond the half), so the one rounding to Q16 at the end decides the
// result and it is the nearest raw value almost everywhere.
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

// asin on [0, 1/2] in 64 segments of width 1/128, and a 65th, [1/2, 65/128], that only the
// argument 1/2 itself reaches, at t = -1 (cheaper than folding it into segment 63). In
// segment i, asin = b0 + b1 t + b2 t^2 with t in [-1, 1] across the segment (Chebyshev
// interpolation, worst error 2^-26.9 with the coefficients rounded to Q31; b0 of segment 0
// set so that asin(0) is exactly 0). asin has no singularity there (slope <= 1.16), so two
// multiplies after a 780-byte table load do. Generated offline with long double (64-bit
// significand).
constexpr int32_t asin_segments[65][3] = {
    {8388624, 8388688, 64}, {25166400, 8389200, 192}, {41945707, 8390224, 320},
    {58727576, 8391762, 449}, {75513033, 8393813, 577}, {92303106, 8396379, 706},
    {109098828, 8399461, 835}, {125901231, 8403061, 965}, {142711355, 8407182, 1095},
    {159530241, 8411824, 1226}, {176358937, 8416992, 1358}, {193198494, 8422687, 1490},
    {210049972, 8428913, 1623}, {226914436, 8435674, 1757}, {243792958, 8442973, 1892},
    {260686620, 8450814, 2028}, {277596510, 8459202, 2166}, {294523727, 8468142, 2304},
    {311469379, 8477639, 2444}, {328434586, 8487698, 2586}, {345420478, 8498325, 2728},
    {362428197, 8509527, 2873}, {379458898, 8521309, 3019}, {396513752, 8533680, 3167},
    {413593941, 8546646, 3317}, {430700664, 8560216, 3468}, {447835136, 8574397, 3622},
    {464998588, 8589198, 3779}, {482192270, 8604629, 3937}, {499417452, 8620699, 4098},
    {516675419, 8637419, 4262}, {533967483, 8654798, 4428}, {551294974, 8672848, 4597},
    {568659245, 8691581, 4770}, {586061675, 8711009, 4945}, {603503666, 8731146, 5124},
    {620986649, 8752004, 5306}, {638512081, 8773598, 5492}, {656081449, 8795943, 5681},
    {673696269, 8819055, 5875}, {691358092, 8842949, 6073}, {709068499, 8867643, 6275},
    {726829108, 8893156, 6482}, {744641575, 8919505, 6693}, {762507592, 8946711, 6910},
    {780428894, 8974795, 7132}, {798407258, 9003777, 7360}, {816444503, 9033682, 7593},
    {834542497, 9064532, 7833}, {852703158, 9096354, 8079}, {870928453, 9129173, 8332},
    {889220405, 9163017, 8591}, {907581092, 9197915, 8859}, {926012652, 9233898, 9134},
    {944517287, 9270997, 9417}, {963097264, 9309247, 9709}, {981754918, 9348683, 10010},
    {1000492659, 9389342, 10321}, {1019312972, 9431265, 10642}, {1038218424, 9474491, 10973},
    {1057211665, 9519065, 11316}, {1076295439, 9565033, 11670}, {1095472580, 9612444, 12037},
    {1114746026, 9661350, 12417}, {1134118817, 9711803, 12812},
};

// asin(u / 2^31) in Q31 for u in [0, 2^30] (the argument at most 1/2).
int64_t asin_half_q31(uint64_t u) {
    const int32_t* b = asin_segments[u >> 24];
    // Position within the segment, scaled to [-1, 1) in Q31 (exact).
    const int64_t t = static_cast<int64_t>((u & ((uint64_t{1} << 24) - 1)) << 8) - (int64_t{1} << 31);
    int64_t a = b[2];
    a = b[1] + ((a * t) >> q31_shift);
    a = b[0] + ((a * t) >> q31_shift);
    return a;
}

using detail::sqrt_segments;  // core/sqrt_segments.hpp

// sqrt(n) for n in [2^62, 2^64), or n = 0, within 2^-26.3 relative (under 52 units), without
// a division or an iteration: w = n / 2^62, and sqrt(n) = 2^31 sqrt(w).
uint64_t sqrt_normalised(uint64_t n) {
    const uint64_t i = n >> 56;
    // Position within the segment scaled to [-1, 1) in Q31 (the low 24 bits of n dropped:
    // 2^-38 relative).
    const int64_t t = static_cast<int64_t>((n >> 24) & 0xFFFFFFFFu) - (int64_t{1} << 31);
    int64_t s = sqrt_segments.c2[i];
    s = sqrt_segments.c1[i] + ((s * t) >> q31_shift);
    s = int64_t{sqrt_segments.c0[i]} + ((s * t) >> q31_shift);
    return static_cast<uint64_t>(s);
}

// sqrt((1 - |a|) / 2) in Q31 for |a| = m / 2^16, m <= 2^16: sqrt(d * 2^45) with d = 2^16 - m
// (at most 2^61), to within 2^-26 (26 units, the shift below is at least 2); 0 exactly at
// m = 2^16.
uint64_t half_versine_root_q31(uint32_t m) {
    const uint64_t n = uint64_t{65536u - m} << 45;
    const int shift = std::countl_zero(n | 1) & ~1;  // even, <= 62; n = 0 stays 0
    return sqrt_normalised(n << shift) >> (shift / 2);
}

// asin(|a|) in Q31 for |a| = m / 2^16, m <= 2^16, from two parts: for |a| <= 1/2 (far = 0),
// asin(|a|) = p directly; beyond (far = all ones), asin(|a|) = pi/2 - 2p with
// p = asin(sqrt((1 - |a|) / 2)), which keeps full precision near 1, where asin is steep.
// Both roads share the quadratics. The root is always computed and the roads are chosen by
// masks: a compiler turns a plain select here into a branch, which random inputs
// mispredict half the time at a cost above the root's.
struct AsinParts {
    int64_t far;  // 0 or -1
    int64_t p;
};
AsinParts asin_parts(uint32_t m) {
    const uint64_t far = uint64_t{0} - static_cast<uint64_t>(m > 32768);
    const uint64_t u = (half_versine_root_q31(m) & far) | ((uint64_t{m} << 15) & ~far);
    return {static_cast<int64_t>(far), asin_half_q31(u)};
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

// asin and acos take the sign through masks too, for the same reason, and clamp the
// magnitude (a minimum, not two compares against the ends).
Fx asin(Fx a) {
    const uint32_t neg = 0u - (static_cast<uint32_t>(a.raw()) >> 31);  // all ones when a < 0
    const uint32_t m = std::min((static_cast<uint32_t>(a.raw()) ^ neg) - neg, uint32_t{65536});
    const AsinParts q = asin_parts(m);
    // p, or pi/2 - 2p on the far road
    const int64_t v = q.p + ((half_pi_q31 - 3 * q.p) & q.far);
    const uint32_t r = static_cast<uint32_t>(round_q31_to_raw(v));
    return Fx::from_raw(static_cast<int32_t>((r ^ neg) - neg));  // |r| <= 2^17: exact
}

Fx acos(Fx a) {
    const uint32_t neg = 0u - (static_cast<uint32_t>(a.raw()) >> 31);
    const uint32_t m = std::min((static_cast<uint32_t>(a.raw()) ^ neg) - neg, uint32_t{65536});
    const AsinParts q = asin_parts(m);
    // acos(|a|) = pi/2 - asin(|a|): pi/2 - p, or 2p on the far road. acos(-|a|) = pi -
    // acos(|a|). One rounding at the end.
    const int64_t v = (half_pi_q31 - q.p) + ((3 * q.p - half_pi_q31) & q.far);
    const int64_t neg64 = -static_cast<int64_t>(neg & 1u);
    return Fx::from_raw(round_q31_to_raw(((v ^ neg64) - neg64) + (pi_q31 & neg64)));
}

}  // namespace tandem
