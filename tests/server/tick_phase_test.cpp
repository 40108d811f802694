// Properties of src/server/tick_phase.hpp: a new room's ticks go in the middle of the widest
// gap between the phases of the rooms already ticking, so rooms started together end up
// spread over the period instead of all due at once; the grid's anchor keeps its first
// boundary within one step after now.
#include "server/tick_phase.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

using namespace tandem::server;

TEST_CASE("with no other room the phase is the fallback") {
    CHECK(widest_gap_phase({}, 1000, 123) == 123);
}

TEST_CASE("a second room ticks half a period after the first") {
    CHECK(widest_gap_phase({0}, 1000, 7) == 500);
    CHECK(widest_gap_phase({300}, 1000, 7) == 800);
    CHECK(widest_gap_phase({900}, 1000, 7) == 400);   // the gap wraps round the period's end
}

TEST_CASE("the middle of the widest gap is taken, of equal gaps the earliest") {
    CHECK(widest_gap_phase({0, 500}, 1000, 7) == 250);
    CHECK(widest_gap_phase({500, 0}, 1000, 7) == 250);             // any order
    CHECK(widest_gap_phase({100, 200, 600}, 1000, 7) == 850);       // 600..1100 is the widest (500)
    CHECK(widest_gap_phase({0, 0, 0}, 1000, 7) == 500);             // repeats: the one gap left
}

TEST_CASE("rooms started one after another at the same instant spread evenly over the period") {
    // 100 rooms created in one burst (as a load generator or a restart adopting rooms does):
    // without phases chosen they would all be due within microseconds of each other.
    const int64_t step = 16'666'667;
    std::vector<int64_t> phases;
    for (int k = 0; k < 100; ++k) phases.push_back(widest_gap_phase(phases, step, 0));
    std::vector<int64_t> sorted = phases;
    std::sort(sorted.begin(), sorted.end());
    int64_t widest = sorted.front() + step - sorted.back();
    int64_t narrowest = widest;
    for (size_t k = 1; k < sorted.size(); ++k) {
        widest = std::max(widest, sorted[k] - sorted[k - 1]);
        narrowest = std::min(narrowest, sorted[k] - sorted[k - 1]);
    }
    // Halving gaps: 100 rooms leave gaps of step/128 and step/64, never wider than 2 x step/100.
    CHECK(widest <= 2 * step / 100);
    CHECK(narrowest >= step / 128 - 1);
}

TEST_CASE("the anchor puts the first boundary within one step after now, at the phase asked") {
    const int64_t step = 1000;
    for (int64_t now : {int64_t{0}, int64_t{999}, int64_t{123'456'789}}) {
        for (int64_t phase : {int64_t{0}, int64_t{1}, int64_t{500}, int64_t{999}}) {
            const int64_t anchor = anchor_for_phase(now, step, phase);
            CHECK(anchor <= now);
            CHECK(now - anchor < step);
            CHECK(phase_of(anchor + step, step) == phase);
        }
    }
    CHECK(phase_of(-1, 1000) == 999);
}
