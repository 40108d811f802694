// Room<G> over a game that shares nothing with the arena (tests/net/stub_game.hpp: a counter per
// player, a one-byte command): it admits players and watchers, authors the game's join command,
// steps, streams frames whose bytes are the protocol's layout with the game's command size,
// refuses commands the game does not accept and another game's hello, records a replay the
// generic checker accepts, and drives a ScriptedBot of the stub's policy. Expected bytes and
// counters are worked out here by hand from the stub's rules.
#include "tandem/net/room.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string_view>
#include <variant>
#include <vector>

#include "net/stub_game.hpp"
#include "tandem/net/bot.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/replay.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

using Stub = stub::Game;
using Bytes = std::vector<uint8_t>;
constexpr int64_t tick_ns = 16'666'667;

void le(Bytes& b, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
Bytes hello_bytes(uint8_t role, std::string_view game = "stub", uint64_t fp = sim::fingerprint_hash<Stub>()) {
    Bytes b{0x01};
    le(b, protocol_version, 2);
    le(b, fp, 8);
    b.push_back(role);
    b.push_back(static_cast<uint8_t>(game.size()));
    b.insert(b.end(), game.begin(), game.end());
    b.insert(b.end(), {0, 0, 0});  // no token, no ticket
    return b;
}
// u8 type | u32 sequence | u8 n | n command bytes (the stub's is one: the increment)
Bytes input_bytes(uint32_t seq, Bytes command) {
    Bytes b{0x02};
    le(b, seq, 4);
    b.push_back(static_cast<uint8_t>(command.size()));
    b.insert(b.end(), command.begin(), command.end());
    return b;
}

struct Harness {
    Room<Stub> room;
    std::map<uint32_t, std::vector<Bytes>> got;
    std::map<uint32_t, CloseReason> closed;
    int64_t now = 0;

    explicit Harness(const RoomConfig<Stub>& c = {}) : room(Room<Stub>::create(c).value()) {}
    void pump() {
        std::vector<Outgoing> sends;
        std::vector<CloseRequest> closes;
        room.take_outbox(sends, closes);
        for (const Outgoing& o : sends) got[o.to].push_back(*o.bytes);
        for (const CloseRequest& c : closes) closed[c.who] = c.reason;
    }
    uint32_t join(uint8_t role, std::string_view game = "stub") {
        const uint32_t id = room.connect(now);
        room.receive(id, hello_bytes(role, game), now);
        pump();
        return id;
    }
    void send(uint32_t id, const Bytes& b) {
        room.receive(id, b, now);
        pump();
    }
    void tick(int n = 1) {
        for (int i = 0; i < n; ++i) {
            room.tick(now += tick_ns);
            pump();
        }
    }
    template <class T>
    std::vector<T> of(uint32_t id) const {
        std::vector<T> out;
        auto it = got.find(id);
        if (it == got.end()) return out;
        for (const Bytes& b : it->second) {
            auto m = decode_server(b);
            REQUIRE(m.ok());
            if (const T* t = std::get_if<T>(&*m)) out.push_back(*t);
        }
        return out;
    }
};

uint64_t count_of(const stub::State& s, uint32_t player) {
    for (const stub::Counter& c : s.counters) {
        if (c.player == player) return c.count;
    }
    return UINT64_MAX;
}

}  // namespace

TEST_CASE("stub room: create checks the seats against the game's config and resolves 0 to all of them") {
    CHECK(Room<Stub>::create({}).value().config().max_players == 4);
    RoomConfig<Stub> c;
    c.max_players = 5;
    CHECK(Room<Stub>::create(c).code() == "max_players_out_of_range");
    c.game.players = 64;
    c.max_players = 64;
    CHECK(Room<Stub>::create(c).ok());
    c.game.players = 0;
    const auto bad = Room<Stub>::create(c);
    CHECK(bad.code() == "players_out_of_range");   // the game's own code
    CHECK(bad.message() == "players must be between 1 and 64");
}

TEST_CASE("stub room: a player is welcomed with the stub's config, joins with the game's join command and counts") {
    Harness h;
    const uint32_t p = h.join(0);
    const uint32_t w = h.join(1);
    const auto welcomes = h.of<Welcome>(p);
    REQUIRE(welcomes.size() == 1);
    CHECK(welcomes[0].player == 1);
    CHECK(welcomes[0].max_players == 4);
    CHECK(welcomes[0].game == "stub");
    CHECK(welcomes[0].config == Bytes{4, 0, 0, 0, 60, 0, 0, 0});   // players, tick_hz
    CHECK(h.of<Baseline>(w).size() == 1);
    h.tick(3);   // the join lands on tick 1 + delay 2 = 3
    // The increments 5 and then 9 sent at tick 3 land on tick 6; the newest wins.
    h.send(p, input_bytes(1, {5}));
    h.send(p, input_bytes(2, {9}));
    h.tick(3);
    h.send(p, input_bytes(3, {200}));
    h.tick(3);
    // A join starts the counter at 0 (its command, 7, is only carried), then 9 and 200 are added.
    CHECK(count_of(h.room.state(), 1) == 9 + 200);
    CHECK(h.room.state().tick == 9);

    // The frames, byte for byte: type, tick, digest, count, command bytes 1, then per input
    // player, kind, sequence, increment.
    const auto& raw = h.got.at(w);
    REQUIRE(raw.size() == 2 + 9);
    const auto frames = h.of<Frame>(w);
    Bytes tick3 = {0x82};
    le(tick3, 3, 8);
    le(tick3, frames[2].digest, 8);
    le(tick3, 1, 2);
    tick3.push_back(1);
    tick3.insert(tick3.end(), {1, 0, 0, 0, 0, 0, 0, 0, 0, 7});   // player 1 joins, sequence 0, command 7
    CHECK(raw[2 + 2] == tick3);
    Bytes tick6 = {0x82};
    le(tick6, 6, 8);
    le(tick6, frames[5].digest, 8);
    le(tick6, 1, 2);
    tick6.push_back(1);
    tick6.insert(tick6.end(), {1, 0, 0, 0, 2, 2, 0, 0, 0, 9});   // player 1's command, sequence 2
    CHECK(raw[2 + 5] == tick6);
    CHECK(frames[0].count == 0);
    CHECK(frames[8].digest == sim::digest<Stub>(h.room.state()));
}

