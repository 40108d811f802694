// The prediction playground: the experiments behind the figures in docs/prediction.md, run
// through the kit itself (tandem/predict) and printed beside the figures they reproduce.
// Not a timing benchmark and not a test: it measures errors in world units, deterministically.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <vector>

#include "tandem/core/random.hpp"
#include "tandem/predict/predicted_player.hpp"
#include "tandem/predict/remote_view.hpp"
#include "tandem/predict/smoothing.hpp"

namespace {

using namespace tandem::predict;

constexpr double pi = 3.14159265358979323846;

using V2 = tandem::predict::Float2;
double dist(V2 a, V2 b) { return std::hypot(double(a.x) - double(b.x), double(a.y) - double(b.y)); }

// ---- 1. Ease versus rate ---------------------------------------------------------------------
// An entity standing still whose logical position is corrected by +2 units every `interval`
// 60 Hz frames; the drawn error is measured after each frame's advance.
float lerp1(const float& a, const float& b, float t) { return a + (b - a) * t; }

double worst_drawn_error(const ErrorSmoother<float>& prototype, int interval_frames) {
    ErrorSmoother<float> s = prototype;
    float logical = 0.0f;
    double worst = 0.0;
    for (int frame = 0; frame < 1200; ++frame) {
        if (frame % interval_frames == 0) {
            const float drawn = s.sample(logical, lerp1);
            logical += 2.0f;
            s.begin_from(drawn);
        }
        s.advance(1.0f / 60.0f);
        worst = std::max(worst, double(std::fabs(s.sample(logical, lerp1) - logical)));
    }
    return worst;
}

void ease_versus_rate() {
    std::printf("\n## 1. Ease versus rate: worst drawn error of repeated 2-unit corrections (60 Hz frames)\n\n");
    std::printf("| corrections | ease 0.1 s (linear) | ease 0.1 s (out-cubic) | at_rate(0.85) | reference: ease / rate |\n");
    std::printf("|---|---|---|---|---|\n");
    const struct {
        const char* label;
        int interval;
        const char* reference;
    } rows[] = {{"one every 0.5 s", 30, "1.67 / 1.71"},
                {"one every 0.25 s", 15, "-"},
                {"one every 0.1 s", 6, "-"},
                {"one every 3 frames", 3, "-"},
                {"one every frame", 1, "10.00 / 11.33"}};
    for (const auto& r : rows) {
        std::printf("| %s | %.2f | %.2f | %.2f | %s |\n", r.label, worst_drawn_error(ErrorSmoother<float>(0.1f), r.interval),
                    worst_drawn_error(ErrorSmoother<float>(0.1f).with_easing(ease_out_cubic), r.interval),
                    worst_drawn_error(ErrorSmoother<float>::at_rate(0.85f), r.interval), r.reference);
    }
}

// ---- 2. Spline versus chord on a circle --------------------------------------------------
V2 on_circle(double r, double w, double t) { return V2{float(r * std::cos(w * t)), float(r * std::sin(w * t))}; }
V2 circle_velocity(double r, double w, double t) {
    return V2{float(-r * w * std::sin(w * t)), float(r * w * std::cos(w * t))};
}

void spline_versus_chord_on_a_circle() {
    std::printf("\n## 2. Spline versus chord: radius 10, half a turn per second, samples at 10 Hz\n\n");
    const double r = 10.0, w = pi;
    HermiteView<V2, V2> spline(64);
    RemoteView<V2, V2> chord(64, 0.0);
    for (int i = 0; i <= 40; ++i) {
        const double t = i / 10.0;
        spline.push(i * 100.0, on_circle(r, w, t), circle_velocity(r, w, t));
        chord.push(i * 100.0, on_circle(r, w, t), circle_velocity(r, w, t));
    }
    double worst_spline = 0.0, worst_chord = 0.0, sum_spline = 0.0, sum_chord = 0.0;
    int n = 0;
    for (double ms = 0.0; ms <= 4000.0; ms += 0.25, ++n) {
        const V2 truth = on_circle(r, w, ms / 1000.0);
        const double es = dist(*spline.render(ms), truth);
        const double ec = dist(*chord.render(ms, RenderOpts{true, false}), truth);
        worst_spline = std::max(worst_spline, es);
        worst_chord = std::max(worst_chord, ec);
        sum_spline += es;
        sum_chord += ec;
    }
    const double theta = w / 10.0;
    std::printf("| | spline (HermiteView) | chord (RemoteView) | ratio | reference |\n|---|---|---|---|---|\n");
    std::printf("| worst error | %.4f | %.4f | %.0fx | 0.0003 vs 0.1231, 484x |\n", worst_spline, worst_chord,
                worst_chord / worst_spline);
    std::printf("| mean error | %.5f | %.4f | %.0fx | - |\n", sum_spline / n, sum_chord / n, sum_chord / sum_spline);
    std::printf("| closed form | r theta^4 / 384 = %.4f | r (1 - cos(theta/2)) = %.4f | %.0fx | (theta = pi/10 per sample) |\n",
                r * std::pow(theta, 4) / 384.0, r * (1.0 - std::cos(theta / 2.0)),
                (1.0 - std::cos(theta / 2.0)) * 384.0 / std::pow(theta, 4));
}

// ---- 3. Spline versus chord with impacts -------------------------------------------------
// 300 discs (radius 0.5) in a 30 x 20 box, simulated at 1 kHz as the truth (impulses between
// discs and off the walls, a little positional correction as a solver applies); position
// and velocity sampled at 10 Hz; drawn at 60 Hz between two samples. Three regimes: free
// flight under gravity (no impacts at all), a pile settling under gravity (restitution
// 0.6), and a gas of fast elastic discs without gravity (impacts in most intervals). An
// interval "has an impact" when a disc's velocity jumped by more than 0.5 units/s in it.
enum class Regime { free_flight, pile, gas };

struct ImpactRun {
    double mean_spline = 0.0, mean_chord = 0.0, worst_spline = 0.0, worst_chord = 0.0;
    double frames_off_segment = 0.0, worst_off_segment = 0.0;
    double impact_spline = 0.0, impact_chord = 0.0;   // mean errors in intervals with an impact
    double smooth_spline = 0.0, smooth_chord = 0.0;   // and in those without
    double frames_with_impact = 0.0;
};

double distance_to_segment(V2 p, V2 a, V2 b) {
    const double abx = double(b.x) - a.x, aby = double(b.y) - a.y;
    const double len2 = abx * abx + aby * aby;
    double t = len2 > 0.0 ? ((double(p.x) - a.x) * abx + (double(p.y) - a.y) * aby) / len2 : 0.0;
    t = std::clamp(t, 0.0, 1.0);
    return std::hypot(double(p.x) - (a.x + t * abx), double(p.y) - (a.y + t * aby));
}

struct Body {
    double x, y, vx, vy;
};

ImpactRun impacts(Regime regime) {
    const int bodies = 300, ms_total = 8000;
    const bool collide = regime != Regime::free_flight;
    const double radius = 0.5, width = 30.0, height = 20.0, dt = 0.001;
    const double g = regime == Regime::gas ? 0.0 : -9.81;
    const double e = regime == Regime::gas ? 1.0 : 0.6;
    tandem::XorShift rng(2024);
    auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * double(rng.next() >> 11) / double(1ull << 53); };
    std::vector<Body> b(bodies);
    for (auto& body : b) {
        if (regime == Regime::gas) body = {uniform(1, width - 1), uniform(1, height - 1), uniform(-10, 10), uniform(-10, 10)};
        else body = {uniform(1, width - 1), uniform(height / 3, height - 1), uniform(-8, 8), uniform(-4, 8)};
    }
    // Per millisecond: every disc's position and velocity, and whether it took an impact.
    std::vector<std::vector<V2>> truth(ms_total + 1, std::vector<V2>(bodies));
    std::vector<std::vector<V2>> velocity(ms_total + 1, std::vector<V2>(bodies));
    std::vector<std::vector<char>> hit(ms_total + 1, std::vector<char>(bodies, 0));
    std::vector<Body> before(bodies);
    for (int ms = 0; ms <= ms_total; ++ms) {
        if (ms > 0) {
            for (auto& p : b) {
                p.vy += g * dt;
                p.x += p.vx * dt;
                p.y += p.vy * dt;
            }
            before = b;
            if (collide) {
                for (auto& p : b) {
                    if (p.x < radius && p.vx < 0) { p.vx = -e * p.vx; p.x = radius; }
                    if (p.x > width - radius && p.vx > 0) { p.vx = -e * p.vx; p.x = width - radius; }
                    if (p.y < radius && p.vy < 0) { p.vy = -e * p.vy; p.y = radius; }
                    if (p.y > height - radius && p.vy > 0) { p.vy = -e * p.vy; p.y = height - radius; }
                }
                for (int i = 0; i < bodies; ++i)
                    for (int j = i + 1; j < bodies; ++j) {
                        const double dx = b[j].x - b[i].x, dy = b[j].y - b[i].y, d2 = dx * dx + dy * dy;
                        if (d2 >= 4 * radius * radius || d2 == 0.0) continue;
                        const double d = std::sqrt(d2), nx = dx / d, ny = dy / d;
                        const double closing = (b[i].vx - b[j].vx) * nx + (b[i].vy - b[j].vy) * ny;
                        if (closing > 0) {
                            const double impulse = (1 + e) * closing / 2;
                            b[i].vx -= impulse * nx; b[i].vy -= impulse * ny;
                            b[j].vx += impulse * nx; b[j].vy += impulse * ny;
                        }
                        const double push = 0.4 * (2 * radius - d) / 2;
                        b[i].x -= push * nx; b[i].y -= push * ny;
                        b[j].x += push * nx; b[j].y += push * ny;
                    }
            }
            for (int i = 0; i < bodies; ++i)
                hit[ms][i] = std::hypot(b[i].vx - before[i].vx, b[i].vy - before[i].vy) > 0.5 ? 1 : 0;
        }
        for (int i = 0; i < bodies; ++i) {
            truth[ms][i] = V2{float(b[i].x), float(b[i].y)};
            velocity[ms][i] = V2{float(b[i].vx), float(b[i].vy)};
        }
    }
    ImpactRun run;
    double frames = 0, impact_frames = 0, smooth_frames = 0;
    for (int i = 0; i < bodies; ++i) {
        HermiteView<V2, V2> spline(8);
        RemoteView<V2, V2> chord(8, 0.0);
        for (int ms = 0; ms <= ms_total; ms += 100) {
            spline.push(ms, truth[ms][i], velocity[ms][i]);
            chord.push(ms, truth[ms][i], velocity[ms][i]);
            if (ms == 0) continue;
            bool impact = false;
            for (int k = ms - 99; k <= ms; ++k) impact = impact || hit[k][i];
            // 60 Hz frames inside (ms - 100, ms), at whole milliseconds where the truth is kept.
            for (int f = (ms - 100) * 60 / 1000; f * 1000 / 60 < ms; ++f) {
                const int at = f * 1000 / 60;
                if (at <= ms - 100) continue;
                const V2 s = *spline.render(at);
                const V2 c = *chord.render(at, RenderOpts{true, false});
                const double es = dist(s, truth[at][i]), ec = dist(c, truth[at][i]);
                run.mean_spline += es;
                run.mean_chord += ec;
                run.worst_spline = std::max(run.worst_spline, es);
                run.worst_chord = std::max(run.worst_chord, ec);
                const double off = distance_to_segment(s, truth[ms - 100][i], truth[ms][i]);
                if (off > 0.01) run.frames_off_segment += 1;
                run.worst_off_segment = std::max(run.worst_off_segment, off);
                if (impact) {
                    run.impact_spline += es;
                    run.impact_chord += ec;
                    impact_frames += 1;
                } else {
                    run.smooth_spline += es;
                    run.smooth_chord += ec;
                    smooth_frames += 1;
                }
                frames += 1;
            }
        }
    }
    run.mean_spline /= frames;
    run.mean_chord /= frames;
    run.frames_off_segment /= frames;
    run.frames_with_impact = impact_frames / frames;
    if (impact_frames > 0) {
        run.impact_spline /= impact_frames;
        run.impact_chord /= impact_frames;
    }
    if (smooth_frames > 0) {
        run.smooth_spline /= smooth_frames;
        run.smooth_chord /= smooth_frames;
    }
    return run;
}

