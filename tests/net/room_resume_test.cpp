// Resume in Room<G> (tandem/net/room.hpp), over the arena: a dropped player's seat and well are
// kept for the grace, nobody else can take the seat, the welcome's token gets the same player
// id back (welcome, baseline, frames, a fresh token), the grace's end authors the leave at the
// tick the contract names, and wrong, stale and used tokens are each refused with their own
// code. Tokens come from a deterministic source here; the hellos are written byte by byte.
#include "tandem/net/room.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <variant>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/protocol.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

using Sim = arena::Sim;
using Bytes = std::vector<uint8_t>;
constexpr int64_t tick_ns = 16'666'667;

void le(Bytes& b, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
// u8 type | u16 version | u64 fingerprint | u8 role | u8 n | name | u8 t | t bytes of token
// | u16 ticket length (0)
Bytes hello_bytes(uint8_t role, const std::optional<ResumeToken>& token = std::nullopt) {
    Bytes b{0x01};
    le(b, protocol_version, 2);
    le(b, arena::fingerprint_hash(), 8);
    b.push_back(role);
    b.insert(b.end(), {5, 'a', 'r', 'e', 'n', 'a'});
    b.push_back(token ? 16 : 0);
    if (token) b.insert(b.end(), token->begin(), token->end());
    b.insert(b.end(), {0, 0});
    return b;
}
Bytes input_bytes(uint32_t seq, int32_t x_raw, int32_t y_raw) {
    Bytes b{0x02};
    le(b, seq, 4);
    b.push_back(8);
    le(b, static_cast<uint32_t>(x_raw), 4);
    le(b, static_cast<uint32_t>(y_raw), 4);
    return b;
}

// Token n: sixteen bytes all n (never zero for n > 0), so a test can name the token it expects.
ResumeToken token_of(uint8_t n) {
    ResumeToken t{};
    t.fill(n);
    return t;
}

RoomConfig<Sim> resume_config(int64_t grace_ns = 1'000'000'000) {
    RoomConfig<Sim> c;
    c.game.pellet_count = 16;
    c.max_players = 2;
    c.resume_grace_ns = grace_ns;
    return c;
}

struct Harness {
    Room<Sim> room;
    std::map<uint32_t, std::vector<ServerMessage>> got;
    std::map<uint32_t, CloseReason> closed;
    int64_t now = 0;
    uint8_t next_token = 1;

    explicit Harness(const RoomConfig<Sim>& c = resume_config(), bool tokens = true) : room(Room<Sim>::create(c).value()) {
        if (tokens) room.set_token_source([this] { return token_of(next_token++); });
    }
    void pump() {
        std::vector<Outgoing> sends;
        std::vector<CloseRequest> closes;
        room.take_outbox(sends, closes);
        for (const Outgoing& o : sends) {
            auto m = decode_server(*o.bytes);
            REQUIRE(m.ok());
            got[o.to].push_back(m.value());
        }
        for (const CloseRequest& c : closes) closed[c.who] = c.reason;
    }
    uint32_t hello(uint8_t role, const std::optional<ResumeToken>& token = std::nullopt) {
        const uint32_t id = room.connect(now);
        room.receive(id, hello_bytes(role, token), now);
        pump();
        return id;
    }
    void send(uint32_t id, const Bytes& b) {
        room.receive(id, b, now);
        pump();
    }
    void drop(uint32_t id) {
        room.disconnect(id, now);
        pump();
    }
    void tick(int n = 1) {
        for (int i = 0; i < n; ++i) {
            now += tick_ns;
            room.tick(now);
            pump();
        }
    }
    template <class T>
    std::vector<T> of(uint32_t id) const {
        std::vector<T> out;
        auto it = got.find(id);
        if (it == got.end()) return out;
        for (const ServerMessage& m : it->second)
            if (const T* t = std::get_if<T>(&m)) out.push_back(*t);
        return out;
    }
    Welcome welcome(uint32_t id) const {
        const auto w = of<Welcome>(id);
        REQUIRE(w.size() == 1);
        return w[0];
    }
    std::optional<net::ErrorCode> error(uint32_t id) const {
        const auto e = of<ErrorMsg>(id);
        if (e.empty()) return std::nullopt;
        return e[0].code;
    }
    const arena::Well* well(uint32_t player) const {
        for (const arena::Well& w : room.state().wells)
            if (w.player == player) return &w;
        return nullptr;
    }
    // Every (tick, kind) the frames sent to `id` carried for `player`.
    std::vector<std::pair<uint64_t, sim::InputKind>> inputs_for(uint32_t id, uint32_t player) const {
        std::vector<std::pair<uint64_t, sim::InputKind>> out;
        for (const Frame& f : of<Frame>(id)) {
            const auto decoded = decode_frame_inputs<Sim>(f);
            REQUIRE(decoded.ok());
            for (const Applied<Sim>& a : decoded.value())
                if (a.input.player == player) out.emplace_back(f.tick, a.input.kind);
        }
        return out;
    }
};

}  // namespace

