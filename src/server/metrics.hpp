// The server's /metrics: the transport's and the tick loop's figures plus the room's, in
// the Prometheus text format through prometheus-cpp's registry and serializer (served by
// our own HTTP, not its bundled web server). The hot paths count into plain integers; the
// registry is brought up to date only when scraped, so a frame costs no atomic operation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/server/room_port.hpp"

namespace tandem::server {

// Plain counters and gauges the transport keeps as it goes.
struct TransportFigures {
    uint64_t frames_sent = 0;
    uint64_t bytes_sent = 0;
    uint64_t frames_received = 0;
    uint64_t bytes_received = 0;
    uint64_t connections_accepted = 0;
    uint32_t connections_open = 0;
    uint64_t write_queue_bytes = 0;       // all connections, now
    uint64_t write_queue_peak_bytes = 0;  // the most one connection ever held
    uint64_t write_queue_cap_bytes = 0;
    uint64_t reads_held = 0;              // reads held back because a connection's queue was full
    uint32_t rooms_open = 0;              // rooms hosted now, the default room included
};

// Per-room series (tandem_rooms_*{room="ID"}): the first most_labelled_rooms rooms hosted at
// once (the default room first) carry their own id for their whole life; any room made while
// that many are labelled is counted under room="(other)" for its whole life ("(other)" is no
// room's id: ids are [A-Za-z0-9_-]). A closed room's series are removed. Room ids come from
// strangers' requests, so without both rules /metrics would grow a series per room ever made;
// with them it holds at most most_labelled_rooms + 1 room labels, whatever was made.
inline constexpr uint32_t most_labelled_rooms = 16;
inline constexpr std::string_view other_rooms_label = "(other)";

// One room's figures for its series.
struct RoomSeries {
    std::string id;
    uint32_t players = 0;
    uint32_t watchers = 0;
    uint64_t tick = 0;
};

// How many recent ticks the lateness quantiles are taken over: 17 s at 60 Hz, so a 20 s
// measurement sees only its own ticks.
inline constexpr uint32_t lateness_window_ticks = 1024;

class ServerMetrics {
public:
    ServerMetrics();
    ~ServerMetrics();
    ServerMetrics(const ServerMetrics&) = delete;
    ServerMetrics& operator=(const ServerMetrics&) = delete;

    // One tick ran, lateness_ns after its boundary; `late` when that was a step or more.
    // room_ns: the room's tick call; step_ns: the world step inside it (the room's own
    // figure); send_ns: handing its outbox to the write queues and the first slice of sends.
    void tick_ran(int64_t lateness_ns, bool late, int64_t room_ns, int64_t step_ns, int64_t send_ns);
    void ticks_dropped(uint64_t count);
    void clock_rolled_back();
    void connection_closed(uint16_t code, std::string_view reason);
    void handshake_refused(std::string_view reason);
    // A connection refused at accept by a per-address budget (connections_per_address,
    // handshakes_per_address), answered or not.
    void connection_refused(std::string_view reason);
    // An HTTP connection closed by a deadline: request_timeout (its request did not arrive in
    // time) or idle_timeout (no next request on a keep-alive connection).
    void http_closed(std::string_view reason);
    void http_response(unsigned status);
    // POST /rooms made a room; an idle room was closed; a request about rooms was refused, by
    // its error's name (RoomRequestCode's fixed set).
    void room_created();
    void room_adopted();   // failover: a dead owner's room restored here
    void room_lost();      // its lease or a write refused: another process serves it now
    // A room is hosted (the default room too): it gets its own label or "(other)" (above).
    void room_opened(std::string_view id);
    // A room made by POST /rooms closed for idleness: its series go.
    void room_closed(std::string_view id);
    void room_request_refused(std::string_view error);
    // A room ran `steps` ticks, `late` of them a whole step or more after their boundary.
    void room_ticked(std::string_view id, uint64_t steps, uint64_t late);
    // The label a room's series carry ("" for a room never opened).
    std::string_view room_label(std::string_view id) const;

    // Nearest-rank quantile (0..1000 per mille) of the lateness window, in nanoseconds.
    int64_t lateness_quantile_ns(uint32_t per_mille) const;

    // The exposition text, with every figure brought up to date.
    // `room`: the default room's figures (the unlabelled tandem_room_* series); `rooms`: every
    // hosted room's, for the per-room series.
    std::string render(const TransportFigures& transport, const RoomFigures& room, const std::vector<RoomSeries>& rooms = {});

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The label a WebSocket close code is counted under: a registered code (1000-1015) as itself,
// the ranges a peer may choose from (3000-3999, 4000-4999) as one label each, anything else
// "other", so no client can add series to /metrics.
std::string close_code_label(uint16_t code);

// This process's resident set in bytes, from /proc (0 where that cannot be read).
uint64_t resident_memory_bytes();

}  // namespace tandem::server
