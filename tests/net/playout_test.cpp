// Properties of include/tandem/net/playout.hpp: packets play when the render clock reaches
// them and in sequence order; a stall of any size is one restart that keeps the newest
// packet; underruns count starved stretches, the same at any frame rate; bad parameters are
// refused with a code.
#include "tandem/net/playout.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "tandem/net/interpolation_clock.hpp"

using tandem::net::Admission;
using tandem::net::InterpolationClock;
using tandem::net::LinkError;
using tandem::net::PlayoutBuffer;

namespace {

constexpr int64_t ms = 1'000'000;

struct Packet {
    uint32_t seq;
    int64_t server_time;
};

template <class T>
T made(tandem::Result<T, LinkError> result) {
    INFO("refused: " << result.message());
    REQUIRE(result.ok());
    return std::move(result).value();
}

PlayoutBuffer<Packet> buffer(uint32_t capacity = 256, int64_t max_gap = 2000 * ms) {
    return made(PlayoutBuffer<Packet>::create(capacity, max_gap));
}

Admission push(PlayoutBuffer<Packet>& b, uint32_t seq, int64_t t, std::optional<int64_t> target = std::nullopt) {
    return b.push(t, seq, Packet{seq, t}, target);
}

std::vector<uint32_t> pop_all(PlayoutBuffer<Packet>& b, int64_t render_at) {
    std::vector<uint32_t> seqs;
    while (auto p = b.pop_due(render_at)) seqs.push_back(p->seq);
    return seqs;
}

}  // namespace

TEST_CASE("a buffer that can hold nothing or tolerates no gap is refused with a code") {
    CHECK(PlayoutBuffer<Packet>::create(0, 2000 * ms).code() == "capacity_zero");
    CHECK(PlayoutBuffer<Packet>::create(8, 0).code() == "gap_not_positive");
    CHECK(PlayoutBuffer<Packet>::create(8, -1).code() == "gap_not_positive");
    CHECK(PlayoutBuffer<Packet>::create(8, (int64_t{1} << 60) + 1).code() == "gap_too_long");
    CHECK(PlayoutBuffer<Packet>::create(8, 0).message().size() > 10);
    CHECK(PlayoutBuffer<Packet>::create(1, 1).ok());
    CHECK(PlayoutBuffer<Packet>::create(1, int64_t{1} << 60).ok());
}

TEST_CASE("a packet plays when the render clock reaches the instant it describes, not before") {
    auto b = buffer();
    CHECK(b.pop_due(0) == std::nullopt);  // empty
    CHECK(push(b, 1, 100 * ms) == Admission::queued);
    CHECK(push(b, 2, 200 * ms) == Admission::queued);
    CHECK(push(b, 3, 300 * ms) == Admission::queued);
    CHECK(b.next_due() == 100 * ms);
    CHECK(pop_all(b, 100 * ms - 1).empty());
    CHECK(pop_all(b, 100 * ms) == std::vector<uint32_t>{1});
    CHECK(pop_all(b, 299 * ms) == std::vector<uint32_t>{2});
    CHECK(b.size() == 1);
    CHECK(pop_all(b, 1000 * ms) == std::vector<uint32_t>{3});
    CHECK(b.empty());
    CHECK(b.next_due() == std::nullopt);
}

TEST_CASE("a duplicate or overtaken packet is dropped as stale, across sequence wrap-around") {
    auto b = buffer();
    CHECK(push(b, 0xFFFFFFFEu, 10 * ms) == Admission::queued);
    CHECK(push(b, 0xFFFFFFFFu, 20 * ms) == Admission::queued);
    CHECK(push(b, 0u, 30 * ms) == Admission::queued);   // wrapped: still newer
    CHECK(push(b, 1u, 40 * ms) == Admission::queued);
    CHECK(push(b, 1u, 40 * ms) == Admission::stale);            // duplicate
    CHECK(push(b, 0xFFFFFFFFu, 20 * ms) == Admission::stale);   // overtaken, from before the wrap
    CHECK(b.stale() == 2);
    CHECK(pop_all(b, 100 * ms) == std::vector<uint32_t>{0xFFFFFFFEu, 0xFFFFFFFFu, 0u, 1u});
}

