// Properties of Room<G> (tandem/net/room.hpp), over the arena (arena::Sim): the order a client is served in (welcome, baseline, frames),
// where inputs land (the room's timeline, never arrival time), authority over joins, leaves
// and wells, flow control and its O(1) cost for a stalled client, the rate limit and flood
// close, each refusal with its error and close reason, desync drill-down, isolation between
// clients, late joins, determinism and recording. Client messages are written byte by byte
// from the protocol's layout (and some through the codec); what the room sends is decoded
// and checked against a world stepped independently from the baseline it sent. The figures
// are the arena-only room's: the port to a template changed no byte the arena's room sends
// beyond protocol v2's layouts. tests/net/room_stub_test.cpp runs the room over a stub game.
#include "tandem/net/room.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/replay.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

using Sim = arena::Sim;
using arena::InputKind;

using Bytes = std::vector<uint8_t>;
constexpr int64_t one_ms = 1'000'000;

// ---- Client messages, byte by byte from the layouts in protocol.hpp ----------------------
void le(Bytes& b, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
Bytes hello_bytes(uint8_t role, uint16_t version = protocol_version, uint64_t fp = arena::fingerprint_hash(),
                  std::string_view game = "arena") {
    Bytes b{0x01};
    le(b, version, 2);
    le(b, fp, 8);
    b.push_back(role);
    b.push_back(static_cast<uint8_t>(game.size()));
    b.insert(b.end(), game.begin(), game.end());
    b.insert(b.end(), {0, 0, 0});  // no token, no ticket
    return b;
}
// u8 type | u32 sequence | u8 n = 8 | the arena's command: i32 target.x raw | i32 target.y raw
Bytes input_bytes(uint32_t seq, int32_t x_raw, int32_t y_raw) {
    Bytes b{0x02};
    le(b, seq, 4);
    b.push_back(8);
    le(b, static_cast<uint32_t>(x_raw), 4);
    le(b, static_cast<uint32_t>(y_raw), 4);
    return b;
}
Bytes ack_bytes(bool holds, uint64_t tick, uint64_t digest) {
    Bytes b{0x03, static_cast<uint8_t>(holds ? 1 : 0)};
    le(b, tick, 8);
    le(b, digest, 8);
    return b;
}
Bytes nothing_held() { return ack_bytes(false, 0, 0); }
template <class M>
Bytes codec(const M& m) {
    Bytes b;
    encode(b, m);
    return b;
}

// A frame's inputs in the arena's types (the room wrote them; the game's codec reads them).
std::vector<Applied<Sim>> inputs_of(const Frame& f) {
    auto decoded = decode_frame_inputs<Sim>(f);
    REQUIRE(decoded.ok());
    return std::move(decoded).value();
}

RoomConfig<Sim> small_config() {
    RoomConfig<Sim> c;
    c.game.pellet_count = 16;  // the room's logic, not the world's cost, is under test
    return c;
}

// A room and what each connection has received, decoded lazily.
struct Harness {
    Room<Sim> room;
    std::map<uint32_t, std::vector<Bytes>> got;
    std::map<uint32_t, CloseReason> closed;
    int64_t now = 0;

    explicit Harness(const RoomConfig<Sim>& c = small_config()) : room(Room<Sim>::create(c).value()) {}

    void pump() {
        std::vector<Outgoing> sends;
        std::vector<CloseRequest> closes;
        room.take_outbox(sends, closes);
        for (const Outgoing& o : sends) got[o.to].push_back(*o.bytes);
        for (const CloseRequest& c : closes) {
            REQUIRE(closed.count(c.who) == 0);  // one close per connection
            closed[c.who] = c.reason;
        }
    }
    uint32_t join(uint8_t role) {
        const uint32_t id = room.connect(now);
        room.receive(id, hello_bytes(role), now);
        pump();
        return id;
    }
    void send(uint32_t id, const Bytes& b) {
        room.receive(id, b, now);
        pump();
    }
    void tick(int n = 1) {
        for (int i = 0; i < n; ++i) {
            now += 16'666'667;
            room.tick(now);
            pump();
        }
    }
    std::vector<ServerMessage> messages(uint32_t id) const {
        std::vector<ServerMessage> out;
        auto it = got.find(id);
        if (it == got.end()) return out;
        for (const Bytes& b : it->second) {
            auto m = decode_server(b);
            REQUIRE(m.ok());
            out.push_back(m.value());
        }
        return out;
    }
    template <class T>
    std::vector<T> of(uint32_t id) const {
        std::vector<T> out;
        for (const ServerMessage& m : messages(id)) {
            if (const T* t = std::get_if<T>(&m)) out.push_back(*t);
        }
        return out;
    }
};

// A client's own replay of its stream: adopt each baseline, step each frame's inputs with a
// Stepper, and compare the frame's digest (the world's, not the room's code).
struct Verifier {
    std::optional<arena::World> w;
    arena::Stepper stepper;
    uint64_t verified = 0;
    bool all_ok = true;
    void feed(const ServerMessage& m) {
        if (const auto* b = std::get_if<Baseline>(&m)) {
            auto decoded = arena::decode(b->snapshot);
            REQUIRE(decoded.ok());
            w = decoded.value();
            CHECK(w->tick == b->tick);
        } else if (const auto* f = std::get_if<Frame>(&m)) {
            REQUIRE(w.has_value());
            REQUIRE(f->tick == w->tick + 1);
            std::vector<arena::Input> in;
            for (const Applied<Sim>& a : inputs_of(*f)) in.push_back(a.input);
            stepper.step(*w, in);
            if (arena::digest(*w) != f->digest) all_ok = false;
            ++verified;
        }
    }
};

std::optional<ErrorMsg> error_of(const std::vector<ServerMessage>& messages) {
    for (const ServerMessage& m : messages) {
        if (const auto* e = std::get_if<ErrorMsg>(&m)) return *e;
    }
    return std::nullopt;
}

}  // namespace

