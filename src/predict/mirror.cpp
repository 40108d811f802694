// SlotAllocator from tandem/predict/mirror.hpp. Integer bookkeeping only; the generation
// bump on free is what keeps a stale key from naming the slot's next occupant.
#include "tandem/predict/mirror.hpp"

namespace tandem::predict {

SlotAllocator SlotAllocator::with_capacity(uint32_t capacity) {
    SlotAllocator a;
    a.generations_.reserve(capacity);
    a.occupied_.reserve(capacity);
    return a;
}

SlotKey SlotAllocator::alloc() {
    ++live_;
    if (!free_.empty()) {
        uint32_t index = 0;
        if (policy_ == ReusePolicy::fifo) {
            index = free_.front();
            free_.pop_front();
        } else {
            index = free_.back();
            free_.pop_back();
        }
        occupied_[index] = true;
        return SlotKey{index, generations_[index]};
    }
    const auto index = static_cast<uint32_t>(generations_.size());
    generations_.push_back(0);
    occupied_.push_back(true);
    return SlotKey{index, 0};
}

Result<void, SlotError> SlotAllocator::free(SlotKey key) {
    if (!is_live(key)) return SlotError::not_live;
    occupied_[key.index] = false;
    ++generations_[key.index];  // wraps after 2^32 reuses of one slot, as the key type does
    free_.push_back(key.index);
    --live_;
    return {};
}

bool SlotAllocator::is_live(SlotKey key) const {
    return key.index < generations_.size() && occupied_[key.index] && generations_[key.index] == key.generation;
}

}  // namespace tandem::predict
