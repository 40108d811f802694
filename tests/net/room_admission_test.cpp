// Who the room admits, over the arena (tandem/net/room.hpp): each source's share of seats and
// watcher places (kept seats included, so dropping connections gathers nothing; a resume from
// another source moves the seat only where there is room), and tickets through a judge (a fake
// one here, whose verdicts the test sets): a hello without one, or with one the judge refuses or
// that does not fit the hello, is refused with its own code and takes no place; a ticket naming
// a seat gets that seat; the judge is told what was spent and what a watcher gave back.
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

SourceKey source(uint8_t n) {
    SourceKey k{};
    k[15] = n;
    return k;
}

ResumeToken token_of(uint8_t n) {
    ResumeToken t{};
    t.fill(n);
    return t;
}

// A ticket the fake judge knows by its nonce's first byte.
Ticket ticket(uint8_t id, Role role = Role::play, uint32_t player = 0) {
    Ticket t;
    t.expires_unix_s = 1000;
    t.nonce.fill(0);
    t.nonce[0] = id;
    t.role = role;
    t.player = role == Role::watch ? 0 : player;
    t.room = "default";
    return t;
}

Bytes hello_bytes(Role role, std::optional<Ticket> t = std::nullopt, std::optional<ResumeToken> token = std::nullopt) {
    Hello h = hello_for<Sim>(role);
    h.ticket = std::move(t);
    h.resume = token;
    Bytes b;
    encode(b, h);
    return b;
}

class FakeJudge final : public TicketJudge {
public:
    std::map<uint8_t, net::ErrorCode> verdicts;   // by nonce[0]; absent: accepted
    std::vector<uint8_t> spent;
    std::vector<uint8_t> released;
    std::optional<net::ErrorCode> check(const Ticket& t) override {
        const auto it = verdicts.find(t.nonce[0]);
        if (it == verdicts.end()) return std::nullopt;
        return it->second;
    }
    void spend(const Ticket& t) override { spent.push_back(t.nonce[0]); }
    void release(const TicketNonce& n) override { released.push_back(n[0]); }
};

struct Harness {
    Room<Sim> room;
    std::map<uint32_t, std::vector<ServerMessage>> got;
    std::map<uint32_t, CloseReason> closed;
    int64_t now = 0;
    uint8_t next_token = 1;

    explicit Harness(const RoomConfig<Sim>& c) : room(Room<Sim>::create(c).value()) {
        room.set_token_source([this] { return token_of(next_token++); });
    }
    void pump() {
        std::vector<Outgoing> sends;
        std::vector<CloseRequest> closes;
        room.take_outbox(sends, closes);
        for (const Outgoing& o : sends) got[o.to].push_back(decode_server(*o.bytes).value());
        for (const CloseRequest& c : closes) closed[c.who] = c.reason;
    }
    uint32_t join(uint8_t from, Role role, std::optional<Ticket> t = std::nullopt, std::optional<ResumeToken> token = std::nullopt) {
        const uint32_t id = room.connect(now, source(from));
        room.receive(id, hello_bytes(role, std::move(t), token), now);
        pump();
        return id;
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
    bool admitted(uint32_t id) const {
        const auto it = got.find(id);
        return it != got.end() && !it->second.empty() && std::holds_alternative<Welcome>(it->second.front());
    }
    uint32_t player(uint32_t id) const { return std::get<Welcome>(got.at(id).front()).player; }
    std::optional<ResumeToken> token(uint32_t id) const { return std::get<Welcome>(got.at(id).front()).resume; }
    // The refusal a connection got: its error code and the close reason.
    std::optional<std::pair<net::ErrorCode, CloseReason>> refusal(uint32_t id) const {
        const auto it = got.find(id);
        if (it == got.end() || it->second.empty()) return std::nullopt;
        const auto* e = std::get_if<ErrorMsg>(&it->second.front());
        if (e == nullptr || closed.count(id) == 0) return std::nullopt;
        return std::pair{e->code, closed.at(id)};
    }
};

RoomConfig<Sim> config(uint32_t seats_per_source, uint32_t watchers_per_source, uint32_t max_players = 4) {
    RoomConfig<Sim> c;
    c.game.pellet_count = 16;
    c.max_players = max_players;
    c.resume_grace_ns = 1'000'000'000;   // 60 ticks
    c.seats_per_source = seats_per_source;
    c.watchers_per_source = watchers_per_source;
    return c;
}

const auto address_limit = std::pair{net::ErrorCode::address_limit, CloseReason::address_limit};

}  // namespace

