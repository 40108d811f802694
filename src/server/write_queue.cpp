// WriteQueue (see write_queue.hpp): the byte accounting is the whole of it; and the header
// of the frames the queue's messages go out in.
#include "server/write_queue.hpp"

namespace tandem::server {

size_t binary_frame_header(uint64_t payload_bytes, std::array<uint8_t, 10>& out) {
    out[0] = 0x82;  // FIN, binary
    if (payload_bytes < 126) {
        out[1] = static_cast<uint8_t>(payload_bytes);
        return 2;
    }
    if (payload_bytes <= 0xFFFF) {
        out[1] = 126;
        out[2] = static_cast<uint8_t>(payload_bytes >> 8);
        out[3] = static_cast<uint8_t>(payload_bytes);
        return 4;
    }
    out[1] = 127;  // network byte order, most significant first
    for (int i = 0; i < 8; ++i) out[2 + i] = static_cast<uint8_t>(payload_bytes >> (8 * (7 - i)));
    return 10;
}

bool WriteQueue::push(SharedBytes message) {
    const uint64_t size = message->size();
    // Beast's frames may have taken bytes_ past the cap (they are never refused).
    if (bytes_ > cap_bytes_ || size > cap_bytes_ - bytes_) return false;
    bytes_ += size;
    messages_.push_back(std::move(message));
    return true;
}

void WriteQueue::push_control(std::span<const uint8_t> frame) {
    bytes_ += frame.size();
    // Whole frames back to back are the same bytes on the wire: joined, a burst of pongs goes
    // out in one system call (and the bytes already sent of the front still count from its start).
    if (control_.empty()) control_.emplace_back();
    control_.back().insert(control_.back().end(), frame.begin(), frame.end());
}

void WriteQueue::pop_control() {
    bytes_ -= control_.front().size();
    control_.pop_front();
}

void WriteQueue::clear() {
    messages_.clear();
    control_.clear();
    bytes_ = 0;
}

void WriteQueue::pop_front() {
    bytes_ -= messages_.front()->size();
    messages_.pop_front();
}

void WriteQueue::drop_all_but_front() {
    while (messages_.size() > 1) {
        bytes_ -= messages_.back()->size();
        messages_.pop_back();
    }
}

}  // namespace tandem::server
