// Match<G>: the one in-process driver of a match of any game G. It owns a Room<G> and any number
// of endpoints, each a socket over two ordered LatencyLinks (up and down): a ClientSession<G>,
// or a raw endpoint that sends bytes of its own choosing and keeps what it receives (an
// intruder, a flooder). A session may be followed by what a page draws over it (a predicting
// client, client::PredictedClient<G>), which Match updates where a page would. It moves bytes
// only: every decision stays in the room, the sessions and their followers. Time is passed in
// and the links are seeded, so a run is the same on every build (tests, benches, the bindings'
// in-page matches).
#pragma once

#include <concepts>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tandem/core/fixed.hpp"
#include "tandem/core/result.hpp"
#include "tandem/net/client_session.hpp"
#include "tandem/net/latency_link.hpp"
#include "tandem/net/room.hpp"

namespace tandem::net {

// A socket's two directions: each way latency_ns plus a uniform jitter in [-jitter_ns,
// jitter_ns], ordered as a WebSocket is, never lost (a WebSocket loses nothing; a lossy link
// would be a socket closing).
struct LinkSpec {
    int64_t latency_ns = 0;
    int64_t jitter_ns = 0;
};

// What follows a session as a page's drawing does (client::PredictedClient<G> is one): told
// after every call that changed the session (a command sent, a frame advanced) and at the end
// of each page frame. Match names no follower type, so the net layer needs no client library.
template <class F, class G>
concept SessionFollower = requires(F f, ClientSession<G>& s, int64_t now) {
    f.update(s, now);
    f.end_frame();
};

template <sim::Simulation G>
class Match {
public:
    using Bytes = std::vector<uint8_t>;
    using Session = ClientSession<G>;
    // Called with every message an endpoint takes from its socket (a session's, as it is
    // handed to the session; a raw endpoint's as it is kept); never with a close.
    using Observer = std::function<void(uint32_t endpoint, std::span<const uint8_t> message, int64_t now)>;

    static Result<Match, RoomConfigError<G>> create(const RoomConfig<G>& config) {
        auto room = Room<G>::create(config);
        if (!room.ok()) return room.error();
        return Match(std::move(room).value());
    }

    Room<G>& room() { return room_; }
    const Room<G>& room() const { return room_; }
    void set_observer(Observer observer) { observer_ = std::move(observer); }

    // ---- Endpoints (indices from 0, in the order added) ----
    // A client session of `role`, not yet connected; `seed` seeds its links.
    uint32_t add_session(Role role, uint64_t seed, LinkSpec link, int64_t now) {
        endpoints_.push_back(std::make_unique<Endpoint>(seed, link));
        endpoints_.back()->session.emplace(role, now);
        return static_cast<uint32_t>(endpoints_.size() - 1);
    }
    // An endpoint without a session: send_raw writes its bytes, received() holds what arrives.
    uint32_t add_raw(uint64_t seed, LinkSpec link) {
        endpoints_.push_back(std::make_unique<Endpoint>(seed, link));
        return static_cast<uint32_t>(endpoints_.size() - 1);
    }
    uint32_t endpoints() const { return static_cast<uint32_t>(endpoints_.size()); }
    Session& session(uint32_t e) { return *endpoints_[e]->session; }
    const Session& session(uint32_t e) const { return *endpoints_[e]->session; }
    bool has_session(uint32_t e) const { return endpoints_[e]->session.has_value(); }
    // The room's connection id of the endpoint's open socket (0: none).
    uint32_t connection(uint32_t e) const { return endpoints_[e]->open ? endpoints_[e]->id : 0; }
    bool open(uint32_t e) const { return endpoints_[e]->open; }
    // The room asked for this endpoint's close at least once.
    bool closed_by_room(uint32_t e) const { return endpoints_[e]->closed_by_room; }
    // A raw endpoint's received messages, in order; whether its socket was closed.
    const std::vector<Bytes>& received(uint32_t e) const { return endpoints_[e]->received; }
    // The same, handed over and forgotten: a raw endpoint that plays for as long as a page
    // stays open (the offline mode's bots) must not keep every frame it was sent.
    std::vector<Bytes> take_received(uint32_t e) { return std::exchange(endpoints_[e]->received, {}); }
    bool saw_close(uint32_t e) const { return endpoints_[e]->saw_close; }