// ---- Configuration -------------------------------------------------------------------------
TEST_CASE("create refuses each bad setting with its own typed error") {
    RoomConfig<Sim> c = small_config();
    c.input_delay_ticks = max_input_delay_ticks + 1;
    CHECK(Room<Sim>::create(c).code() == "input_delay_out_of_range");
    c = small_config();
    c.max_players = c.game.max_players + 1;
    CHECK(Room<Sim>::create(c).code() == "max_players_out_of_range");
    c = small_config();
    c.max_watchers = max_watcher_limit + 1;
    CHECK(Room<Sim>::create(c).code() == "max_watchers_out_of_range");
    c = small_config();
    c.idle_timeout_ns = min_idle_timeout_ns - 1;
    CHECK(Room<Sim>::create(c).code() == "idle_timeout_out_of_range");
    c = small_config();
    c.game.tick_hz = 0;
    const auto r = Room<Sim>::create(c);
    CHECK(r.code() == "tick_hz_out_of_range");
    CHECK(r.message() == arena::describe(arena::ConfigError::tick_hz_out_of_range));
    CHECK(Room<Sim>::create(small_config()).ok());
    // 0 seats (the default) offers every seat the game's config holds.
    CHECK(Room<Sim>::create(small_config()).value().config().max_players == 16);
    c = small_config();
    c.game.max_players = 5;
    CHECK(Room<Sim>::create(c).value().config().max_players == 5);
}

TEST_CASE("the limits in force are the stated seconds at the room's tick rate") {
    Harness h;
    CHECK(h.room.ring_ticks() == 600);
    CHECK(h.room.flow_window_ticks() == 120);
    CHECK(h.room.baseline_repeat_ticks() == 60);
    RoomConfig<Sim> c = small_config();
    c.game.tick_hz = 30;
    const Room<Sim> slow = Room<Sim>::create(c).value();
    CHECK(slow.ring_ticks() == 300);
    CHECK(slow.flow_window_ticks() == 60);
}

// ---- Order of service ----------------------------------------------------------------------
TEST_CASE("a hello gets a welcome, a baseline of the world now, then one frame per tick in order") {
    Harness h;
    h.tick(3);
    const arena::World at3 = h.room.state();
    const uint32_t w = h.join(1);
    h.tick(5);
    const auto ms_ = h.messages(w);
    REQUIRE(ms_.size() == 7);
    const auto& welcome = std::get<Welcome>(ms_[0]);
    CHECK(welcome.role == Role::watch);
    CHECK(welcome.player == watcher_id);
    CHECK(welcome.input_delay_ticks == default_input_delay_ticks);
    CHECK(welcome.server_tick == 3);
    CHECK(welcome.max_players == 16);
    CHECK(welcome.game == "arena");
    CHECK(config_of<Sim>(welcome).value() == h.room.config().game);
    const auto& baseline = std::get<Baseline>(ms_[1]);
    CHECK(baseline.tick == 3);
    CHECK(arena::decode(baseline.snapshot).value() == at3);
    Verifier v;
    for (size_t i = 1; i < ms_.size(); ++i) v.feed(ms_[i]);
    CHECK(v.verified == 5);
    CHECK(v.all_ok);
    CHECK(std::get<Frame>(ms_[6]).tick == 8);
    // The frame's first bytes by hand: type 0x82, then the tick little-endian.
    const Bytes& raw = h.got[w][2];
    CHECK(raw[0] == 0x82);
    CHECK(raw[1] == 4);
    CHECK(h.room.stats().baselines_sent == 1);
    CHECK(h.room.stats().frames_encoded == 8);
}

TEST_CASE("every recipient of a tick is handed the same frame buffer, encoded once") {
    Harness h;
    const uint32_t a = h.room.connect(0), b = h.room.connect(0), c = h.room.connect(0);
    for (uint32_t id : {a, b, c}) h.room.receive(id, hello_bytes(1), 0);
    std::vector<Outgoing> sends;
    std::vector<CloseRequest> closes;
    h.room.take_outbox(sends, closes);
    sends.clear();
    h.room.tick(1);
    h.room.take_outbox(sends, closes);
    REQUIRE(sends.size() == 3);
    CHECK(sends[0].bytes.get() == sends[1].bytes.get());
    CHECK(sends[1].bytes.get() == sends[2].bytes.get());
    CHECK(sends[0].to == a);
    CHECK(sends[2].to == c);
    CHECK(h.room.stats().frames_encoded == 1);
}

// ---- Inputs and authority ------------------------------------------------------------------
TEST_CASE("the room authors a player's join at hello, landing at current + 1 + delay with sequence 0") {
    Harness h;
    h.tick(4);
    const uint32_t p = h.join(0);
    CHECK(std::get<Welcome>(h.messages(p)[0]).player == 1);
    h.tick(4);
    const auto frames = h.of<Frame>(p);
    REQUIRE(frames.size() == 4);
    for (const Frame& f : frames) {
        if (f.tick == 4 + 1 + default_input_delay_ticks) {
            REQUIRE(inputs_of(f).size() == 1);
            CHECK(inputs_of(f)[0].input.kind == InputKind::join);
            CHECK(inputs_of(f)[0].input.player == 1);
            CHECK(inputs_of(f)[0].sequence == 0);
        } else {
            CHECK(inputs_of(f).empty());
        }
    }
    CHECK(h.room.state().wells.size() == 1);
}

