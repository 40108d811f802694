// The life of one WebSocket session as a pure state machine: its phases, what each allows,
// and the events that move it on. WsSession holds its phase and moves it only through next(),
// and asks the phase before it reads, hands a message on, queues a frame or ends; the table is
// checked without sockets by tests/server/ws_lifecycle_test.cpp and through them by the
// close-path matrix (tests/server/hostile.test.mjs). The rule that matters most: the session's
// own read is the only reader Beast ever has. A close we begin is a frame we write ourselves,
// never Beast's async_close, whose own reading deadlocked against an outstanding read (and
// asserted in Beast's read_size_hint_pmd) when the peer's next frame was one Beast rejects by
// itself.
#pragma once

#include <cstdint>

namespace tandem::server {

enum class WsPhase : uint8_t {
    handshaking,  // the upgrade answer is being written; nothing is read yet, and what Beast
                  // writes is HTTP, not frames
    open,         // messages go to the room, the room's frames go out
    closing,      // our close frame is queued or sent: reading continues (and discards) until
                  // the peer's close frame, a read error or the close deadline
    ended,        // the socket is closed and the room, the gauges and the counts are told: once
};

enum class WsEvent : uint8_t {
    accepted,          // the handshake completed
    handshake_failed,  // it did not (the socket is gone)
    close_begun,       // we (the room, a budget, a bad message, the drain) start the closing handshake
    read_failed,       // the read ended: the peer's close frame, a protocol error, a reset, a
                       // timeout, or the socket a failed write closed
    close_deadline,    // the closing handshake took longer than the close timeout
};

// What a phase allows.
constexpr bool delivers_messages(WsPhase p) { return p == WsPhase::open; }      // to the room
constexpr bool queues_frames(WsPhase p) { return p == WsPhase::open; }          // the room's frames
constexpr bool reads(WsPhase p) { return p == WsPhase::open || p == WsPhase::closing; }
constexpr bool counts_as_open(WsPhase p) { return p != WsPhase::ended; }        // socket, gauges, seat

struct WsTransition {
    WsPhase to;
    bool finish;  // end the session now: close the socket, tell the room and the server, once
};

// The next phase after `event`. Ended absorbs everything; an event a phase cannot see
// (a close begun twice, a deadline while open) changes nothing. A close is begun only once the
// handshake is done: before, the bytes Beast writes are the upgrade answer, and a drain tears
// unfinished handshakes down instead (so a close begun while handshaking is ignored).
constexpr WsTransition next(WsPhase from, WsEvent event) {
    switch (from) {
    case WsPhase::handshaking:
        if (event == WsEvent::accepted) return {WsPhase::open, false};
        if (event == WsEvent::handshake_failed || event == WsEvent::read_failed) return {WsPhase::ended, true};
        return {WsPhase::handshaking, false};
    case WsPhase::open:
        if (event == WsEvent::close_begun) return {WsPhase::closing, false};
        if (event == WsEvent::read_failed) return {WsPhase::ended, true};
        return {WsPhase::open, false};
    case WsPhase::closing:
        if (event == WsEvent::read_failed || event == WsEvent::close_deadline) return {WsPhase::ended, true};
        return {WsPhase::closing, false};
    case WsPhase::ended:
        return {WsPhase::ended, false};
    }
    return {WsPhase::ended, false};
}

}  // namespace tandem::server
