// The transport's budgets as pure decisions, time passed in: the table of what each peer
// address holds (connections, unfinished requests, answered refusals) that decides whether a
// new connection is admitted, and the token bucket that bounds a connection's pings. The
// sessions ask and obey; tests/server/budgets_test.cpp checks every rule without a socket.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string_view>

#include "tandem/server/room_port.hpp"  // AddressKey

namespace tandem::server {

// A peer's IP address as the key every per-address budget counts (AddressKey): IPv4 as its
// v4-mapped IPv6 form (::ffff:a.b.c.d), so a v4 peer reaching a dual-stack socket is the same
// key either way; IPv6 cut to its /64, since a subscriber is handed a whole /64 and could
// otherwise open each connection from an address of its own.
AddressKey address_key_v4(uint32_t host_order);
AddressKey address_key_v6(const std::array<uint8_t, 16>& bytes);

struct AddressLimits {
    uint32_t connections = 64;  // open sockets of one address, HTTP and WebSocket alike
    uint32_t handshakes = 16;   // of those, the ones whose request (or upgrade) is unfinished
};

enum class Admission : uint8_t {
    admit,   // counted as a connection with its request unfinished
    refuse,  // answered (503 and the reason), then closed; counted as a refusal in flight
    drop,    // closed at once without an answer: the address already has as many refusals
             // being answered as it may hold connections, so answering costs nothing more
};

struct AdmissionDecision {
    Admission what = Admission::admit;
    std::string_view reason;  // "" when admitted, else the metric's and the answer's reason
};

// What every peer address holds. An address with nothing open has no entry, so the table
// never outgrows the open sockets. Ordered (std::map): no hash decides any order here.
class AddressBook {
public:
    explicit AddressBook(AddressLimits limits) : limits_(limits) {}

    // A connection from `address` was accepted: admit it (its first request then counts as
    // unfinished) or refuse it, and why. Connections are checked before handshakes.
    AdmissionDecision admit(const AddressKey& address);
    // A keep-alive connection's next request began (its first byte arrived) or a request or
    // upgrade finished. Unfinished requests past the budget are not refused here: only a new
    // connection is, so a connection already admitted is never cut off mid-way.
    void handshake_begun(const AddressKey& address);
    void handshake_ended(const AddressKey& address);
    // An admitted connection closed (its unfinished request, if any, must have been ended first).
    void closed(const AddressKey& address);
    // A refused connection's answer was sent (or abandoned) and its socket closed.
    void refusal_ended(const AddressKey& address);

    uint32_t connections(const AddressKey& address) const;
    uint32_t handshakes(const AddressKey& address) const;
    uint32_t refusals(const AddressKey& address) const;
    size_t addresses() const { return entries_.size(); }
    const AddressLimits& limits() const { return limits_; }

private:
    struct Entry {
        uint32_t connections = 0;
        uint32_t handshakes = 0;
        uint32_t refusals = 0;
    };
    void forget_if_empty(std::map<AddressKey, Entry>::iterator it);

    AddressLimits limits_;
    std::map<AddressKey, Entry> entries_;
};

// A token bucket over integer nanoseconds: `per_second` tokens a second, at most `burst`
// saved up (it starts full). per_second == 0 means no limit. A clock that goes backwards
// adds nothing.
class TokenBucket {
public:
    TokenBucket(uint32_t per_second, uint32_t burst, int64_t now_ns);
    // Takes one token if there is one; false when the budget is spent.
    bool take(int64_t now_ns);

private:
    static constexpr int64_t unit = 1'000'000'000;  // one token, in rate-nanoseconds
    int64_t per_second_;
    int64_t full_;   // burst * unit
    int64_t level_;  // 0..full_
    int64_t last_ns_;
};

}  // namespace tandem::server