void spline_versus_chord_with_impacts() {
    std::printf("\n## 3. Spline versus chord with impacts: 300 discs in a box, 1 kHz truth, 10 Hz samples, 60 Hz frames\n\n");
    std::printf("| regime | frames in an impact interval | mean error spline / chord (ratio) | in impact intervals (ratio) | in impact-free intervals (ratio) | worst spline / chord | frames off the segment by > 0.01 | worst off |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    const struct {
        Regime regime;
        const char* label;
    } rows[] = {{Regime::free_flight, "free flight"}, {Regime::pile, "pile under gravity"}, {Regime::gas, "elastic gas"}};
    for (const auto& row : rows) {
        const ImpactRun r = impacts(row.regime);
        auto ratio = [](double a, double b) { return b > 0.0 ? a / b : 0.0; };
        std::printf("| %s | %.0f%% | %.4f / %.4f (%.2fx) | %.4f / %.4f (%.2fx) | %.4f / %.4f (%.2fx) | %.2f / %.2f | %.0f%% | %.2f |\n",
                    row.label, 100.0 * r.frames_with_impact, r.mean_spline, r.mean_chord, ratio(r.mean_spline, r.mean_chord),
                    r.impact_spline, r.impact_chord, ratio(r.impact_spline, r.impact_chord), r.smooth_spline,
                    r.smooth_chord, ratio(r.smooth_spline, r.smooth_chord), r.worst_spline, r.worst_chord,
                    100.0 * r.frames_off_segment, r.worst_off_segment);
    }
    std::printf("\nreference: across 300 solver-driven cubes at 10 Hz with impacts, the spline left the bracketing segment on\n"
                "half of all frames by up to 2.48 units and came out 13x worse than the chord.\n");
}