TEST_CASE("a player's welcome carries a token from the room's source, a watcher's none, and none without a source") {
    Harness h;
    const uint32_t p = h.hello(0);
    const uint32_t w = h.hello(1);
    CHECK(h.welcome(p).resume == token_of(1));
    CHECK_FALSE(h.welcome(w).resume.has_value());
    Harness off(resume_config(), /*tokens=*/false);
    CHECK_FALSE(off.welcome(off.hello(0)).resume.has_value());
    Harness no_grace(resume_config(0));
    CHECK_FALSE(no_grace.welcome(no_grace.hello(0)).resume.has_value());
    CHECK(no_grace.room.resume_grace_ticks() == 0);
}

TEST_CASE("the grace is a room option in seconds counted in ticks, rounded up, and refused out of range") {
    CHECK(Harness(resume_config(1'000'000'000)).room.resume_grace_ticks() == 60);
    CHECK(Harness(resume_config(1)).room.resume_grace_ticks() == 1);
    CHECK(RoomConfig<Sim>{}.resume_grace_ns == 30'000'000'000);
    CHECK(Room<Sim>::create(resume_config(-1)).code() == "resume_grace_out_of_range");
    CHECK(Room<Sim>::create(resume_config(3601'000'000'000)).code() == "resume_grace_out_of_range");
    CHECK(Room<Sim>::create(resume_config(3600'000'000'000)).ok());
}

TEST_CASE("a dropped player keeps its seat and well, and its token gets the same player id back with a baseline, frames and a fresh token") {
    Harness h;
    const uint32_t a = h.hello(0);
    const uint32_t watcher = h.hello(1);
    h.tick(5);
    h.send(a, input_bytes(1, 300 << 16, 200 << 16));
    h.tick(10);
    const arena::Well before = *h.well(1);
    const ResumeToken token = *h.welcome(a).resume;
    h.drop(a);
    CHECK(h.room.seat_held(1));
    CHECK(h.room.stats().held_seats == 1);
    CHECK(h.room.stats().players == 0);
    h.tick(30);
    // Still there, still steering toward its last target, and the world authored nothing for it.
    REQUIRE(h.well(1) != nullptr);
    CHECK(h.well(1)->target == before.target);
    const auto carried = h.inputs_for(watcher, 1);
    REQUIRE(carried.size() == 2);  // the join, then the one command
    CHECK(carried[0].second == sim::InputKind::join);
    CHECK(carried[1].second == sim::InputKind::command);

    const uint64_t back_at = Sim::tick(h.room.state());
    const uint32_t again = h.hello(0, token);
    const Welcome w = h.welcome(again);
    CHECK(w.player == 1);
    CHECK(w.role == Role::play);
    REQUIRE(w.resume.has_value());
    CHECK(*w.resume != token);
    CHECK(*w.resume == token_of(2));
    const auto baselines = h.of<Baseline>(again);
    REQUIRE(baselines.size() == 1);
    CHECK(baselines[0].tick == back_at);
    CHECK_FALSE(h.room.seat_held(1));
    CHECK(h.room.stats().resumes == 1);
    CHECK(h.room.stats().players == 1);
    // No second join: the well is the one it left, and its commands steer it again.
    h.tick(3);
    CHECK(h.inputs_for(watcher, 1).size() == 2);
    CHECK(h.of<Frame>(again).size() == 3);
    h.send(again, input_bytes(1, 100 << 16, 100 << 16));
    h.tick(4);
    CHECK(h.well(1)->target == Vec2{Fx::from_int(100), Fx::from_int(100)});
    CHECK(h.room.state().wells.size() == 1);
}

TEST_CASE("nobody else takes a kept seat: a stranger gets another seat, then room_full") {
    Harness h;  // two seats
    const uint32_t a = h.hello(0);
    h.tick(2);
    h.drop(a);
    const uint32_t stranger = h.hello(0);
    CHECK(h.welcome(stranger).player == 2);
    const uint32_t third = h.hello(0);
    CHECK(h.error(third) == net::ErrorCode::room_full);
    CHECK(h.closed.at(third) == CloseReason::room_full);
    CHECK(h.room.seat_held(1));
}

TEST_CASE("the grace's end authors the leave where a disconnect at drop plus grace would, and only then frees the seat") {
    Harness h;  // 60 ticks of grace, input delay 2
    const uint32_t a = h.hello(0);
    const uint32_t watcher = h.hello(1);
    h.tick(10);
    const ResumeToken token = *h.welcome(a).resume;
    const uint64_t dropped_at = Sim::tick(h.room.state());
    h.drop(a);
    h.tick(59);
    CHECK(h.room.seat_held(1));  // the state is at drop + 59: still kept
    h.tick(1);
    CHECK_FALSE(h.room.seat_held(1));
    CHECK(h.room.stats().seats_expired == 1);
    h.tick(5);
    const auto carried = h.inputs_for(watcher, 1);
    REQUIRE(carried.size() == 2);
    CHECK(carried[1].second == sim::InputKind::leave);
    // Drop at D, grace 60, delay 2: the leave lands on D + 60 + 1 + 2.
    CHECK(carried[1].first == dropped_at + 60 + 1 + 2);
    CHECK(h.well(1) == nullptr);
    // The token is stale now; the seat is anyone's.
    const uint32_t late = h.hello(0, token);
    CHECK(h.error(late) == net::ErrorCode::resume_expired);
    CHECK(h.closed.at(late) == CloseReason::resume_refused);
    CHECK(h.welcome(h.hello(0)).player == 1);
}

TEST_CASE("a wrong, a stale and a used token are each refused with their own code, and a watcher's token is unexpected") {
    Harness h;
    const uint32_t a = h.hello(0);
    const uint32_t b = h.hello(0);
    h.tick(2);
    const ResumeToken token_a = *h.welcome(a).resume;
    const ResumeToken token_b = *h.welcome(b).resume;

    const uint32_t wrong = h.hello(0, token_of(0x77));
    CHECK(h.error(wrong) == net::ErrorCode::resume_unknown);
    CHECK(h.closed.at(wrong) == CloseReason::resume_refused);
    CHECK_FALSE(h.room.client(wrong)->admitted);

    h.drop(a);
    const uint32_t back = h.hello(0, token_a);
    CHECK(h.welcome(back).player == 1);
    h.drop(back);
    const uint32_t reused = h.hello(0, token_a);  // the first token, once more
    CHECK(h.error(reused) == net::ErrorCode::resume_used);
    CHECK(h.closed.at(reused) == CloseReason::resume_refused);
    CHECK(h.room.seat_held(1));  // a refused token changes nothing for the seat

    h.drop(b);
    h.tick(61);
    const uint32_t stale = h.hello(0, token_b);
    CHECK(h.error(stale) == net::ErrorCode::resume_expired);

    const uint32_t watcher = h.hello(1, token_of(0x77));
    CHECK(h.error(watcher) == net::ErrorCode::unexpected);
    CHECK(h.room.stats().resumes_refused == 3);
}

TEST_CASE("a token for a seat whose connection is still open takes it over: the old connection gets resumed_elsewhere, and no leave") {
    Harness h;
    const uint32_t a = h.hello(0);
    const uint32_t watcher = h.hello(1);
    h.tick(3);
    const uint32_t again = h.hello(0, *h.welcome(a).resume);
    CHECK(h.welcome(again).player == 1);
    CHECK(h.error(a) == net::ErrorCode::resumed_elsewhere);
    CHECK(h.closed.at(a) == CloseReason::resumed_elsewhere);
    h.drop(a);  // the transport closes the old socket: nothing more happens to the seat
    CHECK_FALSE(h.room.seat_held(1));
    CHECK(h.room.stats().players == 1);
    h.tick(5);
    CHECK(h.inputs_for(watcher, 1).size() == 1);  // the join alone
}

TEST_CASE("a close the room decides gives the seat up at once and makes the token stale") {
    Harness h;
    const uint32_t a = h.hello(0);
    const uint32_t watcher = h.hello(1);
    h.tick(2);
    const ResumeToken token = *h.welcome(a).resume;
    h.send(a, hello_bytes(0));  // a second hello: refused, closed
    REQUIRE(h.closed.at(a) == CloseReason::protocol_error);
    h.drop(a);
    CHECK_FALSE(h.room.seat_held(1));
    h.tick(4);
    const auto carried = h.inputs_for(watcher, 1);
    REQUIRE(carried.size() == 2);
    CHECK(carried[1].second == sim::InputKind::leave);
    CHECK(h.error(h.hello(0, token)) == net::ErrorCode::resume_expired);
}

TEST_CASE("without a token source a drop is a leave at once, as before resume") {
    Harness h(resume_config(), /*tokens=*/false);
    const uint32_t a = h.hello(0);
    const uint32_t watcher = h.hello(1);
    h.tick(2);
    h.drop(a);
    CHECK_FALSE(h.room.seat_held(1));
    h.tick(4);
    const auto carried = h.inputs_for(watcher, 1);
    REQUIRE(carried.size() == 2);
    CHECK(carried[1].second == sim::InputKind::leave);
    CHECK(carried[1].first == 2 + 1 + 2);
}

TEST_CASE("no frame, baseline or recording carries a token's bytes") {
    Harness h;
    h.room.start_recording();
    const uint32_t a = h.hello(0);
    h.tick(3);
    h.drop(a);
    h.hello(0, *h.welcome(a).resume);
    h.tick(3);
    std::vector<uint8_t> recording;
    h.room.take_recording(recording);
    // Tokens 1 and 2 (sixteen 0x01 or 0x02 bytes in a row) appear nowhere but in the welcomes.
    const auto contains = [](const std::vector<uint8_t>& hay, uint8_t byte) {
        uint32_t run = 0;
        for (uint8_t b : hay) {
            run = b == byte ? run + 1 : 0;
            if (run == resume_token_bytes) return true;
        }
        return false;
    };
    CHECK_FALSE(contains(recording, 1));
    CHECK_FALSE(contains(recording, 2));
    Bytes sent;
    for (const auto& [id, messages] : h.got) {
        for (const ServerMessage& m : messages) {
            if (std::holds_alternative<Welcome>(m)) continue;
            encode(sent, m);
        }
    }
    CHECK_FALSE(contains(sent, 1));
    CHECK_FALSE(contains(sent, 2));
}
