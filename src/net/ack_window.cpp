// AckWindow: a newest number and a 64-bit history of the ones before it, with every shift
// amount checked (a shift by 64 is undefined behaviour) and every distance taken modulo 2^32.
#include "tandem/net/ack_window.hpp"

#include "tandem/net/link_arith.hpp"

namespace tandem::net {

AckWindow AckWindow::from_encoded(const AckState& ack) {
    AckWindow w;
    w.any_ = true;
    w.newest_ = ack.newest;
    w.mask_ = ack.mask;
    return w;
}

void AckWindow::observe(uint32_t seq) {
    if (!any_) {
        any_ = true;
        newest_ = seq;
        mask_ = 0;
        return;
    }
    const int32_t ahead = seq_distance(newest_, seq);
    if (ahead > 0) {
        // The old newest becomes bit ahead - 1; older bits move up with it or fall out.
        const uint32_t d = static_cast<uint32_t>(ahead);
        const uint64_t shifted = d >= span ? 0 : mask_ << d;
        mask_ = d > span ? 0 : shifted | (uint64_t{1} << (d - 1));
        newest_ = seq;
        return;
    }
    // ahead == INT32_MIN (exactly 2^31 away) is neither newer nor usefully older: ignored.
    if (ahead == 0 || ahead == INT32_MIN) return;
    const uint32_t behind = static_cast<uint32_t>(-ahead);
    if (behind <= span) mask_ |= uint64_t{1} << (behind - 1);
}

std::optional<AckState> AckWindow::encode() const {
    if (!any_) return std::nullopt;
    return AckState{newest_, mask_};
}

bool AckWindow::received(uint32_t seq) const {
    if (!any_) return false;
    const int32_t behind = seq_distance(seq, newest_);
    if (behind == 0) return true;
    if (behind < 0 || static_cast<uint32_t>(behind) > span) return false;
    return ((mask_ >> (behind - 1)) & 1) != 0;
}

std::vector<uint32_t> AckWindow::missing_since(uint32_t oldest_held) const {
    std::vector<uint32_t> missing;
    if (!any_) return missing;
    const int32_t count = seq_distance(oldest_held, newest_);  // held numbers before the newest
    if (count <= 0) return missing;
    for (uint32_t i = 0; i < static_cast<uint32_t>(count); ++i) {
        const uint32_t seq = oldest_held + i;  // wraps modulo 2^32 by design
        if (!received(seq)) missing.push_back(seq);
    }
    return missing;
}

std::optional<uint32_t> AckWindow::contiguous_base(uint32_t first_seq) const {
    if (!received(first_seq)) return std::nullopt;
    uint32_t base = first_seq;
    while (base != newest_ && received(base + 1)) ++base;
    return base;
}

}  // namespace tandem::net
