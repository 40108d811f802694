// Properties of src/core/digest.*: StateDigest is XXH3-64 of the little-endian bytes of the
// fields in the order written, whatever the host and however the writes were grouped;
// SetDigest ignores order. The golden digests must hold on every build, s390x included.
#include "tandem/core/digest.hpp"

#include "tandem/core/random.hpp"
#include "tandem/core/slot_key.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <vector>

#include "core/xxh3_engine.hpp"  // private: the engines StateDigest chooses between

// Reference only: the test recomputes XXH3 over explicit byte arrays to pin the canonical
// form independently of the buffering in digest.cpp, with xxHash's portable scalar kernel,
// which none of the engines StateDigest runs on x86-64 uses.
#define XXH_VECTOR XXH_SCALAR
#define XXH_INLINE_ALL
#include <xxhash.h>
static_assert(XXH_VECTOR == XXH_SCALAR);

using tandem::Fx;
using tandem::SetDigest;
using tandem::SlotKey;
using tandem::StateDigest;
using tandem::XorShift;

namespace {

uint64_t reference(const std::vector<uint8_t>& bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

// The field sequence behind the golden digest, written the same way everywhere.
void write_fixed_sequence(StateDigest& d) {
    d.write_u8(1);
    d.write_i16(-2);
    d.write_u32(0xDEADBEEFu);
    d.write_i64(-3);
    d.write_fx(Fx::from_raw(-65536));
    d.write_f32(1.5f);
    d.write_bool(true);
}

std::vector<uint8_t> le_bytes_of_words(const std::vector<uint32_t>& words) {
    std::vector<uint8_t> out;
    for (uint32_t w : words)
        for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(w >> (8 * i)));
    return out;
}

}  // namespace

TEST_CASE("the golden digests hold on this build") {
    StateDigest empty;
    CHECK(empty.finish() == 0x2D06800538D394C2u);  // XXH3-64 of no bytes, the published value

    StateDigest fields;
    write_fixed_sequence(fields);
    INFO("fixed sequence digest 0x" << std::hex << fields.finish());
    CHECK(fields.finish() == 0xB241D94155DED2DCu);

    // Long enough to go through the streaming engine rather than the one-shot path.
    StateDigest big;
    for (uint32_t i = 0; i < 10000; ++i) big.write_u32(i * 2654435761u);
    INFO("streamed digest 0x" << std::hex << big.finish());
    CHECK(big.finish() == 0xA70BFFAB1BB12984u);
    CHECK(big.bytes_written() == 40000);

    std::vector<Fx> span;
    for (int32_t i = 0; i < 300; ++i) span.push_back(Fx::from_raw(i * -40503));
    StateDigest mixed;
    mixed.write_u16(7);
    mixed.write_fx_span(span);
    mixed.write_u64(0x0123456789ABCDEFu);
    INFO("mixed digest 0x" << std::hex << mixed.finish());
    CHECK(mixed.finish() == 0x97F963EE97A15F83u);

    CHECK(SetDigest::from_keys({1, 2, 3}).digest() == 0x92A645E1756DA65Fu);
}

TEST_CASE("each field is hashed as its little-endian bytes") {
    StateDigest a;
    a.write_u32(0x11223344u);
    StateDigest b;
    const std::array<uint8_t, 4> le{0x44, 0x33, 0x22, 0x11};
    b.write_bytes(le);
    CHECK(a.finish() == b.finish());
    CHECK(a.finish() == reference({0x44, 0x33, 0x22, 0x11}));

    StateDigest wide;
    wide.write_u16(0xA1B2);
    wide.write_u64(0x0102030405060708u);
    wide.write_i32(-2);
    wide.write_fx(Fx::from_raw(0x00018000));  // 1.5
    wide.write_f32(-0.0f);
    wide.write_i8(-1);
    CHECK(wide.finish() == reference({0xB2, 0xA1, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0xFE, 0xFF, 0xFF,
                                      0xFF, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x80, 0xFF}));
}