TEST_CASE("one source holds at most its share of seats: the next player's hello is refused with address_limit and takes no seat") {
    Harness h(config(2, 0));
    const uint32_t a1 = h.join(1, Role::play);
    const uint32_t a2 = h.join(1, Role::play);
    const uint32_t a3 = h.join(1, Role::play);
    CHECK(h.admitted(a1));
    CHECK(h.admitted(a2));
    CHECK(h.refusal(a3) == address_limit);
    // Another source still gets the seats that are left, the lowest free first.
    const uint32_t b1 = h.join(2, Role::play);
    const uint32_t b2 = h.join(2, Role::play);
    CHECK(h.player(b1) == 3);
    CHECK(h.player(b2) == 4);
    CHECK(h.room.stats().players == 4);
    CHECK(h.room.stats().seats_refused_per_source == 1);
    CHECK(h.room.stats().refusals[static_cast<size_t>(net::ErrorCode::address_limit)] == 1);
    CHECK(h.room.stats().sources == 2);
    // A watcher from the full source is another budget.
    CHECK(h.admitted(h.join(1, Role::watch)));
}

TEST_CASE("kept seats count against their source, so dropping connections gathers no more seats than the share") {
    Harness h(config(2, 0));
    const uint32_t a1 = h.join(1, Role::play);
    const uint32_t a2 = h.join(1, Role::play);
    h.drop(a1);
    h.drop(a2);
    CHECK(h.room.stats().held_seats == 2);
    CHECK(h.refusal(h.join(1, Role::play)) == address_limit);
    // The grace ends: the seats are given up, and with them the source's count.
    h.tick(61);
    CHECK(h.room.stats().held_seats == 0);
    CHECK(h.room.stats().sources == 0);
    h.tick(4);   // the leaves are stepped
    CHECK(h.admitted(h.join(1, Role::play)));
}

TEST_CASE("a seat given up by a leave, and a watcher's place by a disconnect, return to the source's share") {
    RoomConfig<Sim> c = config(1, 2);
    c.resume_grace_ns = 0;   // a drop is a leave at once
    Harness h(c);
    const uint32_t a = h.join(1, Role::play);
    CHECK(h.refusal(h.join(1, Role::play)) == address_limit);
    h.drop(a);
    h.tick(4);
    CHECK(h.admitted(h.join(1, Role::play)));
    const uint32_t w1 = h.join(1, Role::watch);
    CHECK(h.admitted(h.join(1, Role::watch)));
    CHECK(h.refusal(h.join(1, Role::watch)) == address_limit);
    CHECK(h.room.stats().watchers_refused_per_source == 1);
    h.drop(w1);
    CHECK(h.admitted(h.join(1, Role::watch)));
}

TEST_CASE("a resume token moves its seat to the source it comes back from, only where that source has room") {
    Harness h(config(2, 0));
    const uint32_t a = h.join(1, Role::play);
    const ResumeToken t = *h.token(a);
    h.drop(a);
    h.join(2, Role::play);
    h.join(2, Role::play);
    // Source 2 is at its share: the resume is refused and the seat stays kept for the token.
    const uint32_t thief = h.join(2, Role::play, std::nullopt, t);
    CHECK(h.refusal(thief) == address_limit);
    CHECK(h.room.seat_held(1));
    // From a source with room (a phone moving to another network) it gets the seat back.
    const uint32_t back = h.join(3, Role::play, std::nullopt, t);
    REQUIRE(h.admitted(back));
    CHECK(h.player(back) == 1);
    // Source 1 no longer holds it: it may take a seat again.
    const uint32_t again = h.join(1, Role::play);
    REQUIRE(h.admitted(again));
    CHECK(h.player(again) == 4);
    CHECK(h.room.stats().players == 4);
}

TEST_CASE("without per-source limits one source may take every seat, as an in-process match does") {
    Harness h(config(0, 0));
    for (int i = 0; i < 4; ++i) CHECK(h.admitted(h.join(1, Role::play)));
    for (int i = 0; i < 50; ++i) CHECK(h.admitted(h.join(1, Role::watch)));
}

