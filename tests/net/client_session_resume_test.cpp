// Resume in ClientSession<G> (tandem/net/client_session.hpp), over the arena: the session keeps
// the token its welcome carried and sends it in the hello of its own reconnects, says when a
// welcome gave its seat back, drops a token the room refuses (and asks for a new seat next
// time), stops for good when another connection took its seat, and never lets the token reach
// its replay export. The room's messages are made here with the codec.
#include "tandem/net/client_session.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "arena/sim.hpp"
#include "net/recording.hpp"
#include "tandem/net/replay.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

using testing::Bytes;
using testing::encoded;
using Sim = arena::Sim;
using Session = ClientSession<Sim>;
constexpr int64_t ms = 1'000'000;

ResumeToken token_of(uint8_t n) {
    ResumeToken t{};
    t.fill(n);
    return t;
}

struct Server {
    arena::World world = [] {
        arena::WorldConfig c = arena::default_config();
        c.pellet_count = 16;
        return arena::make_world(c).value();
    }();
    Bytes welcome(uint32_t player, std::optional<ResumeToken> token, Role role = Role::play) const {
        Welcome w = welcome_for<Sim>(role, player, 2, world.tick, 16, world.config);
        w.resume = token;
        return encoded(w);
    }
    Bytes baseline() const { return encoded(Baseline{world.tick, arena::encode(world)}); }
};

std::vector<Hello> hellos(Session& s) {
    std::vector<Bytes> out;
    s.take_outgoing(out);
    std::vector<Hello> found;
    for (const Bytes& b : out) {
        auto m = decode_client(b);
        REQUIRE(m.ok());
        if (auto* h = std::get_if<Hello>(&m.value())) found.push_back(*h);
    }
    return found;
}

Bytes refusal(net::ErrorCode code) { return encoded(ErrorMsg{code, "refused"}); }

}  // namespace

TEST_CASE("the session sends its welcome's token in the hello of its next connection, and each resume's fresh token in the one after", "[client_session]") {
    Server server;
    Session s(Role::play, 0);
    s.on_connected(0);
    auto h = hellos(s);
    REQUIRE(h.size() == 1);
    CHECK_FALSE(h[0].resume.has_value());  // a first join asks for a new seat
    s.receive(server.welcome(3, token_of(1)), 10 * ms);
    s.receive(server.baseline(), 10 * ms);
    CHECK(s.figures().resumable);
    CHECK_FALSE(s.figures().resumed);

    s.on_disconnected(20 * ms);
    s.on_connected(30 * ms);
    h = hellos(s);
    REQUIRE(h.size() == 1);
    CHECK(h[0].resume == token_of(1));
    CHECK(h[0].role == Role::play);
    s.receive(server.welcome(3, token_of(2)), 40 * ms);
    CHECK(s.figures().resumed);
    CHECK(s.figures().resumes == 1);
    CHECK(s.figures().player == 3);

    s.on_disconnected(50 * ms);
    s.on_connected(60 * ms);
    h = hellos(s);
    REQUIRE(h.size() == 1);
    CHECK(h[0].resume == token_of(2));  // single use: the newest token, never the first again
}

TEST_CASE("a refused token is dropped and the next connection asks for a new seat, while resumed_elsewhere stops reconnecting", "[client_session]") {
    Server server;
    for (const net::ErrorCode code : {net::ErrorCode::resume_unknown, net::ErrorCode::resume_expired, net::ErrorCode::resume_used}) {
        INFO(error_name(code));
        Session s(Role::play, 0);
        s.on_connected(0);
        s.receive(server.welcome(1, token_of(1)), ms);
        s.on_disconnected(2 * ms);
        s.on_connected(3 * ms);
        REQUIRE(hellos(s).at(0).resume == token_of(1));
        s.receive(refusal(code), 4 * ms);
        CHECK(s.should_reconnect());
        CHECK_FALSE(s.figures().resumable);
        s.on_disconnected(5 * ms);
        s.on_connected(6 * ms);
        CHECK_FALSE(hellos(s).at(0).resume.has_value());
        s.receive(server.welcome(2, token_of(2)), 7 * ms);
        CHECK_FALSE(s.figures().resumed);  // a new seat, not the old one
        CHECK(s.figures().resumes == 0);
    }
    Session taken(Role::play, 0);
    taken.on_connected(0);
    taken.receive(server.welcome(1, token_of(1)), ms);
    taken.receive(refusal(net::ErrorCode::resumed_elsewhere), 2 * ms);
    CHECK_FALSE(taken.should_reconnect());
    CHECK_FALSE(taken.figures().resumable);
}

TEST_CASE("a watcher never sends a token, and a welcome without one leaves the session nothing to resume", "[client_session]") {
    Server server;
    Session w(Role::watch, 0);
    w.on_connected(0);
    w.receive(server.welcome(watcher_id, std::nullopt, Role::watch), ms);
    w.on_disconnected(2 * ms);
    w.on_connected(3 * ms);
    CHECK_FALSE(hellos(w).at(0).resume.has_value());
    Session p(Role::play, 0);
    p.on_connected(0);
    p.receive(server.welcome(1, std::nullopt), ms);
    CHECK_FALSE(p.figures().resumable);
    p.on_disconnected(2 * ms);
    p.on_connected(3 * ms);
    CHECK_FALSE(hellos(p).at(0).resume.has_value());
}

TEST_CASE("the replay a session exports holds its welcome without the token", "[client_session]") {
    Server server;
    Session s(Role::play, 0);
    s.on_connected(0);
    s.receive(server.welcome(1, token_of(0xA5)), ms);
    s.receive(server.baseline(), ms);
    const Bytes file = s.export_replay();
    uint32_t run = 0;
    bool found = false;
    for (uint8_t b : file) {
        run = b == 0xA5 ? run + 1 : 0;
        found = found || run == resume_token_bytes;
    }
    CHECK_FALSE(found);
    const auto replay = read_replay<Sim>(file);
    REQUIRE(replay.ok());
}
