// The in-process match harness (match_harness.hpp): the arena's scenario over net::Match and
// its figures. Match moves the bytes; this file only says what happens when.
#include "net/match_harness.hpp"

#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "tandem/net/game_codec.hpp"

namespace tandem::net::match {

namespace {

using Sim = arena::Sim;

uint64_t fnv(uint64_t h, std::span<const uint8_t> bytes) {
    for (uint8_t b : bytes) h = (h ^ b) * 0x100000001B3u;
    return h;
}

}  // namespace

arena::WorldConfig match_world() {
    arena::WorldConfig c = arena::default_config();
    c.pellet_count = 128;   // a small world keeps 40,000 ticks of nine worlds affordable
    return c;
}

MatchResult run_match(const MatchPlan& plan) {
    RoomConfig<Sim> rc;
    rc.game = match_world();
    Match<Sim> m = Match<Sim>::create(rc).value();

    for (uint32_t i = 0; i < peer_count; ++i) {
        // 55-104 ms each way with 15 ms of jitter: every packet within 40-120 ms.
        m.add_session(i == late_joiner ? Role::watch : Role::play, 100 + i, LinkSpec{(55 + 7 * int64_t{i}) * ms, 15 * ms}, 0);
    }
    const uint32_t garbage = m.add_raw(900, LinkSpec{60 * ms, 10 * ms});
    const uint32_t fingerprint = m.add_raw(901, LinkSpec{60 * ms, 10 * ms});
    if (plan.on_start) plan.on_start(m);

    MatchResult r;
    std::vector<uint64_t> received_hash(peer_count, 0xCBF29CE484222325u);
    std::map<uint64_t, uint64_t> flooder_applied_per_second;
    uint32_t flooder_player = watcher_id;
    uint32_t flood_sequence = 1'000'000;
    std::vector<Applied<Sim>> applied;
    m.set_observer([&](uint32_t e, std::span<const uint8_t> b, int64_t now) {
        if (e >= peer_count) return;
        received_hash[e] = fnv(fnv(received_hash[e], b), std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&now), 8));
        if (e != steady) return;
        // The flooder's applied commands, from the frames everyone receives.
        if (auto msg = decode_server(b); msg.ok()) {
            if (auto* f = std::get_if<Frame>(&msg.value()); f && decode_frame_inputs<Sim>(*f, applied).ok()) {
                for (const auto& a : applied)
                    if (a.input.player == flooder_player && a.input.kind == sim::InputKind::command) ++flooder_applied_per_second[f->tick / 60];
            }
        }
    });

    for (uint64_t t = 0; t < plan.ticks; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        // ---- Scenario events ----
        if (t < peer_count && t != late_joiner) m.connect(static_cast<uint32_t>(t), now);
        if (t == late_join_at) m.connect(late_joiner, now);
        if (plan.intruders && t == intruder_garbage_at) m.connect(garbage, now);
        if (plan.intruders && t == intruder_garbage_at + 2) m.send_raw(garbage, Bytes{0x02, 0xFF, 0x00}, now);
        if (plan.intruders && t == intruder_fingerprint_at) {
            m.connect(fingerprint, now);
            Hello hello = hello_for<Sim>(Role::play);
            hello.fingerprint ^= 1;
            Bytes bytes;
            encode(bytes, hello);
            m.send_raw(fingerprint, bytes, now);
        }
        if (t == suspend_at) m.suspend(short_suspend, now), m.suspend(long_suspend, now);
        if (t == suspend_at + short_suspend_ticks) m.resume(short_suspend, now);
        if (t == suspend_at + plan.long_suspend_ticks) m.resume(long_suspend, now);
        if (t == first_pause_at || t == second_pause_at) m.set_reading(non_reader, false, now);
        if (t == first_pause_at + first_pause_ticks || t == second_pause_at + second_pause_ticks) m.set_reading(non_reader, true, now);
        if (t == second_pause_at) r.non_reader_after_first_pause = m.session(non_reader).figures();
        // The old socket's packets are gone with it; the new one has links of its own.
        if (t == rejoiner_leaves_at) m.disconnect(rejoiner, 200, now);
        if (t == rejoiner_returns_at) m.connect(rejoiner, now);

        // ---- The network, the clients, the room ----
        m.deliver(now);
        for (uint32_t i = 0; i < peer_count; ++i) {
            auto& s = m.session(i);
            if (!m.open(i) && !s.figures().connected) continue;
            const bool quiet = t >= quiet_from && t < quiet_from + quiet_ticks;
            if (s.figures().role == Role::play && t % 6 == i % 6 && !quiet) {
                const int64_t phase = static_cast<int64_t>((t / 6 + i * 37) % 400);
                m.send_command(i, arena::Steer{Vec2{Fx::from_int(100 + static_cast<int32_t>(phase) * 2), Fx::from_int(900 - static_cast<int32_t>(phase))}}, now);
            }
            m.advance(i, now, advance_budget_ns);
        }
        if (t == corrupt_at) {
            r.corrupted_verified_at_corruption = m.session(corrupted).figures().verified_tick;
            m.session(corrupted).corrupt_for_testing(arena::corrupt_captures_for_testing);
        }
        if (t >= flood_from && m.open(flooder)) {
            if (flooder_player == watcher_id) flooder_player = m.session(flooder).figures().player;
            for (uint64_t k = 0; k < flood_per_tick; ++k) {
                Bytes b;
                encode(b, input_message<Sim>(flood_sequence++, arena::Steer{Vec2{Fx::from_int(5), Fx::from_int(static_cast<int32_t>(k))}}));
                m.send_raw(flooder, std::move(b), now);
            }
        }
        m.tick(now);
        if (plan.after_tick) plan.after_tick(m, t);

        if (auto c = m.room().client(m.connection(long_suspend)); c && m.suspended(long_suspend)) {
            r.long_suspend_max_held_bytes = std::max(r.long_suspend_max_held_bytes, c->held_bytes);
            r.long_suspend_max_unacked = std::max(r.long_suspend_max_unacked, c->unacked_bytes);
        }
    }
    // Drain: the room stops ticking; three seconds for everything in flight to land.
    for (int64_t now = static_cast<int64_t>(plan.ticks) * tick_ns, end = now + 3000 * ms; now <= end; now += tick_ns) {
        m.deliver(now);
        for (uint32_t i = 0; i < peer_count; ++i) m.advance(i, now, 1000 * ms);
        m.route(now);
    }

    const arena::World& room_world = m.room().state();
    r.room_tick = room_world.tick;
    r.room_digest = arena::digest(room_world);
    r.room_stats = m.room().stats();
    for (uint32_t i = 0; i < peer_count; ++i) {
        r.received_hash.push_back(received_hash[i]);
        r.figures.push_back(m.session(i).figures());
        const auto& w = m.session(i).confirmed_state();
        r.final_digest.push_back(w ? arena::digest(*w) : 0);
        r.final_tick.push_back(w ? w->tick : 0);
    }
    for (const auto& [second, n] : flooder_applied_per_second) r.flooder_max_applied_per_second = std::max(r.flooder_max_applied_per_second, n);
    r.garbage_received = m.received(garbage);
    r.fingerprint_received = m.received(fingerprint);
    return r;
}

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
