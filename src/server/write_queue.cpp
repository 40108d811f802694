// WriteQueue (see write_queue.hpp): the byte accounting is the whole of it.
#include "server/write_queue.hpp"

namespace tandem::server {

bool WriteQueue::push(SharedBytes message) {
    const uint64_t size = message->size();
    if (size > cap_bytes_ - bytes_) return false;  // bytes_ <= cap_bytes_ always holds
    bytes_ += size;
    messages_.push_back(std::move(message));
    return true;
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
