// What the kit derives from a game's one state visitor, checked on a small game written here
// ("tally": a header field, a config, a keyed list spanning two sections, a Vec2 and a bool)
// against references built by hand from the documented rules (simulation.hpp, state.hpp):
// section digests are XXH3 over hand-laid bytes, snapshots are compared byte for byte, the
// dump line for line. The arena's own tests cover a large state; these pin the rules.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/bytes.hpp"
#include "tandem/core/digest.hpp"
#include "tandem/core/fixed.hpp"
#include "tandem/sim/codec.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

using namespace tandem;

namespace {

enum class TallyError : uint8_t { too_many_items };
std::string_view error_name(TallyError) { return "too_many_items"; }
std::string_view describe(TallyError) { return "max_items above 8"; }

struct Tally {
    static constexpr std::string_view name = "tally";
    static constexpr uint32_t version = 3;
    struct Config {
        uint8_t max_items = 4;
        int32_t start = -2;
        friend bool operator==(const Config&, const Config&) = default;
    };
    struct Item {
        uint32_t id = 0;
        int32_t value = 0;
        Vec2 at{};
        bool flagged = false;
        friend bool operator==(const Item&, const Item&) = default;
    };
    struct State {
        uint64_t tick = 0;
        Config config;
        std::vector<Item> items;
        uint32_t total = 0;
        friend bool operator==(const State&, const State&) = default;
    };
    struct Command {
        uint8_t add = 0;
        friend bool operator==(const Command&, const Command&) = default;
    };
    struct Event {};
    using ConfigError = TallyError;
    struct Stepper {
        std::vector<Event> events;
        std::span<const Event> step(State& s, std::span<const sim::Input<Tally>>) {
            s.tick += 1;
            return events;
        }
    };
    enum Section : uint8_t { config, items, totals };
    static constexpr std::array<std::string_view, 3> sections{"config", "items", "totals"};

    static Result<void, ConfigError> validate(const Config& c) {
        if (c.max_items > 8) return TallyError::too_many_items;
        return {};
    }
    static Result<State, ConfigError> make(const Config& c) {
        if (auto ok = validate(c); !ok) return ok.error();
        State s;
        s.config = c;
        return s;
    }
    static uint64_t tick(const State& s) { return s.tick; }
    static const Config& config_of(const State& s) { return s.config; }
    static uint32_t tick_hz(const Config&) { return 60; }
    static uint32_t max_players(const Config& c) { return c.max_items; }
    static Command join_command(const Config&) { return {1}; }

    template <class V, class C>
    static void visit_config(V& v, C& c) {
        v.field("max_items", c.max_items);
        v.field("start", c.start);
        v.require([&] { return c.max_items <= 8; });
    }
    template <class V, class C>
    static void visit_command(V& v, C& c) {
        v.field("add", c.add);
        v.require([&] { return c.add <= 100; });   // a command's own invariant (codec.hpp)
    }
    template <class V, class S>
    static void visit_state(V& v, S& s) {
        v.field("tick", s.tick);
        v.section(config);
        v.config("config", s.config);
        v.section(items);
        v.list("items", s.items, sim::at_most(s.config.max_items), sim::also(totals), [&](auto& it) {
            v.key("id", it.id);
            v.field("value", it.value);
            v.field("at", it.at);
            v.field("flagged", it.flagged, totals);
            v.require([&] { return it.value >= 0; });
        });
        v.section(totals);
        v.field("total", s.total);
    }
};
static_assert(sim::Simulation<Tally>);

Tally::State sample() {
    Tally::State s = Tally::make({}).value();
    s.tick = 7;
    s.items = {{3, 10, {Fx::from_raw(5), Fx::from_raw(-6)}, true}, {9, 0, {Fx::from_raw(1), Fx::from_raw(2)}, false}};
    s.total = 10;
    return s;
}

// Little-endian bytes laid out by hand.
struct Bytes {
    std::vector<uint8_t> b;
    Bytes& u8(uint8_t v) { b.push_back(v); return *this; }
    Bytes& u32(uint32_t v) { for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i))); return *this; }
    Bytes& i32(int32_t v) { return u32(static_cast<uint32_t>(v)); }
    Bytes& u64(uint64_t v) { for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i))); return *this; }
    Bytes& u16(uint16_t v) { b.push_back(static_cast<uint8_t>(v)); b.push_back(static_cast<uint8_t>(v >> 8)); return *this; }
    Bytes& raw(std::span<const uint8_t> more) { b.insert(b.end(), more.begin(), more.end()); return *this; }
};
uint64_t xxh3(std::span<const uint8_t> bytes) {
    StateDigest d;
    for (uint8_t x : bytes) d.write_u8(x);
    return d.finish();
}

}  // namespace

