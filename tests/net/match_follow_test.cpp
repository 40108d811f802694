// Match<G>'s followers (what a page draws over its session, a predicting client being one),
// over the stub game with a follower that records its calls: it is updated after a command is
// sent and after each frame's advance, its frame ended once per advance, nothing while its page
// is suspended; endpoints without one are plain sessions; a lookup of another type finds none.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "net/stub_game.hpp"
#include "tandem/net/match.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {
constexpr int64_t ms = 1'000'000;
constexpr int64_t tick_ns = 1'000'000'000 / 60;

// Records each call as a line: "u<confirmed tick>/<last sequence sent>" or "e".
struct Recorder {
    std::vector<std::string> calls;
    void update(ClientSession<stub::Game>& s, int64_t) {
        const auto& c = s.confirmed_state();
        const auto sent = s.last_command_sent();
        calls.push_back("u" + std::to_string(c ? c->tick : 0) + "/" + std::to_string(sent ? sent->sequence : 0));
    }
    void end_frame() { calls.push_back("e"); }
};
struct Other {
    void update(ClientSession<stub::Game>&, int64_t) {}
    void end_frame() {}
};
static_assert(SessionFollower<Recorder, stub::Game>);
static_assert(!SessionFollower<int, stub::Game>);
}  // namespace

TEST_CASE("Match: a follower is updated after a command is sent and after each advance, its frame ended once per advance, nothing while suspended", "[match]") {
    Match<stub::Game> m = Match<stub::Game>::create(RoomConfig<stub::Game>{}).value();
    const uint32_t me = m.add_session(Role::play, 1, LinkSpec{20 * ms, 0}, 0);
    const uint32_t plain = m.add_session(Role::play, 2, LinkSpec{20 * ms, 0}, 0);
    Recorder& r = m.follow(me, Recorder{});
    CHECK(m.follower<Recorder>(me) == &r);
    CHECK(m.follower<Other>(me) == nullptr);
    CHECK(m.follower<Recorder>(plain) == nullptr);
    m.connect(me, 0);
    m.connect(plain, 0);
    uint64_t t = 0;
    auto frame = [&] {
        const int64_t now = static_cast<int64_t>(t++) * tick_ns;
        m.deliver(now);
        m.advance(me, now, 16 * ms);
        m.advance(plain, now, 16 * ms);
        m.tick(now);
        return now;
    };
    for (int i = 0; i < 60; ++i) frame();
    REQUIRE(r.calls.size() == 120);
    for (size_t i = 0; i < r.calls.size(); i += 2) CHECK(r.calls[i + 1] == "e");
    REQUIRE(m.session(me).confirmed_state());

    // A command: the follower sees it sent at once, before any frame.
    r.calls.clear();
    const int64_t now = static_cast<int64_t>(t) * tick_ns;
    m.send_command(me, stub::Command{3}, now);
    REQUIRE(r.calls.size() == 1);
    const auto sent = m.session(me).last_command_sent();
    REQUIRE(sent);
    CHECK(sent->command == stub::Command{3});
    CHECK(r.calls[0] == "u" + std::to_string(m.session(me).confirmed_state()->tick) + "/" + std::to_string(sent->sequence));
    // A command for an endpoint without a follower reaches its session alone.
    m.send_command(plain, stub::Command{4}, now);
    REQUIRE(m.session(plain).last_command_sent());
    CHECK(m.session(plain).last_command_sent()->command == stub::Command{4});
    CHECK(r.calls.size() == 1);

    // Suspended: the page draws nothing (its socket still receives).
    r.calls.clear();
    m.suspend(me, static_cast<int64_t>(t) * tick_ns);
    for (int i = 0; i < 10; ++i) frame();
    CHECK(r.calls.empty());
    m.resume(me, static_cast<int64_t>(t) * tick_ns);
    frame();
    CHECK(r.calls.size() == 2);

    // Both sessions still verify every tick from their baseline.
    for (uint32_t e : {me, plain}) {
        const SessionFigures f = m.session(e).figures();
        CHECK(f.mismatches == 0);
        REQUIRE(m.session(e).confirmed_state());
        CHECK(f.verified_ticks == m.session(e).confirmed_state()->tick - f.last_baseline_tick);
    }
}

TEST_CASE("Match: follow replaces an endpoint's follower, and the new one alone is driven", "[match]") {
    Match<stub::Game> m = Match<stub::Game>::create(RoomConfig<stub::Game>{}).value();
    const uint32_t me = m.add_session(Role::play, 1, LinkSpec{20 * ms, 0}, 0);
    m.follow(me, Recorder{});
    m.follow(me, Other{});
    CHECK(m.follower<Recorder>(me) == nullptr);
    REQUIRE(m.follower<Other>(me) != nullptr);
    Recorder& r = m.follow(me, Recorder{});
    m.connect(me, 0);
    m.advance(me, 0, 16 * ms);
    CHECK(r.calls == std::vector<std::string>{"u0/0", "e"});
}