    // Makes the endpoint's session followed by `follower` (replacing any before): from then on
    // send_command and advance update it, and advance ends its frame. Returns it, as held (the
    // reference stays valid, the Match moved or not, until the follower is replaced).
    template <SessionFollower<G> F>
    F& follow(uint32_t e, F follower) {
        auto held = std::make_unique<FollowerOf<F>>(std::move(follower));
        F& kept = held->follower;
        endpoints_[e]->follower = std::move(held);
        return kept;
    }
    // The endpoint's follower if it is an F (nullptr if none, or of another type).
    template <class F>
    F* follower(uint32_t e) {
        auto* held = dynamic_cast<FollowerOf<F>*>(endpoints_[e]->follower.get());
        return held ? &held->follower : nullptr;
    }
    template <class F>
    const F* follower(uint32_t e) const {
        const auto* held = dynamic_cast<const FollowerOf<F>*>(endpoints_[e]->follower.get());
        return held ? &held->follower : nullptr;
    }

    // The player's command, as a page sends it between frames: the session queues it (it goes
    // out at the next advance or flush) and a follower draws it at once.
    void send_command(uint32_t e, const typename G::Command& command, int64_t now) {
        Endpoint& p = *endpoints_[e];
        if (!p.session) return;
        p.session->send_command(command, now);
        if (p.follower) p.follower->update(*p.session, now);
    }

    // Opens a socket to the room (a session then says hello).
    void connect(uint32_t e, int64_t now) {
        Endpoint& p = *endpoints_[e];
        p.id = room_.connect(now);
        p.open = true;
        if (p.session) p.session->on_connected(now);
    }
    // The client drops its socket: the room sees the disconnect, the session too, and whatever
    // was in flight either way is gone with it (a new socket starts with fresh links, seeded
    // from `seed`).
    void disconnect(uint32_t e, uint64_t seed, int64_t now) {
        Endpoint& p = *endpoints_[e];
        if (p.open) room_.disconnect(p.id, now);
        p.open = false;
        p.up = LatencyLink<Bytes>(seed * 2 + 1);
        p.down = LatencyLink<Bytes>(seed * 2 + 2);
        p.unread.clear();
        if (p.session) p.session->on_disconnected(now);
    }
    // Bytes of the endpoint's own choosing onto its socket (nothing if it is closed).
    void send_raw(uint32_t e, Bytes bytes, int64_t now) {
        Endpoint& p = *endpoints_[e];
        if (!p.open) return;
        p.up.send(now, std::move(bytes), p.link.latency_ns, p.link.jitter_ns, Fx::zero());
    }
    // A page that stops reading its socket: what arrives (its close too) piles up in the
    // socket's buffer, and is handed over in order when it reads again.
    void set_reading(uint32_t e, bool reading, int64_t now) {
        Endpoint& p = *endpoints_[e];
        p.reading = reading;
        if (!reading) return;
        std::vector<Bytes> unread = std::move(p.unread);
        p.unread.clear();
        for (const Bytes& b : unread) hand_over(e, b, now);
    }
    // A page frozen and thawed: the session is told, and advance() skips it meanwhile (its
    // socket keeps receiving).
    void suspend(uint32_t e, int64_t now) {
        endpoints_[e]->suspended = true;
        if (endpoints_[e]->session) endpoints_[e]->session->on_suspend(now);
    }
    void resume(uint32_t e, int64_t now) {
        endpoints_[e]->suspended = false;
        if (endpoints_[e]->session) endpoints_[e]->session->on_resume(now);
    }
    bool suspended(uint32_t e) const { return endpoints_[e]->suspended; }

