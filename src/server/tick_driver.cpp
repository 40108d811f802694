// The tick driver: each room's timer that wakes at its boundaries, the due steps it runs
// (catching up or dropping as the room's TickLoop decides), the sends they queue flushed once
// and in slices, and the late-tick trace (TANDEM_SERVE_TRACE_LATE).
#include <sys/resource.h>

#include <cstdio>

#include "server/transport.hpp"
#include "tandem/core/timestep.hpp"

namespace tandem::server::detail {

bool Server::start_ticking(HostedRoom& room, std::string* problem) {
    auto loop = TickLoop::create(TickLoopConfig{.step_ns = step_ns_for_hz(room.port->tick_hz())}, now_ns());
    if (!loop.ok()) {
        if (problem) *problem = std::string(loop.message());
        return false;
    }
    room.loop.emplace(std::move(loop).value());
    schedule_tick(room);
    return true;
}

void Server::schedule_tick(HostedRoom& room) {
    room.timer.expires_at(steady_at(room.loop->next_boundary_ns()));
    // The handler holds the room: a room closed meanwhile is let go once its last wait ends.
    room.timer.async_wait([this, held = room.shared_from_this()](const error_code& ec) {
        if (!ec && !draining_ && !held->closed) on_tick(*held);
    });
}

void Server::on_tick(HostedRoom& room) {
    RoomPort& port = *room.port;
    const int64_t woke = now_ns();
    const TickAdvance advance = room.loop->advance(woke);
    if (advance.clock_went_back) metrics_.clock_rolled_back();
    if (advance.dropped > 0) {
        metrics_.ticks_dropped(advance.dropped);
        last_fell_behind_ns_ = woke;
    }
    const int64_t step = room.loop->step_ns();
    batching_ = true;
    for (uint64_t k = 0; k < advance.executed; ++k) {
        // The executed steps are the last `executed` boundaries the advance consumed.
        const int64_t boundary = room.loop->last_boundary_ns() - static_cast<int64_t>(advance.executed - 1 - k) * step;
        const int64_t start = now_ns();
        const int64_t lateness = start - boundary;
        if (trace_ && k == 0) trace_late(boundary, start, woke, advance.executed);
        {
            Mark mark(*this, Activity::step);
            port.tick(start);
        }
        const int64_t ticked = now_ns();
        {
            Mark mark(*this, Activity::build);
            pump_outbox(room);
        }
        if (k + 1 == advance.executed) {
            Mark mark(*this, Activity::send);
            flush_batch();  // the send time is the last step's
        }
        const int64_t sent = now_ns();
        room.loop->record_step_duration_ns(ticked - start);
        metrics_.tick_ran(lateness, lateness >= step, ticked - start, port.figures().last_step_ns, sent - ticked);
        if (lateness > health_policy_.lateness_bound_ns) last_fell_behind_ns_ = start;
        ++ticks_run_;
        ticking_started_ = true;
    }
    flush_batch();  // (no step ran)
    schedule_tick(room);
}

void Server::trace_late(int64_t boundary, int64_t start, int64_t woke, uint64_t executed) {
    struct ::rusage usage {};
    ::getrusage(RUSAGE_THREAD, &usage);
    const long preempted = usage.ru_nivcsw - trace_involuntary_switches_;
    trace_involuntary_switches_ = usage.ru_nivcsw;
    // The kernel's time this thread spent runnable but waiting for a CPU (schedstat's second
    // figure): lateness with no handler at the boundary and as much run delay was the CPU
    // given to something else, not the server's own work.
    long long run_delay = 0;
    if (FILE* f = std::fopen("/proc/thread-self/schedstat", "r")) {
        long long on_cpu = 0;
        if (std::fscanf(f, "%lld %lld", &on_cpu, &run_delay) != 2) run_delay = 0;
        std::fclose(f);
    }
    const long long waited = run_delay - trace_run_delay_ns_;
    trace_run_delay_ns_ = run_delay;
    const ActivityTrace::Report report = trace_->explain(boundary, start);
    if (start - boundary < 1'000'000) return;
    std::fprintf(trace_out_,
                 "tick=%llu %s timer_woke_us=%lld steps=%llu preempted_since_last_tick=%ld waited_for_cpu_since_last_tick_us=%lld\n",
                 static_cast<unsigned long long>(ticks_run_), report.text().c_str(),
                 static_cast<long long>((woke - boundary) / 1000), static_cast<unsigned long long>(executed), preempted,
                 waited / 1000);
    std::fflush(trace_out_);
}

void Server::flush_batch() {
    batching_ = false;
    // A slice already posted carries on with the connections queued since, in order.
    if (!slice_posted_) send_slice();
}

void Server::send_slice() {
    run_send_slice(to_flush_, slice_budget_ns_, now_ns, [](const std::shared_ptr<WsSession>& s) { s->flush_after_batch(); });
    if (to_flush_.empty() || slice_posted_) return;
    slice_posted_ = true;
    asio::post(io_, [this] {
        Mark mark(*this, Activity::send);
        slice_posted_ = false;
        send_slice();
    });
}

}  // namespace tandem::server::detail
