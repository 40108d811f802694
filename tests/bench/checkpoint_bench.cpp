// What checkpointing costs a room's tick, side by side in one run: Room<G> with four scripted
// players at 60 Hz (the arena and ships), each iteration one tick with its inputs and acks,
//   none       no checkpoint (the room as `tandem serve` runs it today)
//   records    the checkpoint's records built and taken, written nowhere
//   directory  written through the directory store (write(2) per tick; its flusher fdatasyncs
//              once a second on its own thread, outside the measured thread's CPU)
//   redis      written through the Redis store to a redis-server this benchmark starts on a unix
//              socket (appendonly, appendfsync everysec), pipelined
// and what a restore costs: a segment of five seconds of frames (the default snapshot
// interval) decoded and stepped. Time is the thread's CPU time per tick (a loaded machine
// charges no one else's turns to it); bytes/tick is what the store was given.
#include <benchmark/benchmark.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "arena/sim.hpp"
#include "ships/sim.hpp"
#include "tandem/net/bot.hpp"
#include "tandem/net/room.hpp"
#include "tandem/store/checkpoint_store.hpp"

extern char** environ;

using namespace tandem;
using namespace tandem::net;

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

int64_t cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

fs::path temp_dir(const char* what) {
    std::string tmpl = (fs::temp_directory_path() / (std::string("tandem-bench-") + what + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) return {};
    return tmpl;
}

// A redis-server of this process's own, for the redis rows; stopped at exit.
struct Redis {
    pid_t pid = -1;
    fs::path dir;
    std::string address;
    Redis() {
        dir = temp_dir("redis");
        const std::string socket = (dir / "redis.sock").string();
        std::vector<std::string> args = {"redis-server", "--port", "0", "--unixsocket", socket, "--dir", dir.string(),
                                         "--save", "", "--appendonly", "yes", "--appendfsync", "everysec",
                                         "--loglevel", "warning", "--logfile", (dir / "log").string()};
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        if (::posix_spawnp(&pid, "redis-server", nullptr, nullptr, argv.data(), environ) != 0) {
            pid = -1;
            return;
        }
        for (int i = 0; i < 250; ++i) {
            if (store::open_store("unix:" + socket).ok()) {
                address = "unix:" + socket;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    ~Redis() {
        if (pid > 0) {
            ::kill(pid, SIGTERM);
            ::waitpid(pid, nullptr, 0);
        }
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

Redis& redis() {
    static Redis r;
    return r;
}

enum Mode : int64_t { none = 0, records = 1, directory = 2, redis_store = 3 };

template <class G>
RoomConfig<G> four_players();
template <>
RoomConfig<arena::Sim> four_players<arena::Sim>() {
    RoomConfig<arena::Sim> c;
    c.max_players = 4;
    c.game.tick_hz = 60;
    return c;
}
template <>
RoomConfig<ships::Sim> four_players<ships::Sim>() {
    RoomConfig<ships::Sim> c;
    c.game.max_players = 4;
    c.game.tick_hz = 60;
    c.max_players = 4;
    return c;
}

template <class G>
struct Table {
    Room<G> room;
    std::vector<ScriptedBot<G>> bots;
    std::vector<uint32_t> ids;
    std::unique_ptr<store::CheckpointStore> st;
    std::unique_ptr<store::RoomLog> log;
    fs::path dir;
    Mode mode;
    int64_t now = 0;
    uint64_t bytes_stored = 0;
    bool failed = false;
    std::vector<Outgoing> sends;
    std::vector<CloseRequest> closes;
    CheckpointBatch batch;

    explicit Table(Mode m) : room(Room<G>::create(four_players<G>()).value()), mode(m) {
        room.set_token_source([n = uint8_t{0}]() mutable {
            ResumeToken t{};
            t.fill(++n);
            return t;
        });
        if (mode == directory) {
            dir = temp_dir("dir");
            st = std::move(store::open_store("dir:" + dir.string())).value();
        } else if (mode == redis_store) {
            auto opened = store::open_store(redis().address);
            if (!opened.ok()) {
                failed = true;
                return;
            }
            st = std::move(opened).value();
        }
        if (st) {
            failed = !st->acquire("bench", "bench-owner", 60'000).value_or(false);
            auto opened = st->open_log("bench", "bench-owner");
            failed = failed || !opened.ok();
            if (opened.ok()) log = std::move(opened).value();
        }
        if (mode != none) room.enable_checkpoints();
        for (uint64_t seed = 1; seed <= 4; ++seed) {
            bots.emplace_back(seed);
            ids.push_back(room.connect(0));
            bots.back().on_connected();
        }
        pump();
    }
    ~Table() {
        log.reset();
        st.reset();
        std::error_code ec;
        if (!dir.empty()) fs::remove_all(dir, ec);
    }
    void pump() {
        for (bool moved = true; moved;) {
            moved = false;
            for (std::size_t i = 0; i < bots.size(); ++i) {
                std::vector<Bytes> out;
                bots[i].take_outgoing(out);
                for (const Bytes& m : out) room.receive(ids[i], m, now);
                moved = moved || !out.empty();
            }
            if (mode != none) {
                room.take_checkpoint(batch);
                bytes_stored += batch.bytes.size();
                if (log && !log->write(batch.new_segment, batch.bytes).ok()) failed = true;
            }
            sends.clear();
            room.take_outbox(sends, closes);
            for (const Outgoing& o : sends) {
                for (std::size_t i = 0; i < bots.size(); ++i) {
                    if (ids[i] == o.to) bots[i].receive(*o.bytes);
                }
            }
            moved = moved || !sends.empty();
        }
    }
    void tick() {
        now += 16'666'667;
        room.tick(now);
        pump();
    }
};

template <class G>
void BM_Tick(benchmark::State& state) {
    const Mode mode = static_cast<Mode>(state.range(0));
    Table<G> table(mode);
    if (table.failed) {
        state.SkipWithError("the store could not be opened (is redis-server installed?)");
        return;
    }
    for (int i = 0; i < 600; ++i) table.tick();   // ten seconds in: the room is at its usual size
    table.bytes_stored = 0;
    int64_t cpu = 0;
    uint64_t ticks = 0;
    for (auto _ : state) {
        const int64_t start = cpu_ns();
        table.tick();
        cpu += cpu_ns() - start;
        ++ticks;
    }
    if (table.failed) state.SkipWithError("a store write failed");
    state.counters["cpu_us/tick"] = static_cast<double>(cpu) / 1000.0 / static_cast<double>(ticks);
    state.counters["bytes/tick"] = static_cast<double>(table.bytes_stored) / static_cast<double>(ticks);
    static const char* names[] = {"none", "records", "directory", "redis"};
    state.SetLabel(names[mode]);
}

// A restore of a full segment: the default snapshot interval's worth of frames after its snapshot.
template <class G>
void BM_Restore(benchmark::State& state) {
    Table<G> table(records);
    Bytes segment;
    const uint32_t every = table.room.checkpoint_every_ticks();
    for (uint32_t i = 0; i < 2 * every - 1; ++i) {
        table.now += 16'666'667;
        table.room.tick(table.now);
        table.room.take_checkpoint(table.batch);
        if (table.batch.new_segment) segment.clear();
        segment.insert(segment.end(), table.batch.bytes.begin(), table.batch.bytes.end());
        table.sends.clear();
        table.room.take_outbox(table.sends, table.closes);
        for (const Outgoing& o : table.sends) {
            for (std::size_t b = 0; b < table.bots.size(); ++b) {
                if (table.ids[b] == o.to) table.bots[b].receive(*o.bytes);
            }
        }
        for (std::size_t b = 0; b < table.bots.size(); ++b) {
            std::vector<Bytes> out;
            table.bots[b].take_outgoing(out);
            for (const Bytes& m : out) table.room.receive(table.ids[b], m, table.now);
        }
    }
    RestoreReport report;
    for (auto _ : state) {
        auto restored = Room<G>::restore(segment, &report);
        if (!restored.ok()) state.SkipWithError("restore refused the segment");
        benchmark::DoNotOptimize(restored);
    }
    state.counters["frames"] = static_cast<double>(report.frames_replayed);
    state.counters["segment_KB"] = static_cast<double>(segment.size()) / 1024.0;
}

}  // namespace

BENCHMARK_TEMPLATE(BM_Tick, arena::Sim)->ArgName("store")->DenseRange(none, redis_store)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_Tick, ships::Sim)->ArgName("store")->DenseRange(none, redis_store)->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(BM_Restore, arena::Sim)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Restore, ships::Sim)->Unit(benchmark::kMillisecond);
