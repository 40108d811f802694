// The tick driver: each room's timer on its strand of the tick pool, the due steps it runs
// there (catching up or dropping as the room's TickLoop decides), the report of them handed to
// the I/O thread, whose sends are flushed once and in slices, and the late-tick trace
// (TANDEM_SERVE_TRACE_LATE: the default room's ticks, against what held the I/O thread).
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "server/tick_phase.hpp"
#include "server/transport.hpp"
#include "tandem/core/timestep.hpp"

namespace tandem::server::detail {

uint32_t Server::tick_threads() const {
    if (options_.tick_threads) return *options_.tick_threads;
    // One thread per hardware thread but the I/O thread's, and at least two: with one, a room
    // whose step is slow would hold every other room's tick; with two, one slow room (or
    // step) at a time leaves the others on time, even on a two-core machine, where that is one
    // thread more than the cores beside the I/O thread (a tick is short; the OS shares them).
    const uint32_t hardware = std::thread::hardware_concurrency();
    return std::max<uint32_t>(2, hardware > 1 ? hardware - 1 : 1);
}

bool Server::start_ticking(HostedRoom& room, std::string* problem) {
    // Its ticks go where the other rooms of its rate leave the widest gap, not wherever this
    // call happens to land: rooms made or adopted together would otherwise all be due at once
    // and wait for each other's steps and sends on the cores.
    const int64_t step = step_ns_for_hz(room.tick_hz);
    const int64_t now = now_ns();
    std::vector<int64_t> phases;
    for (const auto& [id, other] : rooms_) {
        if (other.get() != &room && other->tick_hz == room.tick_hz && other->next_boundary_ns != 0) {
            phases.push_back(phase_of(other->next_boundary_ns, step));
        }
    }
    const int64_t anchor = anchor_for_phase(now, step, widest_gap_phase(std::move(phases), step, phase_of(now, step)));
    auto loop = TickLoop::create(TickLoopConfig{.step_ns = step}, anchor);
    if (!loop.ok()) {
        if (problem) *problem = std::string(loop.message());
        return false;
    }
    room.next_boundary_ns = loop.value().next_boundary_ns();
    // The loop is the strand's from here on.
    asio::post(room.strand, [this, held = room.shared_from_this(), loop = std::move(loop).value()]() mutable {
        held->loop.emplace(std::move(loop));
        schedule_tick(*held);
    });
    return true;
}

void Server::schedule_tick(HostedRoom& room) {
    if (room.stopped) return;
    room.timer->expires_at(steady_at(room.loop->next_boundary_ns()));
    // The handler holds the room: a room closed meanwhile is let go once its last wait ends.
    room.timer->async_wait([this, held = room.shared_from_this()](const error_code& ec) {
        if (!ec && !held->stopped) on_tick(*held);
    });
}

// On the room's strand: runs the due steps, then posts what they queued and cost to the I/O
// thread in one report, so a catch-up of several steps is one hand-over (and one system call
// per connection), as before the pool.
void Server::on_tick(HostedRoom& room) {
    RoomReport report;
    report.woke_ns = now_ns();
    const TickAdvance advance = room.loop->advance(report.woke_ns);
    report.clock_went_back = advance.clock_went_back;
    report.dropped = advance.dropped;
    const int64_t step = room.loop->step_ns();
    report.step_length_ns = step;
    for (uint64_t k = 0; k < advance.executed; ++k) {
        // The executed steps are the last `executed` boundaries the advance consumed.
        const int64_t boundary = room.loop->last_boundary_ns() - static_cast<int64_t>(advance.executed - 1 - k) * step;
        const int64_t start = now_ns();
        room.port->tick(start);
        const int64_t ticked = now_ns();
        room.port->take_outbox(report.sends, report.closes);
        room.loop->record_step_duration_ns(ticked - start);
        report.steps.push_back({boundary, start, ticked - start, room.port->figures().last_step_ns});
    }
    report.next_boundary_ns = room.loop->next_boundary_ns();
    report.figures = room.port->figures();
    asio::post(io_, [this, held = room.shared_from_this(), report = std::move(report)]() mutable { deliver(*held, report); });
    schedule_tick(room);
}

void Server::deliver(HostedRoom& room, RoomReport& report) {
    Mark mark(*this, Activity::send);
    room.reported = std::move(report.figures);
    if (report.next_boundary_ns != 0) room.next_boundary_ns = report.next_boundary_ns;
    if (room.reported.lost && !room.closed && !draining_) {
        metrics_.room_lost();
        if (&room == default_room_.get()) {
            // As a process whose one room this was: it stops, for its supervisor to start again.
            asio::post(io_, [this] { begin_drain(); });
        } else {
            room.closed = true;   // turned away from now on; forgotten after this report
            asio::post(io_, [this, id = room.id] { close_room(id, /*retire=*/false); });
        }
    }
    // /healthz judges the default room alone: a room a stranger made slow must not make the
    // process look unhealthy to whatever restarts it.
    const bool judged = &room == default_room_.get();
    if (report.clock_went_back) metrics_.clock_rolled_back();
    if (report.dropped > 0) {
        metrics_.ticks_dropped(report.dropped);
        if (judged) last_fell_behind_ns_ = report.woke_ns;
    }
    if (trace_ && judged && !report.steps.empty()) {
        trace_late(report.steps.front().boundary_ns, report.steps.front().start_ns, report.woke_ns, report.steps.size());
    }
    const int64_t handed = now_ns();
    batching_ = !report.steps.empty();
    for (Outgoing& message : report.sends) {
        const auto found = room.sessions.find(message.to);
        if (found != room.sessions.end()) found->second->enqueue(std::move(message.bytes));
    }
    for (CloseOrder& order : report.closes) {
        const auto found = room.sessions.find(order.who);
        if (found != room.sessions.end()) found->second->close(order.code, std::move(order.reason));
    }
    report.sends.clear();  // drop the shared buffers now, not when the report goes
    if (report.steps.empty()) return;
    flush_batch();
    const int64_t sent = now_ns() - handed;
    uint64_t late = 0;
    for (size_t k = 0; k < report.steps.size(); ++k) {
        const RoomReport::Step& s = report.steps[k];
        const int64_t lateness = s.start_ns - s.boundary_ns;
        // The send time is the last step's: its frames and the earlier steps' go out together.
        metrics_.tick_ran(lateness, lateness >= report.step_length_ns, s.room_ns, s.step_ns, k + 1 == report.steps.size() ? sent : 0);
        if (lateness >= report.step_length_ns) ++late;
        if (judged && lateness > health_policy_.lateness_bound_ns) last_fell_behind_ns_ = s.start_ns;
        ++ticks_run_;
        if (judged) ticking_started_ = true;
    }
    metrics_.room_ticked(room.id, report.steps.size(), late);
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
