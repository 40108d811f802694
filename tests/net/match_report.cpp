// Runs the in-process match's default plan (3,000 ticks, every scenario) and prints one canonical
// text report: the room's digest and stats, each client's final digest and figures. Built natively
// and for wasm under Node; tests/js/match.test.mjs compares the two reports byte for byte.
#include "net/match_harness.hpp"

#include <cinttypes>
#include <cstdio>
#include <string>

using namespace tandem;
using namespace tandem::net;
using namespace tandem::net::match;

namespace {

// Integers only (no %f: the report must not depend on a libc's float formatting). No clock is
// set on the room or the sessions, so nothing here is measured: step_cost_ns is the fixed
// assumed cost, and the room's last_step_ns / last_tick_ns (0 without a clock) are left out.
void print_report(const MatchResult& r) {
    const RoomStats& s = r.room_stats;
    std::printf("room tick %" PRIu64 " digest %016" PRIx64 "\n", r.room_tick, r.room_digest);
    std::printf("room stats players %" PRIu32 " watchers %" PRIu32 " frames %" PRIu64 " baselines_sent %" PRIu64
                " flow_pauses %" PRIu64 " inputs_accepted %" PRIu64 " inputs_dropped %" PRIu64 " inputs_stale %" PRIu64
                " desync_reports %" PRIu64 " ack_mismatches %" PRIu64 " replies_dropped %" PRIu64
                " messages_received %" PRIu64 " bytes_received %" PRIu64 " messages_sent %" PRIu64 " bytes_sent %" PRIu64 "\n",
                s.players, s.watchers, s.frames_encoded, s.baselines_sent, s.flow_pauses, s.inputs_accepted,
                s.inputs_dropped, s.inputs_stale, s.desync_reports, s.ack_mismatches, s.replies_dropped,
                s.messages_received, s.bytes_received, s.messages_sent, s.bytes_sent);
    std::printf("room closes");
    for (uint64_t c : s.closes) std::printf(" %" PRIu64, c);
    std::printf("\n");
    for (uint32_t i = 0; i < peer_count; ++i) {
        const SessionFigures& f = r.figures[i];
        std::printf("%s final tick %" PRIu64 " digest %016" PRIx64 " received_hash %016" PRIx64 "\n", peer_names[i],
                    r.final_tick[i], r.final_digest[i], r.received_hash[i]);
        std::printf("%s figures connected %d role %u player %" PRIu32 " has_world %d verified_tick %" PRIu64
                    " verified_ticks %" PRIu64 " server_tick %" PRIu64 " lag %" PRIu64 " queued %" PRIu64
                    " mismatches %" PRIu64 " last_mismatch_tick %" PRIu64 " catch_ups %" PRIu64 " resyncs %" PRIu64
                    " baselines %" PRIu64 " last_baseline_tick %" PRIu64 " bytes_in %" PRIu64 " bytes_out %" PRIu64
                    " bytes_in_per_sec %" PRIu64 " malformed_in %" PRIu64 " frames_ignored %" PRIu64 " rtt_ns %" PRId64
                    " jitter_ns %" PRId64 " step_cost_ns %" PRId64 " inputs_sent %" PRIu32 " inputs_applied %" PRIu32 "\n",
                    peer_names[i], int{f.connected}, static_cast<unsigned>(f.role), f.player, int{f.has_world},
                    f.verified_tick, f.verified_ticks, f.server_tick, f.lag_ticks, f.queued_frames, f.mismatches,
                    f.last_mismatch_tick, f.catch_ups, f.resyncs, f.baselines, f.last_baseline_tick, f.bytes_in,
                    f.bytes_out, f.bytes_in_per_sec, f.malformed_in, f.frames_ignored, f.rtt_ns, f.jitter_ns,
                    f.step_cost_ns, f.inputs_sent, f.inputs_applied);
        std::printf("%s resume away_ns %" PRId64 " path %s behind %" PRIu64 " ticks %" PRIu64 " bytes %" PRIu64
                    " until_verified_ns %" PRId64 " refused %s\n",
                    peer_names[i], f.last_resume.away_ns, std::string(resume_path_name(f.last_resume.path)).c_str(),
                    f.last_resume.behind_ticks, f.last_resume.ticks, f.last_resume.bytes, f.last_resume.until_verified_ns,
                    f.refused ? std::string(error_name(*f.refused)).c_str() : "-");
    }
}

}  // namespace

int main(int argc, char**) {
    if (argc != 1) {
        std::fprintf(stderr, "match_report: takes no arguments (it runs the default 3,000-tick plan)\n");
        return 2;
    }
    print_report(run_match(MatchPlan{}));
    return 0;
}