TEST_CASE("an input lands on the tick the room chooses, whatever its arrival time within the tick") {
    auto run = [](int64_t arrival_offset) {
        Harness h;
        const uint32_t p = h.join(0);
        h.tick(10);
        h.room.receive(p, input_bytes(1, 100 << 16, 200 << 16), h.now + arrival_offset);
        h.pump();
        h.tick(5);
        return h.got[p];
    };
    const auto early = run(1);
    const auto late = run(16 * one_ms);
    CHECK(early == late);
    Harness h;
    const uint32_t p = h.join(0);
    h.tick(10);
    h.send(p, input_bytes(7, 100 << 16, 200 << 16));
    h.tick(5);
    for (const Frame& f : h.of<Frame>(p)) {
        const bool has = !inputs_of(f).empty() && inputs_of(f).back().input.kind == InputKind::command;
        CHECK(has == (f.tick == 10 + 1 + default_input_delay_ticks));
        if (has) {
            CHECK(inputs_of(f).back().sequence == 7);
            CHECK(inputs_of(f).back().input.command.target == Vec2{Fx::from_int(100), Fx::from_int(200)});
        }
    }
}

TEST_CASE("one steer per player per tick: the newest sequence wins, the next tick gets the next one") {
    Harness h;
    const uint32_t p = h.join(0);
    h.tick(5);
    h.send(p, input_bytes(1, 10 << 16, 10 << 16));
    h.send(p, input_bytes(2, 20 << 16, 20 << 16));
    h.send(p, input_bytes(3, 30 << 16, 30 << 16));
    h.tick();
    h.send(p, input_bytes(4, 40 << 16, 40 << 16));
    h.send(p, input_bytes(4, 50 << 16, 50 << 16));  // not newer: ignored
    h.tick(5);
    std::map<uint64_t, Applied<Sim>> steers;
    for (const Frame& f : h.of<Frame>(p)) {
        int n = 0;
        for (const Applied<Sim>& a : inputs_of(f)) {
            if (a.input.kind == InputKind::command) {
                steers[f.tick] = a;
                ++n;
            }
        }
        CHECK(n <= 1);
    }
    REQUIRE(steers.size() == 2);
    CHECK(steers.at(8).sequence == 3);
    CHECK(steers.at(8).input.command.target.x == Fx::from_int(30));
    CHECK(steers.at(9).sequence == 4);
    CHECK(steers.at(9).input.command.target.x == Fx::from_int(40));
    CHECK(h.room.stats().inputs_stale == 1);
    CHECK(h.room.stats().inputs_accepted == 4);
}

TEST_CASE("a client steers only its own well, a watcher's input is refused as unexpected") {
    Harness h;
    const uint32_t p1 = h.join(0), p2 = h.join(0);
    h.tick(4);
    h.send(p2, input_bytes(1, 900 << 16, 900 << 16));
    h.tick(4);
    const auto& wells = h.room.state().wells;
    REQUIRE(wells.size() == 2);
    CHECK(wells[0].player == 1);
    CHECK(wells[0].target == Vec2{Fx::from_int(512), Fx::from_int(512)});  // the join's centre
    CHECK(wells[1].player == 2);
    CHECK(wells[1].target == Vec2{Fx::from_int(900), Fx::from_int(900)});
    (void)p1;
    const uint32_t w = h.join(1);
    h.send(w, input_bytes(1, 0, 0));
    const auto e = error_of(h.messages(w));
    REQUIRE(e.has_value());
    CHECK(e->code == ErrorCode::unexpected);
    CHECK(h.closed.at(w) == CloseReason::protocol_error);
}

TEST_CASE("a leave is authored at disconnect, and a seat is reused only after that leave is stepped") {
    Harness h;
    const uint32_t w = h.join(1);
    const uint32_t p = h.join(0);
    h.tick(5);
    h.room.disconnect(p, h.now);
    CHECK(h.room.stats().players == 0);
    const uint32_t q = h.join(0);  // seat 1 is still leaving: seat 2
    CHECK(std::get<Welcome>(h.messages(q)[0]).player == 2);
    h.tick(5);
    bool left = false;
    for (const Frame& f : h.of<Frame>(w)) {
        for (const Applied<Sim>& a : inputs_of(f)) {
            if (a.input.kind == InputKind::leave) {
                CHECK(a.input.player == 1);
                CHECK(f.tick == 5 + 1 + default_input_delay_ticks);
                left = true;
            }
        }
    }
    CHECK(left);
    const uint32_t r = h.join(0);  // the leave has been stepped: seat 1 again
    CHECK(std::get<Welcome>(h.messages(r)[0]).player == 1);
}

