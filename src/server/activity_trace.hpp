// What the server's one thread was doing when a tick's boundary passed: the transport marks
// its handlers (the step, building the tick's frames, sending them, WebSocket reads, ...) and,
// for a tick that started late, this says which handler held the thread at the boundary and
// how the time from the boundary to the tick's start divides among them. Pure (time passed in).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tandem::server {

enum class Activity : uint8_t {
    step,       // the room's tick (world step, scheduling, encoding the frame once)
    build,      // handing the room's outbox to the write queues
    send,       // sending queued frames (a tick's batch, or frames sent as queued)
    writable,   // a socket became writable again: sending the rest of its queue
    ws_read,    // a WebSocket message into the room (and what the room answered)
    handshake,  // a WebSocket handshake's completion, a connection registered
    http,       // an HTTP request: static files, gzip, /healthz
    metrics,    // rendering /metrics
    accept,     // accepting a socket
    count
};
const char* activity_name(Activity a);

// Segments of marked time, non-overlapping: a nested mark suspends the outer one.
class ActivityTrace {
public:
    void begin(Activity a, int64_t now_ns);
    void end(int64_t now_ns);

    struct Report {
        int64_t boundary_ns = 0;
        int64_t start_ns = 0;
        // The handler that held the thread at the boundary (Activity::count: none, the thread
        // was idle in the reactor, in asio/Beast internals or not running), how long it had
        // run before the boundary and how long after.
        Activity at_boundary = Activity::count;
        int64_t at_boundary_before_ns = 0;
        int64_t at_boundary_after_ns = 0;
        // Time of each activity within [boundary, start]; the rest is unmarked.
        std::array<int64_t, static_cast<size_t>(Activity::count)> within_ns{};
        int64_t unmarked_ns = 0;
        std::string text() const;
    };
    // The tick meant for `boundary_ns` starts at `start_ns`: what happened in between.
    // Forgets segments that ended before `start_ns`.
    Report explain(int64_t boundary_ns, int64_t start_ns);

private:
    struct Segment {
        Activity kind;
        int64_t begin_ns;
        int64_t end_ns;
    };
    std::vector<Segment> done_;
    std::vector<Activity> open_;
    int64_t open_since_ns_ = 0;
};

}  // namespace tandem::server
