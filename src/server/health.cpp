// The /healthz decision (see health.hpp). Pure: instants in, a verdict out.
#include "server/health.hpp"

namespace tandem::server {

HealthPolicy health_policy_for_step(int64_t step_ns) {
    return HealthPolicy{.lateness_bound_ns = 4 * step_ns, .memory_ns = 10'000'000'000};
}

std::string_view error_name(Health health) {
    switch (health) {
    case Health::on_time: return "on_time";
    case Health::not_started: return "not_started";
    case Health::draining: return "draining";
    case Health::overdue: return "overdue";
    case Health::recently_behind: return "recently_behind";
    }
    return "unknown";
}

std::string_view describe(Health health) {
    switch (health) {
    case Health::on_time: return "the tick loop is on time";
    case Health::not_started: return "the tick loop has not run its first tick yet";
    case Health::draining: return "the server is shutting down";
    case Health::overdue: return "the next tick is overdue past the lateness bound";
    case Health::recently_behind: return "the tick loop fell behind past the lateness bound recently";
    }
    return "unknown";
}

Health judge_health(const HealthPolicy& policy, const TickHealthInput& input) {
    if (input.draining) return Health::draining;
    if (!input.started) return Health::not_started;
    if (input.now_ns > input.next_boundary_ns && input.now_ns - input.next_boundary_ns > policy.lateness_bound_ns) {
        return Health::overdue;
    }
    if (input.last_fell_behind_ns && input.now_ns >= *input.last_fell_behind_ns &&
        input.now_ns - *input.last_fell_behind_ns <= policy.memory_ns) {
        return Health::recently_behind;
    }
    return Health::on_time;
}

}  // namespace tandem::server
