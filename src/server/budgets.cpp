// AddressBook and TokenBucket (see budgets.hpp): counting, and the order of the checks.
#include "server/budgets.hpp"

namespace tandem::server {

AddressKey address_key_v4(uint32_t host_order) {
    AddressKey key{};
    key[10] = 0xFF;
    key[11] = 0xFF;
    for (int i = 0; i < 4; ++i) key[12 + i] = static_cast<uint8_t>(host_order >> (8 * (3 - i)));
    return key;
}

AddressKey address_key_v6(const std::array<uint8_t, 16>& bytes) {
    AddressKey key = bytes;
    bool v4_mapped = key[10] == 0xFF && key[11] == 0xFF;
    for (int i = 0; i < 10; ++i) v4_mapped = v4_mapped && key[i] == 0;
    if (v4_mapped) return key;  // an IPv4 peer on a dual-stack socket: its own address
    for (int i = 8; i < 16; ++i) key[i] = 0;
    return key;
}

AdmissionDecision AddressBook::admit(const AddressKey& address) {
    Entry& e = entries_[address];
    std::string_view reason;
    if (e.connections >= limits_.connections) {
        reason = "connections_per_address";
    } else if (e.handshakes >= limits_.handshakes) {
        reason = "handshakes_per_address";
    }
    if (reason.empty()) {
        ++e.connections;
        ++e.handshakes;
        return {Admission::admit, {}};
    }
    // Refusals being answered are bounded like connections: past that many, the answer
    // itself would be the resource an attacker takes.
    if (e.refusals >= limits_.connections) return {Admission::drop, reason};
    ++e.refusals;
    return {Admission::refuse, reason};
}

void AddressBook::handshake_begun(const AddressKey& address) { ++entries_[address].handshakes; }

void AddressBook::handshake_ended(const AddressKey& address) {
    const auto it = entries_.find(address);
    if (it == entries_.end() || it->second.handshakes == 0) return;
    --it->second.handshakes;
    forget_if_empty(it);
}

void AddressBook::closed(const AddressKey& address) {
    const auto it = entries_.find(address);
    if (it == entries_.end() || it->second.connections == 0) return;
    --it->second.connections;
    forget_if_empty(it);
}

void AddressBook::refusal_ended(const AddressKey& address) {
    const auto it = entries_.find(address);
    if (it == entries_.end() || it->second.refusals == 0) return;
    --it->second.refusals;
    forget_if_empty(it);
}

void AddressBook::forget_if_empty(std::map<AddressKey, Entry>::iterator it) {
    if (it->second.connections == 0 && it->second.handshakes == 0 && it->second.refusals == 0) entries_.erase(it);
}

uint32_t AddressBook::connections(const AddressKey& address) const {
    const auto it = entries_.find(address);
    return it == entries_.end() ? 0 : it->second.connections;
}
uint32_t AddressBook::handshakes(const AddressKey& address) const {
    const auto it = entries_.find(address);
    return it == entries_.end() ? 0 : it->second.handshakes;
}
uint32_t AddressBook::refusals(const AddressKey& address) const {
    const auto it = entries_.find(address);
    return it == entries_.end() ? 0 : it->second.refusals;
}

TokenBucket::TokenBucket(uint32_t per_second, uint32_t burst, int64_t now_ns)
    : per_second_(per_second), full_(static_cast<int64_t>(burst) * unit), level_(full_), last_ns_(now_ns) {}

bool TokenBucket::take(int64_t now_ns) {
    if (per_second_ == 0) return true;
    if (now_ns > last_ns_) {
        const int64_t elapsed = now_ns - last_ns_;
        // elapsed * per_second_ would overflow for long gaps; past full_/per_second_ the
        // bucket is full anyway.
        const int64_t gain = elapsed >= full_ / per_second_ + 1 ? full_ : elapsed * per_second_;
        level_ = gain >= full_ - level_ ? full_ : level_ + gain;
        last_ns_ = now_ns;
    }
    if (level_ < unit) return false;
    level_ -= unit;
    return true;
}

}  // namespace tandem::server