TEST_CASE("the bulk writers hash exactly what the per-field writers hash") {
    XorShift r(17);
    for (uint32_t count : {0u, 1u, 3u, 127u, 128u, 129u, 1000u, 5000u}) {
        std::vector<uint32_t> words(count);
        for (auto& w : words) w = static_cast<uint32_t>(r.next());
        std::vector<int32_t> signed_words(words.begin(), words.end());
        std::vector<Fx> fxs;
        for (uint32_t w : words) fxs.push_back(Fx::from_raw(static_cast<int32_t>(w)));

        StateDigest one_by_one;
        for (uint32_t w : words) one_by_one.write_u32(w);
        StateDigest bulk_u, bulk_i, bulk_fx;
        bulk_u.write_u32s(words);
        bulk_i.write_i32s(signed_words);
        bulk_fx.write_fx_span(fxs);
        INFO("count = " << count);
        CHECK(bulk_u.finish() == one_by_one.finish());
        CHECK(bulk_i.finish() == one_by_one.finish());
        CHECK(bulk_fx.finish() == one_by_one.finish());
        CHECK(bulk_u.finish() == reference(le_bytes_of_words(words)));
    }
}

TEST_CASE("finish depends on the bytes written, not on how the writes were chunked") {
    XorShift r(23);
    std::vector<uint8_t> bytes(7000);
    for (auto& b : bytes) b = static_cast<uint8_t>(r.next() >> 56);
    const uint64_t expected = reference(bytes);

    StateDigest whole;
    whole.write_bytes(bytes);
    CHECK(whole.finish() == expected);

    StateDigest single;
    for (uint8_t b : bytes) single.write_u8(b);
    CHECK(single.finish() == expected);

    // Random splits, small and large, so writes straddle the buffer's edge in every way.
    for (int trial = 0; trial < 50; ++trial) {
        StateDigest pieces;
        size_t at = 0;
        while (at < bytes.size()) {
            const uint32_t cap = trial % 2 == 0 ? 40 : 1500;
            const size_t n = std::min<size_t>(bytes.size() - at, r.below(cap) + 1);
            pieces.write_bytes({bytes.data() + at, n});
            at += n;
        }
        REQUIRE(pieces.finish() == expected);
    }

    // Mixed field widths that add up to the same bytes.
    StateDigest as_u64, as_u16;
    for (size_t i = 0; i + 8 <= 4096; i += 8) {
        uint64_t v = 0;
        for (int k = 0; k < 8; ++k) v |= uint64_t{bytes[i + static_cast<size_t>(k)]} << (8 * k);
        as_u64.write_u64(v);
        as_u16.write_u16(static_cast<uint16_t>(v));
        as_u16.write_u16(static_cast<uint16_t>(v >> 16));
        as_u16.write_u32(static_cast<uint32_t>(v >> 32));
    }
    CHECK(as_u64.finish() == as_u16.finish());
    CHECK(as_u64.finish() == reference(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 4096)));
}

