// One connection's outgoing bytes, bounded by one cap: the room's messages and Beast's own
// writes (the handshake answer, pongs, the close frame) alike. The room's buffers are shared
// with every other recipient of the same frame (never copied); the byte count charges each
// connection the full size of what it holds, since that is what it keeps alive. A room
// message that would not fit is refused, and the caller closes the peer. Beast's writes are
// never refused (a close frame must go out), so the caller bounds them instead: it stops
// reading from a peer whose queue could not take what one more read might make Beast answer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "tandem/server/room_port.hpp"

namespace tandem::server {

// The header of a server-to-client WebSocket frame carrying `payload_bytes` as one final
// binary frame (RFC 6455 5.2: FIN + opcode 2, no mask, the 7-bit / 16-bit / 64-bit length
// forms). A server frame is unmasked, so header + payload are the same bytes for every
// recipient: the transport writes this header and the shared payload with one sendmsg.
// Returns how many bytes of `out` it filled (2, 4 or 10).
size_t binary_frame_header(uint64_t payload_bytes, std::array<uint8_t, 10>& out);

class WriteQueue {
public:
    explicit WriteQueue(uint64_t cap_bytes) : cap_bytes_(cap_bytes) {}

    // False (and nothing queued) when the message would take the queue past its cap.
    [[nodiscard]] bool push(SharedBytes message);
    // One whole frame (or the handshake's answer) of Beast's, sent before the next room
    // message starts. Counted, never refused. Joined to the ones not yet sent: control_front()
    // is then all of them, in order.
    void push_control(std::span<const uint8_t> frame);
    bool control_empty() const { return control_.empty(); }
    const std::vector<uint8_t>& control_front() const { return control_.front(); }
    void pop_control();
    // Whether a read of up to `read_bytes` may be taken: whatever it makes Beast answer (a pong
    // is never longer than its ping, and a read holds at most `read_bytes` of pings) still
    // fits under the cap. So pongs alone never take the queue past it.
    bool reading_allowed(uint64_t read_bytes) const { return bytes_ <= cap_bytes_ && read_bytes <= cap_bytes_ - bytes_; }
    bool empty() const { return messages_.empty(); }
    // The oldest message: the one being written, or next to be.
    const SharedBytes& front() const { return messages_.front(); }
    // The i-th oldest message (0 is the front): the writer sends several in one system call.
    const SharedBytes& operator[](size_t i) const { return messages_[i]; }
    // The front message has been written.
    void pop_front();
    // Drops every room message but the front one (which may be half written already).
    void drop_all_but_front();
    // Drops everything, Beast's frames too: the socket is gone.
    void clear();

    // Everything held: the room's messages and Beast's frames.
    uint64_t bytes() const { return bytes_; }
    uint64_t messages() const { return messages_.size(); }  // the room's
    uint64_t cap_bytes() const { return cap_bytes_; }

private:
    uint64_t cap_bytes_;
    uint64_t bytes_ = 0;
    std::deque<SharedBytes> messages_;
    std::deque<std::vector<uint8_t>> control_;
};

}  // namespace tandem::server
