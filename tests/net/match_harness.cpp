// The in-process match harness (match_harness.hpp): the arena's part of it (its world, its
// players' steers, its corruption) and the figures. Match moves the bytes; run_match<G> says
// what happens when.
#include "net/match_harness.hpp"

#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "tandem/net/game_codec.hpp"

namespace tandem::net::match {

arena::WorldConfig match_world() {
    arena::WorldConfig c = arena::default_config();
    c.pellet_count = 128;   // a small world keeps 40,000 ticks of nine worlds affordable
    return c;
}

MatchGame<arena::Sim> arena_match() {
    MatchGame<arena::Sim> game;
    game.room.game = match_world();
    game.steer = [](uint64_t t, uint32_t i) {
        const int64_t phase = static_cast<int64_t>((t / 6 + i * 37) % 400);
        return arena::Steer{Vec2{Fx::from_int(100 + static_cast<int32_t>(phase) * 2), Fx::from_int(900 - static_cast<int32_t>(phase))}};
    };
    game.flood = [](uint64_t k) { return arena::Steer{Vec2{Fx::from_int(5), Fx::from_int(static_cast<int32_t>(k))}}; };
    game.corrupt = arena::corrupt_captures_for_testing;
    return game;
}

MatchResult run_match(const MatchPlan& plan) { return run_match<arena::Sim>(plan, arena_match()); }

const char* const peer_names[peer_count] = {"steady", "short_suspend", "long_suspend", "non_reader",
                                  "rejoiner", "late_joiner", "corrupted", "flooder"};

void print_figures(const MatchResult& r) {
    std::printf("room: tick %llu digest %016llx frames %llu baselines_sent %llu flow_pauses %llu inputs_dropped %llu desync_reports %llu\n",
                (unsigned long long)r.room_tick, (unsigned long long)r.room_digest, (unsigned long long)r.room_stats.frames_encoded,
                (unsigned long long)r.room_stats.baselines_sent, (unsigned long long)r.room_stats.flow_pauses,
                (unsigned long long)r.room_stats.inputs_dropped, (unsigned long long)r.room_stats.desync_reports);
    for (uint32_t i = 0; i < peer_count; ++i) {
        const SessionFigures& f = r.figures[i];
        std::printf("%-13s verified %llu (tick %llu) server %llu lag %llu mismatches %llu catch_ups %llu resyncs %llu baselines %llu "
                    "in %llu B out %llu B rtt %.1f ms jitter %.1f ms | last resume: away %.1f s path %s behind %llu ticks %llu bytes %llu "
                    "verified again after %s%s%s\n",
                    peer_names[i], (unsigned long long)f.verified_ticks, (unsigned long long)f.verified_tick,
                    (unsigned long long)f.server_tick, (unsigned long long)f.lag_ticks, (unsigned long long)f.mismatches,
                    (unsigned long long)f.catch_ups, (unsigned long long)f.resyncs, (unsigned long long)f.baselines,
                    (unsigned long long)f.bytes_in, (unsigned long long)f.bytes_out, static_cast<double>(f.rtt_ns) / 1e6, static_cast<double>(f.jitter_ns) / 1e6,
                    static_cast<double>(f.last_resume.away_ns) / 1e9, std::string(resume_path_name(f.last_resume.path)).c_str(),
                    (unsigned long long)f.last_resume.behind_ticks, (unsigned long long)f.last_resume.ticks,
                    (unsigned long long)f.last_resume.bytes,
                    f.last_resume.until_verified_ns < 0 ? "-" : (std::to_string(f.last_resume.until_verified_ns / ms) + " ms").c_str(),
                    f.refused ? " refused: " : "", f.refused ? std::string(error_name(*f.refused)).c_str() : "");
        if (f.last_mismatch_fields) {
            for (const sim::FieldDifference& d : f.last_mismatch_fields->differences)
                std::printf("%-13s mismatch field at tick %llu: %s\n", peer_names[i], (unsigned long long)f.last_mismatch_fields_tick,
                            sim::to_string(d).c_str());
        }
    }
}

}  // namespace tandem::net::match
