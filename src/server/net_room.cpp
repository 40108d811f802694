// NetRoom: the adapter from src/net's Room to RoomPort. Compiled against the room when the
// build has it (TANDEM_SERVER_HAS_ROOM); without it, `tandem serve` still parses its flags
// and says what is missing.
#include "server/net_room.hpp"

#include <chrono>
#include <fstream>
#include <ostream>

#include "server/server.hpp"

#ifndef TANDEM_SERVER_HAS_ROOM  // set by src/server/CMakeLists.txt when the build has the room
#define TANDEM_SERVER_HAS_ROOM 0
#endif
#if TANDEM_SERVER_HAS_ROOM
#include "tandem/net/protocol.hpp"
#include "tandem/net/room.hpp"
#include "tandem/world/scenario.hpp"
#endif

namespace tandem::server {

#if TANDEM_SERVER_HAS_ROOM

namespace {

int64_t steady_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

class NetRoom final : public RoomPort {
public:
    NetRoom(net::Room room, std::unique_ptr<std::ofstream> record)
        : room_(std::move(room)), record_(std::move(record)) {
        // Read only to fill the stats' step and tick durations; it never decides anything.
        room_.set_clock(steady_now_ns);
        if (record_) room_.start_recording();
    }

    ConnectionId connect(int64_t now_ns) override { return room_.connect(now_ns); }
    void receive(ConnectionId id, std::span<const uint8_t> message, int64_t now_ns) override {
        room_.receive(id, message, now_ns);
    }
    void disconnect(ConnectionId id, int64_t now_ns) override { room_.disconnect(id, now_ns); }
    void tick(int64_t now_ns) override {
        room_.tick(now_ns);
        write_recording(false);
    }
    void shut_down(int64_t now_ns) override {
        room_.shut_down(now_ns);
        write_recording(true);
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
    uint32_t tick_hz() const override { return room_.config().world.tick_hz; }

private:
    void write_recording(bool flush) {
        if (!record_) return;
        recording_.clear();
        room_.take_recording(recording_);
        if (!recording_.empty()) record_->write(reinterpret_cast<const char*>(recording_.data()), static_cast<std::streamsize>(recording_.size()));
        if (flush) record_->flush();
    }

    net::Room room_;
    std::unique_ptr<std::ofstream> record_;
    std::vector<uint8_t> recording_;
    std::vector<net::Outgoing> sends_;
    std::vector<net::CloseRequest> closes_;
};

}  // namespace

bool net_room_available() { return true; }

Result<std::unique_ptr<RoomPort>, ServeUsageError> make_net_room(const ServeOptions& options) {
    net::RoomConfig config;
    if (!options.scenario.empty()) config.world = world::find_scenario(options.scenario).value().config;
    if (options.pellets) config.world.pellet_count = *options.pellets;
    if (options.tick_hz) config.world.tick_hz = *options.tick_hz;
    if (options.input_delay_ticks) config.input_delay_ticks = *options.input_delay_ticks;
    if (options.max_players) {
        // The seats are the room's to offer; the world must have a well for each of them.
        config.max_players = *options.max_players;
        if (config.world.max_players < config.max_players) config.world.max_players = config.max_players;
    }
    if (options.max_watchers) config.max_watchers = *options.max_watchers;
    auto room = net::Room::create(config);
    if (!room.ok()) {
        return ServeUsageError{"the room refuses these settings: " + std::string(room.message())};
    }
    std::unique_ptr<std::ofstream> record;
    if (!options.record_path.empty()) {
        record = std::make_unique<std::ofstream>(options.record_path, std::ios::binary | std::ios::trunc);
        if (!*record) return ServeUsageError{"--record cannot write '" + options.record_path + "'"};
    }
    return std::unique_ptr<RoomPort>(std::make_unique<NetRoom>(std::move(room).value(), std::move(record)));
}

#else

bool net_room_available() { return false; }

Result<std::unique_ptr<RoomPort>, ServeUsageError> make_net_room(const ServeOptions&) {
    return ServeUsageError{"this build has no room (src/net's Room is not in it)"};
}

#endif

int serve_main(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
    if (!net_room_available()) {
        // Flags and --help still work; running needs the room.
        const auto parsed = parse_serve_args(args);
        if (!parsed.ok()) {
            err << "tandem serve: " << parsed.message() << "\n";
            return 2;
        }
        if (parsed->help) {
            out << serve_help_text();
            return 0;
        }
        err << "tandem serve: this build has no room yet (src/net's Room is not in it)\n";
        return 1;
    }
    return serve_command(args, make_net_room, TransportLimits{}, out, err);
}

}  // namespace tandem::server