    // ---- Time ----
    // Everything due by now arrives: the room's messages at each endpoint (or its unread
    // buffer), then the endpoints' messages at the room, endpoint by endpoint.
    void deliver(int64_t now) {
        for (uint32_t e = 0; e < endpoints_.size(); ++e) {
            Endpoint& p = *endpoints_[e];
            for (Bytes& b : p.down.drain_due(now)) {
                if (p.reading) hand_over(e, b, now);
                else p.unread.push_back(std::move(b));
            }
            for (Bytes& b : p.up.drain_due(now))
                if (p.open) room_.receive(p.id, b, now);
        }
    }
    // One page frame of a session: advance within the budget, its follower updated and its
    // frame ended (unless suspended: a frozen page draws nothing), then what the session queued
    // goes onto its socket. Returns the ticks it applied.
    uint32_t advance(uint32_t e, int64_t now, int64_t budget_ns) {
        Endpoint& p = *endpoints_[e];
        uint32_t applied = 0;
        if (p.session && !p.suspended) {
            applied = p.session->advance(now, budget_ns);
            if (p.follower) {
                p.follower->update(*p.session, now);
                p.follower->end_frame();
            }
        }
        flush(e, now);
        return applied;
    }
    // What a session queued goes onto its socket (dropped when the socket is closed).
    void flush(uint32_t e, int64_t now) {
        Endpoint& p = *endpoints_[e];
        if (!p.session) return;
        outgoing_.clear();
        p.session->take_outgoing(outgoing_);
        if (!p.open) return;
        for (Bytes& b : outgoing_) p.up.send(now, std::move(b), p.link.latency_ns, p.link.jitter_ns, Fx::zero());
    }
    // The room's tick, then its outbox onto the sockets; a close it asks for is sent as the
    // socket's end (the endpoint's session sees on_disconnected when it arrives) and the
    // room is told the connection is gone.
    void tick(int64_t now) {
        room_.tick(now);
        route(now);
    }
    // The outbox alone (after a receive or a disconnect outside a tick).
    void route(int64_t now) {
        sends_.clear();
        closes_.clear();
        room_.take_outbox(sends_, closes_);
        for (const Outgoing& o : sends_) {
            if (Endpoint* p = by_connection(o.to))
                p->down.send(now, *o.bytes, p->link.latency_ns, p->link.jitter_ns, Fx::zero());
        }
        for (const CloseRequest& c : closes_) {
            if (Endpoint* p = by_connection(c.who)) {
                p->down.send(now, Bytes{}, p->link.latency_ns, p->link.jitter_ns, Fx::zero());
                p->open = false;
                p->closed_by_room = true;
            }
            room_.disconnect(c.who, now);
        }
    }
    // A whole round at one instant: deliver, every session's frame (advance and flush), the
    // room's tick.
    void step(int64_t now, int64_t budget_ns) {
        deliver(now);
        for (uint32_t e = 0; e < endpoints_.size(); ++e) advance(e, now, budget_ns);
        tick(now);
    }
    // Nothing in flight any more on any socket.
    bool idle() const {
        for (const auto& p : endpoints_)
            if (p->up.in_flight() > 0 || p->down.in_flight() > 0) return false;
        return true;
    }

    Match(Match&&) noexcept = default;
    Match& operator=(Match&&) noexcept = default;

private:
    // A follower behind one interface, so an endpoint may hold any type of it.
    struct Follower {
        virtual ~Follower() = default;
        virtual void update(Session& session, int64_t now) = 0;
        virtual void end_frame() = 0;
    };
    template <class F>
    struct FollowerOf final : Follower {
        explicit FollowerOf(F f) : follower(std::move(f)) {}
        void update(Session& session, int64_t now) override { follower.update(session, now); }
        void end_frame() override { follower.end_frame(); }
        F follower;
    };

    struct Endpoint {
        Endpoint(uint64_t seed, LinkSpec l) : link(l), up(seed * 2 + 1), down(seed * 2 + 2) {}
        LinkSpec link;
        LatencyLink<Bytes> up, down;   // an empty Bytes on `down` is the close of the socket
        uint32_t id = 0;
        bool open = false;
        bool reading = true;
        bool suspended = false;
        bool closed_by_room = false;
        bool saw_close = false;
        std::vector<Bytes> unread;     // arrived while not reading (the socket's buffer)
        std::vector<Bytes> received;   // a raw endpoint's messages
        std::optional<Session> session;
        std::unique_ptr<Follower> follower;   // what draws over the session, if anything
    };

    explicit Match(Room<G> room) : room_(std::move(room)) {}

    Endpoint* by_connection(uint32_t id) {
        for (auto& p : endpoints_)
            if (p->open && p->id == id) return p.get();
        return nullptr;
    }
    void hand_over(uint32_t e, const Bytes& b, int64_t now) {
        Endpoint& p = *endpoints_[e];
        if (b.empty()) {   // the socket closed
            p.saw_close = true;
            if (p.session) p.session->on_disconnected(now);
            return;
        }
        if (observer_) observer_(e, b, now);
        if (p.session) p.session->receive(b, now);
        else p.received.push_back(b);
    }

    Room<G> room_;
    std::vector<std::unique_ptr<Endpoint>> endpoints_;
    Observer observer_;
    std::vector<Bytes> outgoing_;        // reused
    std::vector<Outgoing> sends_;        // reused
    std::vector<CloseRequest> closes_;   // reused
};

}  // namespace tandem::net
