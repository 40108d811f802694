// The ships part of the in-process match (match_harness.hpp): its room config, its players'
// commands and its corruption, and the plan its match test and its canonical report both run.
// Shared by tests/net/ships_match_test.cpp and match_report (--game ships).
#pragma once

#include "net/match_harness.hpp"
#include "ships/sim.hpp"

#include <cstdint>

namespace tandem::net::match {

inline ships::Config ships_match_config() {
    ships::Config c;
    c.tick_hz = 60;   // the harness's events are at 60 ticks a second; ships' rates are per tick
    return c;
}

inline MatchGame<ships::Sim> ships_match() {
    MatchGame<ships::Sim> game;
    game.room.game = ships_match_config();
    // Every combination of the four buttons in turn, each player on its own phase.
    game.steer = [](uint64_t t, uint32_t i) { return ships::Command{static_cast<uint8_t>(((t / 6) * 5 + i * 3) % 16)}; };
    game.flood = [](uint64_t k) { return ships::Command{static_cast<uint8_t>(k % 16)}; };
    // The first ship's death count, which the step only ever increments: one field, in the
    // scores section, stays different until the baseline heals it.
    game.corrupt = [](ships::State& s) { s.ships.front().deaths += 1000; };
    return game;
}

// 3,000 ticks, every scenario and every intruder (the protocol ones too).
inline MatchPlan ships_match_plan() {
    MatchPlan plan{3000, 1800, true};
    plan.protocol_intruders = true;
    return plan;
}

inline MatchResult run_ships(const MatchPlan& plan) { return run_match<ships::Sim>(plan, ships_match()); }

}  // namespace tandem::net::match