// ---- 4. Second-order dead reckoning through a gap ----------------------------------------
// The circle of experiment 2; one sample lost, so the view coasts from the newest sample for
// one send interval until the next arrives. First order is RemoteView's dead reckoning.
void dead_reckoning_through_a_gap() {
    std::printf("\n## 4. Dead reckoning through a gap of one send interval (radius 10, half a turn per second)\n\n");
    std::printf("| send rate | gap | first order: worst / mean | 2nd, exact accel.: worst / mean (cut) | 2nd, accel. from last 2 velocities (cut) | 2nd, quadratic through last 3 positions (cut) |\n");
    std::printf("|---|---|---|---|---|---|\n");
    const double r = 10.0, w = pi;
    for (const int hz : {60, 30, 20, 10, 5}) {
        const double interval = 1.0 / hz;
        double worst[4] = {0, 0, 0, 0}, mean[4] = {0, 0, 0, 0};
        int n = 0;
        const int trials = 40;
        for (int k = 0; k < trials; ++k) {
            const double t0 = 0.05 * k + 3 * interval;   // the newest sample before the gap
            RemoteView<V2, V2> view(8, 1000.0);
            for (int j = 3; j >= 0; --j) {
                const double t = t0 - j * interval;
                view.push(t * 1000.0, on_circle(r, w, t), circle_velocity(r, w, t));
            }
            const V2 p0 = on_circle(r, w, t0), v0 = circle_velocity(r, w, t0);
            const V2 a_exact = on_circle(r, w, t0) * float(-w * w);
            const V2 a_vel = (v0 - circle_velocity(r, w, t0 - interval)) * float(1.0 / interval);
            const V2 p1 = on_circle(r, w, t0 - interval), p2 = on_circle(r, w, t0 - 2 * interval);
            for (int step = 1; step <= 100; ++step) {
                const double dt = interval * step / 100.0;
                const V2 truth = on_circle(r, w, t0 + dt);
                const float h = float(dt), hh = float(0.5 * dt * dt);
                V2 guess[4];
                guess[0] = *view.render((t0 + dt) * 1000.0);
                guess[1] = p0 + v0 * h + a_exact * hh;
                guess[2] = p0 + v0 * h + a_vel * hh;
                // The parabola through the last three positions, extended (no velocities used).
                const double s = dt / interval;
                guess[3] = p0 * float(1 + 1.5 * s + 0.5 * s * s) - p1 * float(2 * s + s * s) + p2 * float(0.5 * s + 0.5 * s * s);
                for (int m = 0; m < 4; ++m) {
                    const double err = dist(guess[m], truth);
                    worst[m] = std::max(worst[m], err);
                    mean[m] += err;
                }
                ++n;
            }
        }
        for (double& m : mean) m /= n;
        auto cut = [&](int m) { return 100.0 * (1.0 - mean[m] / mean[0]); };
        std::printf("| %d Hz | %.0f ms | %.4f / %.4f | %.4f / %.4f (%.0f%%) | %.4f / %.4f (%.0f%%) | %.4f / %.4f (%.0f%%) |\n", hz,
                    interval * 1000.0, worst[0], mean[0], worst[1], mean[1], cut(1), worst[2], mean[2], cut(2),
                    worst[3], mean[3], cut(3));
    }
    std::printf("\nreference: on a circular path at 10 Hz coasted through a 100 ms gap, second order cuts the error 45%%;\n"
                "at a normal server rate it changes nothing measurable; it starts to help below about 10 Hz.\n");
}

