// Catch-up speed: how many ticks a second a client session applies (step, digest, verify)
// while it catches up after a hidden tab, on the path a page takes. Built natively and to wasm
// (run under Node); tests/bench/catch_up_speed.mjs runs both side by side and prints the ratio.
// A room with the default world and 16 players steering every tick; one of them is suspended
// for SECONDS (default 5) while the room runs on, then resumed and driven at 60 frames a second
// of simulated time until it has caught up. Only the session's advance() calls are timed (a
// steady clock), so the figure is the session's own work, not the room's.
// It asserts nothing beyond "the session caught up without a baseline" and prints figures. The
// room, the session and the bots' raw sockets are pumped by net::Match (links without latency).
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/match.hpp"
#include "tandem/net/protocol.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

using Sim = arena::Sim;

int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

constexpr int64_t tick_ns = 1'000'000'000 / 60;
constexpr int64_t frame_budget_ns = 16'000'000;  // a page at 60 Hz gives each frame about this
constexpr uint32_t players = 16;
constexpr LinkSpec instant{0, 0};                // what is sent by now arrives at the next deliver(now)

struct Figures {
    uint64_t ticks = 0;        // ticks applied from resume to caught up
    uint64_t calls = 0;        // advance() calls (page frames) it took
    int64_t advance_ns = 0;    // steady time inside those calls
    uint64_t baselines = 0;    // must stay as before the suspend: a catch-up, not a resync
    int64_t step_cost_ns = 0;  // the session's own measure when it resumed
    int64_t catch_up_estimate_ns = 0, baseline_estimate_ns = 0;   // what its resume rule weighed
};

Figures run(uint64_t away_ticks) {
    RoomConfig<Sim> config;
    config.max_players = players;
    Match<Sim> m = Match<Sim>::create(config).value();
    int64_t now = 0;
    std::vector<uint8_t> message;

    // 15 players as bare protocol clients (raw endpoints): they steer every tick and never
    // acknowledge (the room's flow control stops sending to them after its window; their
    // inputs still land).
    std::vector<uint32_t> bots;
    for (uint32_t i = 0; i + 1 < players; ++i) {
        const uint32_t b = m.add_raw(100 + i, instant);
        m.connect(b, now);
        message.clear();
        encode(message, hello_for<Sim>(Role::play));
        m.send_raw(b, message, now);
        bots.push_back(b);
    }
    const uint32_t me = m.add_session(Role::play, 1, instant, now);
    m.session(me).set_clock(steady_ns);
    m.connect(me, now);

    uint32_t sequence = 0;
    // One room tick: the bots' inputs (and the session's last messages) reach the room, it
    // ticks, and its frame reaches the session at once.
    auto room_tick = [&] {
        ++sequence;
        for (size_t b = 0; b < bots.size(); ++b) {
            message.clear();
            // A target that moves every tick: a circle of radius 64 around a point per bot.
            const int32_t phase = static_cast<int32_t>((sequence * 7 + b * 37) % 64);
            const arena::Steer steer{Vec2{Fx::from_int(200 + 40 * static_cast<int32_t>(b) + phase), Fx::from_int(300 + phase)}};
            encode(message, input_message<Sim>(sequence, steer));
            m.send_raw(bots[b], message, now);
        }
        m.deliver(now);
        m.tick(now);
        m.deliver(now);
    };
    // One page frame, timed: the session's advance (and its messages onto the socket).
    auto client_frame = [&](Figures* f) {
        const int64_t t0 = steady_ns();
        const uint32_t applied = m.advance(me, now, frame_budget_ns);
        if (f != nullptr) {
            f->advance_ns += steady_ns() - t0;
            f->ticks += applied;
            ++f->calls;
        }
    };

    // Two seconds of live play, so the session has measured its step cost.
    for (int i = 0; i < 120; ++i) {
        now += tick_ns;
        room_tick();
        client_frame(nullptr);
    }
    // Away: the page stops running; its socket keeps receiving (a hidden tab's does).
    m.suspend(me, now);
    for (uint64_t i = 0; i < away_ticks; ++i) {
        now += tick_ns;
        room_tick();
    }
    ClientSession<Sim>& session = m.session(me);
    const uint64_t baselines_before = session.figures().baselines;
    Figures f;
    f.step_cost_ns = session.step_cost_ns();
    m.resume(me, now);
    for (int frame = 0; frame < 100'000; ++frame) {
        now += tick_ns;
        room_tick();
        client_frame(&f);
        const SessionFigures s = session.figures();
        if (s.last_resume.until_verified_ns >= 0 && s.lag_ticks <= caught_up_ticks) break;
    }
    f.baselines = session.figures().baselines - baselines_before;
    f.catch_up_estimate_ns = session.figures().last_resume.catch_up_estimate_ns;
    f.baseline_estimate_ns = session.figures().last_resume.baseline_estimate_ns;
    return f;
}

}  // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::strtod(argv[1], nullptr) : 5.0;
    if (!(seconds > 0 && seconds <= 60)) {
        std::fprintf(stderr, "catch_up_speed: SECONDS must be in (0, 60], got %s\n", argv[1]);
        return 2;
    }
    const uint64_t away = static_cast<uint64_t>(seconds * 60);
    const Figures f = run(away);
    if (f.baselines != 0) {
        std::fprintf(stderr,
                     "catch_up_speed: the session resynced from a baseline instead of catching up %" PRIu64
                     " missed ticks: its resume rule found the baseline faster (catch-up %.0f ms, baseline %.0f ms by its "
                     "estimates); try fewer seconds or an optimised build\n",
                     away, static_cast<double>(f.catch_up_estimate_ns) * 1e-6, static_cast<double>(f.baseline_estimate_ns) * 1e-6);
        std::fprintf(stderr, "catch_up_speed: step cost measured before the resume: %.0f us\n",
                     static_cast<double>(f.step_cost_ns) * 1e-3);
        return 1;
    }
    std::printf("away_ticks=%" PRIu64 " caught_up_ticks=%" PRIu64 " frames=%" PRIu64 " advance_ms=%.1f ticks_per_s=%.0f step_cost_before_us=%.0f\n",
                away, f.ticks, f.calls, static_cast<double>(f.advance_ns) * 1e-6,
                static_cast<double>(f.ticks) * 1e9 / static_cast<double>(f.advance_ns),
                static_cast<double>(f.step_cost_ns) * 1e-3);
    return 0;
}