// ---- Flow control --------------------------------------------------------------------------
TEST_CASE("flow control stops a client that never acks at the window and resumes from the ring on its ack") {
    Harness h;
    const uint32_t w = h.join(1);
    h.tick(200);
    auto frames = h.of<Frame>(w);
    REQUIRE(frames.size() == 120);
    CHECK(frames.back().tick == 120);
    CHECK(h.room.stats().flow_pauses == 1);
    CHECK(h.room.client(w)->paused);
    // It acks tick 100: the next 100 ticks are allowed (101..220), so 121..200 come now.
    const auto digest100 = frames[99].digest;
    h.send(w, ack_bytes(true, 100, digest100));
    frames = h.of<Frame>(w);
    REQUIRE(frames.size() == 200);
    for (size_t i = 0; i < frames.size(); ++i) CHECK(frames[i].tick == i + 1);
    CHECK(h.of<Baseline>(w).size() == 1);
    CHECK_FALSE(h.room.client(w)->paused);
    CHECK(h.room.stats().ack_mismatches == 0);
    h.tick(20);
    CHECK(h.of<Frame>(w).size() == 220);
    h.tick();
    CHECK(h.of<Frame>(w).size() == 220);  // paused again at 100 + 120
    CHECK(h.room.stats().flow_pauses == 2);
}

TEST_CASE("a client that acks as it goes is never paused") {
    Harness h;
    const uint32_t w = h.join(1);
    Verifier v;
    size_t seen = 0;
    for (int t = 0; t < 1000; ++t) {
        h.tick();
        const auto ms_ = h.messages(w);
        for (; seen < ms_.size(); ++seen) v.feed(ms_[seen]);
        if (t % 15 == 0) h.send(w, ack_bytes(true, v.w->tick, arena::digest(*v.w)));
    }
    CHECK(v.verified == 1000);
    CHECK(v.all_ok);
    CHECK(h.room.stats().flow_pauses == 0);
    CHECK(h.room.stats().ack_mismatches == 0);
}

TEST_CASE("an ack after the ring has moved past what the client missed gets a baseline, then frames") {
    Harness h;
    const uint32_t w = h.join(1);
    h.tick(800);  // paused at 120; the ring now holds 201..800
    const uint64_t d = h.of<Frame>(w)[119].digest;
    h.send(w, ack_bytes(true, 120, d));
    auto baselines = h.of<Baseline>(w);
    REQUIRE(baselines.size() == 2);
    CHECK(baselines[1].tick == 800);
    h.tick(3);
    Verifier v;
    for (const ServerMessage& m : h.messages(w)) v.feed(m);
    CHECK(v.all_ok);
    CHECK(v.w->tick == 803);
}

TEST_CASE("an ack of nothing held gets a baseline of the current tick") {
    Harness h;
    const uint32_t w = h.join(1);
    h.tick(90);
    h.send(w, ack_bytes(true, 90, h.of<Frame>(w).back().digest));
    h.send(w, nothing_held());
    auto baselines = h.of<Baseline>(w);
    REQUIRE(baselines.size() == 2);
    CHECK(baselines[1].tick == 90);
    CHECK(arena::decode(baselines[1].snapshot).value() == h.room.state());
    h.tick(2);
    CHECK(h.of<Frame>(w).back().tick == 92);
}

TEST_CASE("a second nothing-held while a fresh baseline is unacknowledged waits for the repeat interval") {
    Harness h;
    const uint32_t w = h.join(1);
    h.tick(10);
    h.send(w, nothing_held());  // the hello's baseline is unacked and 10 ticks old: waits
    CHECK(h.of<Baseline>(w).size() == 1);
    h.tick(49);
    CHECK(h.of<Baseline>(w).size() == 1);
    h.tick();  // tick 60: a second since the first baseline
    auto baselines = h.of<Baseline>(w);
    REQUIRE(baselines.size() == 2);
    CHECK(baselines[1].tick == 60);
    // An ack of the baseline it holds cancels a pending request instead.
    h.send(w, nothing_held());
    h.send(w, ack_bytes(true, 60, arena::digest(h.room.state())));
    h.tick(70);
    CHECK(h.of<Baseline>(w).size() == 2);
}

TEST_CASE("an ack older than the client's newest baseline changes nothing (it was in flight)") {
    Harness h;
    const uint32_t w = h.join(1);
    h.tick(100);
    h.send(w, ack_bytes(true, 100, h.of<Frame>(w).back().digest));
    h.tick(10);
    h.send(w, nothing_held());  // baseline at 110
    h.send(w, ack_bytes(true, 105, h.of<Frame>(w)[104].digest));
    h.tick(130);
    // The window counts from the baseline at 110, not from the stale 105.
    CHECK(h.of<Frame>(w).back().tick == 110 + 120);
}

TEST_CASE("a stalled client costs the room O(1): a fixed record, nothing queued, over ten minutes") {
    Harness h;
    const uint32_t stalled = h.join(1);
    const uint32_t reader = h.join(0);
    h.tick(200);
    const ClientFigures at_pause = *h.room.client(stalled);
    CHECK(at_pause.paused);
    const uint64_t pauses = h.room.stats().flow_pauses;  // the reader's too: it had not acked yet
    const size_t sent_at_pause = h.got[stalled].size();
    const uint64_t baseline_bytes = h.got[stalled][1].size();
    uint64_t most_unacked = 0;
    for (int t = 0; t < 60 * 600; ++t) {  // ten minutes at 60 Hz
        if (t % 20 == 0) h.send(reader, ack_bytes(true, h.room.state().tick, arena::digest(h.room.state())));
        if (t % 30 == 0) h.send(reader, input_bytes(static_cast<uint32_t>(t + 1), (t % 1000) << 16, 300 << 16));
        h.room.tick(h.now += 16'666'667);
        const ClientFigures f = *h.room.client(stalled);
        most_unacked = std::max(most_unacked, f.unacked_bytes);
        if (t % 997 == 0) CHECK(f.held_bytes == at_pause.held_bytes + 0);
        h.pump();
    }
    CHECK(h.got[stalled].size() == sent_at_pause);
    CHECK(most_unacked <= flow_window_bytes + baseline_bytes);
    CHECK(h.room.client(stalled)->held_bytes == at_pause.held_bytes);
    CHECK(h.room.stats().flow_pauses == pauses);
    // Reading again: nothing held brings a baseline and the stream resumes.
    h.send(stalled, nothing_held());
    h.tick();
    const auto baselines = h.of<Baseline>(stalled);
    REQUIRE(baselines.size() == 2);
    CHECK(baselines[1].tick == 200 + 60 * 600);
    CHECK(h.of<Frame>(stalled).back().tick == 200 + 60 * 600 + 1);
}

