// The predicted client's own work (its update after each steer and advance, and end_frame) in
// a match of a room and four players in process, written once against the client before the
// seam (client::PredictedWorld over net::ClientSession) and after it
// (client::PredictedClient<arena::Sim> over net::ClientSession<arena::Sim>), so
// build-scripts/bench-against times the same match on both trees. Only the predicted client
// is timed (manual time, this thread's CPU): the room and the sessions have benches of their own.
#include <benchmark/benchmark.h>

#include <ctime>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tandem/net/latency_link.hpp"
#include "tandem/net/room.hpp"

#if __has_include("arena/sim.hpp")
#include "arena/sim.hpp"
#include "tandem/client/predicted.hpp"
namespace shim {
using Room = tandem::net::Room<arena::Sim>;
using Session = tandem::net::ClientSession<arena::Sim>;
using Predicted = tandem::client::PredictedClient<arena::Sim>;
inline Room make_room(uint32_t pellets) {
    tandem::net::RoomConfig<arena::Sim> config;
    config.game.pellet_count = pellets;
    return Room::create(config).value();
}
inline void steer(Session& s, tandem::Vec2 target, int64_t now) { s.send_command(arena::Steer{target}, now); }
inline uint64_t predicted_tick(const Predicted& p) { return p.state() ? p.state()->tick : 0; }
}  // namespace shim
#else
#include "tandem/client/predicted_world.hpp"
namespace shim {
using Room = tandem::net::Room;
using Session = tandem::net::ClientSession;
using Predicted = tandem::client::PredictedWorld;
inline Room make_room(uint32_t pellets) {
    tandem::net::RoomConfig config;
    config.world = tandem::world::default_config();
    config.world.pellet_count = pellets;
    return Room::create(config).value();
}
inline void steer(Session& s, tandem::Vec2 target, int64_t now) { s.steer(target, now); }
inline uint64_t predicted_tick(const Predicted& p) { return p.world() ? p.world()->tick : 0; }
}  // namespace shim
#endif

using namespace tandem;
using namespace tandem::net;

namespace {

int64_t cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

using Bytes = std::vector<uint8_t>;
constexpr int64_t tick_ns = 1'000'000'000 / 60;
constexpr int64_t ms = 1'000'000;
constexpr uint32_t players = 4;
constexpr int64_t latency_ns = 40 * ms;   // each way: a prediction some 5 ticks deep

struct Peer {
    shim::Session session{Role::play, 0};
    LatencyLink<Bytes> up, down;
    uint32_t id = 0;
    explicit Peer(uint64_t seed) : up(seed * 2 + 1), down(seed * 2 + 2) {}
};

// Player 0 is predicted and steers every 3 ticks; the others steer every 10 ticks (offset), so
// the predicted client rolls back every few ticks on someone else's input arriving.
void BM_PredictedUpdate(benchmark::State& state) {
    shim::Room room = shim::make_room(static_cast<uint32_t>(state.range(0)));
    std::vector<std::unique_ptr<Peer>> peers;
    for (uint32_t i = 0; i < players; ++i) peers.push_back(std::make_unique<Peer>(10 + i));
    // No clock: the tick budget alone decides, the same on both trees and every run.
    std::optional<shim::Predicted> predicted(shim::Predicted::create().value());
    uint64_t t = 0;
    int64_t timed_ns = 0;
    auto timed = [&](auto&& f) {
        const int64_t start = cpu_ns();
        f();
        timed_ns += cpu_ns() - start;
    };
    std::vector<Outgoing> sends;
    std::vector<CloseRequest> closes;
    std::vector<Bytes> out;
    auto one_tick = [&] {
        const int64_t now = static_cast<int64_t>(t) * tick_ns;
        for (size_t i = 0; i < peers.size(); ++i) {
            Peer& p = *peers[i];
            if (t == 0) {
                p.id = room.connect(now);
                p.session.on_connected(now);
            }
            for (Bytes& b : p.down.drain_due(now)) p.session.receive(b, now);
            for (Bytes& b : p.up.drain_due(now)) room.receive(p.id, b, now);
            const uint64_t every = i == 0 ? 3 : 10;
            if ((t + i) % every == 0) {
                const int32_t x = static_cast<int32_t>((t * 37 + i * 211) % 900) + 50;
                const int32_t y = static_cast<int32_t>((t * 53 + i * 97) % 900) + 50;
                shim::steer(p.session, Vec2{Fx::from_int(x), Fx::from_int(y)}, now);
                if (i == 0) timed([&] { predicted->update(p.session, now); });
            }
            p.session.advance(now, 8 * ms);
            if (i == 0) {
                timed([&] {
                    predicted->update(p.session, now);
                    predicted->end_frame();
                });
            }
            out.clear();
            p.session.take_outgoing(out);
            for (Bytes& b : out) p.up.send(now, std::move(b), latency_ns, 0, Fx::zero());
        }
        room.tick(now);
        room.take_outbox(sends, closes);
        for (const Outgoing& o : sends)
            for (auto& p : peers)
                if (p->id == o.to) p->down.send(now, *o.bytes, latency_ns, 0, Fx::zero());
        sends.clear();
        closes.clear();
        ++t;
    };
    for (int i = 0; i < 180; ++i) one_tick();   // every player joined, the prediction running
    const auto before = predicted->figures();
    uint64_t ticks = 0;
    for (auto _ : state) {
        timed_ns = 0;
        one_tick();
        state.SetIterationTime(static_cast<double>(timed_ns) * 1e-9);
        ++ticks;
    }
    const auto after = predicted->figures();
    if (!after.active || shim::predicted_tick(*predicted) <= after.confirmed_tick) state.SkipWithError("no prediction ran");
    const double n = static_cast<double>(ticks);
    state.counters["rollbacks/tick"] = static_cast<double>(after.rollbacks - before.rollbacks) / n;
    state.counters["resim/tick"] = static_cast<double>(after.resimulated_ticks - before.resimulated_ticks) / n;
    state.counters["depth"] = static_cast<double>(after.depth_ticks);
}

}  // namespace

BENCHMARK(BM_PredictedUpdate)->Name("client_predicted_update")->Arg(1024)->UseManualTime()->Unit(benchmark::kMicrosecond);
