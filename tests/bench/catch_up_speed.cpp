// Resume after a hidden tab: which path the client session's resume rule takes (catching up or
// a fresh baseline), what it estimated for both, and what the resume then cost, so the estimate
// can be held against reality. Built natively and to wasm (run under Node);
// tests/bench/catch_up_speed.mjs runs both side by side and prints the ratio.
//   catch_up_speed [SECONDS=5] [--rtt-ms N=100]
// A net::Match<arena::Sim> with the default arena and 16 players: 15 bare protocol clients
// steering every tick (they never read, so the room's flow control pauses their streams), and
// one ClientSession<arena::Sim> on a link of the given round trip (half each way). The page is
// modelled on one thread in simulated time: display frames at 60 Hz call advance(); messages are
// handed to the session when they arrive and the page is not busy; every session call (advance
// and receive) is timed with a steady clock and takes that long in the simulated time, so a
// frame that overruns its vsync delays the next one, as a browser's would. The room's own work
// costs no time. After the join and 2 s of live play the page is hidden for SECONDS (its socket
// keeps receiving), then shown again; the resume ends when the session is current again (its
// resume closed and at most caught_up_ticks behind what it has received).
// It prints figures (one line of key=value, then a sentence) and asserts nothing: a resync is
// a legitimate choice of the rule. It exits 2 on bad arguments only.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/match.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/resume_rule.hpp"

using namespace tandem;
using namespace tandem::net;
using Game = arena::Sim;

