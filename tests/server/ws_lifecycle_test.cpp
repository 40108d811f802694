// The WebSocket session's phases (ws_lifecycle.hpp): every phase crossed with every event,
// against a table written out here by hand from the documented rules, not computed.
#include <catch2/catch.hpp>

#include "server/ws_lifecycle.hpp"

using namespace tandem::server;

TEST_CASE("every phase and event lands where the documented rules say, and ended is final") {
    using P = WsPhase;
    using E = WsEvent;
    struct Row { P from; E event; P to; bool finish; };
    const Row table[] = {
        {P::handshaking, E::accepted, P::open, false},
        {P::handshaking, E::handshake_failed, P::ended, true},
        {P::handshaking, E::close_begun, P::handshaking, false},  // closes begin once accepted
        {P::handshaking, E::read_failed, P::ended, true},
        {P::handshaking, E::close_deadline, P::handshaking, false},
        {P::open, E::accepted, P::open, false},
        {P::open, E::handshake_failed, P::open, false},
        {P::open, E::close_begun, P::closing, false},
        {P::open, E::read_failed, P::ended, true},
        {P::open, E::close_deadline, P::open, false},
        {P::closing, E::accepted, P::closing, false},
        {P::closing, E::handshake_failed, P::closing, false},
        {P::closing, E::close_begun, P::closing, false},
        {P::closing, E::read_failed, P::ended, true},
        {P::closing, E::close_deadline, P::ended, true},  // the deadline ends it completely
    };
    for (const Row& row : table) {
        const WsTransition t = next(row.from, row.event);
        INFO("from " << int(row.from) << " on " << int(row.event));
        CHECK(t.to == row.to);
        CHECK(t.finish == row.finish);
    }
    for (E e : {E::accepted, E::handshake_failed, E::close_begun, E::read_failed, E::close_deadline}) {
        CHECK(next(P::ended, e).to == P::ended);
        CHECK_FALSE(next(P::ended, e).finish);  // finished once, never twice
    }
}

TEST_CASE("only an open session hands messages on or queues frames, a closing one still reads") {
    CHECK(delivers_messages(WsPhase::open));
    CHECK(queues_frames(WsPhase::open));
    for (WsPhase p : {WsPhase::handshaking, WsPhase::closing, WsPhase::ended}) {
        CHECK_FALSE(delivers_messages(p));
        CHECK_FALSE(queues_frames(p));
    }
    CHECK(reads(WsPhase::closing));  // until the peer's close frame: our read is Beast's only reader
    CHECK_FALSE(reads(WsPhase::ended));
    CHECK_FALSE(reads(WsPhase::handshaking));
    CHECK_FALSE(counts_as_open(WsPhase::ended));
}
