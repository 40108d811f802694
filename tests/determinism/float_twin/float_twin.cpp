// The float twin: the arena world written the way a game would write it without tandem's
// rules: f32 state, libm sqrtf/sinf/cosf/atan2f, the same scenarios by name. It is the
// control row of build-scripts/check-determinism: compiled with each target's compiler and
// flags (-ffp-contract=off, no fast-math, like the real build), it shows where floating point
// differs between builds. It never fails the check; it only informs.
//
// Model (a float transcription of src/world, scaled down so that every target, qemu included,
// can run it for as many ticks as the real check): wells steer toward their player's target
// with a damped spring; pellets feel every well and a 4x4 grid of pellet mass centres
// (a coarse stand-in for the Barnes-Hut tree), integrate semi-implicitly, bounce off the
// walls, and fall into a well within the capture radius, respawning from an integer
// XorShift. Scenario scripts use sinf/cosf/atan2f (libm: glibc natively, musl in Emscripten).
//
// Digest per tick: every float's bit pattern (as a uint32 value, so endianness cannot enter)
// and every integer, mixed in one fixed order into a 64-bit hash.
//
// Native:  float_twin SCENARIO TICKS   prints "TICK DIGEST" for ticks 0..TICKS.
// Wasm:    exports twin_start(scenario_index) -> 0/1, twin_step(), twin_digest_hi/lo().
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

struct V {
    float x = 0, y = 0;
};

uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed ? seed : 0x2545F4914F6CDD1Du) {}
    uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    uint32_t below(uint32_t n) { return static_cast<uint32_t>((next() >> 32) % n); }
    // [0, 1) from the top 24 bits: exact in every IEEE build.
    float unit() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }
};

struct Well {
    uint32_t player;
    V pos, vel, target;
    uint32_t score;
};

struct Pellet {
    V pos, vel;
    uint32_t generation;
};

enum class Script { orbits, crowd, chaos, trig };

struct ScenarioDef {
    const char* name;
    Script script;
    uint64_t seed;
    uint32_t pellets;   // the real scenario's count, capped (see below)
    uint32_t max_players;
};

// The real scenarios' seeds and player limits; 512 pellets each so the twin stays cheap
// under qemu, whose soft-float s390x is slow (the point is the float paths, not the scale).
const ScenarioDef defs[] = {
    {"orbits", Script::orbits, 0x04210001u, 512, 2},
    {"crowd", Script::crowd, 0x04210002u, 512, 1},
    {"chaos", Script::chaos, 0x04210003u, 512, 8},
    {"trig", Script::trig, 0x04210004u, 512, 4},
};

constexpr float arena = 1024.0f;
constexpr float dt = 1.0f / 60.0f;
constexpr float well_strength = 6000.0f;
constexpr float pellet_strength = 1.0f / 16.0f;
constexpr float softening2 = 64.0f;
constexpr float capture2 = 144.0f;
constexpr float steer_gain = 4.0f, steer_damping = 3.0f;
constexpr float max_well_accel = 400.0f, max_pellet_speed = 300.0f;
constexpr float restitution = 0.75f;
constexpr float two_pi = 6.28318530717958647692f;
constexpr int grid = 4;

float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

struct Twin {
    const ScenarioDef* def = nullptr;
    uint64_t tick = 0;
    Rng rng{1};
    std::vector<Well> wells;
    std::vector<Pellet> pellets;
    uint64_t captures = 0;

    V random_point() {
        const float x = rng.unit() * arena;
        const float y = rng.unit() * arena;
        return {x, y};
    }

    void start(const ScenarioDef& d) {
        def = &d;
        tick = 0;
        rng = Rng(mix64(d.seed));
        wells.clear();
        pellets.assign(d.pellets, Pellet{});
        for (Pellet& p : pellets) p.pos = random_point();
        captures = 0;
    }

    Well* well_of(uint32_t player) {
        for (Well& w : wells)
            if (w.player == player) return &w;
        return nullptr;
    }

    void join(uint32_t player, V target) {
        if (well_of(player) || wells.size() >= def->max_players) return;
        Well w{player, target, {}, target, 0};
        size_t i = 0;
        while (i < wells.size() && wells[i].player < player) ++i;
        wells.insert(wells.begin() + static_cast<std::ptrdiff_t>(i), w);
    }