TEST_CASE("section digests are XXH3 over each section's fields, list counts and keys in every section a list spans") {
    const Tally::State s = sample();
    // config: the knobs. items: the count, then per item its key, value, at.x, at.y.
    // totals: the count and each key again (the list spans it), each item's flag, then total.
    const auto config = Bytes{}.u8(4).i32(-2).b;
    const auto items = Bytes{}.u32(2).u32(3).i32(10).i32(5).i32(-6).u32(9).i32(0).i32(1).i32(2).b;
    const auto totals = Bytes{}.u32(2).u32(3).u8(1).u32(9).u8(0).u32(10).b;
    const sim::Digests<Tally> d = sim::digests<Tally>(s);
    CHECK(d.sections[Tally::config] == xxh3(config));
    CHECK(d.sections[Tally::items] == xxh3(items));
    CHECK(d.sections[Tally::totals] == xxh3(totals));
    // The whole: the header (the tick) followed by each section's digest, in section order.
    const auto whole = Bytes{}.u64(7).u64(xxh3(config)).u64(xxh3(items)).u64(xxh3(totals)).b;
    CHECK(d.digest == xxh3(whole));
    CHECK(sim::digest<Tally>(s) == d.digest);
}

TEST_CASE("a snapshot is the magic, the format, the fingerprint hash, every field once in walk order and the digest") {
    const Tally::State s = sample();
    const auto expected = Bytes{}
                              .u8('T').u8('N').u8('D').u8('M')
                              .u16(sim::snapshot_format_version)
                              .u64(sim::fingerprint_hash<Tally>())
                              .u64(7)
                              .u8(4).i32(-2)
                              .u32(2)
                              .u32(3).i32(10).i32(5).i32(-6).u8(1)
                              .u32(9).i32(0).i32(1).i32(2).u8(0)
                              .u32(10)
                              .u64(sim::digest<Tally>(s))
                              .b;
    CHECK(sim::encode_snapshot<Tally>(s) == expected);
    CHECK(sim::fingerprint<Tally>() == "tandem snapshot/2 Q16.16 tally/3");
    auto back = sim::decode_snapshot<Tally>(expected);
    REQUIRE(back.ok());
    CHECK(*back == s);
}

TEST_CASE("a damaged snapshot is refused with the reason, never decoded") {
    const auto good = sim::encode_snapshot<Tally>(sample());
    const auto refused = [](std::vector<uint8_t> bytes) {
        auto r = sim::decode_snapshot<Tally>(bytes);
        REQUIRE_FALSE(r.ok());
        return r.error();
    };
    constexpr size_t header = 4 + 2 + 8;
    constexpr size_t max_items_at = header + 8, count_at = max_items_at + 1 + 4, first_value_at = count_at + 4 + 4;
    for (size_t cut = 0; cut < good.size(); ++cut) {
        INFO("cut at " << cut);
        const auto e = refused(std::vector<uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut)));
        CHECK(e == sim::DecodeError::truncated);
    }
    auto magic = good;
    magic[0] = 'X';
    CHECK(refused(magic) == sim::DecodeError::bad_magic);
    auto version = good;
    version[4] ^= 1;
    CHECK(refused(version) == sim::DecodeError::unsupported_version);
    auto print = good;
    print[6] ^= 1;
    CHECK(refused(print) == sim::DecodeError::fingerprint_mismatch);
    auto config = good;
    config[max_items_at] = 9;   // the config's own require
    CHECK(refused(config) == sim::DecodeError::value_out_of_range);
    auto count = good;
    count[count_at] = 5;        // above the config's max_items (4)
    CHECK(refused(count) == sim::DecodeError::count_out_of_range);
    auto negative = good;
    negative[first_value_at + 3] = 0x80;   // item 3's value below 0: the element's require
    CHECK(refused(negative) == sim::DecodeError::value_out_of_range);
    auto flag = good;
    flag[first_value_at + 12] = 2;         // a bool is one byte, 0 or 1
    CHECK(refused(flag) == sim::DecodeError::value_out_of_range);
    auto digest = good;
    digest.back() ^= 1;
    CHECK(refused(digest) == sim::DecodeError::digest_mismatch);
    auto trailing = good;
    trailing.push_back(0);
    CHECK(refused(trailing) == sim::DecodeError::trailing_bytes);
}

