// Numbering the inputs a client sends (SequenceNumber) and keeping the ones the server has
// not yet processed so they can be replayed (ClientInputBuffer). Sequences wrap: never
// compare two of them with < on their raw values, which gets the order wrong at the wrap.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace tandem::predict {

// A wrapping sequence number over u16 or u32, ordered by serial-number arithmetic: b is after
// a when the wrapping distance from a to b is positive and under half the space. So 0 is after
// 65535 for u16. The order is only meaningful while the sequences being compared are fewer
// than half the space apart (32,767 inputs for u16), which any bounded buffer guarantees; at
// exactly half, neither is after the other.
template <std::unsigned_integral T>
    requires(sizeof(T) == 2 || sizeof(T) == 4)
class SequenceNumber {
public:
    using value_type = T;
    static constexpr int64_t half_space = int64_t{1} << (8 * sizeof(T) - 1);

    constexpr SequenceNumber() = default;
    constexpr explicit SequenceNumber(T value) : value_(value) {}

    constexpr T value() const { return value_; }
    constexpr SequenceNumber next() const { return SequenceNumber(static_cast<T>(value_ + 1u)); }

    // The signed distance from `earlier` to this one, in [-half_space, half_space).
    constexpr int64_t distance_from(SequenceNumber earlier) const {
        const T forward = static_cast<T>(value_ - earlier.value_);
        const int64_t d = static_cast<int64_t>(forward);
        return d >= half_space ? d - 2 * half_space : d;
    }
    constexpr bool is_after(SequenceNumber other) const { return distance_from(other) > 0; }
    constexpr bool is_at_or_before(SequenceNumber other) const { return !is_after(other); }

    friend constexpr bool operator==(SequenceNumber, SequenceNumber) = default;

private:
    T value_ = 0;
};

using Seq16 = SequenceNumber<uint16_t>;
using Seq32 = SequenceNumber<uint32_t>;

template <class Op, class Seq = Seq16>
struct BufferedInput {
    Seq sequence;
    Op op;
};

// The inputs a client has sent and the server has not yet acknowledged, oldest first, at most
// `capacity` of them. When a slow server lets more pile up, the oldest is dropped and counted
// in overflowed(): it can no longer be replayed, so the next reconciliation will correct.
//
// Sequences start at 1, so a server that has processed nothing and echoes 0 acknowledges
// nothing. An acknowledgement older than the last one (a reordered packet) is ignored; one
// newer than anything sent acknowledges everything sent and no more.
template <class Op, class Seq = Seq16>
class ClientInputBuffer {
public:
    using Entry = BufferedInput<Op, Seq>;

    explicit ClientInputBuffer(uint32_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

    // Numbers and keeps an input; returns its sequence, which goes on the wire with it.
    Seq push(Op op) {
        const Seq sequence = next_;
        next_ = next_.next();
        newest_ = sequence;
        // An acknowledgement half the space behind the newest input can no longer be ordered
        // against new echoes; forget it rather than misread a fresh echo as a stale one.
        if (acknowledged_ && sequence.distance_from(*acknowledged_) >= Seq::half_space - 1) acknowledged_.reset();
        entries_.push_back(Entry{sequence, std::move(op)});
        handed_out_.push_back(false);
        if (entries_.size() > capacity_) {
            entries_.erase(entries_.begin());
            handed_out_.erase(handed_out_.begin());
            ++overflowed_;
        }
        return sequence;
    }

    // Drops every input at or before `processed`, the server's echo of the last one it ran.
    void acknowledge(Seq processed) {
        if (acknowledged_ && processed.is_at_or_before(*acknowledged_)) return;  // stale echo
        if (!newest_) return;                                        // nothing was ever sent
        if (processed.is_after(*newest_)) processed = *newest_;      // never past what was sent
        acknowledged_ = processed;
        size_t keep_from = 0;
        while (keep_from < entries_.size() && entries_[keep_from].sequence.is_at_or_before(processed)) ++keep_from;
        entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(keep_from));
        handed_out_.erase(handed_out_.begin(), handed_out_.begin() + static_cast<std::ptrdiff_t>(keep_from));
    }

    // The inputs still to replay, oldest first.
    std::span<const Entry> unacknowledged() const { return entries_; }

    // Acknowledges `processed`, then hands out what remains, each paired with whether this is
    // the first time it has been handed out. A predictor that replays from here runs state
    // changes for every pair and one-shot effects (a sound, a muzzle flash) only when the flag
    // is true, so a replay never repeats them.
    std::vector<std::pair<Entry, bool>> unacknowledged_with_pass(Seq processed) {
        acknowledge(processed);
        std::vector<std::pair<Entry, bool>> out;
        out.reserve(entries_.size());
        for (size_t i = 0; i < entries_.size(); ++i) {
            out.emplace_back(entries_[i], !handed_out_[i]);
            handed_out_[i] = true;
        }
        return out;
    }

    uint32_t size() const { return static_cast<uint32_t>(entries_.size()); }
    bool empty() const { return entries_.empty(); }
    uint32_t capacity() const { return capacity_; }
    // Inputs dropped unacknowledged because the buffer was full.
    uint64_t overflowed() const { return overflowed_; }
    std::optional<Seq> last_acknowledged() const { return acknowledged_; }
    std::optional<Seq> newest() const { return newest_; }

private:
    uint32_t capacity_;
    Seq next_{1};
    std::optional<Seq> newest_;
    std::optional<Seq> acknowledged_;
    std::vector<Entry> entries_;
    std::vector<bool> handed_out_;
    uint64_t overflowed_ = 0;
};

}  // namespace tandem::predict
