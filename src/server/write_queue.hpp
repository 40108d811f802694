// One connection's outgoing messages, bounded in bytes. The buffers are shared with every
// other recipient of the same frame (never copied); the byte count charges each connection
// the full size of what it holds, since that is what it keeps alive. It must never grow
// past its cap: a message that would not fit is refused, and the caller closes the peer.
#pragma once

#include <cstdint>
#include <deque>

#include "server/room_port.hpp"

namespace tandem::server {

class WriteQueue {
public:
    explicit WriteQueue(uint64_t cap_bytes) : cap_bytes_(cap_bytes) {}

    // False (and nothing queued) when the message would take the queue past its cap.
    [[nodiscard]] bool push(SharedBytes message);
    bool empty() const { return messages_.empty(); }
    // The oldest message: the one being written, or next to be.
    const SharedBytes& front() const { return messages_.front(); }
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
