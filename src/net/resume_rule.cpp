// The resume rule's arithmetic (tandem/net/resume_rule.hpp): 128-bit products through Wide, so
// a day's sleep at any measured cost saturates instead of overflowing.
#include "tandem/net/resume_rule.hpp"

#include <algorithm>

#include "tandem/net/link_arith.hpp"

namespace tandem::net {

namespace {
// Bounds on the inputs, so that no product below leaves 64 bits before the division:
// a step of at most 1 s, at most 2^31 ticks (a year at 60 Hz).
constexpr int64_t max_step_cost_ns = 1'000'000'000;
constexpr uint64_t max_ticks = uint64_t{1} << 31;
}  // namespace

int64_t catch_up_wall_ns(uint64_t ticks, const ResumeCosts& costs) {
    if (ticks == 0) return 0;
    const int64_t cost = std::clamp<int64_t>(costs.step_cost_ns, 1, max_step_cost_ns);
    const auto share = static_cast<int64_t>(std::min<uint32_t>(costs.step_share_permille, 1000));
    // Stepping gains share / cost ticks per ns on a room that sends tick_hz / 1e9: the gap closes
    // at (share x 1e6 - cost x tick_hz) / (cost x 1e9) ticks per ns, share in per mille.
    const int64_t closing = share * 1'000'000 - cost * static_cast<int64_t>(costs.tick_hz);
    if (closing <= 0) return never_ns;
    const auto n = static_cast<int64_t>(std::min(ticks, max_ticks));
    return mul_div_round(n * cost, 1'000'000'000, closing);
}

ResumeEstimate weigh_resume(const ResumeCosts& costs) {
    ResumeEstimate e;
    e.catch_up_ns = catch_up_wall_ns(costs.behind_ticks, costs);
    if (costs.undelivered_ticks > costs.ring_ticks) {
        e.catch_up_ns = never_ns;   // the room no longer holds them: its answer is a baseline
    } else if (costs.undelivered_ticks > 0 && costs.window_ticks > 0) {
        // The room sent a window past the last ack before it paused; what the page holds
        // (queued) came out of that window, and the rest of it is waiting in the socket, so it
        // arrives at once. Only what the room never sent comes a window per round trip, and
        // stepping cannot finish before the last window lands.
        const uint64_t queued = costs.behind_ticks > costs.undelivered_ticks ? costs.behind_ticks - costs.undelivered_ticks : 0;
        const uint64_t sent_unread = costs.window_ticks - std::min(costs.window_ticks, queued);
        const uint64_t unsent = costs.undelivered_ticks - std::min(costs.undelivered_ticks, sent_unread);
        const uint64_t rounds = unsent == 0 ? 0 : (unsent + costs.window_ticks - 1) / costs.window_ticks;
        const int64_t delivery = mul_div_round(static_cast<int64_t>(std::min<uint64_t>(rounds, max_ticks)),
                                               std::max<int64_t>(0, costs.round_trip_ns), 1);
        e.catch_up_ns = std::max(e.catch_up_ns, delivery);
    }
    const int64_t fetch = std::max<int64_t>(0, costs.baseline_fetch_ns);
    // The baseline is the room's state when it is sent; the ticks it runs while the baseline
    // travels (and one more, the tick in progress) follow it as frames and are stepped.
    const auto during_fetch = static_cast<uint64_t>(mul_div_round(fetch, costs.tick_hz, 1'000'000'000)) + 1;
    e.baseline_ns = sat_add(sat_add(fetch, std::max<int64_t>(0, costs.baseline_decode_ns)), catch_up_wall_ns(during_fetch, costs));
    e.catch_up = e.catch_up_ns <= e.baseline_ns && e.catch_up_ns != never_ns;
    return e;
}

}  // namespace tandem::net
