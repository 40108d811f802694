// The in-process match harness: the scenario of a real match, every case in one deterministic
// run (no clock: time is the simulated tick), driven by net::Match<G> for any game G (a Room and
// eight ClientSessions over LatencyLinks, plus raw intruders); the game supplies only its room
// config, its players' commands and a corruption (MatchGame<G>). Shared by the Catch2 match
// tests (the arena's, ships') and match_report, which runs the arena's natively and in wasm.
#pragma once

#include "arena/sim.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/match.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
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
    // Two more: a watcher that sends a command and a watcher that says hello again (each
    // refused as unexpected). Off in the arena's canonical report, which predates them.
    bool protocol_intruders = false;
};

// Events, in ticks of the room.
constexpr uint64_t flood_from = 300, flood_per_tick = 10;
constexpr uint64_t intruder_garbage_at = 400, intruder_fingerprint_at = 450;
constexpr uint64_t intruder_watcher_command_at = 470, intruder_second_hello_at = 490;
// Half a second: well inside the resume rule's line for the short suspender's link (a 124 ms
// round trip and an 8 ms slice a tick make catching up faster up to about 60 ticks behind).
constexpr uint64_t suspend_at = 600, short_suspend_ticks = 30;
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
    std::vector<Bytes> watcher_command_received, second_hello_received;   // plan.protocol_intruders
    std::vector<uint64_t> steady_ticks_unverified;   // room ticks the steady client never verified
};

extern const char* const peer_names[peer_count];

// What a game brings to the match: the room's config (its tick_hz must be 60: the plan's
// events are at 60 ticks a second), player i's command at tick t (sent every sixth tick), the
// flooder's k-th command of a tick, and the corruption of the corrupted client's state.
template <sim::Simulation G>
struct MatchGame {
    RoomConfig<G> room;
    std::function<typename G::Command(uint64_t tick, uint32_t peer)> steer;
    std::function<typename G::Command(uint64_t k)> flood;
    std::function<void(typename G::State&)> corrupt;
    // For a test that draws over the sessions (tandem_net's tests link no client library):
    // called once the endpoints exist (to attach followers, Match::follow), and after every
    // room tick of the plan with the loop's tick. Neither is set in the report's run.
    std::function<void(Match<G>&)> on_start;
    std::function<void(Match<G>&, uint64_t t)> after_tick;
};

namespace detail {
inline uint64_t fnv(uint64_t h, std::span<const uint8_t> bytes) {
    for (uint8_t b : bytes) h = (h ^ b) * 0x100000001B3u;
    return h;
}
}  // namespace detail

template <sim::Simulation G>
MatchResult run_match(const MatchPlan& plan, const MatchGame<G>& game) {
    using Sim = G;
    Match<Sim> m = Match<Sim>::create(game.room).value();

    for (uint32_t i = 0; i < peer_count; ++i) {
        // 55-104 ms each way with 15 ms of jitter: every packet within 40-120 ms.
        m.add_session(i == late_joiner ? Role::watch : Role::play, 100 + i, LinkSpec{(55 + 7 * int64_t{i}) * ms, 15 * ms}, 0);
    }
    const uint32_t garbage = m.add_raw(900, LinkSpec{60 * ms, 10 * ms});
    const uint32_t fingerprint = m.add_raw(901, LinkSpec{60 * ms, 10 * ms});
    // Added after the others so their links' seeds and indices are those of the canonical run.
    const uint32_t watcher_command = plan.protocol_intruders ? m.add_raw(902, LinkSpec{60 * ms, 10 * ms}) : 0;
    const uint32_t second_hello = plan.protocol_intruders ? m.add_raw(903, LinkSpec{60 * ms, 10 * ms}) : 0;
    const auto encoded = [](const auto& message) {
        Bytes bytes;
        encode(bytes, message);
        return bytes;
    };
    if (game.on_start) game.on_start(m);

    MatchResult r;
    std::vector<uint64_t> received_hash(peer_count, 0xCBF29CE484222325u);
    std::map<uint64_t, uint64_t> flooder_applied_per_second;
    uint32_t flooder_player = watcher_id;
    uint32_t flood_sequence = 1'000'000;
    std::vector<Applied<Sim>> applied;
    m.set_observer([&](uint32_t e, std::span<const uint8_t> b, int64_t now) {
        if (e >= peer_count) return;
        received_hash[e] = detail::fnv(detail::fnv(received_hash[e], b), std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&now), 8));
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
            m.send_raw(fingerprint, encoded(hello), now);
        }
        if (plan.protocol_intruders && t == intruder_watcher_command_at) {
            m.connect(watcher_command, now);
            m.send_raw(watcher_command, encoded(hello_for<Sim>(Role::watch)), now);
            m.send_raw(watcher_command, encoded(input_message<Sim>(1, game.steer(t, 0))), now);
        }
        if (plan.protocol_intruders && t == intruder_second_hello_at) {
            // A watcher asking for a seat with a second hello. (A watcher: a player's join and
            // leave would be in everyone's frames, which the intruder-free rerun compares.)
            m.connect(second_hello, now);
            m.send_raw(second_hello, encoded(hello_for<Sim>(Role::watch)), now);
            m.send_raw(second_hello, encoded(hello_for<Sim>(Role::play)), now);
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
            if (s.figures().role == Role::play && t % 6 == i % 6 && !quiet) m.send_command(i, game.steer(t, i), now);
            m.advance(i, now, advance_budget_ns);
        }
        if (t == corrupt_at) {
            r.corrupted_verified_at_corruption = m.session(corrupted).figures().verified_tick;
            m.session(corrupted).corrupt_for_testing(game.corrupt);
        }
        if (t >= flood_from && m.open(flooder)) {
            if (flooder_player == watcher_id) flooder_player = m.session(flooder).figures().player;
            for (uint64_t k = 0; k < flood_per_tick; ++k) m.send_raw(flooder, encoded(input_message<Sim>(flood_sequence++, game.flood(k))), now);
        }
        m.tick(now);
        if (game.after_tick) game.after_tick(m, t);

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

    r.room_tick = Sim::tick(m.room().state());
    r.room_digest = sim::digest<Sim>(m.room().state());
    r.room_stats = m.room().stats();
    for (uint32_t i = 0; i < peer_count; ++i) {
        r.received_hash.push_back(received_hash[i]);
        r.figures.push_back(m.session(i).figures());
        const auto& w = m.session(i).confirmed_state();
        r.final_digest.push_back(w ? sim::digest<Sim>(*w) : 0);
        r.final_tick.push_back(w ? Sim::tick(*w) : 0);
    }
    for (const auto& [second, n] : flooder_applied_per_second) r.flooder_max_applied_per_second = std::max(r.flooder_max_applied_per_second, n);
    r.garbage_received = m.received(garbage);
    r.fingerprint_received = m.received(fingerprint);
    if (plan.protocol_intruders) {
        r.watcher_command_received = m.received(watcher_command);
        r.second_hello_received = m.received(second_hello);
    }
    return r;
}

// The arena's match (match_world, a slow steer per player): the canonical report's.
arena::WorldConfig match_world();
MatchGame<arena::Sim> arena_match();
MatchResult run_match(const MatchPlan& plan);
// The figures, for a reader of the test's output (rtt and jitter in ms, as floating point).
void print_figures(const MatchResult& r);

}  // namespace tandem::net::match
