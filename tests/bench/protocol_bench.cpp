// The wire codec's cost against memcpy of the same bytes, measured side by side in one run, and
// the sizes that decide the bandwidth: a frame's bytes per tick at 16 players, a baseline's
// for the default world and for the `orbits` scenario. Timing only: tests/net/protocol_test.cpp
// checks the bytes. The frame is the arena's (arena::Sim): encoded from the applied inputs as
// the room writes it (game_codec.hpp's encode_frame), decoded as a client reads it (the codec,
// then the arena's inputs out of it).
// Read: frame_encode_over_memcpy and frame_decode_over_memcpy are memcpy's CPU time over the
// codec's for the same bytes (1 = as fast as copying them); frame_bytes is one tick's frame.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <ctime>
#include <vector>

#include "tandem/core/random.hpp"
#include "arena/scenario.hpp"
#include "arena/sim.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/protocol.hpp"

using namespace tandem;

namespace {

using Sim = arena::Sim;
constexpr uint32_t players = 16;
constexpr int frames_per_batch = 1024;  // distinct frames, so no branch pattern is learned

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A steady tick at 16 players: every player steers once (one applied input each), in
// canonical order, with its own sequence number.
struct TickInputs {
    uint64_t tick = 0;
    uint64_t digest = 0;
    std::vector<net::Applied<Sim>> inputs;
};
std::vector<TickInputs> steady_frames() {
    XorShift rng(3);
    std::vector<TickInputs> frames(frames_per_batch);
    uint64_t tick = 1000;
    for (TickInputs& f : frames) {
        f.tick = ++tick;
        f.digest = rng.next();
        for (uint32_t p = 1; p <= players; ++p) {
            const Vec2 target{Fx::from_raw(static_cast<int32_t>(rng.next() % (1024u << 16))),
                              Fx::from_raw(static_cast<int32_t>(rng.next() % (1024u << 16)))};
            f.inputs.push_back({{p, sim::InputKind::command, {target}}, static_cast<uint32_t>(tick)});
        }
    }
    return frames;
}

struct Encoded {
    std::vector<uint8_t> bytes;       // every frame, back to back
    std::vector<uint32_t> offsets;    // where each starts, and the end
};

Encoded encode_all(const std::vector<TickInputs>& frames) {
    Encoded e;
    for (const TickInputs& f : frames) {
        e.offsets.push_back(static_cast<uint32_t>(e.bytes.size()));
        net::encode_frame<Sim>(e.bytes, f.tick, f.digest, f.inputs);
    }
    e.offsets.push_back(static_cast<uint32_t>(e.bytes.size()));
    return e;
}

// Encode and decode of a batch of frames, each alternating with memcpy of the same bytes
// (message by message, as a transport would copy them), timed in thread CPU time so the load
// of a shared machine falls on both alike.
void BM_frame_codec_vs_memcpy(benchmark::State& state) {
    const std::vector<TickInputs> frames = steady_frames();
    const Encoded wire = encode_all(frames);
    std::vector<uint8_t> out, copy(wire.bytes.size());
    out.reserve(wire.bytes.size());
    std::vector<net::Applied<Sim>> applied;
    double encode_s = 0, decode_s = 0, memcpy_s = 0;
    for (auto _ : state) {
        const double t0 = thread_cpu_seconds();
        for (const TickInputs& f : frames) {
            out.clear();
            net::encode_frame<Sim>(out, f.tick, f.digest, f.inputs);
            benchmark::DoNotOptimize(out.data());
        }
        const double t1 = thread_cpu_seconds();
        for (int i = 0; i < frames_per_batch; ++i) {
            const std::span<const uint8_t> message(wire.bytes.data() + wire.offsets[i], wire.offsets[i + 1] - wire.offsets[i]);
            auto decoded = net::decode_server(message);
            if (decoded.ok()) {
                auto inputs = net::decode_frame_inputs<Sim>(std::get<net::Frame>(*decoded), applied);
                benchmark::DoNotOptimize(inputs);
            }
            benchmark::DoNotOptimize(applied.data());
        }
        const double t2 = thread_cpu_seconds();
        for (int i = 0; i < frames_per_batch; ++i) {
            std::memcpy(copy.data() + wire.offsets[i], wire.bytes.data() + wire.offsets[i], wire.offsets[i + 1] - wire.offsets[i]);
            benchmark::DoNotOptimize(copy.data());
            benchmark::ClobberMemory();
        }
        const double t3 = thread_cpu_seconds();
        encode_s += t1 - t0;
        decode_s += t2 - t1;
        memcpy_s += t3 - t2;
    }
    const double bytes = static_cast<double>(state.iterations()) * static_cast<double>(wire.bytes.size());
    const double messages = static_cast<double>(state.iterations()) * frames_per_batch;
    state.counters["frame_bytes"] = static_cast<double>(wire.offsets[1] - wire.offsets[0]);
    state.counters["encode_MBps"] = bytes / encode_s / 1e6;
    state.counters["decode_MBps"] = bytes / decode_s / 1e6;
    state.counters["memcpy_MBps"] = bytes / memcpy_s / 1e6;
    state.counters["encode_ns_per_frame"] = encode_s / messages * 1e9;
    state.counters["decode_ns_per_frame"] = decode_s / messages * 1e9;
    state.counters["memcpy_ns_per_frame"] = memcpy_s / messages * 1e9;
    state.counters["frame_encode_over_memcpy"] = memcpy_s / encode_s;
    state.counters["frame_decode_over_memcpy"] = memcpy_s / decode_s;
}

// The baseline message of a world: the codec's part (the tick and the snapshot bytes) against
// memcpy of the message, and its size. arena::encode, the snapshot itself, is the world's cost
// and not timed here.
void baseline_vs_memcpy(benchmark::State& state, const arena::World& w) {
    const net::Baseline baseline{w.tick, arena::encode(w)};
    std::vector<uint8_t> wire;
    net::encode(wire, baseline);
    std::vector<uint8_t> out, copy(wire.size());
    out.reserve(wire.size());
    double encode_s = 0, decode_s = 0, memcpy_s = 0;
    for (auto _ : state) {
        const double t0 = thread_cpu_seconds();
        out.clear();
        net::encode(out, baseline);
        benchmark::DoNotOptimize(out.data());
        const double t1 = thread_cpu_seconds();
        auto decoded = net::decode_server(wire);
        benchmark::DoNotOptimize(decoded);
        const double t2 = thread_cpu_seconds();
        std::memcpy(copy.data(), wire.data(), wire.size());
        benchmark::DoNotOptimize(copy.data());
        benchmark::ClobberMemory();
        const double t3 = thread_cpu_seconds();
        encode_s += t1 - t0;
        decode_s += t2 - t1;
        memcpy_s += t3 - t2;
    }
    state.counters["baseline_bytes"] = static_cast<double>(wire.size());
    state.counters["wells"] = static_cast<double>(w.wells.size());
    state.counters["pellets"] = static_cast<double>(w.pellets.size());
    state.counters["encode_over_memcpy"] = memcpy_s / encode_s;
    state.counters["decode_over_memcpy"] = memcpy_s / decode_s;
}

// The default world with its 16 seats taken (the size a late joiner downloads at 16 players).
void BM_baseline_default_16_players(benchmark::State& state) {
    arena::World w = arena::make_world(arena::default_config()).value();
    std::vector<arena::Input> joins;
    for (uint32_t p = 1; p <= players; ++p) {
        joins.push_back(arena::join(p, {Fx::from_int(static_cast<int32_t>(60 * p)), Fx::from_int(512)}));
    }
    arena::Stepper().step(w, joins);
    baseline_vs_memcpy(state, w);
}

void BM_baseline_default_empty(benchmark::State& state) {
    baseline_vs_memcpy(state, arena::make_world(arena::default_config()).value());
}

// `orbits` after 10 ticks (its two players joined).
void BM_baseline_orbits(benchmark::State& state) {
    const arena::Scenario s = arena::find_scenario("orbits").value();
    arena::World w = arena::start(s);
    arena::advance(s, w, 10);
    baseline_vs_memcpy(state, w);
}

}  // namespace

BENCHMARK(BM_frame_codec_vs_memcpy);
BENCHMARK(BM_baseline_default_empty);
BENCHMARK(BM_baseline_default_16_players);
BENCHMARK(BM_baseline_orbits);