TEST_CASE("the bytes window pauses a client before the tick window when frames are large") {
    RoomConfig<Sim> c = small_config();
    c.game.tick_hz = 120;  // a 240-tick window, so the bytes bind first
    c.game.max_players = 64;
    c.max_players = 64;
    Harness h(c);
    std::vector<uint32_t> players;
    for (int i = 0; i < 64; ++i) players.push_back(h.join(0));
    const uint32_t w = h.join(1);
    uint32_t seq = 1;
    for (int t = 0; t < 200; ++t) {
        for (uint32_t p : players) {
            h.send(p, input_bytes(seq, (t * 7 % 1000) << 16, 100 << 16));
            if (t % 10 == 0) h.send(p, ack_bytes(true, h.room.state().tick, arena::digest(h.room.state())));
        }
        ++seq;
        h.tick();
    }
    // 64 steers a tick: 20 + 64 x 17 = 1,108 bytes a frame; the bytes window holds 177 of them.
    const auto frames = h.of<Frame>(w);
    uint64_t bytes = h.got[w][1].size();
    for (size_t i = 2; i < h.got[w].size(); ++i) bytes += h.got[w][i].size();
    CHECK(frames.size() < 180);
    CHECK(h.room.client(w)->paused);
    CHECK(h.room.client(w)->unacked_bytes <= flow_window_bytes + h.got[w][1].size());
    CHECK(bytes <= flow_window_bytes + h.got[w][1].size());
}

// ---- Rate limit ----------------------------------------------------------------------------
TEST_CASE("inputs past the rate limit are dropped and counted, twice the limit is trimmed, not closed") {
    Harness h;
    const uint32_t p = h.join(0);
    uint32_t seq = 1;
    // 100 at once: the burst of 60 is accepted, 40 dropped.
    for (int i = 0; i < 100; ++i) h.send(p, input_bytes(seq++, 0, 0));
    CHECK(h.room.stats().inputs_accepted == 60);
    CHECK(h.room.stats().inputs_dropped == 40);
    // Then 4 per tick (240/s, twice the limit) for ten seconds: 2 per tick refill.
    for (int t = 0; t < 600; ++t) {
        h.tick();
        for (int i = 0; i < 4; ++i) h.send(p, input_bytes(seq++, 0, 0));
    }
    CHECK(h.room.stats().inputs_accepted == 60 + 600 * 2);
    CHECK(h.room.stats().inputs_dropped == 40 + 600 * 2);
    CHECK(h.closed.count(p) == 0);
    // Applied<Sim>: one steer per tick at most.
    size_t steers = 0;
    for (const Frame& f : h.of<Frame>(p)) {
        for (const Applied<Sim>& a : inputs_of(f)) steers += a.input.kind == InputKind::command;
    }
    CHECK(steers <= 600);
}

TEST_CASE("a flood of inputs gets rate_limited and a close") {
    Harness h;
    const uint32_t p = h.join(0);
    const uint32_t other = h.join(0);
    for (uint32_t i = 1; i <= 2000; ++i) h.room.receive(p, input_bytes(i, 0, 0), 0);
    h.pump();
    const auto e = error_of(h.messages(p));
    REQUIRE(e.has_value());
    CHECK(e->code == ErrorCode::rate_limited);
    CHECK(h.closed.at(p) == CloseReason::rate_limited);
    CHECK(websocket_close_code(h.closed.at(p)) == 1008);
    CHECK(h.room.stats().closes[static_cast<size_t>(CloseReason::rate_limited)] == 1);
    // The flood ended at the threshold: 60 accepted, 241 dropped, the rest never looked at.
    CHECK(h.room.stats().inputs_accepted == 60);
    CHECK(h.room.stats().inputs_dropped == flood_threshold_inputs + 1);
    CHECK(h.closed.count(other) == 0);
}

TEST_CASE("a steady three times the limit is closed within two and a half seconds, not within one") {
    Harness h;
    const uint32_t p = h.join(0);
    uint32_t seq = 1;
    int closed_at = -1;
    for (int t = 0; t < 300 && closed_at < 0; ++t) {
        for (int i = 0; i < 6; ++i) h.send(p, input_bytes(seq++, 0, 0));
        if (h.closed.count(p)) closed_at = t;
        h.tick();
    }
    CHECK(closed_at > 60);
    CHECK(closed_at <= 150);
    CHECK(h.closed.at(p) == CloseReason::rate_limited);
}