TEST_CASE("keys out of order are refused: a list has one encoding") {
    Tally::State s = sample();
    std::swap(s.items[0], s.items[1]);   // keys 9, 3
    std::vector<uint8_t> bytes = sim::encode_snapshot<Tally>(s);
    auto r = sim::decode_snapshot<Tally>(bytes, sim::DigestCheck::skip_for_fuzzing);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == sim::DecodeError::value_out_of_range);
}

TEST_CASE("the dump is one path and value per field, elements named by their keys (the key is the path, not a line), then the digests") {
    const Tally::State s = sample();
    const sim::Digests<Tally> d = sim::digests<Tally>(s);
    const std::string expected = "tick 7\n"
                                 "config.max_items 4\n"
                                 "config.start -2\n"
                                 "items.count 2\n"
                                 "items[3].value 10\n"
                                 "items[3].at.x 5\n"
                                 "items[3].at.y -6\n"
                                 "items[3].flagged 1\n"
                                 "items[9].value 0\n"
                                 "items[9].at.x 1\n"
                                 "items[9].at.y 2\n"
                                 "items[9].flagged 0\n"
                                 "total 10\n"
                                 "section.config " + hex64(d.sections[0]) + "\n"
                                 "section.items " + hex64(d.sections[1]) + "\n"
                                 "section.totals " + hex64(d.sections[2]) + "\n"
                                 "digest " + hex64(d.digest) + "\n";
    CHECK(sim::dump<Tally>(s) == expected);
}

TEST_CASE("the field diff names each differing field by path and section, with both values") {
    const Tally::State a = sample();
    Tally::State b = a;
    b.items[1].flagged = true;
    b.total = 11;
    b.items.pop_back();   // item 9 only in a
    const sim::FieldDiff diff = sim::diff<Tally>(a, b, 32);
    std::vector<std::string> lines;
    for (const sim::FieldDifference& f : diff.differences) lines.push_back(sim::to_string(f));
    CHECK(diff.total == lines.size());
    CHECK(lines == std::vector<std::string>{"items.count 2 1 (items)", "items[9].value 0 - (items)",
                                            "items[9].at.x 1 - (items)", "items[9].at.y 2 - (items)",
                                            "items[9].flagged 0 - (totals)", "total 10 11 (totals)"});
    const sim::FieldDiff capped = sim::diff<Tally>(a, b, 2);
    CHECK(capped.differences.size() == 2);
    CHECK(capped.total == diff.total);
    CHECK(sim::diff<Tally>(a, a).total == 0);
}

TEST_CASE("perturb_field flips the lowest bit of exactly the field at a path, and finds no other") {
    const Tally::State original = sample();
    Tally::State s = original;
    REQUIRE(sim::perturb_field<Tally>(s, "items[9].at"));
    CHECK(s.items[1].at.x.raw() == 0);   // 1 ^ 1: a Vec2's first byte is its x
    CHECK(s.items[1].at.y == original.items[1].at.y);
    const sim::FieldDiff diff = sim::diff<Tally>(original, s);
    REQUIRE(diff.total == 1);
    CHECK(sim::to_string(diff.differences[0]) == "items[9].at.x 1 0 (items)");
    Tally::State t = original;
    REQUIRE(sim::perturb_field<Tally>(t, "tick"));
    CHECK(t.tick == 6);
    Tally::State u = original;
    REQUIRE(sim::perturb_field<Tally>(u, "items[3].flagged"));
    CHECK_FALSE(u.items[0].flagged);
    Tally::State none = original;
    CHECK_FALSE(sim::perturb_field<Tally>(none, "items[4].value"));
    CHECK_FALSE(sim::perturb_field<Tally>(none, "items[9].at.x"));   // a path names the field, not a component
    CHECK(none == original);
}

TEST_CASE("a command's require refuses its bytes as value_out_of_range and changes neither its size nor its order") {
    CHECK(sim::command_bytes<Tally>() == 1);
    CHECK(sim::decode_command<Tally>(std::vector<uint8_t>{100}).value() == Tally::Command{100});
    CHECK(sim::decode_command<Tally>(std::vector<uint8_t>{101}).error() == sim::CodecError::value_out_of_range);
    CHECK(sim::decode_input<Tally>(std::vector<uint8_t>{1, 0, 0, 0, 2, 255}).error() == sim::CodecError::value_out_of_range);
    CHECK(sim::decode_input<Tally>(std::vector<uint8_t>{1, 0, 0, 0, 2}).error() == sim::CodecError::truncated);
    const sim::Input<Tally> a{1, sim::InputKind::command, {5}}, b{1, sim::InputKind::command, {6}};
    CHECK(sim::canonical_less<Tally>(a, b));
    CHECK_FALSE(sim::canonical_less<Tally>(b, a));
}
