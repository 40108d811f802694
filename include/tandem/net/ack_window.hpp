// AckWindow: which packets arrived, as the newest sequence number plus a 64-bit mask of the
// 64 before it, the fixed-size acknowledgement whatever the loss rate. Two readings answer
// two different protocols and a wrong choice raises no error: a protocol that retransmits
// wants missing_since; one that re-derives from a state the peer provably reached wants
// contiguous_base, because receiving N+1 after losing N does not put a peer where N+1 implies.
// Sequence numbers wrap (serial-number arithmetic, see link_arith.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace tandem::net {

// An acknowledgement as it travels: bit i of mask set means newest - 1 - i arrived.
struct AckState {
    uint32_t newest = 0;
    uint64_t mask = 0;
    friend constexpr bool operator==(const AckState&, const AckState&) = default;
};

class AckWindow {
public:
    // How many sequence numbers before the newest the mask describes.
    static constexpr uint32_t span = 64;

    AckWindow() = default;
    // The sender's copy of what the receiver reported.
    static AckWindow from_encoded(const AckState& ack);

    // One arrival. A newer number slides the window forward; an older one inside the window
    // sets its bit; one older than the window, or a duplicate, changes nothing.
    void observe(uint32_t seq);
    // The acknowledgement to send; nullopt before the first arrival.
    std::optional<AckState> encode() const;
    // Whether seq is known to have arrived (false for anything outside the window).
    bool received(uint32_t seq) const;

    // For a retransmitting sender holding every packet from oldest_held on: the held numbers
    // up to the newest acknowledged that are not known to have arrived, oldest first. One
    // older than the window was never vouched for by this acknowledgement, so it is reported
    // missing too (a duplicate resend is harmless, a missing one is not). Packets newer than
    // the newest acknowledged are in flight, not missing. The answer has at most
    // newest - oldest_held entries, the number of packets the caller holds; empty before
    // the first arrival.
    std::vector<uint32_t> missing_since(uint32_t oldest_held) const;

    // For a re-deriving protocol: the newest S such that every number from first_seq through
    // S arrived, provable from the window alone. nullopt when first_seq did not arrive, is
    // newer than the newest, or lies before the window (this acknowledgement cannot prove a
    // run that starts outside it).
    std::optional<uint32_t> contiguous_base(uint32_t first_seq) const;

private:
    bool any_ = false;
    uint32_t newest_ = 0;
    uint64_t mask_ = 0;
};

}  // namespace tandem::net
