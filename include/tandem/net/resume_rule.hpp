// The resume rule: a session that fell behind (a suspended, frozen or sleeping page, or one
// that stopped calling in) gets current again by whichever of two paths its own measured costs
// say is faster: stepping the missed ticks, or dropping its state for a fresh baseline. Pure
// integer arithmetic on figures the session measured, so the choice is the same natively and in
// wasm for the same measurements, and a test can pin both sides of it.
#pragma once

#include <cstdint>

namespace tandem::net {

// What the choice weighs. Every duration is nanoseconds of wall time.
struct ResumeCosts {
    uint64_t behind_ticks = 0;           // the ticks to step to be current (queued or missed)
    uint32_t tick_hz = 60;               // the room's rate: ticks keep arriving while either path runs
    int64_t step_cost_ns = 1'000'000;    // one step, measured
    // The share of wall time the host gives stepping while catching up, per mille: a page
    // stepping an 8 ms slice per 16.7 ms frame gives 480, a worker stepping flat out 1000.
    uint32_t step_share_permille = 1000;
    // From the "nothing held" ack to the baseline's arrival, as last measured: the round trip,
    // the room's wait for its next tick and the baseline's bytes at the link's throughput.
    int64_t baseline_fetch_ns = 0;
    int64_t baseline_decode_ns = 0;      // decoding and installing a baseline, as last measured
    // Of behind_ticks, those not received yet (a frozen or suspended page reads nothing). The
    // room sends window_ticks past a client's last ack and then pauses its stream: the part of
    // that window the page has not read is in the socket and arrives at once, the rest comes
    // window_ticks per round trip. The room keeps ring_ticks: beyond that only a baseline.
    uint64_t undelivered_ticks = 0;
    int64_t round_trip_ns = 0;
    uint64_t window_ticks = UINT64_MAX;
    uint64_t ring_ticks = UINT64_MAX;
};

// Either side's wall time until the session is current; never_ns when stepping cannot outrun
// the ticks the room keeps sending (step cost x tick rate >= the share).
inline constexpr int64_t never_ns = INT64_MAX;

struct ResumeEstimate {
    int64_t catch_up_ns = never_ns;   // stepping the ticks behind and those arriving meanwhile, or their delivery if slower
    int64_t baseline_ns = never_ns;   // fetch, decode, then stepping what the room ran during the fetch
    bool catch_up = false;            // the choice: catch up when it is no slower (it drops no time)
};

// Wall time to step `ticks` plus the ticks that arrive while stepping:
// ticks x cost / (share - cost x rate), saturating at never_ns.
int64_t catch_up_wall_ns(uint64_t ticks, const ResumeCosts& costs);

ResumeEstimate weigh_resume(const ResumeCosts& costs);

}  // namespace tandem::net
