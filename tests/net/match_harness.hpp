// The in-process match harness: the arena's scenario of a real match, every case in one
// deterministic run (no clock: time is the simulated tick), driven by net::Match<arena::Sim>
// (a Room and eight ClientSessions over LatencyLinks, plus two raw intruders). Shared by the
// Catch2 match test and match_report, which runs it natively and in wasm.
#pragma once

#include "arena/sim.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/net/match.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace tandem::net::match {

using Bytes = std::vector<uint8_t>;
constexpr int64_t ms = 1'000'000;
constexpr int64_t tick_ns = 1'000'000'000 / 60;
constexpr int64_t advance_budget_ns = 8 * ms;

// The eight sessions, by index, and what happens to each.
enum Peer : uint32_t {
    steady = 0,        // plays throughout: verifies every tick
    short_suspend = 1, // suspended 5 s: catches up
    long_suspend = 2,  // suspended for MatchPlan::long_suspend_ticks: resyncs
    non_reader = 3,    // stops reading twice, briefly (ring) and past the ring (baseline)
    rejoiner = 4,      // disconnects and rejoins
    late_joiner = 5,   // joins late, as a watcher
    corrupted = 6,     // its world corrupted once: detected, named, healed
    flooder = 7,       // floods inputs: limited, then closed
    peer_count = 8,
};

struct MatchPlan {
    uint64_t ticks = 3000;
    uint64_t long_suspend_ticks = 1800;   // 30 s
    bool intruders = true;                // the garbage sender and the wrong fingerprint
    // For a test that draws over the sessions (tandem_net's tests link no client library):
    // called once the endpoints exist (to attach followers, Match::follow), and after every
    // room tick of the plan with the loop's tick. Neither is set in the report's run.
    std::function<void(Match<arena::Sim>&)> on_start;
    std::function<void(Match<arena::Sim>&, uint64_t t)> after_tick;
};

// Events, in ticks of the room.
constexpr uint64_t flood_from = 300, flood_per_tick = 10;
constexpr uint64_t intruder_garbage_at = 400, intruder_fingerprint_at = 450;
constexpr uint64_t suspend_at = 600, short_suspend_ticks = 300;
constexpr uint64_t rejoiner_leaves_at = 700, rejoiner_returns_at = 820;
constexpr uint64_t first_pause_at = 1000, first_pause_ticks = 240;    // 4 s: inside the ring
constexpr uint64_t second_pause_at = 1400, second_pause_ticks = 900;  // 15 s: past it
constexpr uint64_t corrupt_at = 1100;
constexpr uint64_t late_join_at = 1500;
// Nobody steers for quiet_ticks from quiet_from (after the long suspend's resync at 2,400 in
// the default plan, whose return is an input too).
constexpr uint64_t quiet_from = 2550, quiet_ticks = 300;

struct MatchResult {
    std::vector<uint64_t> received_hash;
    std::vector<SessionFigures> figures;
    std::vector<uint64_t> final_digest;     // each session's confirmed world (0: none)
    std::vector<uint64_t> final_tick;
    uint64_t room_tick = 0, room_digest = 0;
    RoomStats room_stats;
    SessionFigures non_reader_after_first_pause;
    uint64_t corrupted_verified_at_corruption = 0;
    uint64_t long_suspend_max_held_bytes = 0, long_suspend_max_unacked = 0;
    uint64_t flooder_max_applied_per_second = 0;
    std::vector<Bytes> garbage_received, fingerprint_received;
    std::vector<uint64_t> steady_ticks_unverified;   // room ticks the steady client never verified
};

extern const char* const peer_names[peer_count];

arena::WorldConfig match_world();
MatchResult run_match(const MatchPlan& plan);
// The figures, for a reader of the test's output (rtt and jitter in ms, as floating point).
void print_figures(const MatchResult& r);

}  // namespace tandem::net::match
