// GameRoom<G>: net::Room<G> behind the transport's RoomPort (close reasons to WebSocket codes,
// RoomStats to the figures /metrics shows, the replay written to --record as it grows). Nothing
// here decides anything; the room does.
//
// --record hands every tick's records to the kernel before the tick returns (one write(2) per
// tick, no fsync), so a process killed at any moment (SIGKILL, a crash, the OOM killer) leaves
// a file that holds every tick that completed: at most the tick in progress is missing. A
// drain ends the file with the end marker. What a power cut loses is the page cache's, not this.
//
// With a RoomCheckpointing (--store), the room is restored from the store's newest segment that
// restores (a new room when there is none), writes its checkpoint through the store before each
// take_outbox hands anything to the transport (Room's order contract), renews its lease before
// each step, and stops serving (every client closed, nothing more written) the moment a write or
// a renewal is refused. A drain keeps every seat for its token, syncs and gives the lease back.
#pragma once

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tandem/net/protocol.hpp"
#include "tandem/net/room.hpp"
#include "tandem/server/options.hpp"
#include "tandem/server/os_random.hpp"
#include "tandem/server/room_checkpointing.hpp"
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
    // With `checkpointing`, a room the store holds is restored instead (its own settings, not
    // `config`'s, but for the per-address shares, which are the transport's), and `restored`
    // (when given) says from which tick. `judge`: the room requires tickets it accepts
    // (tandem/server/tickets.hpp); null: the room is open. `must_restore`: a checkpoint none of
    // whose segments restores is refused instead of starting a new room (failover adopts a
    // room that exists; it never makes one up).
    static Result<std::unique_ptr<RoomPort>, ServeUsageError> create(const net::RoomConfig<G>& config,
                                                                     const std::string& record_path,
                                                                     std::unique_ptr<RoomCheckpointing> checkpointing = nullptr,
                                                                     std::string* restored = nullptr,
                                                                     std::shared_ptr<net::TicketJudge> judge = nullptr,
                                                                     bool must_restore = false) {
        std::optional<net::Room<G>> room;
        if (checkpointing) {
            for (const std::vector<uint8_t>& segment : checkpointing->segments()) {
                net::RestoreReport report;
                auto back = net::Room<G>::restore(segment, &report);
                if (!back.ok()) {
                    if (restored) *restored += "a segment of the room was refused (" + std::string(back.code()) + "); ";
                    continue;
                }
                room.emplace(std::move(back).value());
                if (restored) {
                    *restored += "restored room '" + checkpointing->room() + "' at tick " + std::to_string(report.tick) +
                                 " (snapshot " + std::to_string(report.snapshot_tick) + ", " +
                                 std::to_string(report.frames_replayed) + " frames replayed, " +
                                 std::to_string(report.seats_kept) + " seats kept for their tokens" +
                                 (report.torn_tail ? ", a torn last record left out" : "") + ")";
                }
                break;
            }
            checkpointing->forget_segments();
        }
        if (!room && must_restore) return ServeUsageError{"no segment of the room's checkpoint restores", 1};
        if (!room) {
            auto made = net::Room<G>::create(config);
            if (!made.ok()) return ServeUsageError{"the room refuses these settings: " + std::string(made.message())};
            room.emplace(std::move(made).value());
        }
        std::unique_ptr<std::ofstream> record;
        if (!record_path.empty()) {
            record = std::make_unique<std::ofstream>(record_path, std::ios::binary | std::ios::trunc);
            if (!*record) return ServeUsageError{"--record cannot write '" + record_path + "'"};
        }
        room->set_source_limits(config.seats_per_source, config.watchers_per_source);
        if (judge) room->set_ticket_judge(std::move(judge));
        return std::unique_ptr<RoomPort>(new GameRoom(std::move(*room), std::move(record), std::move(checkpointing)));
    }

    ConnectionId connect(int64_t now_ns, const AddressKey& address) override { return room_.connect(now_ns, address); }
    void receive(ConnectionId id, std::span<const uint8_t> message, int64_t now_ns) override {
        room_.receive(id, message, now_ns);
    }
    void disconnect(ConnectionId id, int64_t now_ns) override { room_.disconnect(id, now_ns); }
    void tick(int64_t now_ns) override {
        if (checkpointing_ && !stopped_ && !checkpointing_->keep_lease(now_ns)) stop(now_ns);
        if (stopped_) return;
        room_.tick(now_ns);
        write_recording();
    }
    void shut_down(int64_t now_ns) override {
        if (stopped_) return;   // lost: its clients were closed then, and the store is not its own
        // With a store the room goes on from its checkpoint: the seats stay its players'.
        room_.shut_down(now_ns, /*keep_seats=*/checkpointing_ != nullptr);   // appends the end marker
        write_recording();
        if (checkpointing_) {
            write_checkpoint();
            checkpointing_->hand_back();
        }
    }
    bool hand_off(int64_t now_ns) override {
        if (!checkpointing_ || stopped_) {
            shut_down(now_ns);
            return false;
        }
        room_.hand_off(now_ns);
        write_recording();
        write_checkpoint();   // the last ticks' records, synced by hand_back
        if (stopped_) return false;   // the store refused it: the clients were closed by stop()
        checkpointing_->hand_back();
        return true;
    }
    void retire(int64_t now_ns) override {
        if (stopped_) return;
        room_.shut_down(now_ns, /*keep_seats=*/false);
        write_recording();
        if (checkpointing_) {
            room_.take_checkpoint(batch_);   // written nowhere: the room's checkpoint goes
            checkpointing_->erase();
            checkpointing_.reset();
        }
    }
    void take_outbox(std::vector<Outgoing>& sends, std::vector<CloseOrder>& closes) override {
        write_checkpoint();   // first: nothing leaves before what it depends on is in the store
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
        f.seats = room_.config().max_players;
        f.frames_built = s.frames_encoded;
        f.baselines_sent = s.baselines_sent;
        f.flow_control_pauses = s.flow_pauses;
        f.inputs_rate_limited = s.inputs_dropped;
        f.desync_reports = s.desync_reports;
        f.last_step_ns = s.last_step_ns;
        f.held_seats = s.held_seats;
        f.resumes = s.resumes;
        f.resumes_refused = s.resumes_refused;
        f.seats_expired = s.seats_expired;
        f.seats_refused_per_address = s.seats_refused_per_source;
        f.watchers_refused_per_address = s.watchers_refused_per_source;
        for (uint32_t code = 1; code < net::error_code_end; ++code) {
            if (s.refusals[code] != 0) f.refusals.emplace_back(std::string(net::error_name(static_cast<net::ErrorCode>(code))), s.refusals[code]);
        }
        f.lost = stopped_;
        return f;
    }
    uint32_t max_client_message_bytes() const override { return net::max_client_message_bytes; }
    uint32_t tick_hz() const override { return G::tick_hz(room_.config().game); }

