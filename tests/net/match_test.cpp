// The in-process match: a Room and eight ClientSessions over LatencyLinks (ordered and lossless
// as a WebSocket is, 40-120 ms with jitter), every scenario of a real match in one run: steady
// play, a short suspend that catches up, a long one that resyncs while the room's memory for it
// stays bounded, a client that stops reading, a disconnect and rejoin, a late joiner, a garbage
// sender and a wrong fingerprint (refused, and nobody else's bytes change), an input flooder
// (limited and closed) and a corrupted world (detected, its section and field named, healed),
// all driven by net::Match<arena::Sim>. At the end every client's world is the room's. The
// default run is short; the full one is tagged [long].
#include "net/match_harness.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

using namespace tandem;
using namespace tandem::net;
using namespace tandem::net::match;

namespace {

std::optional<ErrorMsg> first_error(const std::vector<Bytes>& received) {
    for (const Bytes& b : received)
        if (auto m = decode_server(b); m.ok())
            if (auto* e = std::get_if<ErrorMsg>(&m.value())) return *e;
    return std::nullopt;
}

void check_match(const MatchPlan& plan) {
    const MatchResult r = run_match(plan);
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
    // Short suspend: caught up through the frames, no baseline.
    CHECK(f[short_suspend].catch_ups >= 1);
    CHECK(f[short_suspend].resyncs == 0);
    CHECK(f[short_suspend].baselines == 1);
    // Long suspend: a resync by baseline, and the room held O(1) for it meanwhile.
    CHECK(f[long_suspend].last_resume.path == ResumePath::resync);
    CHECK(f[long_suspend].last_resume.behind_ticks == plan.long_suspend_ticks);
    CHECK(f[long_suspend].baselines == 2);
    CHECK(f[long_suspend].last_resume.until_verified_ns > 0);
    CHECK(r.long_suspend_max_held_bytes <= 4096);
    CHECK(r.long_suspend_max_unacked <= flow_window_bytes);
    // Non-reader: the short pause was served from the ring (no baseline), the long by one.
    CHECK(r.non_reader_after_first_pause.baselines == 1);
    CHECK(r.non_reader_after_first_pause.mismatches == 0);
    CHECK(f[non_reader].baselines == 2);
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
    CHECK(f[corrupted].last_mismatch_sections == std::vector<std::string_view>{"scores"});
    // ... and the field: the capture count the corruption flipped, and nothing else.
    REQUIRE(f[corrupted].last_mismatch_fields.has_value());
    CHECK(f[corrupted].last_mismatch_fields->total == 1);
    REQUIRE(f[corrupted].last_mismatch_fields->differences.size() == 1);
    CHECK(f[corrupted].last_mismatch_fields->differences[0].path == "captures");
    CHECK(f[corrupted].last_mismatch_fields->differences[0].section == "scores");
    CHECK(f[corrupted].last_mismatch_fields_tick > f[corrupted].last_mismatch_tick);
    CHECK(f[corrupted].baselines == 2);
    // Flooder: limited, then closed with rate_limited; never more steers applied than the limit.
    CHECK(f[flooder].refused == net::ErrorCode::rate_limited);
    CHECK_FALSE(f[flooder].connected);
    CHECK(r.room_stats.closes[static_cast<size_t>(CloseReason::rate_limited)] == 1);
    CHECK(r.flooder_max_applied_per_second <= max_inputs_per_second);
    // No one but the corrupted client ever saw a mismatch.
    for (uint32_t i = 0; i < peer_count; ++i)
        if (i != corrupted) CHECK(f[i].mismatches == 0);

    if (plan.intruders) {
        const auto g = first_error(r.garbage_received);
        REQUIRE(g);
        CHECK(g->code == net::ErrorCode::malformed);
        const auto fp = first_error(r.fingerprint_received);
        REQUIRE(fp);
        CHECK(fp->code == net::ErrorCode::fingerprint_mismatch);
        CHECK(r.room_stats.closes[static_cast<size_t>(CloseReason::protocol_error)] == 2);
        // Every other client received exactly the bytes, at exactly the instants, of a run
        // in which the intruders never connected.
        MatchPlan without = plan;
        without.intruders = false;
        const MatchResult clean = run_match(without);
        CHECK(clean.received_hash == r.received_hash);
        CHECK(clean.room_digest == r.room_digest);
    }
}

}  // namespace

TEST_CASE("a match of 3,000 ticks with every scenario: each client ends on the room's world", "[match]") {
    check_match(MatchPlan{3000, 1800, true});
}

// 40,000 ticks (11 minutes at 60 Hz), so the long suspend lasts 10 simulated minutes.
TEST_CASE("a match of 40,000 ticks with a 10 minute suspend: each client ends on the room's world", "[.][long][match]") {
    check_match(MatchPlan{40'000, 36'000, true});
}