    void leave(uint32_t player) {
        for (size_t i = 0; i < wells.size(); ++i) {
            if (wells[i].player == player) {
                wells.erase(wells.begin() + static_cast<std::ptrdiff_t>(i));
                return;
            }
        }
    }

    void steer(uint32_t player, V target) {
        if (Well* w = well_of(player)) w->target = {clampf(target.x, 0, arena), clampf(target.y, 0, arena)};
    }

    static V on_circle(float radius, float angle) {
        return {arena / 2 + radius * std::cos(angle), arena / 2 + radius * std::sin(angle)};
    }
    static float phase(uint64_t t, uint32_t period) {
        return two_pi * static_cast<float>(t % period) / static_cast<float>(period);
    }

    void script(uint64_t t) {
        Rng r(mix64(0x5EED0000u ^ mix64(t)));
        switch (def->script) {
        case Script::orbits: {
            const float a = phase(t, 720);
            for (uint32_t p = 1; p <= 2; ++p) {
                const V target = on_circle(256.0f, p == 1 ? a : a + two_pi / 2);
                join(p, target);
                steer(p, target);
            }
            break;
        }
        case Script::crowd: {
            const float a = phase(t, 900);
            const V target{arena / 2 + 300.0f * std::sin(a), arena / 2 + 150.0f * std::sin(a + a)};
            join(1, target);
            steer(1, target);
            break;
        }
        case Script::chaos:
            for (uint32_t p = 1; p <= 8; ++p) {
                const uint32_t roll = r.below(1000);
                const V target{r.unit() * arena, r.unit() * arena};
                if (well_of(p)) {
                    if (roll < 4) leave(p);
                    else if (roll < 120) steer(p, target);
                } else if (roll < 25) {
                    join(p, target);
                }
            }
            break;
        case Script::trig:
            for (uint32_t p = 1; p <= 4; ++p) {
                Well* w = well_of(p);
                if (!w) {
                    join(p, on_circle(200.0f, phase(t + p * 90, 360)));
                    continue;
                }
                const float dx = w->pos.x - arena / 2, dy = w->pos.y - arena / 2;
                const float angle = std::atan2(dy, dx);
                const float radius = std::sqrt(dx * dx + dy * dy);
                const float wanted = 250.0f + 100.0f * std::sin(phase(t, 600) + static_cast<float>(p));
                const float rr = radius + (wanted - radius) * 0.125f;
                steer(p, on_circle(rr, angle + 8.0f / 64.0f));
            }
            break;
        }
    }