private:
    GameRoom(net::Room<G> room, std::unique_ptr<std::ofstream> record, std::unique_ptr<RoomCheckpointing> checkpointing)
        : room_(std::move(room)), record_(std::move(record)), checkpointing_(std::move(checkpointing)) {
        // Read only to fill the stats' step and tick durations; it never decides anything.
        room_.set_clock(detail::steady_now_ns);
        // Resume tokens must be unguessable: from the OS, never from a seed.
        room_.set_token_source(os_resume_token);
        if (record_) room_.start_recording();
        write_recording();   // the header, the welcome and the first baseline: a file from the start
        if (checkpointing_) {
            room_.enable_checkpoints();   // a segment of this process's own, from the state now
            write_checkpoint();
        }
    }
    // The records since the last call, into the store's write path. A refusal stops the room.
    void write_checkpoint() {
        if (!checkpointing_) return;
        room_.take_checkpoint(batch_);
        if (!stopped_ && !checkpointing_->write(batch_)) stop(detail::steady_now_ns());
    }
    // The store refused a write or the lease: another process may serve the room now, so this
    // one closes its clients (their sessions reconnect and find it), writes nothing more, and
    // says so in its figures (lost): the transport stops hosting it.
    void stop(int64_t now_ns) {
        stopped_ = true;
        std::fprintf(stderr, "tandem serve: room '%s' stopped: %s\n", checkpointing_->room().c_str(),
                     checkpointing_->problem().c_str());
        room_.shut_down(now_ns, /*keep_seats=*/true);
        write_recording();
        room_.take_checkpoint(batch_);   // written nowhere: it frees the outbox
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
    std::unique_ptr<RoomCheckpointing> checkpointing_;
    net::CheckpointBatch batch_;
    bool stopped_ = false;
    std::vector<uint8_t> recording_;
    std::vector<net::Outgoing> sends_;
    std::vector<net::CloseRequest> closes_;
};

}  // namespace tandem::server
