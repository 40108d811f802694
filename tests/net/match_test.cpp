// The in-process match: a Room and eight ClientSessions over LatencyLinks (ordered and lossless
// as a WebSocket is, 40-120 ms with jitter), every scenario of a real match in one run: steady
// play, a short suspend that catches up, a long one that resyncs while the room's memory for it
// stays bounded, a client that stops reading, a disconnect and rejoin, a late joiner, a garbage
// sender and a wrong fingerprint (refused, and nobody else's bytes change), an input flooder
// (limited and closed) and a corrupted world (detected, its section and field named, healed),
// all driven by net::Match<arena::Sim> (the harness and its verdict are game-agnostic
// match_harness.hpp and match_check.hpp). At the end every client's world is the room's. The
// default run is short; the full one is tagged [long].
#include "net/match_check.hpp"
#include "net/match_harness.hpp"

#include <catch2/catch.hpp>

using namespace tandem;
using namespace tandem::net;
using namespace tandem::net::match;

namespace {
// arena::corrupt_captures_for_testing flips the capture count, a field of the scores section.
const CorruptionExpected captures{"scores", "captures"};
MatchResult run_arena(const MatchPlan& plan) { return run_match(plan); }
}  // namespace

TEST_CASE("a match of 3,000 ticks with every scenario: each client ends on the room's world", "[match]") {
    check_match(MatchPlan{3000, 1800, true}, run_arena, captures);
}

TEST_CASE("a match with a watcher's command and a watcher's second hello: both refused, nobody else's bytes change", "[match]") {
    MatchPlan plan{3000, 1800, true};
    plan.protocol_intruders = true;
    check_match(plan, run_arena, captures);
}

// 40,000 ticks (11 minutes at 60 Hz), so the long suspend lasts 10 simulated minutes.
TEST_CASE("a match of 40,000 ticks with a 10 minute suspend: each client ends on the room's world", "[.][long][match]") {
    check_match(MatchPlan{40'000, 36'000, true}, run_arena, captures);
}
