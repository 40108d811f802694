// `tandem serve` around a scripted stand-in room, for the transport tests over real sockets
// (tests/server/*.test.mjs). The stand-in decides nothing a real room would: it greets,
// echoes, broadcasts one shared counter frame per tick and obeys a few command bytes, so
// each transport behaviour can be provoked on purpose. With --game arena it serves the arena's
// real room instead (exactly as `tandem serve` does) under the same shortened limits, so the
// hostile tests can run a verifying player beside the attack. POST /rooms makes stand-in rooms
// (game "stand-in") and arena rooms (game "arena"). Never linked into `tandem`.
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "arena/serve.hpp"
#include "tandem/server/room_port.hpp"
#include "tandem/server/serve.hpp"

namespace {

using namespace tandem::server;

// Command bytes a test client may send (first byte of a message; anything else is echoed).
constexpr uint8_t ask_policy_close = 0xC1;   // the room closes this client: 1008 "policy"
constexpr uint8_t ask_slow_tick = 0xC3;      // next tick takes bytes[1] * 10 ms
constexpr uint8_t ask_send_big = 0xC4;       // the room sends this client bytes[1] * 64 KiB
constexpr uint8_t ask_pause = 0xC5;          // no more tick frames to this client (as a real room's
                                             // flow control pauses a client that stopped reading)

class StandInRoom final : public RoomPort {
public:
    StandInRoom(uint32_t frame_bytes, uint32_t max_message, uint32_t tick_hz, bool echo, uint32_t seats = 4)
        : frame_bytes_(frame_bytes < 8 ? 8 : frame_bytes), max_message_(max_message), tick_hz_(tick_hz), echo_(echo), seats_(seats) {}

    ConnectionId connect(int64_t, const AddressKey&) override {
        const ConnectionId id = next_id_++;
        open_[id] = true;
        auto hello = std::make_shared<std::vector<uint8_t>>(5, uint8_t{'H'});
        for (int i = 0; i < 4; ++i) (*hello)[1 + i] = static_cast<uint8_t>(id >> (8 * i));
        sends_.push_back({id, hello});
        return id;
    }
    void receive(ConnectionId id, std::span<const uint8_t> message, int64_t) override {
        if (!message.empty() && message[0] == ask_policy_close) {
            closes_.push_back({id, 1008, "policy"});
        } else if (message.size() >= 2 && message[0] == ask_slow_tick) {
            slow_tick_ms_ = 10u * message[1];
        } else if (!message.empty() && message[0] == ask_pause) {
            open_[id] = false;
        } else if (message.size() >= 2 && message[0] == ask_send_big) {
            for (uint32_t i = 0; i < message[1]; ++i) {
                sends_.push_back({id, std::make_shared<std::vector<uint8_t>>(64 * 1024, uint8_t{'B'})});
            }
        } else if (echo_) {
            sends_.push_back({id, std::make_shared<const std::vector<uint8_t>>(message.begin(), message.end())});
        }
    }
    void disconnect(ConnectionId id, int64_t) override { open_.erase(id); }
    void tick(int64_t) override {
        ++tick_;
        if (slow_tick_ms_ > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(slow_tick_ms_));
            slow_tick_ms_ = 0;
        }
        // One buffer for every recipient: the transport must not copy it per connection.
        auto frame = std::make_shared<std::vector<uint8_t>>(frame_bytes_, uint8_t{0});
        for (int i = 0; i < 8; ++i) (*frame)[i] = static_cast<uint8_t>(tick_ >> (8 * i));
        const SharedBytes shared = frame;
        for (const auto& [id, streaming] : open_) {
            if (streaming) sends_.push_back({id, shared});
        }
        ++frames_built_;
    }
    void shut_down(int64_t) override {
        for (const auto& [id, unused] : open_) closes_.push_back({id, 1001, "going_away"});
    }
    void take_outbox(std::vector<Outgoing>& sends, std::vector<CloseOrder>& closes) override {
        sends.insert(sends.end(), sends_.begin(), sends_.end());
        closes.insert(closes.end(), closes_.begin(), closes_.end());
        sends_.clear();
        closes_.clear();
    }
    RoomFigures figures() const override {
        RoomFigures f;
        f.tick = tick_;
        f.watchers = static_cast<uint32_t>(open_.size());
        f.seats = seats_;
        f.frames_built = frames_built_;
        return f;
    }
    uint32_t max_client_message_bytes() const override { return max_message_; }
    uint32_t tick_hz() const override { return tick_hz_; }

private:
    uint32_t frame_bytes_;
    uint32_t max_message_;
    uint32_t tick_hz_;
    bool echo_;
    uint32_t seats_;
    ConnectionId next_id_ = 1;
    uint64_t tick_ = 0;
    uint64_t frames_built_ = 0;
    uint32_t slow_tick_ms_ = 0;
    std::map<ConnectionId, bool> open_;
    std::vector<Outgoing> sends_;
    std::vector<CloseOrder> closes_;
};

}  // namespace