TEST_CASE("a stream that jumps further than the largest gap is a discontinuity even without a clock") {
    auto b = buffer(256, 2000 * ms);
    CHECK(push(b, 1, 0) == Admission::queued);
    CHECK(push(b, 2, 2000 * ms) == Admission::queued);         // exactly the largest gap: tolerated
    CHECK(push(b, 3, 4000 * ms + 1) == Admission::timeline_lost);
    CHECK(b.size() == 1);
    CHECK(b.next_due() == 4000 * ms + 1);  // the newest packet is kept
    CHECK(b.restarts() == 1);
}

TEST_CASE("a packet more than the largest gap ahead of or behind the render target is a discontinuity") {
    auto ahead = buffer(256, 2000 * ms);
    CHECK(push(ahead, 1, 2000 * ms, 0) == Admission::queued);
    CHECK(push(ahead, 2, 2001 * ms, 0) == Admission::timeline_lost);  // a backlog the clock cannot reach
    auto behind = buffer(256, 2000 * ms);
    CHECK(push(behind, 1, 0, 2000 * ms) == Admission::queued);
    CHECK(push(behind, 2, 1, 2001 * ms + 1) == Admission::timeline_lost);  // a moment long gone
    CHECK(behind.restarts() == 1);
}

TEST_CASE("a full buffer is a discontinuity that keeps the newest packet") {
    auto b = buffer(4);
    for (uint32_t s = 1; s <= 4; ++s) CHECK(push(b, s, s * ms) == Admission::queued);
    CHECK(push(b, 5, 5 * ms) == Admission::timeline_lost);
    CHECK(b.size() == 1);
    CHECK(pop_all(b, 100 * ms) == std::vector<uint32_t>{5});
}

