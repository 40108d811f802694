// Properties of src/server/health.*: /healthz is 200 only while the loop has started, is not
// draining, has no overdue tick past the bound and has not fallen behind within the memory
// window; the bound is four steps.
#include "server/health.hpp"

#include <catch2/catch.hpp>

using namespace tandem::server;

namespace {
constexpr int64_t ms = 1'000'000;
constexpr int64_t step = 16'666'667;  // 60 Hz
const HealthPolicy policy = health_policy_for_step(step);
TickHealthInput running(int64_t now, int64_t next_boundary) {
    return TickHealthInput{
        .now_ns = now, .started = true, .draining = false, .next_boundary_ns = next_boundary, .last_fell_behind_ns = {}};
}
}  // namespace

TEST_CASE("the bound is four steps and a fall is remembered for ten seconds") {
    CHECK(policy.lateness_bound_ns == 4 * step);
    CHECK(policy.memory_ns == 10'000 * ms);
}

TEST_CASE("a loop on time is healthy, with the next tick ahead or just due") {
    CHECK(judge_health(policy, running(1000 * ms, 1010 * ms)) == Health::on_time);
    CHECK(judge_health(policy, running(1000 * ms, 1000 * ms)) == Health::on_time);
    CHECK(judge_health(policy, running(1000 * ms + 4 * step, 1000 * ms)) == Health::on_time);  // at the bound
    CHECK(http_status(Health::on_time) == 200);
}

TEST_CASE("a tick overdue past the bound is unhealthy now") {
    CHECK(judge_health(policy, running(1000 * ms + 4 * step + 1, 1000 * ms)) == Health::overdue);
    CHECK(http_status(Health::overdue) == 503);
}

TEST_CASE("before the first tick and while draining the answer is 503") {
    TickHealthInput input = running(1000 * ms, 1010 * ms);
    input.started = false;
    CHECK(judge_health(policy, input) == Health::not_started);
    input.started = true;
    input.draining = true;
    CHECK(judge_health(policy, input) == Health::draining);
    CHECK(http_status(Health::draining) == 503);
}

TEST_CASE("a fall behind is reported for the memory window, then forgotten") {
    TickHealthInput input = running(5000 * ms, 5010 * ms);
    input.last_fell_behind_ns = 1000 * ms;
    CHECK(judge_health(policy, input) == Health::recently_behind);
    input.now_ns = 1000 * ms + policy.memory_ns;
    input.next_boundary_ns = input.now_ns + ms;
    CHECK(judge_health(policy, input) == Health::recently_behind);
    input.now_ns += 1;
    CHECK(judge_health(policy, input) == Health::on_time);
}