TEST_CASE("every XXH3 engine gives the scalar kernel's digest, one-shot and streamed in random pieces") {
    using tandem::detail::Xxh3Engine;
    std::vector<const Xxh3Engine*> engines{&tandem::detail::xxh3_baseline_engine()};
    if (const Xxh3Engine* avx2 = tandem::detail::xxh3_avx2_engine()) engines.push_back(avx2);
#if defined(__x86_64__)
    // The run-time choice: a CPU with AVX2 must get the AVX2 engine, or the dispatch is dead.
    __builtin_cpu_init();
    const bool cpu_avx2 = __builtin_cpu_supports("avx2") != 0;
    CHECK((tandem::detail::xxh3_avx2_engine() != nullptr) == cpu_avx2);
    CHECK(std::string(tandem::detail::xxh3_engine().name) == (cpu_avx2 ? "avx2" : "sse2"));
    CHECK(std::string(tandem::detail::xxh3_baseline_engine().name) == "sse2");
#endif

    // Every length up to past two XXH3 blocks (1,024 bytes each) covers each short-input
    // path and every stripe and block boundary; then longer random lengths and one 1 MiB.
    std::vector<uint32_t> lengths;
    for (uint32_t n = 0; n <= 2200; ++n) lengths.push_back(n);
    XorShift r(57);
    for (int i = 0; i < 40; ++i) lengths.push_back(2200 + r.below(100'000));
    lengths.push_back(1u << 20);

    alignas(64) unsigned char state[tandem::detail::xxh3_state_bytes];
    uint32_t compared = 0;
    for (uint32_t n : lengths) {
        std::vector<uint8_t> bytes(n);
        for (auto& b : bytes) b = static_cast<uint8_t>(r.next() >> 56);
        const uint64_t expected = reference(bytes);
        for (const Xxh3Engine* engine : engines) {
            INFO("engine " << engine->name << ", " << n << " bytes");
            REQUIRE(engine->hash(bytes.data(), bytes.size()) == expected);
            engine->reset(state);
            size_t at = 0;
            while (at < n) {
                const size_t piece = std::min<size_t>(n - at, r.below(n < 3000 ? 300 : 70'000) + 1);
                engine->update(state, bytes.data() + at, piece);
                at += piece;
            }
            REQUIRE(engine->digest(state) == expected);
            ++compared;
        }
    }
    CHECK(compared == engines.size() * lengths.size());
}

TEST_CASE("finish does not consume the digest, and a copy continues independently") {
    StateDigest d;
    for (uint32_t i = 0; i < 300; ++i) d.write_u32(i);  // past the buffer: streaming
    const uint64_t first = d.finish();
    CHECK(d.finish() == first);

    StateDigest copy = d;
    CHECK(copy.finish() == first);
    d.write_u32(1);
    copy.write_u32(1);
    CHECK(d.finish() == copy.finish());
    CHECK(d.finish() != first);

    StateDigest assigned;
    assigned.write_u8(9);
    assigned = copy;
    CHECK(assigned.finish() == copy.finish());
    CHECK(assigned.bytes_written() == copy.bytes_written());
}

TEST_CASE("field order matters: a then b differs from b then a") {
    StateDigest ab, ba;
    ab.write_u32(1);
    ab.write_u32(2);
    ba.write_u32(2);
    ba.write_u32(1);
    CHECK(ab.finish() != ba.finish());

    StateDigest xy, yx;
    xy.write_vec2({Fx::from_int(3), Fx::from_int(4)});
    yx.write_vec2({Fx::from_int(4), Fx::from_int(3)});
    CHECK(xy.finish() != yx.finish());
}

TEST_CASE("write_f32 hashes the bit pattern: -0.0 and 0.0 disagree, and so does the lowest bit") {
    StateDigest pos, neg, next;
    pos.write_f32(0.0f);
    neg.write_f32(-0.0f);
    next.write_f32(0x1p-149f);
    CHECK(pos.finish() != neg.finish());
    CHECK(pos.finish() != next.finish());
}

TEST_CASE("flipping one input bit changes about half of the 64 digest bits") {
    XorShift r(31);
    const int trials = 20000;
    uint64_t total = 0;
    for (int t = 0; t < trials; ++t) {
        std::array<uint32_t, 4> state{};
        for (auto& s : state) s = static_cast<uint32_t>(r.next());
        StateDigest a;
        a.write_u32s(state);
        state[r.below(4)] ^= uint32_t{1} << r.below(32);
        StateDigest b;
        b.write_u32s(state);
        total += static_cast<uint64_t>(std::popcount(a.finish() ^ b.finish()));
    }
    const double mean = static_cast<double>(total) / trials;
    INFO("mean changed bits " << mean);
    CHECK(mean >= 30.0);
    CHECK(mean <= 34.0);
}

TEST_CASE("ten million distinct small states give ten million distinct digests") {
    const uint32_t states = 10'000'000;
    std::vector<uint64_t> digests;
    digests.reserve(states);
    for (uint32_t i = 0; i < states; ++i) {
        // A small world: a position on a 4096-wide grid, a tick counter and a flag.
        StateDigest d;
        d.write_fx(Fx::from_raw(static_cast<int32_t>(i % 4096)));
        d.write_fx(Fx::from_raw(static_cast<int32_t>(i / 4096) >> 1));
        d.write_bool((i / 4096) % 2 == 1);
        digests.push_back(d.finish());
    }
    std::sort(digests.begin(), digests.end());  // u64 keys: a total order, ties are duplicates
    const auto duplicate = std::adjacent_find(digests.begin(), digests.end());
    CHECK(duplicate == digests.end());
}

TEST_CASE("SetDigest does not depend on insertion order") {
    std::vector<uint64_t> keys;
    XorShift r(41);
    for (int i = 0; i < 1000; ++i) keys.push_back(r.next());
    SetDigest forward;
    for (uint64_t k : keys) forward.insert(k);

    std::vector<uint64_t> shuffled = keys;
    for (uint32_t i = static_cast<uint32_t>(shuffled.size()) - 1; i > 0; --i) std::swap(shuffled[i], shuffled[r.below(i + 1)]);
    SetDigest other;
    for (uint64_t k : shuffled) other.insert(k);
    CHECK(other == forward);
    CHECK(other.digest() == forward.digest());
    CHECK(other.count() == 1000);
}

TEST_CASE("SetDigest remove is the exact inverse of insert") {
    SetDigest d = SetDigest::from_keys({10, 20, 30});
    const SetDigest before = d;
    d.insert(99);
    CHECK(d.digest() != before.digest());
    d.remove(99);
    CHECK(d == before);

    SetDigest emptied = SetDigest::from_keys({5, 6});
    emptied.remove(6);
    emptied.remove(5);
    CHECK(emptied == SetDigest{});
    CHECK(emptied.digest() == 0);  // the empty set digests to 0
}

TEST_CASE("SetDigest from_keys equals inserting each key") {
    const std::vector<uint64_t> keys{0, 1, 2, 0xFFFFFFFFFFFFFFFFu, 42};
    SetDigest inserted;
    for (uint64_t k : keys) inserted.insert(k);
    CHECK(SetDigest::from_keys(keys) == inserted);
    CHECK(SetDigest::from_keys({0, 1, 2, 0xFFFFFFFFFFFFFFFFu, 42}) == inserted);
    const std::array<uint32_t, 3> narrow{7, 8, 9};
    CHECK(SetDigest::from_keys(narrow) == SetDigest::from_keys({7, 8, 9}));
}

TEST_CASE("SetDigest tells sets apart: a different key, a missing key, key 0, a repeated key") {
    CHECK(SetDigest::from_keys({1, 2}).digest() != SetDigest::from_keys({1, 3}).digest());
    CHECK(SetDigest::from_keys({1, 2}).digest() != SetDigest::from_keys({1}).digest());
    CHECK(SetDigest::from_keys({0}).digest() != SetDigest{}.digest());
    CHECK(SetDigest::from_keys({4, 4}).digest() != SetDigest::from_keys({4}).digest());
}

TEST_CASE("a slot reused by a new generation changes the set digest, a bare index would not") {
    const SlotKey old_occupant{7, 1}, new_occupant{7, 2};
    CHECK(SetDigest::from_keys({old_occupant.encode()}).digest() != SetDigest::from_keys({new_occupant.encode()}).digest());
    CHECK(SetDigest::from_keys({old_occupant.index}).digest() == SetDigest::from_keys({new_occupant.index}).digest());
}

TEST_CASE("hex64 spells a digest as 16 lowercase hex digits, as printf's %016llx does") {
    for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{0xABCDEF0123456789u}, UINT64_MAX, uint64_t{0x8000000000000000u}}) {
        char expected[17];
        std::snprintf(expected, sizeof expected, "%016llx", static_cast<unsigned long long>(v));
        CHECK(tandem::hex64(v) == expected);
        CHECK(tandem::parse_hex64(expected) == v);
    }
}

TEST_CASE("parse_hex64 accepts exactly 16 hex digits and nothing else") {
    CHECK(tandem::parse_hex64("00000000000000FF") == uint64_t{255});
    CHECK_FALSE(tandem::parse_hex64("ff"));                  // short
    CHECK_FALSE(tandem::parse_hex64("00000000000000fff"));   // long
    CHECK_FALSE(tandem::parse_hex64("000000000000000g"));    // not a digit
    CHECK_FALSE(tandem::parse_hex64("0x000000000000ff"));    // no prefix
    CHECK_FALSE(tandem::parse_hex64(" 00000000000000f"));    // no spaces
}
