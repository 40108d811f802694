// The wire codec's cost against memcpy of the same bytes, measured side by side in one run, and
// the sizes that decide the bandwidth: a frame's bytes per tick at 16 players, a baseline's
// for the default world and for the `orbits` scenario. Timing only: tests/net/protocol_test.cpp
// checks the bytes.
// Read: frame_encode_over_memcpy and frame_decode_over_memcpy are memcpy's CPU time over the
// codec's for the same bytes (1 = as fast as copying them); frame_bytes is one tick's frame.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <ctime>
#include <vector>

#include "tandem/core/random.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/world/scenario.hpp"
#include "tandem/world/world.hpp"

using namespace tandem;

namespace {

constexpr uint32_t players = 16;
constexpr int frames_per_batch = 1024;  // distinct frames, so no branch pattern is learned

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A steady tick at 16 players: every player steers once (one AppliedInput each), in canonical
// order, with its own sequence number.
std::vector<net::Frame> steady_frames() {
    XorShift rng(3);
    std::vector<net::Frame> frames(frames_per_batch);
    uint64_t tick = 1000;
    for (net::Frame& f : frames) {
        f.tick = ++tick;
        f.digest = rng.next();
        for (uint32_t p = 1; p <= players; ++p) {
            const Vec2 target{Fx::from_raw(static_cast<int32_t>(rng.next() % (1024u << 16))),
                              Fx::from_raw(static_cast<int32_t>(rng.next() % (1024u << 16)))};
            f.inputs.push_back({{p, world::InputKind::steer, target}, static_cast<uint32_t>(tick)});
        }
    }
    return frames;
}

struct Encoded {
    std::vector<uint8_t> bytes;       // every frame, back to back
    std::vector<uint32_t> offsets;    // where each starts, and the end
};

Encoded encode_all(const std::vector<net::Frame>& frames) {
    Encoded e;
    for (const net::Frame& f : frames) {
        e.offsets.push_back(static_cast<uint32_t>(e.bytes.size()));
        net::encode(e.bytes, f);
    }
    e.offsets.push_back(static_cast<uint32_t>(e.bytes.size()));
    return e;
}

// Encode and decode of a batch of frames, each alternating with memcpy of the same bytes
// (message by message, as a transport would copy them), timed in thread CPU time so the load
// of a shared machine falls on both alike.
void BM_frame_codec_vs_memcpy(benchmark::State& state) {
    const std::vector<net::Frame> frames = steady_frames();
    const Encoded wire = encode_all(frames);
    std::vector<uint8_t> out, copy(wire.bytes.size());
    out.reserve(wire.bytes.size());
    double encode_s = 0, decode_s = 0, memcpy_s = 0;
    for (auto _ : state) {
        const double t0 = thread_cpu_seconds();
        for (const net::Frame& f : frames) {
            out.clear();
            net::encode(out, f);
            benchmark::DoNotOptimize(out.data());
        }
        const double t1 = thread_cpu_seconds();
        for (int i = 0; i < frames_per_batch; ++i) {
            const std::span<const uint8_t> message(wire.bytes.data() + wire.offsets[i], wire.offsets[i + 1] - wire.offsets[i]);
            auto decoded = net::decode_server(message);
            benchmark::DoNotOptimize(decoded);
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
// memcpy of the message, and its size. world::encode, the snapshot itself, is the world's cost
// and not timed here.
void baseline_vs_memcpy(benchmark::State& state, const world::World& w) {
    const net::Baseline baseline{w.tick, world::encode(w)};
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
    world::World w = world::make_world(world::default_config()).value();
    std::vector<world::Input> joins;
    for (uint32_t p = 1; p <= players; ++p) {
        joins.push_back({p, world::InputKind::join, {Fx::from_int(static_cast<int32_t>(60 * p)), Fx::from_int(512)}});
    }
    world::step(w, joins);
    baseline_vs_memcpy(state, w);
}

void BM_baseline_default_empty(benchmark::State& state) {
    baseline_vs_memcpy(state, world::make_world(world::default_config()).value());
}

// `orbits` after 10 ticks (its two players joined).
void BM_baseline_orbits(benchmark::State& state) {
    const world::Scenario& s = *world::find_scenario("orbits");
    world::World w = world::start(s);
    world::advance(s, w, 10);
    baseline_vs_memcpy(state, w);
}

}  // namespace

BENCHMARK(BM_frame_codec_vs_memcpy);
BENCHMARK(BM_baseline_default_empty);
BENCHMARK(BM_baseline_default_16_players);
BENCHMARK(BM_baseline_orbits);