    void step() {
        script(tick + 1);
        for (Well& w : wells) {
            V a{steer_gain * (w.target.x - w.pos.x) - steer_damping * w.vel.x,
                steer_gain * (w.target.y - w.pos.y) - steer_damping * w.vel.y};
            a.x = clampf(a.x, -max_well_accel, max_well_accel);
            a.y = clampf(a.y, -max_well_accel, max_well_accel);
            w.vel.x += a.x * dt;
            w.vel.y += a.y * dt;
            w.pos.x = clampf(w.pos.x + w.vel.x * dt, 0, arena);
            w.pos.y = clampf(w.pos.y + w.vel.y * dt, 0, arena);
        }
        // Mass centres of a 4x4 grid over the pellets at the start of the tick.
        float cx[grid * grid] = {}, cy[grid * grid] = {}, cm[grid * grid] = {};
        for (const Pellet& p : pellets) {
            const int gx = static_cast<int>(clampf(p.pos.x * (grid / arena), 0, grid - 1));
            const int gy = static_cast<int>(clampf(p.pos.y * (grid / arena), 0, grid - 1));
            cx[gy * grid + gx] += p.pos.x;
            cy[gy * grid + gx] += p.pos.y;
            cm[gy * grid + gx] += 1.0f;
        }
        for (int c = 0; c < grid * grid; ++c) {
            if (cm[c] > 0) {
                cx[c] /= cm[c];
                cy[c] /= cm[c];
            }
        }
        for (Pellet& p : pellets) {
            V a{};
            auto pull = [&](float sx, float sy, float strength) {
                const float dx = sx - p.pos.x, dy = sy - p.pos.y;
                const float r2 = dx * dx + dy * dy + softening2;
                const float inv = strength / (r2 * std::sqrt(r2));
                a.x += dx * inv;
                a.y += dy * inv;
            };
            for (const Well& w : wells) pull(w.pos.x, w.pos.y, well_strength);
            for (int c = 0; c < grid * grid; ++c)
                if (cm[c] > 0) pull(cx[c], cy[c], pellet_strength * cm[c]);
            p.vel.x = clampf(p.vel.x + a.x * dt, -max_pellet_speed, max_pellet_speed);
            p.vel.y = clampf(p.vel.y + a.y * dt, -max_pellet_speed, max_pellet_speed);
            p.pos.x += p.vel.x * dt;
            p.pos.y += p.vel.y * dt;
            if (p.pos.x < 0) { p.pos.x = -p.pos.x; p.vel.x = -p.vel.x * restitution; }
            if (p.pos.x > arena) { p.pos.x = 2 * arena - p.pos.x; p.vel.x = -p.vel.x * restitution; }
            if (p.pos.y < 0) { p.pos.y = -p.pos.y; p.vel.y = -p.vel.y * restitution; }
            if (p.pos.y > arena) { p.pos.y = 2 * arena - p.pos.y; p.vel.y = -p.vel.y * restitution; }
            Well* taker = nullptr;
            float best = capture2;
            for (Well& w : wells) {
                const float dx = w.pos.x - p.pos.x, dy = w.pos.y - p.pos.y;
                const float d2 = dx * dx + dy * dy;
                if (d2 < best) {
                    best = d2;
                    taker = &w;
                }
            }
            if (taker) {
                taker->score += 1;
                captures += 1;
                p.generation += 1;
                p.pos = random_point();
                p.vel = {};
            }
        }
        tick += 1;
    }

    uint64_t digest() const {
        uint64_t h = mix64(tick);
        auto put = [&h](uint64_t v) { h = mix64(h ^ v); };
        auto putf = [&put](float f) {
            uint32_t bits;
            std::memcpy(&bits, &f, sizeof bits);
            put(bits);
        };
        put(wells.size());
        for (const Well& w : wells) {
            put(w.player);
            putf(w.pos.x); putf(w.pos.y); putf(w.vel.x); putf(w.vel.y);
            putf(w.target.x); putf(w.target.y);
            put(w.score);
        }
        put(pellets.size());
        for (const Pellet& p : pellets) {
            put(p.generation);
            putf(p.pos.x); putf(p.pos.y); putf(p.vel.x); putf(p.vel.y);
        }
        put(captures);
        put(rng.s);
        return h;
    }
};

Twin twin;

}  // namespace

extern "C" {
// Wasm entry points (also compiled natively, unused there).
int twin_start(int index) {
    if (index < 0 || index >= static_cast<int>(sizeof defs / sizeof defs[0])) return 0;
    twin.start(defs[index]);
    return 1;
}
void twin_step() { twin.step(); }
uint32_t twin_digest_hi() { return static_cast<uint32_t>(twin.digest() >> 32); }
uint32_t twin_digest_lo() { return static_cast<uint32_t>(twin.digest()); }
}

#ifndef __EMSCRIPTEN__
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: float_twin SCENARIO TICKS\n");
        return 2;
    }
    int index = -1;
    for (int i = 0; i < static_cast<int>(sizeof defs / sizeof defs[0]); ++i)
        if (std::strcmp(argv[1], defs[i].name) == 0) index = i;
    char* end = nullptr;
    const unsigned long long ticks = std::strtoull(argv[2], &end, 10);
    if (index < 0 || end == argv[2] || *end != '\0') {
        std::fprintf(stderr, "float_twin: unknown scenario or bad tick count\n");
        return 2;
    }
    twin_start(index);
    std::printf("0 %016llx\n", static_cast<unsigned long long>(twin.digest()));
    for (unsigned long long t = 1; t <= ticks; ++t) {
        twin.step();
        std::printf("%llu %016llx\n", t, static_cast<unsigned long long>(twin.digest()));
    }
    return 0;
}
#endif
