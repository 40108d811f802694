// The /healthz verdict: whether the tick loop is keeping time, decided by a pure function
// of instants the tick driver records, so an orchestrator's view can be tested tick by
// tick. It must never report healthy before the first tick, while draining, or while a
// tick is overdue past the bound.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tandem::server {

struct HealthPolicy {
    // A tick that starts more than this after its boundary means the loop fell behind.
    int64_t lateness_bound_ns = 0;
    // How long one fall stays on the record: an orchestrator polling every few seconds
    // must see a stall that has already ended, or it never sees a flapping room.
    int64_t memory_ns = 0;
};

// Four steps (67 ms at 60 Hz: clearly visible to a player, far beyond timer jitter) and
// ten seconds.
HealthPolicy health_policy_for_step(int64_t step_ns);

struct TickHealthInput {
    int64_t now_ns = 0;
    bool started = false;              // the first tick has run
    bool draining = false;             // shutting down: send no new players here
    int64_t next_boundary_ns = 0;      // when the next tick is due
    std::optional<int64_t> last_fell_behind_ns;  // last tick over the bound, or step dropped
};

enum class Health : uint8_t {
    on_time,          // 200
    not_started,      // 503: no tick yet
    draining,         // 503: SIGTERM received
    overdue,          // 503: the next tick is late past the bound right now
    recently_behind,  // 503: fell behind within the memory window
};
std::string_view error_name(Health health);
std::string_view describe(Health health);

Health judge_health(const HealthPolicy& policy, const TickHealthInput& input);
inline uint16_t http_status(Health health) { return health == Health::on_time ? 200 : 503; }

}  // namespace tandem::server
