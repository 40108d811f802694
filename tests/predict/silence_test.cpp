// Properties of tandem/predict/silence.hpp: an entity is kept while unmentioned for at most
// the grace, the sweep removes exactly the silent ones and never what the closure protects,
// and a zero grace is refused where it is made.
#include "tandem/predict/silence.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

using tandem::predict::Silence;
using tandem::predict::SilenceError;

TEST_CASE("a zero or negative grace is refused with a typed error") {
    const auto zero = Silence<uint64_t>::with_grace(0);
    REQUIRE_FALSE(zero.ok());
    CHECK(zero.error() == SilenceError::grace_not_positive);
    CHECK(zero.code() == "grace_not_positive");
    CHECK_FALSE(Silence<int32_t>::with_grace(-3).ok());
    CHECK(Silence<int32_t>::with_grace(1).ok());
}

TEST_CASE("an entity is kept while it has gone unmentioned for at most the grace") {
    const auto grace = Silence<uint64_t>::with_grace(8).value();
    CHECK(grace.keeps(10, 10));
    CHECK(grace.keeps(10, 18));
    CHECK_FALSE(grace.keeps(10, 19));
    CHECK(grace.keeps(30, 18));   // a stamp from the future is kept
}

TEST_CASE("keeps is exact at the ends of a signed stamp range") {
    const auto grace = Silence<int32_t>::with_grace(5).value();
    CHECK(grace.keeps(INT32_MAX - 5, INT32_MAX));
    CHECK_FALSE(grace.keeps(INT32_MAX - 6, INT32_MAX));
    CHECK_FALSE(grace.keeps(INT32_MIN, INT32_MAX));   // the difference overflows int32
    CHECK(grace.keeps(INT32_MIN, INT32_MIN + 5));
}

TEST_CASE("a sweep forgets the silent, keeps the recent and never touches what it must not forget") {
    struct Known {
        uint64_t seen;
    };
    std::map<int, Known> ships{{1, {100}}, {2, {95}}, {3, {91}}, {4, {50}}, {7, {10}}};
    const int my_seat = 7;
    const auto grace = Silence<uint64_t>::with_grace(8).value();
    const auto forgotten = grace.sweep(ships, 100, [&](int seat, const Known& k) -> std::optional<uint64_t> {
        if (seat == my_seat) return std::nullopt;   // never forget my own ship
        return k.seen;
    });
    CHECK(forgotten == std::vector<int>{3, 4});
    CHECK(ships.size() == 3);
    CHECK(ships.contains(1));
    CHECK(ships.contains(2));
    CHECK(ships.contains(7));
}