// usage: tandem_test_server [--frame-bytes N] [--max-message N] [--queue-cap N]
//          [--idle-ms N] [--handshake-ms N] [--close-ms N] [--http-idle-ms N] [--request-ms N]
//          [--pings-per-second N] [--connections-per-address N] [--handshakes-per-address N]
//          [--seats-per-address N] [--watchers-per-address N] [--max-open-sockets N]
//          [--max-rooms N] [--rooms-per-address N] [--echo 0|1] [--game arena] -- SERVE-ARGS...
// SERVE-ARGS are `tandem serve`'s, for a stand-in "game" with two flags of its own (--tick-hz,
// and --size, which a scenario fixes) and two scenarios (one, two), so the command's handling
// of a game's flags is exercised too.
int main(int argc, char** argv) {
    uint32_t frame_bytes = 64;
    uint32_t max_message = 1024;
    bool echo = true;
    bool arena_room = false;
    TransportLimits limits;
    std::vector<std::string_view> serve_args;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (flag == "--") {
            ++i;
            break;
        }
        if (i + 1 >= argc) {
            std::cerr << "tandem_test_server: missing value for " << flag << "\n";
            return 2;
        }
        if (flag == "--game") {
            if (std::string_view(argv[++i]) != "arena") {
                std::cerr << "tandem_test_server: --game takes arena\n";
                return 2;
            }
            arena_room = true;
            continue;
        }
        const uint64_t value = std::stoull(argv[++i]);
        if (flag == "--frame-bytes") frame_bytes = static_cast<uint32_t>(value);
        else if (flag == "--max-message") max_message = static_cast<uint32_t>(value);
        else if (flag == "--queue-cap") limits.write_queue_cap_bytes = value;
        else if (flag == "--idle-ms") limits.idle_timeout_ns = static_cast<int64_t>(value) * 1'000'000;
        else if (flag == "--handshake-ms") limits.handshake_timeout_ns = static_cast<int64_t>(value) * 1'000'000;
        else if (flag == "--close-ms") limits.close_timeout_ns = static_cast<int64_t>(value) * 1'000'000;
        else if (flag == "--echo") echo = value != 0;
        else if (flag == "--http-idle-ms") limits.http_idle_timeout_ns = static_cast<int64_t>(value) * 1'000'000;
        else if (flag == "--request-ms") limits.request_timeout_ns = static_cast<int64_t>(value) * 1'000'000;
        else if (flag == "--pings-per-second") limits.pings_per_second = static_cast<uint32_t>(value);
        else if (flag == "--connections-per-address") limits.connections_per_address = static_cast<uint32_t>(value);
        else if (flag == "--handshakes-per-address") limits.handshakes_per_address = static_cast<uint32_t>(value);
        else if (flag == "--seats-per-address") limits.seats_per_address = static_cast<uint32_t>(value);
        else if (flag == "--watchers-per-address") limits.watchers_per_address = static_cast<uint32_t>(value);
        else if (flag == "--max-open-sockets") limits.max_open_sockets = static_cast<uint32_t>(value);
        else if (flag == "--max-rooms") limits.max_rooms = static_cast<uint32_t>(value);
        else if (flag == "--rooms-per-address") limits.rooms_per_address = static_cast<uint32_t>(value);
        else {
            std::cerr << "tandem_test_server: unknown option " << flag << "\n";
            return 2;
        }
    }
    for (; i < argc; ++i) serve_args.emplace_back(argv[i]);
    if (arena_room) return serve_main<arena::Sim>(serve_args, arena::serve_hooks(), std::cout, std::cerr, limits);
    auto stand_in_hz = [](const ServeOptions& options) -> tandem::Result<uint32_t, ServeUsageError> {
        uint32_t tick_hz = 60;
        for (const auto& [flag, value] : options.game_values) {
            const auto v = flag == "--tick-hz" ? parse_flag_count(flag, value, 1, largest_tick_hz) : parse_flag_count(flag, value, 1, 100);
            if (!v) return v.error();
            if (flag == "--tick-hz") tick_hz = *v;
        }
        return tick_hz;
    };
    ServeGame game;
    game.name = "stand-in";
    game.flags = {{"--tick-hz", "HZ", "ticks per second, 1.." + std::to_string(largest_tick_hz) + " (default 60)", ""},
                  {"--size", "N", "the stand-in's size, 1..100 (its frames do not change)", "a scenario fixes its own size"}};
    game.scenario_names = "one, two";
    game.scenario_problem = [](std::string_view name) -> std::optional<std::string> {
        if (name == "one" || name == "two") return std::nullopt;
        return "unknown scenario '" + std::string(name) + "' (accepted: one, two)";
    };
    game.make_room = [&](const ServeOptions& options) -> tandem::Result<std::unique_ptr<RoomPort>, ServeUsageError> {
        const auto tick_hz = stand_in_hz(options);
        if (!tick_hz) return tick_hz.error();
        return std::unique_ptr<RoomPort>(std::make_unique<StandInRoom>(frame_bytes, max_message, *tick_hz, echo));
    };
    // A created stand-in room ticks at the command line's rate and offers the seats asked for
    // (at most 8: a bound of the stand-in's own, so a refusal by the game is testable too).
    RoomKind stand_in_kind;
    stand_in_kind.game = "stand-in";
    stand_in_kind.make = [&](const ServeOptions& options, const RoomSettings& settings)
        -> tandem::Result<std::unique_ptr<RoomPort>, ServeUsageError> {
        const auto tick_hz = stand_in_hz(options);
        if (!tick_hz) return tick_hz.error();
        const uint32_t seats = settings.max_players.value_or(4);
        if (seats > 8) return ServeUsageError{"the stand-in offers at most 8 seats (got " + std::to_string(seats) + ")"};
        return std::unique_ptr<RoomPort>(std::make_unique<StandInRoom>(frame_bytes, max_message, *tick_hz, echo, seats));
    };
    game.room_kinds = {stand_in_kind, room_kind<arena::Sim>(arena::serve_hooks(), false)};
    // A route answering from a thread of its own 50 ms later: GET /stand-in/later?TEXT answers
    // "later: TEXT" with an X-Stand-In header; /stand-in/now answers on the server's thread.
    struct Later {
        std::mutex mutex;
        std::vector<std::thread> threads;
    };
    auto later = std::make_shared<Later>();
    HttpRoute late;
    late.path = "/stand-in/later";
    late.usage = {"/stand-in/later?TEXT  answered 50 ms later from another thread"};
    late.handle = [later](const HttpRequest& request, HttpReply reply) {
        const std::lock_guard lock(later->mutex);
        later->threads.emplace_back([text = std::string(request.query()), reply] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            HttpResponse response;
            response.body = "later: " + text + "\n";
            response.headers.emplace_back("X-Stand-In", "later");
            reply(response);
            reply(HttpResponse{500, "text/plain; charset=utf-8", "a second answer\n", {}});   // dropped
        });
    };
    late.stop = [later] {
        const std::lock_guard lock(later->mutex);
        for (std::thread& t : later->threads) t.join();
        later->threads.clear();
    };
    HttpRoute now;
    now.path = "/stand-in/now";
    now.handle = [](const HttpRequest&, HttpReply reply) { reply(HttpResponse{202, "text/plain; charset=utf-8", "now\n", {}}); };
    game.routes = {late, now};
    return serve_command(serve_args, game, limits, std::cout, std::cerr);
}