// ---- 5. Replays re-firing one-shots --------------------------------------------------------
// A client at 60 frames/s sends one numbered input per frame; the server steps at 60 Hz,
// consumes one input per step and sends `packets_per_sec` packets a second carrying its
// state and the last sequence it processed; each way takes rtt/2. One input in 30 pulls the
// trigger. A sound inside apply plays once per replay; one in on_first plays once.
struct Pos {
    int64_t x = 0;
    friend bool operator==(Pos, Pos) = default;
};
struct Shot {
    int dx = 1;
    bool fire = false;
};

double refires_per_pull(int rtt_ms, int packets_per_sec, int* on_first_per_pull_out) {
    int fired_in_apply = 0, fired_once = 0, pulls = 0;
    auto apply = [&](Pos& p, const Shot& s, const std::monostate&) {
        p.x += s.dx;
        if (s.fire) ++fired_in_apply;
    };
    PredictedPlayer<Pos, Shot> me(Pos{}, PlayerConfig{}, apply, [](const Pos& a, const Pos&, float) { return a; });
    me.on_first([&](const Shot& s, const std::monostate&) {
        if (s.fire) ++fired_once;
    });
    struct ToServer {
        int64_t at_us;
        Seq16 seq;
        Shot shot;
    };
    struct ToClient {
        int64_t at_us;
        Pos state;
        Seq16 processed;
    };
    std::deque<ToServer> uplink;
    std::deque<ToClient> downlink;
    std::deque<ToServer> server_queue;
    Pos server_state;
    Seq16 server_processed(0);
    const int64_t frame_us = 16667, one_way_us = int64_t{rtt_ms} * 500;
    const int64_t send_every_us = 1000000 / packets_per_sec;
    int64_t next_client_frame = 0, next_server_tick = 5000, next_send = 5000;
    int frame = 0;
    for (int64_t now = 0; now < 20'000'000; now += 100) {
        while (!uplink.empty() && uplink.front().at_us <= now) {
            server_queue.push_back(uplink.front());
            uplink.pop_front();
        }
        if (now >= next_server_tick) {
            next_server_tick += frame_us;
            if (!server_queue.empty()) {
                server_state.x += server_queue.front().shot.dx;
                server_processed = server_queue.front().seq;
                server_queue.pop_front();
            }
        }
        if (now >= next_send) {
            next_send += send_every_us;
            downlink.push_back({now + one_way_us, server_state, server_processed});
        }
        while (!downlink.empty() && downlink.front().at_us <= now) {
            me.reconcile(downlink.front().state, downlink.front().processed);
            downlink.pop_front();
        }
        if (now >= next_client_frame) {
            next_client_frame += frame_us;
            Shot shot;
            shot.fire = frame % 30 == 0 && now < 18'000'000;   // stop pulling well before the end
            if (shot.fire) ++pulls;
            const Seq16 seq = me.input(shot);
            uplink.push_back({now + one_way_us, seq, shot});
            ++frame;
        }
    }
    *on_first_per_pull_out = fired_once / pulls;
    return double(fired_in_apply) / pulls;
}

