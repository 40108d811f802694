// How a tick's sends share the server's one thread with the next tick: the connections a
// tick queued frames for are flushed in slices, and a slice ends once its time is spent, so
// the tick timer and the sockets' reads run between slices instead of behind the whole
// batch. Pure: the clock is passed in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace tandem::server {

// The longest a slice of sends runs before it yields the thread: at 1,000 watchers a tick's
// sends take several milliseconds, and a tick whose boundary passes during a slice waits at
// most this long (plus one send and one round of ready reads) to start.
inline constexpr int64_t send_slice_ns = 500'000;

// Flushes `pending` from the front (`flush(item)`) until it is empty or `budget_ns` has
// passed since the slice began, the clock read after each flush. Returns how many it flushed;
// the caller schedules the next slice behind whatever else is ready when some are left.
template <class Pending, class Now, class Flush>
size_t run_send_slice(Pending& pending, int64_t budget_ns, Now&& now, Flush&& flush) {
    const int64_t began = now();
    size_t flushed = 0;
    while (!pending.empty()) {
        auto item = std::move(pending.front());
        pending.pop_front();
        flush(item);
        ++flushed;
        if (now() - began >= budget_ns) break;
    }
    return flushed;
}

}  // namespace tandem::server