namespace {

// A 20 Hz stream over a link with constant 80 ms latency, played by a client rendering with
// a 150 ms delay at 60 fps. The client is suspended for `away` (no frames at all while the
// socket keeps receiving); its first frame back has a dt of `away` and finds the whole
// backlog waiting. Each frame advances the clock, takes what arrived, then plays what is
// due. On timeline_lost the client does what the contract asks: re-anchors its clock on the
// packet that just arrived.
struct ResumeRun {
    uint64_t restarts = 0;
    uint64_t lost_answers = 0;
    uint32_t largest_size = 0;
    uint32_t newest_in_lump = 0;
    std::vector<uint32_t> played_after;
};

ResumeRun resume_after(int64_t away) {
    constexpr int64_t interval = 50 * ms, latency = 80 * ms, frame = 16'666'667, delay = 150 * ms;
    auto b = buffer(256, 2000 * ms);
    auto clock = made(InterpolationClock::create(delay));
    ResumeRun run;
    uint32_t next_seq = 0;
    int64_t now = 0;
    auto run_frame = [&](int64_t dt, std::vector<uint32_t>* played) {
        now += dt;
        clock.advance(dt);
        while (int64_t{next_seq} * interval + latency <= now) {
            const int64_t t = int64_t{next_seq} * interval;
            clock.observe(t);
            if (b.push(t, next_seq, Packet{next_seq, t}, clock.target()) == Admission::timeline_lost) {
                ++run.lost_answers;
                clock = made(InterpolationClock::create(delay));
                clock.observe(t);
            }
            run.largest_size = std::max(run.largest_size, b.size());
            ++next_seq;
        }
        while (auto p = b.pop_due(*clock.target())) {
            if (played) played->push_back(p->seq);
        }
    };
    while (now < 5'000 * ms) run_frame(frame, nullptr);
    REQUIRE(b.restarts() == 0);
    run_frame(away, &run.played_after);
    run.restarts = b.restarts();
    run.newest_in_lump = next_seq - 1;
    const int64_t resumed_at = now;
    while (now < resumed_at + 3'000 * ms) run_frame(frame, &run.played_after);
    return run;
}

}  // namespace

TEST_CASE("a resumed client's backlog restarts the buffer once, however large the backlog") {
    for (int64_t away : {5'000 * ms, 60'000 * ms, 600'000 * ms}) {
        INFO("away " << away / ms << " ms");
        const ResumeRun run = resume_after(away);
        CHECK(run.restarts == 1);
        CHECK(run.lost_answers >= 1);
        CHECK(run.largest_size <= 256);
        // Play resumes from the newest packet of the lump, never from the stale backlog ...
        REQUIRE_FALSE(run.played_after.empty());
        CHECK(run.played_after.front() == run.newest_in_lump);
        // ... and then continues in order, with no further discontinuity.
        for (size_t i = 1; i < run.played_after.size(); ++i) CHECK(run.played_after[i] == run.played_after[i - 1] + 1);
    }
}

TEST_CASE("two separate stalls are two restarts") {
    auto b = buffer(256, 2000 * ms);
    CHECK(push(b, 1, 0, 0) == Admission::queued);
    CHECK(push(b, 2, 10'000 * ms, 0) == Admission::timeline_lost);
    CHECK(push(b, 3, 20'000 * ms, 0) == Admission::timeline_lost);  // same lump: not a new stall
    CHECK(push(b, 5, 20'050 * ms) == Admission::timeline_lost);     // even an ordinary packet replaces
    CHECK(b.size() == 1);
    CHECK(b.restarts() == 1);
    CHECK(pop_all(b, 0).empty());  // a frame ran: the stall is over
    CHECK(push(b, 6, 30'000 * ms, 0) == Admission::timeline_lost);
    CHECK(b.restarts() == 2);
    CHECK(pop_all(b, 30'000 * ms) == std::vector<uint32_t>{6});
}

namespace {

// Packets every 50 ms stamped 50k ms, arriving 80 ms later; a frame every `frame` ns renders
// at (now - delay). Server time and local time coincide. Returns the underruns counted over
// the run; packets stop being sent during [outage_from, outage_to).
uint64_t underruns(int64_t delay, int64_t frame, int64_t run_for, int64_t outage_from = -1, int64_t outage_to = -1) {
    auto b = buffer(256, 2000 * ms);
    int64_t next = 0;  // stamp of the next packet to send
    uint32_t seq = 0;
    for (int64_t now = 0; now <= run_for; now += frame) {
        while (next + 80 * ms <= now) {
            if (next < outage_from || next >= outage_to) {
                b.push(next, seq, Packet{seq, next}, now - delay);
                ++seq;
            }
            next += 50 * ms;
        }
        while (b.pop_due(now - delay)) {
        }
    }
    return b.underruns();
}

}  // namespace

TEST_CASE("a render delay shorter than lateness plus one interval underruns, one that covers it does not") {
    // Frames every 10 ms for 2 s. With a 100 ms delay the target passes the newest packet
    // (stamp 50k, arrived at 50k + 80) at 50k + 100, before the next one arrives at
    // 50k + 130: one starved stretch per interval, seen by frames at 50k + 110 for k = 0..37
    // (50 * 38 + 110 = 2010 is past the run). 80 + 50 = 130 ms covers it: no stretch.
    CHECK(underruns(100 * ms, 10 * ms, 2000 * ms) == 38);
    CHECK(underruns(130 * ms, 10 * ms, 2000 * ms) == 0);
}

TEST_CASE("a 30 fps and a 144 fps caller count the same underruns for the same outage") {
    // One 500 ms outage in an otherwise covered stream is one starved stretch, counted once
    // however many frames it spans.
    const int64_t fps30 = 33'333'333, fps144 = 6'944'444;
    CHECK(underruns(130 * ms, fps30, 5000 * ms, 2000 * ms, 2500 * ms) == 1);
    CHECK(underruns(130 * ms, fps144, 5000 * ms, 2000 * ms, 2500 * ms) == 1);
    CHECK(underruns(130 * ms, fps144, 5000 * ms) == 0);
}