namespace {

int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

constexpr int64_t second_ns = 1'000'000'000;
constexpr int64_t tick_ns = second_ns / 60;
constexpr int64_t frame_budget_ns = 16'000'000;  // a page at 60 Hz gives each frame about this
constexpr int64_t quantum_ns = 1'000'000;        // how finely arrivals are noticed (1 ms)
constexpr int64_t live_ns = 2 * second_ns;       // play after the join's round trip: costs get measured
constexpr int64_t give_up_ns = 120 * second_ns;  // a resume not over by then is reported as such
constexpr uint32_t players = 16;
// The chosen path's estimate is called right when actual / estimate lies in [1/k, k]. Two: the
// rule weighs a fetch against a catch-up, and a factor of two either way still orders them.
constexpr double estimate_factor = 2.0;

int64_t vsync_at(int64_t k) { return k * second_ns / 60; }   // the display's frames, no drift

struct Figures {
    ResumeFigures decided;      // the rule's choice and estimates, right after on_resume
    ResumeFigures ended;        // the resume's figures once current (a catch-up the room answered
                                // with a baseline ends as a resync)
    bool current = false;       // current again within give_up_ns
    int64_t actual_ns = 0;      // resume to current, in the page's (simulated) time
    int64_t work_ns = 0;        // of which inside the session's calls (advance and receive)
    int64_t advance_ns = 0;     // of which inside advance()
    uint64_t frames = 0;        // advance() calls from the resume to current
    uint64_t ticks = 0;         // ticks stepped from the resume to current
    uint64_t baselines = 0;     // baselines applied during the resume
    int64_t step_cost_ns = 0;   // the session's measure when it resumed
    // The receive() call that applied a baseline (its decode and install): the join's, which
    // the rule's baseline estimate is measured from, and the resume's (0: none).
    int64_t join_baseline_ns = 0;
    int64_t resume_baseline_ns = 0;
    uint64_t away_ticks = 0;    // room ticks while the page was hidden
};

Figures run(int64_t away_ns, int64_t rtt_ns) {
    RoomConfig<Game> config;
    config.max_players = players;
    Match<Game> match = Match<Game>::create(config).value();
    const LinkSpec link{rtt_ns / 2, 0};

    std::vector<uint8_t> message;
    auto hello = [&] {
        message.clear();
        encode(message, hello_for<Game>(Role::play));
        return message;
    };
    std::vector<uint32_t> bots;
    for (uint32_t i = 0; i + 1 < players; ++i) {
        bots.push_back(match.add_raw(100 + i, LinkSpec{}));
        match.connect(bots.back(), 0);
        match.send_raw(bots.back(), hello(), 0);
    }
    // The session sits outside the match on a raw endpoint, so that its receive() calls can be
    // timed (a baseline's decode is page work too) and its time be the page's.
    const uint32_t me = match.add_raw(1, link);
    ClientSession<Game> session(Role::play, 0);
    session.set_clock(steady_ns);
    match.connect(me, 0);
    session.on_connected(0);

    std::vector<std::vector<uint8_t>> out;
    auto flush = [&](int64_t at) {
        out.clear();
        session.take_outgoing(out);
        for (auto& m : out) match.send_raw(me, std::move(m), at);
    };
    flush(0);

    int64_t next_tick = tick_ns;
    uint32_t sequence = 0;
    // The room and the links up to t: every tick due (the bots' inputs first), every arrival;
    // what the room answers on a receive goes out at once, as the server's does.
    auto room_until = [&](int64_t t) {
        while (next_tick <= t) {
            match.deliver(next_tick);
            ++sequence;
            for (size_t b = 0; b < bots.size(); ++b) {
                // A target that moves every tick: a point per bot, drifting along a diagonal.
                const int32_t phase = static_cast<int32_t>((sequence * 7 + b * 37) % 64);
                const arena::Steer steer{{Fx::from_int(200 + 40 * static_cast<int32_t>(b) + phase), Fx::from_int(300 + phase)}};
                message.clear();
                encode(message, input_message<Game>(sequence, steer));
                match.send_raw(bots[b], message, next_tick);
            }
            match.deliver(next_tick);
            match.tick(next_tick);
            next_tick += tick_ns;
        }
        match.deliver(t);
        match.route(t);
    };

    Figures f;
    Figures* timing = nullptr;   // set from the resume on
    size_t read = 0;             // messages of `me` handed to the session so far
    int64_t free_at = 0;         // the page's thread is busy until then
    bool visible = true;
    int64_t resume_at = -1;

    auto handle_messages = [&](int64_t t) {
        const auto& in = match.received(me);
        bool any = false;
        while (read < in.size()) {
            const uint64_t baselines = session.figures().baselines;
            const int64_t t0 = steady_ns();
            session.receive(in[read++], t);
            const int64_t w = steady_ns() - t0;
            if (session.figures().baselines != baselines) (timing ? f.resume_baseline_ns : f.join_baseline_ns) = w;
            t += w;
            if (timing) timing->work_ns += w;
            any = true;
        }
        if (any) flush(t);
        return t;
    };
    auto frame = [&](int64_t t) {
        const int64_t t0 = steady_ns();
        const uint32_t applied = session.advance(t, frame_budget_ns);
        const int64_t w = steady_ns() - t0;
        if (timing) {
            timing->work_ns += w;
            timing->advance_ns += w;
            timing->ticks += applied;
            ++timing->frames;
        }
        flush(t + w);
        return t + w;
    };
    auto is_current = [&] {
        const SessionFigures s = session.figures();
        return s.last_resume.until_verified_ns >= 0 && s.lag_ticks <= caught_up_ticks && s.queued_frames <= caught_up_ticks;
    };

    // Events in time order: the 1 ms grid (arrivals), the display's vsyncs and the end of the
    // page's work. A vsync makes a frame pending; it runs as soon as the page is free, after the
    // messages waiting (a browser runs the frame's callback when the thread is free, late
    // rather than never, and holds at most one frame pending).
    int64_t t = 0;
    int64_t vsync = 0;
    bool frame_pending = false;
    // The join's baseline comes a round trip after the hello; the live play is counted from then.
    const int64_t hide_at = rtt_ns + live_ns;
    const int64_t show_at = hide_at + away_ns;
    for (;;) {
        room_until(t);
        if (t == vsync_at(vsync)) {
            ++vsync;
            if (visible && t >= hide_at && resume_at < 0) {
                visible = false;
                frame_pending = false;
                session.on_suspend(t);
            } else if (!visible && t >= show_at) {
                visible = true;
                resume_at = t;
                f.step_cost_ns = session.step_cost_ns();
                f.away_ticks = static_cast<uint64_t>((t - hide_at + tick_ns / 2) / tick_ns);
                const uint64_t baselines_before = session.figures().baselines;
                session.on_resume(t);
                f.decided = session.figures().last_resume;
                f.baselines = baselines_before;   // subtracted below
                flush(t);
                timing = &f;
            }
            if (visible) frame_pending = true;
        }
        if (free_at <= t) {
            free_at = handle_messages(t);
            if (frame_pending) {
                frame_pending = false;
                free_at = frame(free_at);
            }
        }
        if (timing && is_current()) {
            f.current = true;
            f.actual_ns = free_at - resume_at;
            break;
        }
        if (resume_at >= 0 && t - resume_at > give_up_ns) break;
        int64_t next = std::min((t / quantum_ns + 1) * quantum_ns, vsync_at(vsync));
        if (free_at > t && free_at < next) next = free_at;   // the page's work ends in between
        t = next;
    }
    f.ended = session.figures().last_resume;
    f.baselines = session.figures().baselines - f.baselines;
    if (!f.current) f.actual_ns = t - resume_at;
    return f;
}

std::string ms(int64_t ns) {
    if (ns == never_ns) return "never";
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", static_cast<double>(ns) * 1e-6);
    return text;
}

int usage(const char* why) {
    std::fprintf(stderr, "catch_up_speed: %s\nusage: catch_up_speed [SECONDS in (0, 60]] [--rtt-ms N in [0, 2000]]\n", why);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    double seconds = 5.0;
    double rtt_ms = 100.0;
    bool seconds_given = false;
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        const char* value = nullptr;
        if (std::strcmp(a, "--rtt-ms") == 0) {
            if (i + 1 >= argc) return usage("--rtt-ms needs a value");
            value = argv[++i];
        } else if (std::strncmp(a, "--rtt-ms=", 9) == 0) {
            value = a + 9;
        }
        char* end = nullptr;
        if (value != nullptr) {
            rtt_ms = std::strtod(value, &end);
            if (end == value || *end != '\0' || !(rtt_ms >= 0 && rtt_ms <= 2000)) return usage("--rtt-ms must be a number in [0, 2000]");
        } else if (!seconds_given && a[0] != '-') {
            seconds = std::strtod(a, &end);
            if (end == a || *end != '\0' || !(seconds > 0 && seconds <= 60)) return usage("SECONDS must be a number in (0, 60]");
            seconds_given = true;
        } else {
            return usage("unexpected argument");
        }
    }
    const auto away_ns = static_cast<int64_t>(seconds * 1e9);
    const auto rtt_ns = static_cast<int64_t>(rtt_ms * 1e6);
    const Figures f = run(away_ns, rtt_ns);

