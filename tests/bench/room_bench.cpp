// Cost of the room's own work per tick (Room<arena::Sim>) (receiving 16 players' steers and the clients' acks,
// scheduling, digesting, encoding the frame once, fanning it out under flow control, handing
// the outbox over) at 16 players with 0, 100 and 1,000 watchers, measured beside the world
// step it serves, inside the same tick: the step time comes from the room's own stats (its
// clock, here the thread's CPU time, brackets the step alone), the room time is the rest of
// the iteration.
// BM_RoomTickRecorded: what --record's write adds to a tick, buffered and flushed every tick.
// Read: room/step is the goal figure (< 1 at 1,000 watchers); ns/recipient is the room's
// time divided by its recipients (compare across rows: flat means the per-recipient cost does
// not grow with the room's size); frame_B the bytes of one frame (16 steers).
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/room.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

using Sim = arena::Sim;

// CPU time of this thread: on a loaded machine wall time would charge other processes' turns
// to whichever of the two parts was running.
int64_t cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

constexpr uint32_t players = 16;
constexpr int64_t tick_ns = 16'666'667;
// Each client acks the newest tick every 15 ticks (four times a second), spread evenly.
constexpr uint32_t ack_every = 15;

uint64_t frame_digest(const std::vector<uint8_t>& frame) {
    uint64_t d = 0;
    for (int i = 0; i < 8; ++i) d |= uint64_t{frame[9 + static_cast<size_t>(i)]} << (8 * i);
    return d;
}

void BM_RoomTick(benchmark::State& state) {
    const auto watchers = static_cast<uint32_t>(state.range(0));
    RoomConfig<Sim> config;
    config.max_watchers = watchers;
    Room<Sim> room = Room<Sim>::create(config).value();
    room.set_clock(cpu_ns);
    std::vector<uint32_t> ids;
    int64_t now = 0;
    std::vector<uint8_t> message;
    auto hello = [&](Role role) {
        const uint32_t id = room.connect(now);
        message.clear();
        encode(message, hello_for<Sim>(role));
        room.receive(id, message, now);
        ids.push_back(id);
    };
    for (uint32_t i = 0; i < players; ++i) hello(Role::play);
    for (uint32_t i = 0; i < watchers; ++i) hello(Role::watch);
    std::vector<Outgoing> sends;
    std::vector<CloseRequest> closes;
    uint32_t sequence = 1;
    uint64_t digest = 0;
    size_t frame_bytes = 0;
    auto one_tick = [&] {
        // The players' steers (they circle), then the acks due this tick.
        for (uint32_t p = 0; p < players; ++p) {
            message.clear();
            const int32_t x = static_cast<int32_t>((sequence * 7 + p * 61) % 1000);
            encode(message, input_message<Sim>(sequence, arena::Steer{{Fx::from_int(x), Fx::from_int(1000 - x)}}));
            room.receive(ids[p], message, now);
        }
        ++sequence;
        const uint64_t tick = room.state().tick;
        for (size_t i = tick % ack_every; i < ids.size(); i += ack_every) {
            message.clear();
            encode(message, Ack{true, tick, digest});
            room.receive(ids[i], message, now);
        }
        now += tick_ns;
        room.tick(now);
        room.take_outbox(sends, closes);
        if (!sends.empty()) {
            digest = frame_digest(*sends.back().bytes);
            frame_bytes = sends.back().bytes->size();
        }
        sends.clear();  // the transport's part: dropping its references after the writes
        closes.clear();
    };
    for (int i = 0; i < 120; ++i) one_tick();  // every player joined, buffers grown

    int64_t total_ns = 0, step_ns = 0, ticks = 0;
    for (auto _ : state) {
        const int64_t start = cpu_ns();
        one_tick();
        total_ns += cpu_ns() - start;
        step_ns += room.stats().last_step_ns;
        ++ticks;
    }
    if (room.stats().flow_pauses != 0 || room.stats().players != players) state.SkipWithError("a client was paused or lost");
    const double room_ns = static_cast<double>(total_ns - step_ns) / static_cast<double>(ticks);
    const double step = static_cast<double>(step_ns) / static_cast<double>(ticks);
    state.counters["room_us"] = room_ns / 1000.0;
    state.counters["step_us"] = step / 1000.0;
    state.counters["room/step"] = room_ns / step;
    state.counters["ns/recipient"] = room_ns / static_cast<double>(players + watchers);
    state.counters["frame_B"] = static_cast<double>(frame_bytes);
}

}  // namespace

BENCHMARK(BM_RoomTick)->Arg(0)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

// What `tandem serve --record FILE` adds to a tick (include/tandem/server/game_room.hpp): the
// tick's records taken from the room and written to the file, beside the room's tick itself
// (step included) in the same iteration. Arg 0: written into the stream's buffer only (before:
// the kernel saw the bytes every 8 KiB, so a kill lost up to that); Arg 1: written and flushed,
// one write(2) a tick (now). 16 players, no watchers, the default world; the file is a
// temporary one on this machine's disk (page cache: no fsync, as the server does).
void BM_RoomTickRecorded(benchmark::State& state) {
    const bool flush = state.range(0) != 0;
    RoomConfig<Sim> config;
    Room<Sim> room = Room<Sim>::create(config).value();
    std::vector<uint32_t> ids;
    int64_t now = 0;
    std::vector<uint8_t> message;
    for (uint32_t i = 0; i < players; ++i) {
        const uint32_t id = room.connect(now);
        message.clear();
        encode(message, hello_for<Sim>(Role::play));
        room.receive(id, message, now);
        ids.push_back(id);
    }
    const std::string path = "/tmp/tandem-room-bench-" + std::to_string(::getpid()) + ".replay";
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    room.start_recording();
    std::vector<Outgoing> sends;
    std::vector<CloseRequest> closes;
    std::vector<uint8_t> recorded;
    uint32_t sequence = 1;
    uint64_t record_bytes = 0;
    int64_t tick_total = 0, write_total = 0, ticks = 0;
    auto one_tick = [&](bool timed) {
        for (uint32_t p = 0; p < players; ++p) {
            message.clear();
            const int32_t x = static_cast<int32_t>((sequence * 7 + p * 61) % 1000);
            encode(message, input_message<Sim>(sequence, arena::Steer{{Fx::from_int(x), Fx::from_int(1000 - x)}}));
            room.receive(ids[p], message, now);
        }
        ++sequence;
        now += tick_ns;
        const int64_t t0 = cpu_ns();
        room.tick(now);
        room.take_outbox(sends, closes);
        const int64_t t1 = cpu_ns();
        recorded.clear();
        room.take_recording(recorded);
        file.write(reinterpret_cast<const char*>(recorded.data()), static_cast<std::streamsize>(recorded.size()));
        if (flush) file.flush();
        const int64_t t2 = cpu_ns();
        sends.clear();
        closes.clear();
        if (timed) {
            tick_total += t1 - t0;
            write_total += t2 - t1;
            record_bytes += recorded.size();
            ++ticks;
        }
    };
    for (int i = 0; i < 120; ++i) one_tick(false);
    for (auto _ : state) one_tick(true);
    file.close();
    std::remove(path.c_str());
    state.counters["tick_us"] = static_cast<double>(tick_total) / static_cast<double>(ticks) / 1000.0;
    state.counters["write_us"] = static_cast<double>(write_total) / static_cast<double>(ticks) / 1000.0;
    state.counters["write/tick"] = static_cast<double>(write_total) / static_cast<double>(tick_total);
    state.counters["record_B"] = static_cast<double>(record_bytes) / static_cast<double>(ticks);
}

BENCHMARK(BM_RoomTickRecorded)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
