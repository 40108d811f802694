// One connection's outgoing messages, bounded in bytes. The buffers are shared with every
// other recipient of the same frame (never copied); the byte count charges each connection
// the full size of what it holds, since that is what it keeps alive. It must never grow
// past its cap: a message that would not fit is refused, and the caller closes the peer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>

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
    bool empty() const { return messages_.empty(); }
    // The oldest message: the one being written, or next to be.
    const SharedBytes& front() const { return messages_.front(); }
    // The i-th oldest message (0 is the front): the writer sends several in one system call.
    const SharedBytes& operator[](size_t i) const { return messages_[i]; }
    // The front message has been written.
    void pop_front();
    // Drops every message but the front one (which may be half written already).
    void drop_all_but_front();

    uint64_t bytes() const { return bytes_; }
    uint64_t messages() const { return messages_.size(); }
    uint64_t cap_bytes() const { return cap_bytes_; }

private:
    uint64_t cap_bytes_;
    uint64_t bytes_ = 0;
    std::deque<SharedBytes> messages_;
};

}  // namespace tandem::server