void replays_refire_one_shots() {
    std::printf("\n## 5. Replays re-firing one-shots: plays per trigger pull, effect in apply (on_first always 1)\n\n");
    std::printf("| round trip | 20 packets/s | 30 packets/s | 60 packets/s |\n|---|---|---|---|\n");
    int once = 0;
    for (const int rtt : {50, 100, 150, 200}) {
        std::printf("| %d ms", rtt);
        for (const int pps : {20, 30, 60}) {
            int on_first_per_pull = 0;
            std::printf(" | %.1f", refires_per_pull(rtt, pps, &on_first_per_pull));
            once = std::max(once, on_first_per_pull);
        }
        std::printf(" |\n");
    }
    std::printf("\non_first: at most %d per pull in every cell. reference: about ten per trigger pull at 150 ms and 60 packets/s.\n", once);
}

// ---- 6. Frame-rate independence of AdaptiveDecay ------------------------------------------
void adaptive_decay_across_frame_rates() {
    std::printf("\n## 6. AdaptiveDecay: an offset of 3 units after 0.25 s of wall time\n\n");
    std::printf("| frame rate | normalised (AdaptiveDecay::retain) | per frame, not normalised |\n|---|---|---|\n");
    const AdaptiveDecay decay;
    for (const int fps : {30, 60, 144}) {
        float normalised = 3.0f, per_frame = 3.0f;
        const float dt = 1.0f / float(fps);
        for (int i = 0; i < fps / 4; ++i) {
            normalised *= decay.retain(normalised, dt);
            per_frame *= decay.keep_per_frame(per_frame);
        }
        std::printf("| %d fps | %.3f | %.3f |\n", fps, normalised, per_frame);
    }
}

}  // namespace

int main() {
    std::printf("# tandem prediction playground\n");
    ease_versus_rate();
    spline_versus_chord_on_a_circle();
    spline_versus_chord_with_impacts();
    dead_reckoning_through_a_gap();
    replays_refire_one_shots();
    adaptive_decay_across_frame_rates();
    return 0;
}
