// GameRoom<G>: net::Room<G> behind the transport's RoomPort (close reasons to WebSocket codes,
// RoomStats to the figures /metrics shows, the replay written to --record as it grows). Nothing
// here decides anything; the room does.
//
// --record hands every tick's records to the kernel before the tick returns (one write(2) per
// tick, no fsync), so a process killed at any moment (SIGKILL, a crash, the OOM killer) leaves
// a file that holds every tick that completed: at most the tick in progress is missing. A
// drain ends the file with the end marker. What a power cut loses is the page cache's, not this.
#pragma once

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tandem/net/protocol.hpp"
#include "tandem/net/room.hpp"
#include "tandem/server/options.hpp"
#include "tandem/server/os_random.hpp"
#include "tandem/server/room_port.hpp"

namespace tandem::server {

namespace detail {
inline int64_t steady_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
}  // namespace detail

template <sim::Simulation G>
class GameRoom final : public RoomPort {
public:
    // The room the config asks for, recording to record_path ("" = none); a refusal is a
    // command-line mistake.
    static Result<std::unique_ptr<RoomPort>, ServeUsageError> create(const net::RoomConfig<G>& config,
                                                                     const std::string& record_path) {
        auto room = net::Room<G>::create(config);
        if (!room.ok()) return ServeUsageError{"the room refuses these settings: " + std::string(room.message())};
        std::unique_ptr<std::ofstream> record;
        if (!record_path.empty()) {
            record = std::make_unique<std::ofstream>(record_path, std::ios::binary | std::ios::trunc);
            if (!*record) return ServeUsageError{"--record cannot write '" + record_path + "'"};
        }
        return std::unique_ptr<RoomPort>(new GameRoom(std::move(room).value(), std::move(record)));
    }

    ConnectionId connect(int64_t now_ns) override { return room_.connect(now_ns); }
    void receive(ConnectionId id, std::span<const uint8_t> message, int64_t now_ns) override {
        room_.receive(id, message, now_ns);
    }
    void disconnect(ConnectionId id, int64_t now_ns) override { room_.disconnect(id, now_ns); }
    void tick(int64_t now_ns) override {
        room_.tick(now_ns);
        write_recording();
    }
    void shut_down(int64_t now_ns) override {
        room_.shut_down(now_ns);   // appends the end marker
        write_recording();
    }
    void take_outbox(std::vector<Outgoing>& sends, std::vector<CloseOrder>& closes) override {
        sends_.clear();
        closes_.clear();
        room_.take_outbox(sends_, closes_);
        for (net::Outgoing& message : sends_) sends.push_back({message.to, std::move(message.bytes)});
        for (const net::CloseRequest& close : closes_) {
            closes.push_back({close.who, net::websocket_close_code(close.reason), std::string(net::error_name(close.reason))});
        }
    }
    RoomFigures figures() const override {
        const net::RoomStats& s = room_.stats();
        RoomFigures f;
        f.tick = s.tick;
        f.players = s.players;
        f.watchers = s.watchers;
        f.frames_built = s.frames_encoded;
        f.baselines_sent = s.baselines_sent;
        f.flow_control_pauses = s.flow_pauses;
        f.inputs_rate_limited = s.inputs_dropped;
        f.desync_reports = s.desync_reports;
        f.last_step_ns = s.last_step_ns;
        return f;
    }
    uint32_t max_client_message_bytes() const override { return net::max_client_message_bytes; }
    uint32_t tick_hz() const override { return G::tick_hz(room_.config().game); }

private:
    GameRoom(net::Room<G> room, std::unique_ptr<std::ofstream> record) : room_(std::move(room)), record_(std::move(record)) {
        // Read only to fill the stats' step and tick durations; it never decides anything.
        room_.set_clock(detail::steady_now_ns);
        // Resume tokens must be unguessable: from the OS, never from a seed.
        room_.set_token_source(os_resume_token);
        if (record_) room_.start_recording();
        write_recording();   // the header, the welcome and the first baseline: a file from the start
    }
    // What the room recorded since the last call, out of the process at once (the stream's
    // buffer flushed: one write(2)); the cost beside a tick is in docs/performance.md.
    void write_recording() {
        if (!record_) return;
        recording_.clear();
        room_.take_recording(recording_);
        if (recording_.empty()) return;
        record_->write(reinterpret_cast<const char*>(recording_.data()), static_cast<std::streamsize>(recording_.size()));
        record_->flush();
    }

    net::Room<G> room_;
    std::unique_ptr<std::ofstream> record_;
    std::vector<uint8_t> recording_;
    std::vector<net::Outgoing> sends_;
    std::vector<net::CloseRequest> closes_;
};

}  // namespace tandem::server
