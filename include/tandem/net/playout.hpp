// PlayoutBuffer<T>: the queue of a client that renders in the past. Packets stamped with
// server time wait here until the render clock reaches the instant they describe. When the
// stream can no longer be played (a resumed tab handed minutes of backlog, a stream that
// jumped) the buffer restarts once on the newest packet instead of replaying the backlog.
// It never reads a clock and never decides what is on screen: the render target does.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

#include "tandem/core/result.hpp"
#include "tandem/core/timestep.hpp"
#include "tandem/net/link_arith.hpp"
#include "tandem/net/link_error.hpp"

namespace tandem::net {

// What push did with a packet.
enum class Admission : uint8_t {
    // Waiting for the render clock.
    queued = 0,
    // A discontinuity: the buffer dropped everything it held and kept only this packet. The
    // caller drops whatever it derived from the stream and re-anchors its render clock on
    // this packet (a new InterpolationClock observing it). Discarding the backlog is allowed
    // exactly because the derived state goes with it: the next acknowledgement then carries
    // nothing, and the server answers that with a full baseline.
    timeline_lost = 1,
    // Dropped: its sequence number is not newer than one already accepted (a duplicate, or
    // a packet overtaken on an unordered link). Its state is already superseded.
    stale = 2,
};

template <class T>
class PlayoutBuffer {
public:
    // capacity: the most packets held at once; a backlog that does not fit cannot be played
    // in time and is a discontinuity. max_gap_ns: the largest distance in server time
    // tolerated between a packet and the newest one before it, or between a packet and the
    // render target. It must comfortably exceed the render delay plus the link's jitter,
    // since every packet normally arrives about one render delay ahead of the target.
    static Result<PlayoutBuffer, LinkError> create(uint32_t capacity, int64_t max_gap_ns) {
        if (capacity == 0) return LinkError::capacity_zero;
        if (max_gap_ns <= 0) return LinkError::gap_not_positive;
        if (max_gap_ns > longest_duration_ns) return LinkError::gap_too_long;
        return PlayoutBuffer(capacity, max_gap_ns);
    }

    // Offers one packet. render_target is the render clock's target now (nullopt while the
    // clock has not started, e.g. right after a restart). The packet is a discontinuity when
    //   - its server time is more than max_gap from the newest accepted packet's (the stream
    //     jumped: the transport discarded a backlog, or the server's clock changed), or
    //   - it is more than max_gap ahead of or behind render_target (a backlog the clock
    //     cannot reach in time, or moments long gone), or
    //   - the buffer is full.
    // A restart opens a stall that lasts until the next pop_due (the next frame). During a
    // stall every push replaces what the buffer holds and answers timeline_lost again, so
    // the caller keeps re-anchoring on the newest packet, and at the stall's end the buffer
    // holds exactly the newest packet of the lump. The stall counts as one restart, however
    // many packets the lump held.
    Admission push(int64_t server_time, uint32_t seq, T packet, std::optional<int64_t> render_target) {
        if (have_newest_ && !seq_newer(seq, newest_seq_)) {
            ++stale_;
            return Admission::stale;
        }
        const bool jumped = have_newest_ && abs_diff(server_time, newest_time_) > max_gap_ns_;
        const bool unreachable = render_target && abs_diff(server_time, *render_target) > max_gap_ns_;
        const bool full = queue_.size() >= capacity_;
        have_newest_ = true;
        newest_time_ = server_time;
        newest_seq_ = seq;
        if (jumped || unreachable || full || restarted_this_stall_) {
            queue_.clear();
            queue_.push_back(Entry{server_time, seq, std::move(packet)});
            if (!restarted_this_stall_) ++restarts_;
            restarted_this_stall_ = true;
            starved_ = false;
            return Admission::timeline_lost;
        }
        queue_.push_back(Entry{server_time, seq, std::move(packet)});
        return Admission::queued;
    }

    // The oldest packet whose server time is at or before render_at, or nullopt when none
    // is due. Call it in a loop each frame until it returns nullopt. Each call also ends a
    // stall (see push) and checks for an underrun: the render target is past the newest
    // packet ever accepted, so there is nothing left to interpolate toward and the render
    // delay is too small for this link. One starved stretch counts once however many frames
    // it spans, so a 30 fps and a 144 fps caller count the same underruns.
    std::optional<T> pop_due(int64_t render_at) {
        restarted_this_stall_ = false;
        const bool starved = have_newest_ && render_at > newest_time_;
        if (starved && !starved_) ++underruns_;
        starved_ = starved;
        if (queue_.empty() || queue_.front().server_time > render_at) return std::nullopt;
        T packet = std::move(queue_.front().packet);
        queue_.pop_front();
        return packet;
    }

    // The server time of the next packet to play, if any.
    std::optional<int64_t> next_due() const {
        if (queue_.empty()) return std::nullopt;
        return queue_.front().server_time;
    }
    uint32_t size() const { return static_cast<uint32_t>(queue_.size()); }
    bool empty() const { return queue_.empty(); }
    uint32_t capacity() const { return capacity_; }
    int64_t max_gap_ns() const { return max_gap_ns_; }

    // Starved stretches: the render delay is too small for this link.
    uint64_t underruns() const { return underruns_; }
    // Stalls survived: one per discontinuity, however large the backlog.
    uint64_t restarts() const { return restarts_; }
    // Packets dropped as duplicates or overtaken.
    uint64_t stale() const { return stale_; }

private:
    struct Entry {
        int64_t server_time;
        uint32_t seq;
        T packet;
    };

    PlayoutBuffer(uint32_t capacity, int64_t max_gap_ns) : capacity_(capacity), max_gap_ns_(max_gap_ns) {}

    std::deque<Entry> queue_;
    uint32_t capacity_;
    int64_t max_gap_ns_;
    bool have_newest_ = false;
    int64_t newest_time_ = 0;
    uint32_t newest_seq_ = 0;
    bool restarted_this_stall_ = false;
    bool starved_ = false;
    uint64_t underruns_ = 0;
    uint64_t restarts_ = 0;
    uint64_t stale_ = 0;
};

}  // namespace tandem::net