TEST_CASE("with a ticket judge, a hello without a ticket, or with one the judge refuses, is refused with its own code and takes no place") {
    Harness h(config(0, 0));
    auto judge = std::make_shared<FakeJudge>();
    judge->verdicts = {{2, net::ErrorCode::ticket_forged}, {3, net::ErrorCode::ticket_expired}, {4, net::ErrorCode::ticket_replayed},
                       {5, net::ErrorCode::ticket_invalid}, {6, net::ErrorCode::room_full}};
    h.room.set_ticket_judge(judge);
    const std::pair<net::ErrorCode, CloseReason> refused[] = {
        {net::ErrorCode::ticket_missing, CloseReason::ticket_refused},  {net::ErrorCode::ticket_forged, CloseReason::ticket_refused},
        {net::ErrorCode::ticket_expired, CloseReason::ticket_refused},  {net::ErrorCode::ticket_replayed, CloseReason::ticket_refused},
        {net::ErrorCode::ticket_invalid, CloseReason::ticket_refused},  {net::ErrorCode::room_full, CloseReason::room_full},
    };
    CHECK(h.refusal(h.join(1, Role::play)) == refused[0]);
    for (uint8_t id = 2; id <= 6; ++id) {
        INFO("ticket " << int(id));
        CHECK(h.refusal(h.join(1, Role::play, ticket(id))) == refused[id - 1]);
    }
    CHECK(h.room.stats().players == 0);
    CHECK(judge->spent.empty());
    // An accepted one admits, and is spent.
    const uint32_t ok = h.join(1, Role::play, ticket(7));
    CHECK(h.admitted(ok));
    CHECK(judge->spent == std::vector<uint8_t>{7});
}

TEST_CASE("a ticket that does not fit the hello is ticket_invalid: another role, or a seat the room does not have") {
    Harness h(config(0, 0));
    auto judge = std::make_shared<FakeJudge>();
    h.room.set_ticket_judge(judge);
    const auto invalid = std::pair{net::ErrorCode::ticket_invalid, CloseReason::ticket_refused};
    CHECK(h.refusal(h.join(1, Role::play, ticket(1, Role::watch))) == invalid);
    CHECK(h.refusal(h.join(1, Role::watch, ticket(2, Role::play))) == invalid);
    CHECK(h.refusal(h.join(1, Role::play, ticket(3, Role::play, 5))) == invalid);  // 4 seats
    CHECK(judge->spent.empty());
}

TEST_CASE("a ticket naming a seat gets that seat, and another for it room_full, while a refusal after the judge spends nothing") {
    Harness h(config(1, 0));
    auto judge = std::make_shared<FakeJudge>();
    h.room.set_ticket_judge(judge);
    const uint32_t third = h.join(1, Role::play, ticket(1, Role::play, 3));
    REQUIRE(h.admitted(third));
    CHECK(h.player(third) == 3);
    CHECK(h.refusal(h.join(2, Role::play, ticket(2, Role::play, 3))) == std::pair{net::ErrorCode::room_full, CloseReason::room_full});
    // The source's share applies to ticketed hellos too.
    CHECK(h.refusal(h.join(1, Role::play, ticket(3))) == address_limit);
    CHECK(judge->spent == std::vector<uint8_t>{1});
    // Any-seat tickets take the lowest free one.
    CHECK(h.player(h.join(4, Role::play, ticket(4))) == 1);
}

TEST_CASE("a watcher's ticket is given back to the judge when the watcher goes, a player's never, and a resume needs no ticket") {
    Harness h(config(0, 0));
    auto judge = std::make_shared<FakeJudge>();
    h.room.set_ticket_judge(judge);
    const uint32_t w = h.join(1, Role::watch, ticket(1, Role::watch));
    const uint32_t p = h.join(1, Role::play, ticket(2));
    REQUIRE(h.admitted(w));
    REQUIRE(h.admitted(p));
    const ResumeToken t = *h.token(p);
    h.drop(w);
    h.drop(p);
    CHECK(judge->released == std::vector<uint8_t>{1});
    const uint32_t back = h.join(1, Role::play, std::nullopt, t);
    REQUIRE(h.admitted(back));
    CHECK(h.player(back) == h.player(p));
    CHECK(judge->spent == std::vector<uint8_t>{1, 2});
}

TEST_CASE("a room without a judge ignores a hello's ticket") {
    Harness h(config(0, 0));
    CHECK(h.admitted(h.join(1, Role::play, ticket(1, Role::watch))));
}