// ---- Refusals ------------------------------------------------------------------------------
TEST_CASE("each refusal sends its error, then a close with its reason") {
    struct Case {
        const char* what;
        std::vector<Bytes> messages;
        net::ErrorCode code;
        CloseReason reason;
    };
    const std::vector<Case> cases{
        {"wrong version", {hello_bytes(0, 9)}, ErrorCode::version_mismatch, CloseReason::protocol_error},
        {"wrong fingerprint", {hello_bytes(0, protocol_version, 0x0707070707070707)}, ErrorCode::fingerprint_mismatch,
         CloseReason::protocol_error},
        {"unknown type", {{0x7f, 1, 2}}, ErrorCode::malformed, CloseReason::protocol_error},
        {"a server's message type", {codec(Pong{})}, ErrorCode::malformed, CloseReason::protocol_error},
        {"a truncated hello", {{0x01, 1, 0}}, ErrorCode::malformed, CloseReason::protocol_error},
        {"an empty message", {{}}, ErrorCode::malformed, CloseReason::protocol_error},
        {"a bad role", {hello_bytes(2)}, ErrorCode::malformed, CloseReason::protocol_error},
        {"another game", {hello_bytes(0, protocol_version, arena::fingerprint_hash(), "ships")}, ErrorCode::game_mismatch,
         CloseReason::protocol_error},
        // Three command bytes: a well-formed input message, but no command of the arena's (8 bytes).
        {"a command the game refuses", {hello_bytes(0), {0x02, 1, 0, 0, 0, 3, 1, 2, 3}}, ErrorCode::malformed,
         CloseReason::protocol_error},
        {"input before hello", {input_bytes(1, 0, 0)}, ErrorCode::unexpected, CloseReason::protocol_error},
        {"ping before hello", {codec(Ping{5})}, ErrorCode::unexpected, CloseReason::protocol_error},
        {"a second hello", {hello_bytes(1), hello_bytes(1)}, ErrorCode::unexpected, CloseReason::protocol_error},
        {"an ack of a tick never sent", {hello_bytes(1), ack_bytes(true, 5, 0)}, ErrorCode::unexpected,
         CloseReason::protocol_error},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        Harness h;
        const uint32_t id = h.room.connect(0);
        for (const Bytes& m : c.messages) h.send(id, m);
        const auto ms_ = h.messages(id);
        REQUIRE_FALSE(ms_.empty());
        const auto* e = std::get_if<ErrorMsg>(&ms_.back());
        REQUIRE(e != nullptr);
        CHECK(e->code == c.code);
        CHECK_FALSE(e->text.empty());
        REQUIRE(h.closed.count(id) == 1);
        CHECK(h.closed.at(id) == c.reason);
        // Nothing more is heard from or sent to it.
        h.send(id, hello_bytes(1));
        h.tick(3);
        CHECK(h.messages(id).size() == ms_.size());
        CHECK(h.room.stats().players == 0);
        CHECK(h.room.stats().watchers == 0);
    }
}

TEST_CASE("the version, game and fingerprint errors say which, in a sentence") {
    Harness h;
    const uint32_t a = h.room.connect(0), b = h.room.connect(0);
    h.send(a, hello_bytes(0, 9));
    h.send(b, hello_bytes(0, protocol_version, 0x1234));
    CHECK(error_of(h.messages(a))->text == "protocol version 9, this server speaks 5");
    CHECK(error_of(h.messages(b))->text.find("simulation fingerprint 0000000000001234") == 0);
    const uint32_t c = h.room.connect(0);
    h.send(c, hello_bytes(0, protocol_version, arena::fingerprint_hash(), "ships"));
    CHECK(error_of(h.messages(c))->text == "game 'ships', this room runs 'arena'");
}

TEST_CASE("players past the seats and watchers past the places get room_full") {
    RoomConfig<Sim> c = small_config();
    c.max_players = 2;
    c.max_watchers = 1;
    Harness h(c);
    h.join(0);
    h.join(0);
    h.join(1);
    const uint32_t p3 = h.join(0), w2 = h.join(1);
    for (uint32_t id : {p3, w2}) {
        CHECK(error_of(h.messages(id))->code == ErrorCode::room_full);
        CHECK(h.closed.at(id) == CloseReason::room_full);
    }
    CHECK(h.room.stats().players == 2);
    CHECK(h.room.stats().watchers == 1);
}

TEST_CASE("a silent connection is closed at the idle timeout, a player's seat with it") {
    RoomConfig<Sim> c = small_config();
    c.idle_timeout_ns = 2'000'000'000;
    Harness h(c);
    const uint32_t p = h.join(0);
    const uint32_t w = h.join(1);
    for (int t = 0; t < 130; ++t) {
        h.tick();
        if (t % 10 == 0) h.send(w, ack_bytes(true, h.room.state().tick, arena::digest(h.room.state())));
    }
    CHECK(error_of(h.messages(p))->code == ErrorCode::idle);
    CHECK(h.closed.at(p) == CloseReason::idle);
    CHECK(h.closed.count(w) == 0);
    CHECK(h.room.stats().players == 0);
    bool left = false;
    for (const Frame& f : h.of<Frame>(w)) {
        for (const Applied<Sim>& a : inputs_of(f)) left |= a.input.kind == InputKind::leave;
    }
    CHECK(left);
}

TEST_CASE("times at the ends of the int64 range are compared without overflow") {
    Harness h;
    const uint32_t id = h.room.connect(INT64_MIN);
    h.room.tick(INT64_MAX);  // as far apart as two times can be: past any idle timeout
    h.pump();
    CHECK(h.closed.at(id) == CloseReason::idle);
}

