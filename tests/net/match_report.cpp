// Runs the in-process match of one game (--game arena, the default: the arena's default plan of
// 3,000 ticks, every scenario; --game ships: the plan of the ships match test, every intruder
// too) and prints one canonical text report: the room's digest and stats, each client's final
// digest and figures. Built natively and for wasm under Node; tests/js/match.test.mjs compares
// the two builds' reports byte for byte, for each game.
#include "net/match_harness.hpp"
#include "net/ships_match.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

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

// The first refusal among what an intruder received ("-": none, or none readable).
std::string refusal(const std::vector<Bytes>& received) {
    for (const Bytes& b : received)
        if (auto m = decode_server(b); m.ok())
            if (auto* e = std::get_if<ErrorMsg>(&m.value())) return std::string(error_name(e->code));
    return "-";
}

// What shows each scenario happened beyond the lines above: both sides the resume rule weighed,
// the desync named to its sections and fields, the bounds held for the long suspend and the
// flooder, and each intruder's refusal. The arena's canonical report predates these lines and
// is kept byte for byte, so only the other games' reports carry them.
void print_detail(const MatchPlan& plan, const MatchResult& r) {
    for (uint32_t i = 0; i < peer_count; ++i) {
        const SessionFigures& f = r.figures[i];
        std::printf("%s resume estimates catch_up_ns %" PRId64 " baseline_ns %" PRId64 " dropped_ns %" PRId64 "\n", peer_names[i],
                    f.last_resume.catch_up_estimate_ns, f.last_resume.baseline_estimate_ns, f.last_resume.dropped_ns);
        if (f.mismatches == 0) continue;
        std::printf("%s mismatch sections_known %d sections", peer_names[i], int{f.last_mismatch_sections_known});
        for (std::string_view s : f.last_mismatch_sections) std::printf(" %s", std::string(s).c_str());
        std::printf("\n");
        if (!f.last_mismatch_fields) {
            std::printf("%s mismatch fields -\n", peer_names[i]);
            continue;
        }
        std::printf("%s mismatch fields tick %" PRIu64 " total %" PRIu64 "\n", peer_names[i], f.last_mismatch_fields_tick,
                    f.last_mismatch_fields->total);
        for (const sim::FieldDifference& d : f.last_mismatch_fields->differences)
            std::printf("%s mismatch field %s\n", peer_names[i], sim::to_string(d).c_str());
    }
    const SessionFigures& first = r.non_reader_after_first_pause;
    std::printf("non_reader after_first_pause baselines %" PRIu64 " resyncs %" PRIu64 " catch_ups %" PRIu64 " mismatches %" PRIu64
                " path %s\n",
                first.baselines, first.resyncs, first.catch_ups, first.mismatches,
                std::string(resume_path_name(first.last_resume.path)).c_str());
    std::printf("corrupted verified_at_corruption %" PRIu64 "\n", r.corrupted_verified_at_corruption);
    std::printf("long_suspend max_held_bytes %" PRIu64 " max_unacked %" PRIu64 "\n", r.long_suspend_max_held_bytes,
                r.long_suspend_max_unacked);
    std::printf("flooder max_applied_per_second %" PRIu64 "\n", r.flooder_max_applied_per_second);
    if (plan.intruders) {
        std::printf("intruder garbage refused %s\n", refusal(r.garbage_received).c_str());
        std::printf("intruder fingerprint refused %s\n", refusal(r.fingerprint_received).c_str());
    }
    if (plan.protocol_intruders) {
        std::printf("intruder watcher_command refused %s\n", refusal(r.watcher_command_received).c_str());
        std::printf("intruder second_hello refused %s\n", refusal(r.second_hello_received).c_str());
    }
}

int usage() {
    std::fprintf(stderr, "usage: match_report [--game arena|ships]  (arena: the default 3,000-tick plan; ships: its match test's)\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string game = "arena";
    if (argc == 3 && std::strcmp(argv[1], "--game") == 0) {
        game = argv[2];
    } else if (argc != 1) {
        return usage();
    }
    if (game == "arena") {
        print_report(run_match(MatchPlan{}));
    } else if (game == "ships") {
        const MatchPlan plan = ships_match_plan();
        const MatchResult r = run_ships(plan);
        print_report(r);
        print_detail(plan, r);
    } else {
        return usage();
    }
    return 0;
}
