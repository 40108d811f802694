// exp and log of Q16.16 (declared in core/fixed.hpp). Integer-only and table driven: each
// result is computed to far finer than 1 LSB (exp ~2^-58 relative, log ~2^-44 absolute) and
// rounded once, so nearly every result is the correctly rounded one on every build.
#include <bit>
#include <cstdint>

#include "tandem/core/fixed.hpp"

namespace tandem {
namespace {

// The tables below were generated offline with Python's decimal module (80 digits, every
// entry rounded to nearest, reciprocals rounded up) and pasted, so no build computes them
// with floats. To regenerate:
//
//   from decimal import Decimal as D, getcontext, ROUND_CEILING
//   getcontext().prec = 80
//   rnd = lambda v: int(v.to_integral_value())
//   for i in range(-12, 11):                      # kExpInt: (m, s - 2) with m in [2^63, 2^64)
//       v = D(i).exp() * 2**16; s = smallest s with v * 2**s >= 2**63; m = rnd(v * D(2)**s)
//   kExpHi[a] = rnd((D(a) / 256).exp() * D(2)**62)
//   kExpLo[b] = rnd(((D(b) / 65536).exp() - 1) * D(2)**64)
//   kLogRecip[j] = ceil(D(2**16) / (1 + D(j) / 256))
//   kLogTab[j] = rnd((D(2**16) / kLogRecip[j]).ln() * D(2)**58);  kLn2 = rnd(D(2).ln() * D(2)**58)

// exp(i) * 2^16 for the integer part i in [-12, 10], as a 64-bit mantissa m in [2^63, 2^64)
// and the right shift that turns the final Q.64-scaled product into raw units: the huge
// range of exp(i) lives in the shift, so every product keeps 61+ significant bits.
struct ExpInt {
    uint64_t mant;
    int shift;
};
constexpr ExpInt kExpInt[23] = {
    {0xce2a61da1de4578du, 63},  // exp(-12)
    {0x8c1aa11c7b3b201eu, 61},  // exp(-11)
    {0xbe6bcdab23e4d4e3u, 60},  // exp(-10)
    {0x8167912932a2cc8bu, 58},  // exp(-9)
    {0xafe10820813d65e0u, 57},  // exp(-8)
    {0xef0b5ce1254c755du, 56},  // exp(-7)
    {0xa2728f889ea6aec0u, 54},  // exp(-6)
    {0xdcc9ff006a9bb0e2u, 53},  // exp(-5)
    {0x960aadc109e7a3bfu, 51},  // exp(-4)
    {0xcbed86667585764au, 50},  // exp(-3)
    {0x8a95551dfc0e5cffu, 48},  // exp(-2)
    {0xbc5ab1b16779be35u, 47},  // exp(-1)
    {0x8000000000000000u, 45},  // exp(0)
    {0xadf85458a2bb4a9bu, 44},  // exp(1)
    {0xec7325c6a6ed6e62u, 43},  // exp(2)
    {0xa0af2dfb7d882f97u, 41},  // exp(3)
    {0xda64817139d2c33cu, 40},  // exp(4)
    {0x9469c4cb819c78fbu, 38},  // exp(5)
    {0xc9b6e2b4860479bdu, 37},  // exp(6)
    {0x891442d576ed5379u, 35},  // exp(7)
    {0xba4f53ea38636f86u, 34},  // exp(8)
    {0xfd38abe2387c0e1bu, 33},  // exp(9)
    {0xac14ee7ca82afcf8u, 31},  // exp(10)
};

// exp(a / 256) for the next 8 fraction bits, Q2.62 (values in [1, e^(255/256)) < 2.71).
constexpr uint64_t kExpHi[256] = {
    0x4000000000000000u, 0x4040200aad55ddf5u, 0x40808055801116c3u, 0x40c12120d881da82u,
    0x410202ad5778e45fu, 0x4143253bde881b71u, 0x4184890d90437454u, 0x41c62e63d08213bfu,
    0x42081580449fb264u, 0x424a3ea4d3be424cu, 0x428caa13a707d605u, 0x42cf580f29f0c9ccu,
    0x431248da0a7a2f0au, 0x43557cb739747a5au, 0x4398f3e9eac2745du, 0x43dcaeb5959c6da6u,
    0x4420ad5df4d3b5f5u, 0x4464f02707165711u, 0x44a977550f331377u, 0x44ee432c945da932u,
    0x453353f262735915u, 0x4578a9eb8a3fb29cu, 0x45be455d61c1a4bdu, 0x4604268d8470d3eeu,
    0x464a4dc1d38335a2u, 0x4690bb407632f187u, 0x46d76f4fda0488c1u, 0x471e6a36b30d4378u,
    0x4765ac3bfc39e4f4u, 0x47ad35a6f795a68du, 0x47f506bf2e9179bbu, 0x483d1fcc724b9194u,
    0x48858116dbd733e7u, 0x48ce2ae6cc84d25du, 0x49171d84ee2a6bc8u, 0x4960593a336c3608u,
    0x49a9de4fd80590adu, 0x49f3ad0f611240beu, 0x4a3dc5c29d57f5d6u, 0x4a8828b3a59018f7u,
    0x4ad2d62cdcb1e540u, 0x4b1dce78f03ccaf5u, 0x4b6911e2d8831cfbu, 0x4bb4a0b5d8f50937u,
    0x4c007b3d806bdc03u, 0x4c4ca1c5a9758f0bu, 0x4c99149a7aa0a3e5u, 0x4ce5d40866c84aa3u,
    0x4d32e05c2d60d4b5u, 0x4d8039e2dac47467u, 0x4dcde0e9c880493du, 0x4e1bd5be9da1b989u,
    0x4e6a18af4f04197eu, 0x4eb8aa0a1f9ea012u, 0x4f078a1da0d2a9ffu, 0x4f56b938b2ba4b23u,
    0x4fa637aa84772ea9u, 0x4ff605c29481c62du, 0x504623d0b0f8c83cu, 0x50969224f7f0fe79u,
    0x50e7510fd7c563b9u, 0x513860e20f679264u, 0x5189c1ecaeb0836du, 0x51db748116b19e35u,
    0x522d78f0fa06199eu, 0x527fcf8e5d24aeb1u, 0x52d278ab96b19d19u, 0x5325749b4fd101d2u,
    0x5378c3b08479804fu, 0x53cc663e83c73e7au, 0x54205c98f04f33d7u, 0x5474a713c072cc22u,
    0x54c946033eb3ddb3u, 0x551e39bc0a08f409u, 0x557382931631eecau, 0x55c920ddac0cf585u,
    0x561f14f169ebc09eu, 0x56755f2443e9379du, 0x56cbffcc843f655cu, 0x5722f740cb9dc23fu,
    0x577a45d8117fd4edu, 0x57d1ebe9a48429d6u, 0x5829e9cd2ac3a1d5u, 0x58823fdaa2291853u,
    0x58daee6a60c96135u, 0x5933f5d5153b9efdu, 0x598d5673c6f1f168u, 0x59e7109fd6927ce4u,
    0x5a4124b2fe50cb3fu, 0x5a9b9307524785e5u, 0x5af65bf740d289feu, 0x5b517fdd92e956d5u,
    0x5bacff156c79d6d2u, 0x5c08d9fa4cc38378u, 0x5c6510e80eb2e4a1u, 0x5cc1a43ae93d6b7eu,
    0x5d1e944f6fbda989u, 0x5d7be182924fe3f0u, 0x5dd98c319e2f03b4u, 0x5e3794ba3e11e2eeu,
    0x5e95fb7a7a88f78du, 0x5ef4c0d0ba5c5bedu, 0x5f53e51bc2ea35a8u, 0x5fb368bab8857affu,
    0x60134c0d1ed5172fu, 0x60738f72d9336e24u, 0x60d4334c2b0e3fdau, 0x613537f9b846ebd5u,
    0x61969ddc85931505u, 0x61f86555f8dda68cu, 0x625a8ec7d9a839a7u, 0x62bd1a94516cdd42u,
    0x6320091dec003f71u, 0x63835ac797f43954u, 0x63e70ff4a6fabdadu, 0x644b2908ce492a9cu,
    0x64afa66826fbfeddu, 0x651488772e7af2eau, 0x6579cf9ac6dd766eu, 0x65df7c38374f9265u,
    0x66458eb52c77304eu, 0x66ac0777b8d9c6dbu, 0x6712e6e655426c80u, 0x677a2d67e1285043u,
    0x67e1db63a3159941u, 0x6849f141490ead3du, 0x68b26f68e8f9deabu, 0x691b5643010782a7u,
    0x6984a638781a6f26u, 0x69ee5fb29e30e1e4u, 0x6a58831b2ccdd06du, 0x6ac310dc4762a1a7u,
    0x6b2e09607bb9514cu, 0x6b996d12c25efdc0u, 0x6c053c5e7f0ee0a0u, 0x6c7177af811db28eu,
    0x6cde1f7203e57a8cu, 0x6d4b3412af31c95bu, 0x6db8b5fe97ac6155u, 0x6e26a5a33f4a4b20u,
    0x6e95036e95b957a6u, 0x6f03cfcef8ce0fd2u, 0x6f730b3334f2126du, 0x6fe2b60a8592e08du,
    0x7052d0c495911911u, 0x70c35bd17fb02386u, 0x713457a1cf064af7u, 0x71a5c4a67f6d490du,
    0x7217a350fdf341efu, 0x7289f413294c315bu, 0x72fcb75f5243c967u, 0x736feda83c2fc351u,
    0x73e397611d62a2e0u, 0x7457b4fd9f9eecc1u, 0x74cc46f1e08ad054u, 0x75414db272244558u,
    0x75b6c9b45b359df9u, 0x762cbb6d17ca8d9cu, 0x76a3235299a5a4fdu, 0x771a01db48b643f4u,
    0x7791577e038f0173u, 0x780924b21fdc8a20u, 0x788169ef6adcf60eu, 0x78fa27ae29d79603u,
    0x79735e671a9538c9u, 0x79ed0e9373d8e903u, 0x7a6738ace5d923f9u, 0x7ae1dd2d9ab989d8u,
    0x7b5cfc90370507e2u, 0x7bd8974fda287cffu, 0x7c54ade81eedd938u, 0x7cd140d51bf7b88bu,
    0x7d4e5093643d7996u, 0x7dcbdda00787d099u, 0x7e49e87892edd74au, 0x7ec8719b115299f8u,
    0x7f4779860be32275u, 0x7fc700b88a950150u, 0x804707b214a555d5u, 0x80c78ef2b1185553u,
    0x814896fae7395230u, 0x81ca204bbf1b4336u, 0x824c2b66c219cbbbu, 0x82ceb8cdfb5ac4feu,
    0x8351c903f8504960u, 0x83d55c8bc93b41dau, 0x845973e901ae764fu, 0x84de0f9fb9122123u,
    0x856330348b2806b5u, 0x85e8d62c98901128u, 0x866f020d874d710eu, 0x86f5b45d834c4378u,
    0x877ceda33ee7bdeau, 0x8804ae65f370e0c8u, 0x888cf72d61b5b0abu, 0x8915c881d288f73du,
    0x899f22ec174a8c1au, 0x8a2906f58a702637u, 0x8ab37528100eb666u, 0x8b3e6e0e16644b74u,
    0x8bc9f23296628075u, 0x8c560221143975c1u, 0x8ce29e659fe3552cu, 0x8d6fc78cd5b06212u,
    0x8dfd7e23ded395aeu, 0x8e8bc2b871efc85bu, 0x8f1a95d8d3a56841u, 0x8fa9f813d720be05u,
    0x9039e9f8dea8bffdu, 0x90ca6c17dc2e7482u, 0x915b7f0151dce3f5u, 0x91ed234652a99aecu,
    0x927f597882e5bd3au, 0x9312222a18cfaa4bu, 0x93a57deddd25336du, 0x94396d572bb6649cu,
    0x94cdf0f9f3f8e05cu, 0x9563096ab99bcf3fu, 0x95f8b73e951c639bu, 0x968efb0b345af219u,
    0x9725d566db309f9du, 0x97bd46e86405a531u, 0x9855502740682a75u, 0x98edf1bb79a3b73bu,
    0x99872c3db1593ce1u, 0x9a2100472217b7fdu, 0x9abb6e719ff56afau, 0x9b5677579929b23au,
    0x9bf21b9416a77258u, 0x9c8e5bc2bcb8212fu, 0x9d2b387fcb976a28u, 0x9dc8b268200f6e88u,
    0x9e66ca193415a246u, 0x9f0580311f68460cu, 0x9fa4d54e982c7f05u, 0xa044ca10f38d0d0du,
    0xa0e55f1826599febu, 0xa1869504c5a6cc2du, 0xa2286c78076ea048u, 0xa2cae613c331daa5u,
    0xa36e027a7299c129u, 0xa411c24f321a9aefu, 0xa4b62635c196ccccu, 0xa55b2ed285029939u,
    0xa600dcca8508845bu, 0xa6a730c36fae5cb6u, 0xa74e2b6398fae947u, 0xa7f5cd51fb9c3d92u,
    0xa89e1736398eb462u, 0xa94709b89cc491d3u, 0xa9f0a58217ce4d4fu, 0xaa9aeb3c46838434u,
    0xab45db916eac95afu, 0xabf1772c80ace89du, 0xac9dbeb9182ddbf6u, 0xad4ab2e37cca6287u,
};

// exp(b / 65536) - 1 for the last 8 fraction bits, Q0.64 (values < 2^-8): storing the
// difference from 1 keeps all 64 bits for the part that matters.
constexpr uint64_t kExpLo[256] = {
    0x00000000000000u, 0x01000080002aabu, 0x02000200015556u, 0x03000480048003u,
    0x040008000aaab5u, 0x05000c8014d56fu, 0x06001200240036u, 0x07001880392b0fu,
    0x08002000555600u, 0x09002880798111u, 0x0a003200a6ac4bu, 0x0b003c80ddd7b7u,
    0x0c004801200360u, 0x0d0054816e2f51u, 0x0e006201c95b96u, 0x0f00708232883du,
    0x10008002aab555u, 0x1100908332e2eeu, 0x1200a203cc1116u, 0x1300b484773fe1u,
    0x1400c805356f60u, 0x1500dc86079fa8u, 0x1600f206eed0ccu, 0x17010887ec02e2u,
    0x18012009003601u, 0x1901388a2c6a40u, 0x1a01520b719fb8u, 0x1b016c8cd0d681u,
    0x1c01880e4b0eb8u, 0x1d01a48fe14876u, 0x1e01c2119483d9u, 0x1f01e09365c0feu,
    0x20020015560004u, 0x2102209766410au, 0x22024219978431u, 0x2302649beac99au,
    0x2402881e611168u, 0x2502aca0fb5bbeu, 0x2602d223baa8c0u, 0x2702f8a69ff895u,
    0x28032029ac4b62u, 0x290348ace0a150u, 0x2a0372303dfa87u, 0x2b039cb3c5572fu,
    0x2c03c83777b775u, 0x2d03f4bb561b83u, 0x2e04223f618386u, 0x2f0450c39aefabu,
    0x30048048036020u, 0x3104b0cc9bd517u, 0x3204e251654ebeu, 0x330514d660cd47u,
    0x3405485b8f50e6u, 0x35057ce0f1d9cdu, 0x3605b266896830u, 0x3705e8ec56fc47u,
    0x380620725b9646u, 0x390658f8983666u, 0x3a06927f0ddcdfu, 0x3b06cd05bd89eau,
    0x3c07088ca83dc3u, 0x3d074513cef8a4u, 0x3e07829b32bacbu, 0x3f07c122d48474u,
    0x400800aab555deu, 0x41084132d62f49u, 0x420882bb3810f5u, 0x4308c543dbfb24u,
    0x440908ccc2ee19u, 0x45094d55edea16u, 0x460992df5def61u, 0x4709d96913fe3fu,
    0x480a20f31116f6u, 0x490a697d5639ceu, 0x4a0ab307e46710u, 0x4b0afd92bc9f05u,
    0x4c0b491ddfe1f8u, 0x4d0b95a94f3034u, 0x4e0be3350b8a05u, 0x4f0c31c115efbau,
    0x500c814d6f61a1u, 0x510cd1da18e009u, 0x520d2367136b43u, 0x530d75f46003a0u,
    0x540dc981ffa974u, 0x550e1e0ff35d11u, 0x560e739e3c1eccu, 0x570eca2cdaeefbu,
    0x580f21bbd0cdf5u, 0x590f7a4b1ebc10u, 0x5a0fd3dac5b9a5u, 0x5b102e6ac6c70eu,
    0x5c1089fb22e4a6u, 0x5d10e68bdb12c8u, 0x5e11441cf051d1u, 0x5f11a2ae63a21eu,
    0x6012024036040du, 0x611262d26877ffu, 0x6212c464fbfe54u, 0x631326f7f1976du,
    0x64138a8b4a43adu, 0x6513ef1f070378u, 0x661454b328d732u, 0x6714bb47b0bf41u,
    0x681522dc9fbc0bu, 0x69158b71f6cdf9u, 0x6a15f507b6f571u, 0x6b165f9de132dfu,
    0x6c16cb347686adu, 0x6d1737cb77f146u, 0x6e17a562e67316u, 0x6f1813fac30c8du,
    0x701883930ebe17u, 0x7118f42bca8825u, 0x721965c4f76b27u, 0x7319d85e96678fu,
    0x741a4bf8a87dd0u, 0x751ac0932eae5cu, 0x761b362e29f9a9u, 0x771bacc99b602du,
    0x781c246583e25du, 0x791c9d01e480b2u, 0x7a1d169ebe3ba4u, 0x7b1d913c1213acu,
    0x7c1e0cd9e10946u, 0x7d1e89782c1cedu, 0x7e1f0716f44f1eu, 0x7f1f85b63aa055u,
    0x80200556001112u, 0x812085f645a1d5u, 0x822107970c531eu, 0x83218a3855256fu,
    0x84220dda211949u, 0x8522927c712f32u, 0x8623181f4667aeu, 0x87239ec2a1c341u,
    0x88242666844273u, 0x8924af0aeee5ccu, 0x8a2538afe2add4u, 0x8b25c355609b15u,
    0x8c264efb69ae19u, 0x8d26dba1fee76cu, 0x8e27694921479bu, 0x8f27f7f0d1cf34u,
    0x90288799117ec4u, 0x91291841e156dcu, 0x9229a9eb42580cu, 0x932a3c953582e7u,
    0x942ad03fbbd7feu, 0x952b64ead657e5u, 0x962bfa96860332u, 0x972c9142cbda79u,
    0x982d28efa8de51u, 0x992dc19d1e0f52u, 0x9a2e5b4b2c6e16u, 0x9b2ef5f9d4fb34u,
    0x9c2f91a918b749u, 0x9d302e58f8a2efu, 0x9e30cc0975bec4u, 0x9f316aba910b64u,
    0xa0320a6c4b8970u, 0xa132ab1ea63986u, 0xa2334cd1a21c48u, 0xa333ef85403256u,
    0xa4349339817c54u, 0xa53537ee66fae5u, 0xa635dda3f1aeaeu, 0xa736845a229855u,
    0xa8372c10fab880u, 0xa937d4c87b0fd8u, 0xaa387e80a49f04u, 0xab3929397866afu,
    0xac39d4f2f76783u, 0xad3a81ad22a22du, 0xae3b2f67fb1758u, 0xaf3bde2381c7b2u,
    0xb03c8ddfb7b3ebu, 0xb13d3e9c9ddcb2u, 0xb23df05a3542b7u, 0xb33ea3187ee6adu,
    0xb43f56d77bc946u, 0xb5400b972ceb36u, 0xb640c157934d32u, 0xb7417818afefefu,
    0xb8422fda83d424u, 0xb942e89d0ffa89u, 0xba43a2605563d7u, 0xbb445d245510c7u,
    0xbc4518e9100215u, 0xbd45d5ae87387bu, 0xbe469374bbb4b8u, 0xbf47523bae7788u,
    0xc04812036081aau, 0xc148d2cbd2d3deu, 0xc2499495066ee5u, 0xc34a575efc5381u,
    0xc44b1b29b58274u, 0xc54bdff532fc83u, 0xc64ca5c175c271u, 0xc74d6c8e7ed506u,
    0xc84e345c4f3507u, 0xc94efd2ae7e33cu, 0xca4fc6fa49e06fu, 0xcb5091ca762d69u,
    0xcc515d9b6dcaf4u, 0xcd522a6d31b9deu, 0xce52f83fc2faf2u, 0xcf53c713228efeu,
    0xd05496e75176d1u, 0xd15567bc50b33cu, 0xd256399221450eu, 0xd3570c68c42d1au,
    0xd457e0403a6c32u, 0xd558b51885032bu, 0xd6598af1a4f2d8u, 0xd75a61cb9b3c11u,
    0xd85b39a668dfacu, 0xd95c12820ede80u, 0xda5cec5e8e3967u, 0xdb5dc73be7f13bu,
    0xdc5ea31a1d06d6u, 0xdd5f7ff92e7b14u, 0xde605dd91d4ed2u, 0xdf613cb9ea82eeu,
    0xe0621c9b971847u, 0xe162fd7e240fbcu, 0xe263df61926a2fu, 0xe364c245e32882u,
    0xe465a62b174b97u, 0xe5668b112fd452u, 0xe66770f82dc398u, 0xe76857e0121a50u,
    0xe8693fc8ddd95fu, 0xe96a28b29201aeu, 0xea6b129d2f9426u, 0xeb6bfd88b791b1u,
    0xec6ce9752afb39u, 0xed6dd6628ad1abu, 0xee6ec450d815f3u, 0xef6fb34013c900u,
    0xf070a3303eebc0u, 0xf17194215a7f23u, 0xf272861367841bu, 0xf373790666fb98u,
    0xf4746cfa59e68fu, 0xf57561ef4145f3u, 0xf67657e51e1ab9u, 0xf7774edbf165d7u,
    0xf87846d3bc2843u, 0xf9793fcc7f62f7u, 0xfa7a39c63c16ebu, 0xfb7b34c0f34518u,
    0xfc7c30bca5ee7au, 0xfd7d2db955140du, 0xfe7e2bb701b6ceu, 0xff7f2ab5acd7bbu,
};

// log: reciprocals R_j = ceil(2^16 / (1 + j/256)), small enough that mantissa * R_j is exact
// in 64 bits, and rounded up so that z = mantissa * R_j / 2^16 - 1 is never negative and the
// whole log1p evaluation stays in unsigned arithmetic.
constexpr uint32_t kLogRecip[256] = {
    65536, 65281, 65028, 64777, 64528, 64281, 64036, 63792, 63551, 63311, 63073, 62837,
    62602, 62369, 62138, 61909, 61681, 61456, 61231, 61009, 60788, 60568, 60350, 60134,
    59919, 59706, 59494, 59284, 59075, 58868, 58662, 58458, 58255, 58053, 57853, 57654,
    57457, 57261, 57066, 56872, 56680, 56489, 56300, 56112, 55925, 55739, 55554, 55371,
    55189, 55008, 54828, 54649, 54472, 54296, 54121, 53947, 53774, 53602, 53431, 53262,
    53093, 52925, 52759, 52594, 52429, 52266, 52104, 51942, 51782, 51623, 51464, 51307,
    51151, 50995, 50841, 50687, 50534, 50383, 50232, 50082, 49933, 49785, 49637, 49491,
    49345, 49201, 49057, 48914, 48771, 48630, 48490, 48350, 48211, 48073, 47935, 47799,
    47663, 47528, 47394, 47260, 47128, 46996, 46864, 46734, 46604, 46475, 46346, 46219,
    46092, 45965, 45840, 45715, 45591, 45467, 45344, 45222, 45101, 44980, 44859, 44740,
    44621, 44502, 44385, 44268, 44151, 44035, 43920, 43805, 43691, 43578, 43465, 43352,
    43241, 43130, 43019, 42909, 42800, 42691, 42582, 42474, 42367, 42260, 42154, 42049,
    41944, 41839, 41735, 41631, 41528, 41426, 41324, 41222, 41121, 41021, 40921, 40821,
    40722, 40623, 40525, 40428, 40330, 40234, 40137, 40042, 39946, 39851, 39757, 39663,
    39569, 39476, 39384, 39291, 39200, 39108, 39017, 38927, 38837, 38747, 38658, 38569,
    38480, 38392, 38305, 38217, 38131, 38044, 37958, 37872, 37787, 37702, 37618, 37533,
    37450, 37366, 37283, 37201, 37118, 37036, 36955, 36874, 36793, 36712, 36632, 36552,
    36473, 36394, 36315, 36236, 36158, 36081, 36003, 35926, 35849, 35773, 35697, 35621,
    35545, 35470, 35395, 35321, 35247, 35173, 35099, 35026, 34953, 34880, 34808, 34736,
    34664, 34593, 34522, 34451, 34380, 34310, 34240, 34170, 34101, 34031, 33962, 33894,
    33826, 33757, 33690, 33622, 33555, 33488, 33421, 33355, 33289, 33223, 33157, 33092,
    33027, 32962, 32897, 32833,
};

// ln(2^16 / R_j) in Q.58, added back for the reciprocal the mantissa was multiplied by.
constexpr int64_t kLogTab[256] = {
    0x000000000000000, 0x003fdfd54562378, 0x007f7ea9ac499e2, 0x00bedb7afc6373b,
    0x00fdf54589e01ed, 0x013ccb043c0b74d, 0x017b5bb0942304e, 0x01b9e8027e1918e,
    0x01f7ebb1058b1ca, 0x0235e97137d145f, 0x02739e7753c4218, 0x02b109b61ae2a37,
    0x02ee6d1ecd639d5, 0x032b8521da199d5, 0x036850ae242037c, 0x03a4ceb162c487e,
    0x03e14218024c54d, 0x041d220d8a5902b, 0x04593a3babd737a, 0x0494bccbe3460fa,
    0x04d031e5ab145a9, 0x050b992fb099b9e, 0x0546accfc4f80f2, 0x05816baa5bf0aab,
    0x05bc1aa2bea2d18, 0x05f6731b6ce12ce, 0x0630ba759088c74, 0x066aa99193eee66,
    0x06a4864e9627582, 0x06de090af95d62a, 0x07177823dd83ced, 0x07508b75b50147e,
    0x078989dba33cab3, 0x07c272f00953c85, 0x07fafdcc828f2a0, 0x0833720969dd35e,
    0x086b863e81a91da, 0x08a3828253e160a, 0x08db666aa8f5c7a, 0x0913318c857565c,
    0x094a997c11fa915, 0x0981e74c7264098, 0x09b8d0101fcfb23, 0x09ef9d589a82fb5,
    0x0a264eb68d20721, 0x0a5ce3b9e573049, 0x0a935bf1d4fc1ad, 0x0ac96b2cdf03593,
    0x0aff5c386fe9d85, 0x0b352ea151d69a2, 0x0b6ae1f3983109d, 0x0ba075baa076f26,
    0x0bd59c8114ec7f6, 0x0c0aa250bfb3e20, 0x0c3f86b2ba98e7f, 0x0c74492f70739db,
    0x0ca8e94e9e4b40a, 0x0cdd6697548635e, 0x0d11c08ff8272f7, 0x0d45a7fe743be50,
    0x0d79b9a74ed1f2f, 0x0dada68f47e4f23, 0x0de11eba212ee72, 0x0e1470aae9a4c75,
    0x0e47ebe3cf4d108, 0x0e7af02712ff67e, 0x0eadccb5cbfdaf1, 0x0ee0d1d0572ebe8,
    0x0f135db720c16e8, 0x0f45c06975ee39e, 0x0f784ae5ef4c9b0, 0x0faa59eb345ab4f,
    0x0fdc3e36dea6eeb, 0x100e4985b6bf396, 0x103fd714e4f4998, 0x10718b1fdd58259,
    0x10a312e27618e2e, 0x10d41a97cda8404, 0x110547f9d26abb8, 0x11364782b3291b9,
    0x116718abcfc5f47, 0x1197baee08fd622, 0x11c882416d8e7a1, 0x11f8c55e6325027,
    0x12292cfbd2eb64e, 0x12590ed113092e5, 0x128914940443081, 0x12b8e8bae08d86e,
    0x12e8e0bae12530a, 0x131850495d0601f, 0x13478c9acbbf299, 0x1376ebe2da94caa,
    0x13a617557f37ddb, 0x13d50e65e33a18f, 0x14042806873863b, 0x1432b4ea1f6a23a,
    0x146163c228debd4, 0x148fdc804dd1cac, 0x14be1e95987a8a8, 0x14ec8232637468f,
    0x151a55876a77f59, 0x154849c3ebb4297, 0x15765f1749da6b3, 0x15a3e2311de042a,
    0x15d185bf7089bc0, 0x15feefb0c854ddb, 0x162c79f2ba69952, 0x16596f332a6ff65,
    0x1686841ebf34953, 0x16b3b8e2359e5d9, 0x16e056aa4421d54, 0x170d13a28a034d4,
    0x173993f6dfefed0, 0x176633523f72ed3, 0x1792955fdf47a22, 0x17beb98a42183bb,
    0x17ea9f3bc0918a0, 0x1816a31dd4166a7, 0x1842c55a1fc3972, 0x186e4a9a5a6d82f,
    0x1899ed86e78a3ed, 0x18c5ae4859690a7, 0x18f0d0076687202, 0x191c0eeb838a043,
    0x19476b1c2e38f52, 0x197285811a3b764, 0x199d5d8130607c8, 0x19c85242e0d1816,
    0x19f303ecc798495, 0x1a1d71e505ddee0, 0x1a47fc110a63700, 0x1a72a2966be1ea1,
    0x1a9ca39ac3aa29e, 0x1ac6c04295e12ba, 0x1af0f8b259d8e1d, 0x1b1aeb4ed21b70c,
    0x1b44977c148f1a9, 0x1b6e5edd77be488, 0x1b9841969732fa6, 0x1bc1dd0b0dc58a4,
    0x1beb309dadad7a0, 0x1c149ef115f226b, 0x1c3dc4a7d07f4ce, 0x1c66a124363be82,
    0x1c8f97c7e299d9b, 0x1cb8a8b465c2dbe, 0x1ce16f8ba57456a, 0x1d0a506e7503839,
    0x1d32e67e056bd44, 0x1d5b311b12eadc7, 0x1d839525beb7117, 0x1dac12be35a5d0d,
    0x1dd44404cd0c9c4, 0x1dfc28594ac4934, 0x1e24259ac838585, 0x1e4c3be87f09179,
    0x1e740461f48f748, 0x1e9be5a59bbf14b, 0x1ec378524f513d1, 0x1eeabbc6908fa06,
    0x1f127f5fb106ec6, 0x1f398b3cc11a9f8, 0x1f61177a71612c4, 0x1f87eab745defb5,
    0x1faf3e8f7e3b1d7, 0x1fd64160f78f919, 0x1ffcf288739d073, 0x2023bb226681242,
    0x204a9b4b4c69fd8, 0x207128dfa03875b, 0x2097633b946d657, 0x20be1f3a4d5d580,
    0x20e41cb881be38a, 0x210a9c109d1c1ac, 0x2130c71eb2bac06, 0x21569d3dce79997,
    0x217c89c88c74c61, 0x21a28cd98ea47f4, 0x21c83a0be17ade9, 0x21edfd796239f8a,
    0x2213d73c5c992da, 0x22395a2f1361efa, 0x225e85ab6c2bb62, 0x2284348a498ea9c,
    0x22a91da64173726, 0x22ce8a57688e139, 0x22f39e77c8d533f, 0x2318c81feebe0b7,
    0x233d9868e584d18, 0x23627deb0a0db73, 0x2387093f3559f09, 0x23ac193ccf79260,
    0x23d05ebd2881588, 0x23f5291714df160, 0x241998232e1b581, 0x243dab3927e28f2,
    0x246243af848682d, 0x24867fde949466c, 0x24aa5f1d6f1fde1, 0x24ce5282cd05c8a,
    0x24f25a255e69e94, 0x2516761bf9d6ff5, 0x253a33fda181040, 0x255e05e057c955c,
    0x258178dac9ceda2, 0x25a4ff82b3095e8, 0x25c899edf829292, 0x25ec4832a27c8c3,
    0x260f9666a2a17b2, 0x263283dfb26c812, 0x2655f8f234675ac, 0x26790cf47e039ae,
    0x269c343b4055a43, 0x26bef99bd92d35f, 0x26e1d1ead2dba90, 0x2704bd3cd5e0031,
    0x2727bba6ac9c335, 0x274a56fd01cc721, 0x276d05140010c56, 0x278f4f400f25158,
    0x27b1abd5208fbbf, 0x27d41ae703cab2f, 0x27f69c89a85b033, 0x2818b9111d62412,
    0x283ae7d0a5654e8, 0x285d28dbc1017e0, 0x287f03c60fbcbd6, 0x28a0f0a28b95fb1,
    0x28c2ef84453d7fc, 0x28e4873eb1382f9, 0x290630a443b335c, 0x2927ebc79c82d01,
    0x2949b8bb78fd67c, 0x296b1d52f211249, 0x298c935fe1dc2b6, 0x29ae1af4937a6bc,
    0x29cf3923dd58d81, 0x29f0e3bea27ef0b, 0x2a12249802e2d69, 0x2a32fb01a48ce57,
    0x2a53e24d280ac94, 0x2a7556cb734c195, 0x2a95e3cf82dadb8, 0x2ab6fe2974e8151,
    0x2ad7acab8f49156, 0x2af86be69203077, 0x2b193beba2b38fd, 0x2b399f0c3149e5e,
    0x2b5a1298c9c5eda, 0x2b7a96a21bf4b57, 0x2b9b2b38f11f3a7, 0x2bbb51ae82a3e34,
    0x2bdb8852c23e4bf, 0x2bfbcf360276435, 0x2c1c2668ae921cc, 0x2c3c0e3baa587ba,
};
constexpr int64_t kLn2Q58 = 0x2c5c85fdf473de7;

static_assert(kExpInt[12].mant == uint64_t{1} << 63 && kExpInt[12].shift == 45, "exp(0) must be exact");
static_assert(kExpHi[0] == uint64_t{1} << 62 && kExpLo[0] == 0, "exp(0) must be exact");
static_assert(kLogRecip[0] == 65536 && kLogTab[0] == 0, "log of a power of two must be k * ln2");

// High 64 bits of a * b without __int128 (i686 GCC has none). The low * low partial product
// and the carries between the two middle products are dropped, so the result is at most 2
// below the exact high half: every caller keeps >= 2^61 there, a relative error <= 2^-60.
// Plain integer arithmetic, hence the same on every build.
constexpr uint64_t mulhi(uint64_t a, uint64_t b) {
    const uint64_t ah = a >> 32, al = a & 0xFFFFFFFFu;
    const uint64_t bh = b >> 32, bl = b & 0xFFFFFFFFu;
    return ah * bh + ((ah * bl) >> 32) + ((al * bh) >> 32);
}

}  // namespace

// x = i + a/256 + b/65536 exactly (the bits of the raw value), so exp(x) is the product of
// three table entries: no argument reduction by an irrational ln2, hence no reduction error.
Fx exp(Fx x) {
    const int32_t r = x.raw();
    // exp(11) * 2^16 > 2^31: everything from 11.0 up saturates. Below that the computed value
    // is clamped, so the exact threshold (raw 681392, ln 32768) needs no separate constant.
    if (r >= (11 << Fx::frac_bits)) return Fx::max();
    // exp(-12) * 2^16 = 0.402 < 0.5: the correctly rounded result of anything below is 0.
    if (r < -(12 << Fx::frac_bits)) return Fx::zero();
    const int32_t i = r >> Fx::frac_bits;  // floor, in [-12, 10]
    const uint32_t f = static_cast<uint32_t>(r) & 0xFFFFu;
    const ExpInt& t = kExpInt[i + 12];
    const uint64_t p = mulhi(t.mant, kExpHi[f >> 8]);     // exp(i + a/256) * 2^(16 + shift), >= 2^61
    const uint64_t q = p + mulhi(p, kExpLo[f & 0xFFu]);   // * exp(b/65536); q < 1.37 * 2^63
    // Round half up: a tie would need exp(x) * 2^16 to be a half-integer, which it never is
    // (exp of a nonzero rational is transcendental), so no direction is favoured. q plus
    // half (<= 2^62) cannot wrap.
    const uint64_t raw = (q + (uint64_t{1} << (t.shift - 1))) >> t.shift;
    return Fx::from_raw(raw > uint64_t{INT32_MAX} ? INT32_MAX : static_cast<int32_t>(raw));
}

// x = m * 2^k with m in [1, 2); m = (1 + z) / R_j for a table reciprocal R_j, so
// log(x) = k ln2 + ln(2^16 / R_j) + log1p(z) with 0 <= z < 2^-7.99 and four series terms.
Fx log(Fx x) {
    const int32_t r = x.raw();
    if (r <= 0) return Fx::min();
    const uint32_t u = static_cast<uint32_t>(r);
    const int lz = std::countl_zero(u);  // 1..31
    const uint32_t m = u << lz;           // mantissa, Q1.31 in [2^31, 2^32)
    const int k = 15 - lz;                // x = (m / 2^31) * 2^(15 - lz), k in [-16, 14]
    const uint32_t j = (m >> 23) & 0xFFu;  // the 8 bits after the leading one
    // z in Q.47, exact: m * R_j < 2^48 and >= 2^47 (R_j was rounded up); z < 2^39.01.
    const uint64_t z = uint64_t{m} * kLogRecip[j] - (uint64_t{1} << 47);
    // log1p(z) = z - z^2 (1/2 - z/3 + z^2/4) + O(z^5 < 2^-42). The products are truncated
    // to what each term needs (total error ~2^-45 absolute, ~2^-29 LSB) and stay < 2^63.
    const uint64_t zs = z >> 8;                      // Q.39, < 2^31.01
    const uint64_t z2 = (zs * zs) >> 31;             // z^2, Q.47, < 2^31.02
    const uint64_t z32 = z >> 15;                    // Q.32, < 2^24.01
    const uint64_t c = (uint64_t{1} << 31) - ((z32 * 0x55555555u) >> 32) + (z2 >> 17);  // Q.32
    const uint64_t l1p = z - ((z2 * c) >> 32);       // Q.47, in [0, 2^39.01)
    // Everything in Q.58: |k ln2| <= 16 ln2 < 2^3.47, so the sum stays below 2^61.5.
    const int64_t sum = int64_t{k} * kLn2Q58 + kLogTab[j] + static_cast<int64_t>(l1p << 11);
    // Round half up (arithmetic shift floors): ties never occur (log of a rational other
    // than 1 is transcendental, and log(1) is exactly 0 here), so the rounding is unbiased.
    return Fx::from_raw(static_cast<int32_t>((sum + (int64_t{1} << 41)) >> 42));
}

}  // namespace tandem