TEST_CASE("shut_down sends shutting_down and a close to everyone, and refuses later hellos") {
    Harness h;
    const uint32_t p = h.join(0), w = h.join(1);
    const uint32_t early = h.room.connect(0);
    h.room.shut_down(0);
    h.pump();
    for (uint32_t id : {p, w, early}) {
        CHECK(error_of(h.messages(id))->code == ErrorCode::shutting_down);
        CHECK(h.closed.at(id) == CloseReason::shutting_down);
    }
    const uint32_t late = h.join(1);
    CHECK(error_of(h.messages(late))->code == ErrorCode::shutting_down);
}

// ---- Pings and desyncs ---------------------------------------------------------------------
TEST_CASE("a ping is answered with its echo, the time passed in and the tick") {
    Harness h;
    const uint32_t w = h.join(1);
    h.tick(7);
    h.room.receive(w, codec(Ping{-42}), 123'456);
    h.pump();
    const auto pongs = h.of<Pong>(w);
    REQUIRE(pongs.size() == 1);
    CHECK(pongs[0] == Pong{-42, 123'456, 7});
}

TEST_CASE("a desync report is answered with the room's section digests from the ring") {
    Harness h;
    const uint32_t p = h.join(0);
    arena::World reference = h.room.state();
    arena::Stepper stepper;
    std::map<uint64_t, sim::SectionDigests<Sim>> expected;
    for (int t = 0; t < 700; ++t) {
        if (t % 50 == 0) h.send(p, ack_bytes(true, h.room.state().tick, arena::digest(h.room.state())));
        h.tick();
    }
    // The reference: the world from tick 0 with the inputs the frames carried.
    for (const Frame& f : h.of<Frame>(p)) {
        std::vector<arena::Input> in;
        for (const Applied<Sim>& a : inputs_of(f)) in.push_back(a.input);
        stepper.step(reference, in);
        expected[reference.tick] = arena::section_digests(reference);
    }
    sim::SectionDigests<Sim> mine = expected.at(650);
    mine[Sim::pellets] ^= 1;
    h.send(p, codec(Desync{650, section_list<Sim>(mine)}));
    h.send(p, codec(Desync{50, section_list<Sim>(mine)}));  // left the ring (it holds 101..700)
    const auto answers = h.of<Sections>(p);
    REQUIRE(answers.size() == 2);
    CHECK(answers[0] == Sections{650, true, section_list<Sim>(expected.at(650))});
    CHECK(answers[0].sections[Sim::pellets] != mine[Sim::pellets]);
    CHECK(answers[0].sections[Sim::wells] == mine[Sim::wells]);
    CHECK(answers[1] == Sections{50, false, {}});
    CHECK(h.room.stats().desync_reports == 2);
}

TEST_CASE("an ack whose digest differs from the room's is counted") {
    Harness h;
    const uint32_t w = h.join(1);
    h.tick(10);
    h.send(w, ack_bytes(true, 10, 12345));
    CHECK(h.room.stats().ack_mismatches == 1);
}

// ---- Isolation, late join, determinism -----------------------------------------------------
namespace {
// Two players steering, a watcher and a late watcher acking; optionally, clients that send
// garbage, a wrong fingerprint, messages before hello, and a stalled watcher, interleaved.
std::map<std::string, std::vector<Bytes>> scenario(bool with_misbehaving) {
    Harness h;
    std::map<std::string, uint32_t> ids;
    std::vector<uint32_t> bad;
    auto misbehave = [&](int t) {
        if (!with_misbehaving) return;
        const uint32_t id = h.room.connect(h.now);
        bad.push_back(id);
        switch (t % 5) {
            case 0: h.send(id, {0xde, 0xad, 0xbe, 0xef}); break;
            case 1: h.send(id, hello_bytes(0, protocol_version, 42)); break;
            case 2: h.send(id, input_bytes(1, 5 << 16, 5 << 16)); break;
            case 3: h.send(id, hello_bytes(0, 9)); break;
            case 4: h.send(id, codec(Frame{})); break;
        }
    };
    ids["p1"] = h.join(0);
    misbehave(0);
    ids["w"] = h.join(1);
    misbehave(1);
    ids["p2"] = h.join(0);
    uint32_t seq = 1;
    for (int t = 0; t < 400; ++t) {
        if (t % 37 == 0) misbehave(t);
        if (t == 150) ids["late"] = h.join(1);
        if (with_misbehaving && t == 20) h.join(1);  // a watcher that never acks
        h.send(ids["p1"], input_bytes(seq, (t * 13 % 1000) << 16, 200 << 16));
        if (t % 3 == 0) h.send(ids["p2"], input_bytes(seq, 700 << 16, (t * 7 % 1000) << 16));
        ++seq;
        if (t % 10 == 0) {
            for (const auto& [name, id] : ids) h.send(id, ack_bytes(true, h.room.state().tick, arena::digest(h.room.state())));
        }
        h.tick();
        for (uint32_t id : bad) {
            if (h.closed.count(id)) h.room.disconnect(id, h.now);
        }
    }
    std::map<std::string, std::vector<Bytes>> out;
    for (const auto& [name, id] : ids) out[name] = h.got[id];
    return out;
}
}  // namespace

TEST_CASE("nothing a misbehaving client sends changes a byte any other client receives") {
    const auto clean = scenario(false);
    const auto noisy = scenario(true);
    REQUIRE(clean.size() == 4);
    for (const auto& [name, bytes] : clean) {
        INFO(name);
        CHECK(bytes.size() > 200);
        CHECK(noisy.at(name) == bytes);
    }
}

TEST_CASE("a late joiner gets a welcome, a baseline of that tick and then frames it can verify") {
    const auto got = scenario(false);
    const auto& late = got.at("late");
    Verifier v;
    std::vector<ServerMessage> ms_;
    for (const Bytes& b : late) ms_.push_back(decode_server(b).value());
    REQUIRE(ms_.size() > 3);
    CHECK(std::get<Welcome>(ms_[0]).server_tick == 150);
    CHECK(std::get<Baseline>(ms_[1]).tick == 150);
    for (size_t i = 1; i < ms_.size(); ++i) v.feed(ms_[i]);
    CHECK(v.all_ok);
    CHECK(v.verified == 250);
    // And the first watcher verified every tick from 0.
    Verifier first;
    for (const Bytes& b : got.at("w")) first.feed(decode_server(b).value());
    CHECK(first.all_ok);
    CHECK(first.verified == 400);
}

TEST_CASE("the same calls produce the same bytes, with or without a clock for the stats") {
    auto run = [](bool clock) {
        Harness h;
        if (clock) h.room.set_clock(+[]() -> int64_t {
            static int64_t t = 0;
            return t += 1000;
        });
        const uint32_t p = h.join(0), w = h.join(1);
        for (int t = 0; t < 100; ++t) {
            h.send(p, input_bytes(static_cast<uint32_t>(t + 1), t << 16, t << 16));
            h.tick();
        }
        h.send(w, codec(Ping{1}));
        if (clock) CHECK(h.room.stats().last_step_ns > 0);
        return std::make_pair(h.got[p], h.got[w]);
    };
    CHECK(run(false) == run(true));
}

// ---- Recording -----------------------------------------------------------------------------
TEST_CASE("a recording is a header, a watcher's welcome, a baseline, then each tick's frame and sections") {
    Harness h;
    const uint32_t p = h.join(0);
    h.tick(5);
    h.room.start_recording();
    const arena::World start = h.room.state();
    for (int t = 0; t < 20; ++t) {
        h.send(p, input_bytes(static_cast<uint32_t>(t + 1), (t * 40) << 16, 100 << 16));
        h.tick();
    }
    Bytes file;
    h.room.take_recording(file);
    Bytes more;
    h.room.take_recording(more);
    CHECK(more.empty());
    // The header by hand: "TNDR", format 2, protocol version, fingerprint hash.
    REQUIRE(file.size() > 16);
    CHECK(Bytes(file.begin(), file.begin() + 4) == Bytes{'T', 'N', 'D', 'R'});
    CHECK(file[4] == 2);
    CHECK(file[5] == 0);
    CHECK(file[6] == protocol_version);
    uint64_t fp = 0;
    for (int i = 0; i < 8; ++i) fp |= uint64_t{file[8 + static_cast<size_t>(i)]} << (8 * i);
    CHECK(fp == arena::fingerprint_hash());
    std::vector<ServerMessage> records;
    size_t at = 16;
    while (at < file.size()) {
        REQUIRE(at + 4 <= file.size());
        const uint32_t n = file[at] | file[at + 1] << 8 | file[at + 2] << 16 | static_cast<uint32_t>(file[at + 3]) << 24;
        at += 4;
        REQUIRE(at + n <= file.size());
        records.push_back(decode_server(std::span<const uint8_t>(file.data() + at, n)).value());
        at += n;
    }
    REQUIRE(records.size() == 2 + 2 * 20);
    const auto& welcome = std::get<Welcome>(records[0]);
    CHECK(welcome.role == Role::watch);
    CHECK(welcome.server_tick == 5);
    CHECK(config_of<Sim>(welcome).value() == h.room.config().game);
    CHECK(arena::decode(std::get<Baseline>(records[1]).snapshot).value() == start);
    Verifier v;
    v.feed(records[1]);
    for (size_t i = 2; i < records.size(); i += 2) {
        v.feed(records[i]);
        const auto& s = std::get<Sections>(records[i + 1]);
        CHECK(s.held);
        CHECK(s.tick == v.w->tick);
        CHECK(s.sections == section_list<Sim>(arena::section_digests(*v.w)));
    }
    CHECK(v.verified == 20);
    CHECK(v.all_ok);

    // The replay checker accepts it; a steer altered in one frame is named at its tick.
    const auto replay = read_replay<Sim>(file);
    REQUIRE(replay.ok());
    const ReplayCheck check = check_replay<Sim>(replay.value());
    CHECK_FALSE(check.divergence.has_value());
    CHECK(check.first_tick == 5);
    CHECK(check.last_tick == 25);
    CHECK(check.frames_checked == 20);
    size_t offset = 16;
    for (int record = 0; record < 2 + 2 * 10; ++record) {
        offset += 4 + (file[offset] | file[offset + 1] << 8 | file[offset + 2] << 16);
    }
    // Record 22 is tick 16's frame, holding one steer; its target.x starts after the record's
    // length (4), the frame's header (20) and the input's player, kind and sequence (9).
    REQUIRE(std::get<Frame>(records[22]).tick == 16);
    REQUIRE(inputs_of(std::get<Frame>(records[22])).size() == 1);
    file[offset + 4 + 20 + 9 + 2] ^= 1;
    const ReplayCheck bad = check_replay<Sim>(read_replay<Sim>(file).value());
    REQUIRE(bad.divergence.has_value());
    CHECK(bad.divergence->tick == 16);
    CHECK(bad.divergence->sections_known);
    CHECK(bad.divergence->sections == std::vector<std::string_view>{"wells"});
}