    const bool caught_up = f.decided.path == ResumePath::caught_up;
    const int64_t estimate = caught_up ? f.decided.catch_up_estimate_ns : f.decided.baseline_estimate_ns;
    const double ratio = estimate > 0 && estimate != never_ns ? static_cast<double>(f.actual_ns) / static_cast<double>(estimate) : 0.0;
    const bool estimate_ok = f.current && ratio > 0 && ratio <= estimate_factor && ratio >= 1.0 / estimate_factor;
    // Ticks caught up per second of the session's own stepping work: only for a catch-up that
    // ended as one (a baseline in between would make it a figure of neither path).
    const bool pure_catch_up = caught_up && f.ended.path == ResumePath::caught_up && f.advance_ns > 0;
    const double ticks_per_s = pure_catch_up ? static_cast<double>(f.ticks) * 1e9 / static_cast<double>(f.advance_ns) : 0.0;

    std::printf("seconds=%g rtt_ms=%g away_ticks=%" PRIu64 " behind_ticks=%" PRIu64 " chosen=%s taken=%s current=%s"
                " catch_up_estimate_ms=%s baseline_estimate_ms=%s actual_ms=%s work_ms=%s advance_ms=%s wait_ms=%s"
                " frames=%" PRIu64 " ticks=%" PRIu64 " baselines=%" PRIu64 " baseline_bytes=%" PRIu64
                " step_cost_us=%.1f join_baseline_ms=%s resume_baseline_ms=%s ticks_per_s=%.0f real_time_x=%.1f estimate_ratio=%.2f estimate_factor=%g estimate_ok=%s\n",
                seconds, rtt_ms, f.away_ticks, f.decided.behind_ticks, std::string(resume_path_name(f.decided.path)).c_str(),
                std::string(resume_path_name(f.ended.path)).c_str(), f.current ? "yes" : "no",
                ms(f.decided.catch_up_estimate_ns).c_str(), ms(f.decided.baseline_estimate_ns).c_str(), ms(f.actual_ns).c_str(),
                ms(f.work_ns).c_str(), ms(f.advance_ns).c_str(), ms(f.actual_ns - f.work_ns).c_str(), f.frames, f.ticks,
                f.baselines, f.ended.bytes, static_cast<double>(f.step_cost_ns) * 1e-3,
                ms(f.join_baseline_ns).c_str(), ms(f.resume_baseline_ns).c_str(), ticks_per_s, ticks_per_s / 60.0, ratio,
                estimate_factor, estimate_ok ? "yes" : "no");
    std::printf("after %g s hidden at %g ms RTT the rule chose to %s (estimates: catch up %s ms, baseline %s ms); "
                "it took %s ms to be current again (%s ms of it session work) by %s, over %" PRIu64 " frames, %" PRIu64
                " ticks stepped, %" PRIu64 " baseline bytes; the estimate of the chosen path is %s (actual / estimate %.2f, "
                "factor %g allowed)\n",
                seconds, rtt_ms, caught_up ? "catch up" : "take a baseline", ms(f.decided.catch_up_estimate_ns).c_str(),
                ms(f.decided.baseline_estimate_ns).c_str(), ms(f.actual_ns).c_str(), ms(f.work_ns).c_str(),
                f.ended.path == ResumePath::caught_up ? "catching up" : "a baseline", f.frames, f.ticks, f.ended.bytes,
                estimate_ok ? "within it" : "NOT within it", ratio, estimate_factor);
    if (!f.current) std::printf("the session was not current again %g s after the resume\n", static_cast<double>(give_up_ns) * 1e-9);
    return 0;
}