TEST_CASE("stub room: a command of another size than the game's is refused as malformed, another game's hello too") {
    Harness h;
    const uint32_t p = h.join(0);
    h.send(p, input_bytes(1, {1, 2}));
    REQUIRE(h.closed.count(p) == 1);
    CHECK(h.closed.at(p) == CloseReason::protocol_error);
    const auto errors = h.of<ErrorMsg>(p);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].code == ErrorCode::malformed);
    CHECK(h.room.stats().inputs_accepted == 0);
    const uint32_t q = h.join(0);
    h.send(q, input_bytes(1, {}));
    CHECK(h.of<ErrorMsg>(q).at(0).code == ErrorCode::malformed);

    const uint32_t a = h.join(0, "arena");
    CHECK(h.of<ErrorMsg>(a).at(0).code == ErrorCode::game_mismatch);
    CHECK(h.closed.at(a) == CloseReason::protocol_error);
    // Seats 1 and 2 were given back: a new player gets seat 1 once the leaves are stepped.
    h.tick(3);
    const uint32_t r = h.join(0);
    CHECK(h.of<Welcome>(r).at(0).player == 1);
}

TEST_CASE("stub room: a fifth player finds the room full") {
    Harness h;
    for (int i = 0; i < 4; ++i) h.join(0);
    const uint32_t fifth = h.join(0);
    CHECK(h.of<ErrorMsg>(fifth).at(0).code == ErrorCode::room_full);
    CHECK(h.room.stats().players == 4);
    h.tick(3);
    CHECK(h.room.state().counters.size() == 4);
}

TEST_CASE("stub room: its recording reads and checks clean with the stub's replay reader, not the arena's header") {
    Harness h;
    const uint32_t p = h.join(0);
    h.room.start_recording();
    for (uint32_t t = 1; t <= 12; ++t) {
        h.send(p, input_bytes(t, {static_cast<uint8_t>(t)}));
        h.tick();
    }
    Bytes file;
    h.room.take_recording(file);
    const auto replay = read_replay<Stub>(file);
    REQUIRE(replay.ok());
    const ReplayCheck check = check_replay<Stub>(*replay);
    CHECK_FALSE(check.divergence);
    CHECK(check.frames_checked == 12);
    const auto end = replay_state_at<Stub>(*replay, 12);
    REQUIRE(end.ok());
    CHECK(*end == h.room.state());
    // Inputs sent at ticks 0..11 land two ticks later: increments 1..10 by tick 12.
    CHECK(count_of(*end, 1) == 55);
}

// A game need not have bots: the concept a room needs does not ask for one.
static_assert(sim::Simulation<Stub> && !HasBot<Stub>);
static_assert(HasBot<stub::BotGame>);

TEST_CASE("stub room: ScriptedBot plays the stub's policy and the room follows it") {
    using Botted = stub::BotGame;
    Room<Botted> room = Room<Botted>::create({}).value();
    ScriptedBot<Botted> bot(3);
    const uint32_t id = room.connect(0);
    bot.on_connected();
    uint64_t sum = 0;   // what the bot sent, by its own account
    auto pump = [&](int64_t now) {
        for (bool moved = true; moved;) {
            std::vector<std::vector<uint8_t>> out;
            bot.take_outgoing(out);
            for (const auto& m : out) room.receive(id, m, now);
            std::vector<Outgoing> sends;
            std::vector<CloseRequest> closes;
            room.take_outbox(sends, closes);
            REQUIRE(closes.empty());
            for (const Outgoing& o : sends) {
                const uint32_t before = bot.figures().commands_sent;
                bot.receive(*o.bytes);
                if (bot.figures().commands_sent != before) sum += bot.command().increment;
            }
            moved = !out.empty() || !sends.empty();
        }
    };
    pump(0);
    for (int t = 1; t <= 100; ++t) {
        room.tick(t * tick_ns);
        pump(t * tick_ns);
    }
    CHECK(bot.figures().welcomed);
    CHECK(bot.figures().player == 1);
    // A command at the welcome (tick 0) and every tenth tick: 0, 10, ..., 100.
    CHECK(bot.figures().commands_sent == 11);
    // All but the one sent at tick 100 (it lands on tick 103) have been stepped; the join at 0
    // landed on tick 3, before the first command (landing on tick 3 too, after the join).
    CHECK(count_of(room.state(), 1) == sum - bot.command().increment);
}
