// The match harness's verdict (match_harness.hpp), for any game: every client still connected
// ends on the room's state, and each scenario's client shows what its case must (steady verifies
// every tick, a short suspend catches up, a long one resyncs at O(1) cost to the room, the
// non-reader, the rejoiner, the late joiner, the flooder limited and closed, the intruders
// refused without changing anyone else's bytes, the corruption named to its field and healed).
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/match_harness.hpp"

namespace tandem::net::match {

// Where the game's corruption (MatchGame::corrupt) must be found: its section and field path.
struct CorruptionExpected {
    std::string section;
    std::string path;
};

inline std::optional<ErrorMsg> first_error(const std::vector<Bytes>& received) {
    for (const Bytes& b : received)
        if (auto m = decode_server(b); m.ok())
            if (auto* e = std::get_if<ErrorMsg>(&m.value())) return *e;
    return std::nullopt;
}

// `run` runs the plan for the game (run_match<G> with its MatchGame).
inline void check_match(const MatchPlan& plan, const std::function<MatchResult(const MatchPlan&)>& run,
                        const CorruptionExpected& corruption) {
    const MatchResult r = run(plan);
    print_figures(r);
    const auto& f = r.figures;

    // Everyone still connected holds the room's world at the room's tick.
    for (uint32_t i = 0; i < peer_count; ++i) {
        if (i == flooder) continue;
        INFO(peer_names[i]);
        CHECK(f[i].connected);
        CHECK(r.final_tick[i] == r.room_tick);
        CHECK(r.final_digest[i] == r.room_digest);
        CHECK(f[i].verified_tick == r.room_tick);
    }
    // Steady: every tick from its baseline on verified, nothing else needed.
    CHECK(f[steady].mismatches == 0);
    CHECK(f[steady].resyncs == 0);
    CHECK(f[steady].baselines == 1);
    CHECK(f[steady].verified_ticks == r.room_tick - f[steady].last_baseline_tick);
    CHECK(f[steady].rtt_ns > 2 * 40 * ms);
    CHECK(f[steady].rtt_ns < 2 * 120 * ms);
    // Short suspend: caught up through the frames, no baseline, as the rule's estimates said.
    CHECK(f[short_suspend].catch_ups >= 1);
    CHECK(f[short_suspend].last_resume.catch_up_estimate_ns <= f[short_suspend].last_resume.baseline_estimate_ns);
    CHECK(f[short_suspend].resyncs == 0);
    CHECK(f[short_suspend].baselines == 1);
    // Long suspend: a resync by baseline, and the room held O(1) for it meanwhile.
    CHECK(f[long_suspend].last_resume.path == ResumePath::resync);
    CHECK(f[long_suspend].last_resume.baseline_estimate_ns < f[long_suspend].last_resume.catch_up_estimate_ns);
    CHECK(f[long_suspend].last_resume.behind_ticks == plan.long_suspend_ticks);
    CHECK(f[long_suspend].baselines == 2);
    CHECK(f[long_suspend].last_resume.until_verified_ns > 0);
    CHECK(r.long_suspend_max_held_bytes <= 4096);
    CHECK(r.long_suspend_max_unacked <= flow_window_bytes);
    // Non-reader: the room streams on from its ring after each pause and sends a baseline only
    // when asked: each one after the join answers a resync the session chose, because its own
    // estimates priced the backlog above a baseline.
    const SessionFigures& first = r.non_reader_after_first_pause;
    CHECK(first.mismatches == 0);
    CHECK(first.baselines == 1 + first.resyncs);
    if (first.resyncs > 0) CHECK(first.last_resume.baseline_estimate_ns < first.last_resume.catch_up_estimate_ns);
    CHECK(f[non_reader].baselines == 1 + f[non_reader].resyncs);
    CHECK(f[non_reader].resyncs >= 1);
    CHECK(f[non_reader].mismatches == 0);
    // Rejoiner: one baseline per connection; late joiner: one.
    CHECK(f[rejoiner].baselines == 2);
    CHECK(f[rejoiner].mismatches == 0);
    CHECK(f[late_joiner].baselines == 1);
    CHECK(f[late_joiner].role == Role::watch);
    // Corrupted: detected at the tick after the corruption, the section named, healed.
    CHECK(f[corrupted].mismatches == 1);
    CHECK(f[corrupted].last_mismatch_tick == r.corrupted_verified_at_corruption + 1);
    CHECK(f[corrupted].last_mismatch_sections_known);
    CHECK(f[corrupted].last_mismatch_sections == std::vector<std::string_view>{corruption.section});
    // ... and the field: the one the corruption changed, and nothing else.
    REQUIRE(f[corrupted].last_mismatch_fields.has_value());
    CHECK(f[corrupted].last_mismatch_fields->total == 1);
    REQUIRE(f[corrupted].last_mismatch_fields->differences.size() == 1);
    CHECK(f[corrupted].last_mismatch_fields->differences[0].path == corruption.path);
    CHECK(f[corrupted].last_mismatch_fields->differences[0].section == corruption.section);
    CHECK(f[corrupted].last_mismatch_fields_tick > f[corrupted].last_mismatch_tick);
    CHECK(f[corrupted].baselines == 2);
    // Flooder: limited, then closed with rate_limited; never more commands applied than the limit.
    CHECK(f[flooder].refused == net::ErrorCode::rate_limited);
    CHECK_FALSE(f[flooder].connected);
    CHECK(r.room_stats.closes[static_cast<size_t>(CloseReason::rate_limited)] == 1);
    CHECK(r.flooder_max_applied_per_second <= max_inputs_per_second);
    // No one but the corrupted client ever saw a mismatch.
    for (uint32_t i = 0; i < peer_count; ++i)
        if (i != corrupted) CHECK(f[i].mismatches == 0);

    if (plan.intruders || plan.protocol_intruders) {
        uint64_t refused = 0;
        if (plan.intruders) {
            const auto g = first_error(r.garbage_received);
            REQUIRE(g);
            CHECK(g->code == net::ErrorCode::malformed);
            const auto fp = first_error(r.fingerprint_received);
            REQUIRE(fp);
            CHECK(fp->code == net::ErrorCode::fingerprint_mismatch);
            refused += 2;
        }
        if (plan.protocol_intruders) {
            // Each got its welcome, then the refusal of what it may not do.
            const auto wc = first_error(r.watcher_command_received);
            REQUIRE(wc);
            CHECK(wc->code == net::ErrorCode::unexpected);
            const auto sh = first_error(r.second_hello_received);
            REQUIRE(sh);
            CHECK(sh->code == net::ErrorCode::unexpected);
            refused += 2;
        }
        CHECK(r.room_stats.closes[static_cast<size_t>(CloseReason::protocol_error)] == refused);
        // Every other client received exactly the bytes, at exactly the instants, of a run
        // in which the intruders never connected.
        MatchPlan without = plan;
        without.intruders = false;
        without.protocol_intruders = false;
        const MatchResult clean = run(without);
        CHECK(clean.received_hash == r.received_hash);
        CHECK(clean.room_digest == r.room_digest);
    }
}

}  // namespace tandem::net::match
