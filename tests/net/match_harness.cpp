// The in-process match harness (match_harness.hpp): the scenario driver and its figures.
#include "net/match_harness.hpp"

#include <cstdio>
#include <map>
#include <optional>
#include <string>

namespace tandem::net::match {

namespace {

uint64_t fnv(uint64_t h, std::span<const uint8_t> bytes) {
    for (uint8_t b : bytes) h = (h ^ b) * 0x100000001B3u;
    return h;
}

// A socket in the test: two ordered links and the room's connection id.
struct Wire {
    uint32_t id = 0;
    bool open = false;
    LatencyLink<Bytes> up, down;   // an empty Bytes on `down` is the close of the socket
    int64_t latency_ns, jitter_ns;
    Wire(uint64_t seed, int64_t latency, int64_t jitter)
        : up(seed * 2 + 1), down(seed * 2 + 2), latency_ns(latency), jitter_ns(jitter) {}
};

struct PeerState {
    ClientSession session;
    std::optional<client::PredictedWorld> predicted;
    std::map<uint64_t, uint64_t> quiet_digests;   // predicted tick -> digest, late in the quiet
    Wire wire;
    bool reading = true;
    bool suspended = false;
    bool closed_by_room = false;
    std::vector<Bytes> unread;        // what arrived while not reading (the socket's buffer)
    uint64_t received_hash = 0xCBF29CE484222325u;
    uint64_t received_messages = 0;
    PeerState(Role role, uint64_t seed, int64_t latency, int64_t jitter) : session(role, 0), wire(seed, latency, jitter) {}
};

struct Intruder {
    Wire wire;
    std::vector<Bytes> received;
    bool closed = false;
    explicit Intruder(uint64_t seed) : wire(seed, 60 * ms, 10 * ms) {}
};

}  // namespace

world::WorldConfig match_world() {
    world::WorldConfig c = world::default_config();
    c.pellet_count = 128;   // a small world keeps 40,000 ticks of nine worlds affordable
    return c;
}

MatchResult run_match(const MatchPlan& plan) {
    RoomConfig rc;
    rc.world = match_world();
    Room room = Room::create(rc).value();

    std::vector<PeerState> peers;
    for (uint32_t i = 0; i < peer_count; ++i) {
        // 55-104 ms each way with 15 ms of jitter: every packet within 40-120 ms.
        peers.emplace_back(i == late_joiner ? Role::watch : Role::play, 100 + i, (55 + 7 * int64_t{i}) * ms, 15 * ms);
        // No clock: the prediction decides by its tick budget only, the same natively and in wasm.
        if (plan.predict && predicts(i)) peers.back().predicted.emplace(client::PredictedWorld::create().value());
    }
    std::map<uint64_t, uint64_t> room_digests;   // tick -> the room's digest, in the quiet
    Intruder garbage(900), fingerprint(901);

    MatchResult r;
    auto connect = [&](PeerState& p, int64_t now) {
        p.wire.id = room.connect(now);
        p.wire.open = true;
        p.session.on_connected(now);
    };
    auto ship_up = [&](PeerState& p, int64_t now) {
        std::vector<Bytes> out;
        p.session.take_outgoing(out);
        if (!p.wire.open) return;
        for (auto& b : out) p.wire.up.send(now, std::move(b), p.wire.latency_ns, p.wire.jitter_ns, Fx::zero());
    };
    auto deliver_to_session = [&](PeerState& p, const Bytes& b, int64_t now) {
        if (b.empty()) {   // the socket closed
            p.session.on_disconnected(now);
            return;
        }
        p.received_hash = fnv(fnv(p.received_hash, b), std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&now), 8));
        ++p.received_messages;
        p.session.receive(b, now);
    };
    std::map<uint64_t, uint64_t> flooder_applied_per_second;
    uint32_t flooder_player = watcher_id;
    uint32_t flood_sequence = 1'000'000;

    auto pump = [&](int64_t now) {
        // Down: the room's messages arrive (or pile up unread); up: the clients' arrive.
        for (uint32_t i = 0; i < peer_count; ++i) {
            PeerState& p = peers[i];
            for (Bytes& b : p.wire.down.drain_due(now)) {
                if (i == steady && !b.empty()) {
                    // The flooder's applied steers, from the frames everyone receives.
                    if (auto m = decode_server(b); m.ok()) {
                        if (auto* f = std::get_if<Frame>(&m.value())) {
                            for (const auto& a : f->inputs)
                                if (a.input.player == flooder_player && a.input.kind == world::InputKind::steer)
                                    ++flooder_applied_per_second[f->tick / 60];
                        }
                    }
                }
                if (p.reading) deliver_to_session(p, b, now);
                else p.unread.push_back(std::move(b));
            }
            for (Bytes& b : p.wire.up.drain_due(now))
                if (p.wire.open) room.receive(p.wire.id, b, now);
        }
        for (Intruder* in : {&garbage, &fingerprint}) {
            for (Bytes& b : in->wire.down.drain_due(now)) {
                if (b.empty()) in->closed = true;
                else in->received.push_back(std::move(b));
            }
            for (Bytes& b : in->wire.up.drain_due(now))
                if (in->wire.open) room.receive(in->wire.id, b, now);
        }
    };
    auto route_outbox = [&](int64_t now) {
        std::vector<Outgoing> sends;
        std::vector<CloseRequest> closes;
        room.take_outbox(sends, closes);
        auto wire_of = [&](uint32_t id) -> Wire* {
            for (auto& p : peers)
                if (p.wire.open && p.wire.id == id) return &p.wire;
            for (Intruder* in : {&garbage, &fingerprint})
                if (in->wire.open && in->wire.id == id) return &in->wire;
            return nullptr;
        };
        for (const Outgoing& o : sends)
            if (Wire* w = wire_of(o.to)) w->down.send(now, *o.bytes, w->latency_ns, w->jitter_ns, Fx::zero());
        for (const CloseRequest& c : closes) {
            if (Wire* w = wire_of(c.who)) {
                w->down.send(now, Bytes{}, w->latency_ns, w->jitter_ns, Fx::zero());
                w->open = false;
            }
            for (auto& p : peers)
                if (&p.wire == wire_of(c.who)) p.closed_by_room = true;
            room.disconnect(c.who, now);
        }
    };

    for (uint64_t t = 0; t < plan.ticks; ++t) {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        // ---- Scenario events ----
        if (t < peer_count && t != late_joiner) connect(peers[static_cast<size_t>(t)], now);
        if (t == late_join_at) connect(peers[late_joiner], now);
        if (plan.intruders && t == intruder_garbage_at) garbage.wire.id = room.connect(now), garbage.wire.open = true;
        if (plan.intruders && t == intruder_garbage_at + 2)
            garbage.wire.up.send(now, Bytes{0x02, 0xFF, 0x00}, garbage.wire.latency_ns, garbage.wire.jitter_ns, Fx::zero());
        if (plan.intruders && t == intruder_fingerprint_at) {
            fingerprint.wire.id = room.connect(now);
            fingerprint.wire.open = true;
            Bytes hello;
            encode(hello, Hello{protocol_version, world::fingerprint_hash() ^ 1, Role::play});
            fingerprint.wire.up.send(now, hello, fingerprint.wire.latency_ns, fingerprint.wire.jitter_ns, Fx::zero());
        }
        if (t == suspend_at) {
            peers[short_suspend].session.on_suspend(now), peers[short_suspend].suspended = true;
            peers[long_suspend].session.on_suspend(now), peers[long_suspend].suspended = true;
        }
        if (t == suspend_at + short_suspend_ticks)
            peers[short_suspend].session.on_resume(now), peers[short_suspend].suspended = false;
        if (t == suspend_at + plan.long_suspend_ticks)
            peers[long_suspend].session.on_resume(now), peers[long_suspend].suspended = false;
        if (t == first_pause_at || t == second_pause_at) peers[non_reader].reading = false;
        if (t == first_pause_at + first_pause_ticks || t == second_pause_at + second_pause_ticks) {
            PeerState& p = peers[non_reader];
            p.reading = true;
            for (const Bytes& b : p.unread) deliver_to_session(p, b, now);
            p.unread.clear();
        }
        if (t == second_pause_at) r.non_reader_after_first_pause = peers[non_reader].session.figures();
        if (t == rejoiner_leaves_at) {
            PeerState& p = peers[rejoiner];
            room.disconnect(p.wire.id, now);
            p.wire = Wire(200, p.wire.latency_ns, p.wire.jitter_ns);   // the old socket's packets are gone
            p.session.on_disconnected(now);
        }
        if (t == rejoiner_returns_at) connect(peers[rejoiner], now);

        // ---- The network, the clients, the room ----
        pump(now);
        for (uint32_t i = 0; i < peer_count; ++i) {
            PeerState& p = peers[i];
            if (!p.wire.open && !p.session.figures().connected) continue;
            const bool quiet = t >= quiet_from && t < quiet_from + quiet_ticks;
            if (p.session.figures().role == Role::play && t % 6 == i % 6 && !quiet) {
                const int64_t phase = static_cast<int64_t>((t / 6 + i * 37) % 400);
                p.session.steer(Vec2{Fx::from_int(100 + static_cast<int32_t>(phase) * 2), Fx::from_int(900 - static_cast<int32_t>(phase))}, now);
                if (p.predicted && !p.suspended) p.predicted->update(p.session, now);
            }
            if (!p.suspended) {
                p.session.advance(now, advance_budget_ns);
                // One page frame: the prediction follows the session after its advance.
                if (p.predicted) {
                    p.predicted->update(p.session, now);
                    p.predicted->end_frame();
                    const auto& w = p.predicted->world();
                    if (w && quiet && t >= quiet_from + quiet_settle_ticks) p.quiet_digests[w->tick] = world::digest(*w);
                }
            }
            ship_up(p, now);
        }
        if (t == corrupt_at) {
            r.corrupted_verified_at_corruption = peers[corrupted].session.figures().verified_tick;
            peers[corrupted].session.corrupt_once_for_testing();
        }
        if (t >= flood_from && peers[flooder].wire.open) {
            PeerState& p = peers[flooder];
            if (flooder_player == watcher_id) flooder_player = p.session.figures().player;
            for (uint64_t k = 0; k < flood_per_tick; ++k) {
                Bytes b;
                encode(b, InputMsg{flood_sequence++, Vec2{Fx::from_int(5), Fx::from_int(static_cast<int32_t>(k))}});
                p.wire.up.send(now, std::move(b), p.wire.latency_ns, p.wire.jitter_ns, Fx::zero());
            }
        }
        room.tick(now);
        if (t >= quiet_from && t < quiet_from + quiet_ticks + 60) room_digests[room.world().tick] = world::digest(room.world());
        route_outbox(now);

        if (auto c = room.client(peers[long_suspend].wire.id); c && peers[long_suspend].suspended) {
            r.long_suspend_max_held_bytes = std::max(r.long_suspend_max_held_bytes, c->held_bytes);
            r.long_suspend_max_unacked = std::max(r.long_suspend_max_unacked, c->unacked_bytes);
        }
    }
    // Drain: the room stops ticking; three seconds for everything in flight to land.
    for (int64_t now = static_cast<int64_t>(plan.ticks) * tick_ns, end = now + 3000 * ms; now <= end; now += tick_ns) {
        pump(now);
        for (auto& p : peers) {
            if (!p.suspended) {
                p.session.advance(now, 1000 * ms);
                if (p.predicted) p.predicted->update(p.session, now), p.predicted->end_frame();
            }
            ship_up(p, now);
        }
        route_outbox(now);
    }

    r.room_tick = room.world().tick;
    r.room_digest = world::digest(room.world());
    r.room_stats = room.stats();
    for (auto& p : peers) {
        r.received_hash.push_back(p.received_hash);
        r.figures.push_back(p.session.figures());
        const auto& w = p.session.confirmed_world();
        r.final_digest.push_back(w ? world::digest(*w) : 0);
        r.final_tick.push_back(w ? w->tick : 0);
        PredictedResult pr;
        if (p.predicted) {
            pr.predicting = true;
            pr.figures = p.predicted->figures();
            for (const auto& [tick, digest] : p.quiet_digests) {
                ++pr.quiet_checked;
                auto it = room_digests.find(tick);
                if (it != room_digests.end() && it->second == digest) continue;
                if (pr.quiet_differ++ == 0) pr.quiet_first_differ = tick;
            }
            if (const auto& pw = p.predicted->world()) pr.final_tick = pw->tick, pr.final_digest = world::digest(*pw);
        }
        r.predicted.push_back(pr);
    }
    for (const auto& [second, n] : flooder_applied_per_second) r.flooder_max_applied_per_second = std::max(r.flooder_max_applied_per_second, n);
    r.garbage_received = garbage.received;
    r.fingerprint_received = fingerprint.received;
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
        if (const PredictedResult& p = r.predicted[i]; p.predicting)
            std::printf("%-13s predicted tick %llu depth %u (target %u) rollbacks %llu resimulated %llu (p99 %u a frame) resets %llu "
                        "corrections %llu monitor alarms %llu | quiet: %llu predicted ticks, %llu not the room's (first %llu)\n",
                        peer_names[i], (unsigned long long)p.final_tick, p.figures.depth_ticks, p.figures.target_depth_ticks,
                        (unsigned long long)p.figures.rollbacks, (unsigned long long)p.figures.resimulated_ticks, p.figures.resim_ticks_p99,
                        (unsigned long long)p.figures.resets, (unsigned long long)p.figures.corrections,
                        (unsigned long long)p.figures.monitor_alarms, (unsigned long long)p.quiet_checked, (unsigned long long)p.quiet_differ,
                        (unsigned long long)p.quiet_first_differ);
    }
}

}  // namespace tandem::net::match
