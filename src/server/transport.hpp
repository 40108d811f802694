// The transport's state: the I/O thread's io context, the tick pool's, the listening socket,
// the signals, the rooms (each with its strand, tick timer and open sessions) and the calls
// the sessions make on it. Which thread owns what is stated above HostedRoom. Its work is
// spread by responsibility: server.cpp (listening, the outbox, draining), routes.cpp (what an
// HTTP request is answered), tick_driver.cpp (the tick timer and the sends it batches),
// http_session.cpp and ws_session.cpp (one connection each). It moves bytes and keeps time;
// every decision it could get wrong is made by a pure function elsewhere in src/server or by
// the room.
#pragma once

#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/strand.hpp>

#include "server/activity_trace.hpp"
#include "server/beast_support.hpp"
#include "server/budgets.hpp"
#include "server/health.hpp"
#include "server/http_session.hpp"
#include "server/metrics.hpp"
#include "server/room_directory.hpp"
#include "server/send_pacer.hpp"
#include "tandem/server/serve.hpp"
#include "server/static_files.hpp"
#include "server/store_watch.hpp"
#include "server/ws_session.hpp"
#include "tandem/core/tick_loop.hpp"

namespace tandem::server::detail {

// A drain's hand-over waits this long for peers to take its rooms (a peer's scan, every
// 500 ms, a restore, and this process's hurried scan): past it the rest are closed with 1001.
inline constexpr int64_t handoff_wait_ns = 1'500'000'000;

// Which thread owns what. Every line of the transport keeps to this; nothing is locked but the
// list of hosted rooms the store watch's thread reads (Server::hosted_mutex_) and each room's
// inbox, which the I/O thread fills and the room's strand empties (HostedRoom::inbox_mutex).
// - The I/O thread runs io_: the acceptor, every socket and session, HTTP and /metrics, the
//   room directory and rooms_, and in each HostedRoom what is marked "I/O" below.
// - The tick pool runs pool_ on tick_threads threads. Each room has a strand on it, and what is
//   marked "strand" below (its RoomPort above all) is touched only by a handler of that strand:
//   one room is stepped on one thread at a time, its calls in the order they were posted, so
//   its order of events stays its own, while the other rooms' strands run on the other threads.
//   A slow step holds its own strand's thread, never the I/O thread or another room. With
//   --tick-threads 0 the strands are on io_ instead (room_context()): every room runs on the
//   I/O thread, in the same order, and a slow step holds everything.
// - The I/O thread posts a session's connect, message and disconnect to its room's strand; the
//   strand calls the room, takes its outbox and posts it back (a RoomReport) to the I/O thread,
//   which hands it to the sessions. The room's figures travel in the same report, so /metrics
//   and /rooms read the last figures reported and never call a room.
struct HostedRoom : std::enable_shared_from_this<HostedRoom> {
    HostedRoom(asio::io_context& pool, std::string id_, std::string game_, RoomPort& port_)
        : id(std::move(id_)),
          game(std::move(game_)),
          port(&port_),
          max_message(port_.max_client_message_bytes()),
          tick_hz(port_.tick_hz()),
          strand(asio::make_strand(pool)),
          timer(std::in_place, strand) {}
    // Set before the room is shared, then only read (any thread).
    const std::string id;
    const std::string game;
    std::unique_ptr<RoomPort> owned;   // a created or adopted room's; null for the default room (serve()'s caller owns it)
    RoomPort* const port;              // strand: every call
    const uint32_t max_message;        // the transport's read limit for its sockets
    const uint32_t tick_hz;
    asio::strand<asio::io_context::executor_type> strand;
    // Messages read for this room and not yet taken by its strand. The I/O thread appends and
    // posts one drain when the inbox was empty; the drain takes all that arrived meanwhile.
    // So a room's messages cross to its strand (and their report back) once per burst, not
    // once per message: each crossing can wake a thread, and with 100 small rooms on one core
    // the kernel's thread switches were a third of the server's CPU (docs/performance.md,
    // "100 ships rooms on one core").
    struct Inbound {
        std::shared_ptr<WsSession> session;
        ConnectionId id;
        std::vector<uint8_t> message;
        int64_t received_ns;
    };
    std::mutex inbox_mutex;
    std::vector<Inbound> inbox;        // inbox_mutex
    bool drain_posted = false;         // inbox_mutex: a drain is on its way to the strand
    // strand:
    std::optional<TickLoop> loop;
    std::optional<asio::steady_timer> timer;   // on the strand; made in the constructor
    bool stopped = false;                     // shut down: no more ticks, connects refused
    // I/O:
    std::map<ConnectionId, std::shared_ptr<WsSession>> sessions;
    bool closed = false;               // closed (idle or drained): a late upgrade to it is turned away
    RoomFigures reported;              // the figures of its last report
    int64_t next_boundary_ns = 0;      // its tick loop's next boundary, as last reported
};

// What a room's strand hands the I/O thread after a call: its outbox in order, its figures,
// and for a tick what each executed step cost and how late it started.
struct RoomReport {
    struct Step {
        int64_t boundary_ns = 0;
        int64_t start_ns = 0;
        int64_t room_ns = 0;   // the room's tick call
        int64_t step_ns = 0;   // the world step inside it (the room's own figure)
    };
    std::vector<Outgoing> sends;
    std::vector<CloseOrder> closes;
    RoomFigures figures;
    std::vector<Step> steps;
    int64_t woke_ns = 0;
    int64_t step_length_ns = 0;
    int64_t next_boundary_ns = 0;
    uint64_t dropped = 0;
    bool clock_went_back = false;
};

class Server {
public:
    Server(const ServeOptions& options, RoomPort& room, std::span<const HttpRoute> routes, const TransportLimits& limits,
           std::span<const RoomKind> kinds)
        : options_(options),
          default_room_(std::make_shared<HostedRoom>(room_context(), options.room_name, kinds.empty() ? std::string() : kinds.front().game, room)),
          kinds_(kinds),
          directory_(RoomLimits{limits.max_rooms, limits.rooms_per_address, int64_t{options.room_idle_close_seconds} * 1'000'000'000}),
          routes_(routes),
          limits_(limits),
          addresses_(AddressLimits{limits.connections_per_address, limits.handshakes_per_address}),
          acceptor_(io_),
          signals_(io_, SIGINT, SIGTERM),
          drain_timer_(io_),
          accept_retry_(io_),
          idle_timer_(io_) {}

    int run(std::ostream& out, std::ostream& err);

    // ---- used by the sessions ----
    asio::io_context& io() { return io_; }
    // The room an upgrade to `path` joins: /ws the default room, /ws/ID room ID, or for a room
    // another process sharing the store serves, the answer that says where (MovedRoom); null: none.
    std::shared_ptr<HostedRoom> room_for(std::string_view path);
    const TransportLimits& limits() const { return limits_; }
    TransportFigures& figures() { return figures_; }
    ServerMetrics& metrics() { return metrics_; }
    bool draining() const { return draining_; }

    // `address`: the client's, which POST /rooms counts its rooms against.
    http::message_generator respond(const http::request<http::string_body>& request, const AddressKey& address);
    // The game's route for this path, if one takes it (GET and HEAD only).
    const HttpRoute* route_for(std::string_view path) const;
    // Hands the request to the route; `write` gets the answer on this thread whenever the route
    // replies (at once or from a thread of its own), never after the server stopped. peer and
    // gone become the HttpRequest's (the client's address; set once its connection ended).
    void answer_route(const HttpRoute& route, const http::request<http::string_body>& request, std::string peer,
                      std::shared_ptr<const std::atomic<bool>> gone, std::function<void(http::message_generator)> write);
    bool origin_allowed(std::string_view origin_header) const;
    void http_opened(const std::shared_ptr<HttpSession>& s) { http_sessions_.insert(s); }
    // The socket went on to a WebSocket session, which now owns it and its count.
    void http_handed_over(const std::shared_ptr<HttpSession>& s) { http_sessions_.erase(s); }
    void http_closed(const std::shared_ptr<HttpSession>& s) {
        http_sessions_.erase(s);
        sockets_closed(&s->address());
    }
    // A keep-alive connection's next request began, or a request or upgrade finished: the
    // address's count of unfinished ones follows (see AddressBook).
    void handshake_begun(const AddressKey& address) { addresses_.handshake_begun(address); }
    void handshake_ended(const AddressKey& address) { addresses_.handshake_ended(address); }
    // A refused connection's answer is done (sent, or given up on) and its socket closed.
    void refusal_closed(const std::shared_ptr<HttpRefusal>& r) {
        refusals_.erase(r);
        addresses_.refusal_ended(r->address());
        sockets_closed(nullptr);
    }
    // ---- a room's calls, from the I/O thread to its strand (see the threads above) ----
    // The session asks to join its room; its `joined` (or `turned_away`) follows on this thread.
    void room_connect(const std::shared_ptr<WsSession>& s);
    // A whole message, copied: the strand reads it after this read's buffer is reused. `s`
    // learns when it has been handled (its reads are paused while too many are in flight).
    void room_receive(const std::shared_ptr<WsSession>& s, std::vector<uint8_t> message, int64_t now_ns);
    // On the strand: hands the room every message in its inbox, in the order they were read.
    void drain_inbox(HostedRoom& room);
    void room_disconnect(HostedRoom& room, ConnectionId id);
    // Shuts the room down on its strand (retire: for good, RoomPort::retire); `then` runs on this
    // thread once its last outbox was handed over.
    void room_shut_down(HostedRoom& room, std::function<void()> then, bool retire = false);
    // A drain beside peers sharing the store: RoomPort::hand_off on its strand; `then(handed)`
    // runs on this thread after, handed false when the room shut down as usual instead.
    void room_hand_off(HostedRoom& room, std::function<void(bool)> then);
    // Runs on the strand after a call: the room's outbox and figures, posted to this thread.
    void report_back(HostedRoom& room, RoomReport report, std::function<void()> then = nullptr);
    void ws_registered(const std::shared_ptr<WsSession>& s) {
        s->room().sessions[s->id()] = s;
        directory_.connected(s->room().id);
        ++figures_.connections_accepted;
        ++figures_.connections_open;
    }
    void ws_pending(const std::shared_ptr<WsSession>& s) { ws_handshaking_.insert(s); }
    void ws_pending_done(const std::shared_ptr<WsSession>& s) { ws_handshaking_.erase(s); }
    void ws_closed(const std::shared_ptr<WsSession>& s, bool registered, const Ending& ending);
    void queue_bytes_changed(int64_t delta, uint64_t connection_bytes) {
        figures_.write_queue_bytes = static_cast<uint64_t>(static_cast<int64_t>(figures_.write_queue_bytes) + delta);
        if (connection_bytes > figures_.write_queue_peak_bytes) figures_.write_queue_peak_bytes = connection_bytes;
    }
    // On this thread: hands a room's report to its connections, in order, and books its ticks.
    void deliver(HostedRoom& room, RoomReport& report);
    // While a tick runs its due steps, frames are queued and sent once after the last, so a
    // catch-up of several steps costs one system call per connection, not one per step.
    // The connections are then flushed in slices of at most send_slice_ns, each next slice
    // posted behind what is ready (the tick timer, reads): at 1,000 watchers a tick's sends
    // take several milliseconds, and the next tick must not wait behind all of them.
    bool batching() const { return batching_; }
    void flush_later(std::shared_ptr<WsSession> s) { to_flush_.push_back(std::move(s)); }
    void flush_batch();
    void send_slice();
    uint32_t open_sockets() const { return open_sockets_; }

    // With TANDEM_SERVE_TRACE_LATE=FILE set, every tick that starts 1 ms or more after its
    // boundary writes a line to FILE naming the handler that held the thread at the
    // boundary and the time each kind of handler took until the tick started.
    class Mark {
    public:
        Mark(Server& s, Activity a) : trace_(s.trace_ ? &*s.trace_ : nullptr) {
            if (trace_) trace_->begin(a, now_ns());
        }
        ~Mark() {
            if (trace_) trace_->end(now_ns());
        }
        Mark(const Mark&) = delete;
        Mark& operator=(const Mark&) = delete;

    private:
        ActivityTrace* trace_;
    };

private:
    void accept();
    // Starts the room's tick loop at its game's rate (on its strand); false (with the reason)
    // when TickLoop refuses the rate.
    bool start_ticking(HostedRoom& room, std::string* problem);
    void schedule_tick(HostedRoom& room);   // strand
    void on_tick(HostedRoom& room);         // strand
    // How many threads tick the rooms: --tick-threads, or max(2, hardware threads - 1) (see .cpp).
    uint32_t tick_threads() const;
    // POST /rooms and GET /rooms.
    http::message_generator rooms_answer(const http::request<http::string_body>& request, const AddressKey& address);
    Result<std::shared_ptr<HostedRoom>, RoomRequestError> create_room(const CreateRoomRequest& request, const AddressKey& creator);
    // Every half second: created rooms idle for --room-idle-close are shut down and forgotten.
    void schedule_idle_check();
    // Stops hosting the room. retire: it ended for good (idle), its checkpoint goes too;
    // otherwise it was lost to another process, which goes on from the checkpoint.
    void close_room(const std::string& id, bool retire);
    // Failover (--store): the store watch's findings, on this thread.
    void start_store_watch();
    void open_adopted(AdoptedRoom adopted);
    void set_moved(std::map<std::string, std::string> moved);
    // rooms_'s ids for the store watch's thread, kept beside rooms_ (see hosted_mutex_).
    void hosted_changed();
    void begin_drain();
    void trace_late(int64_t boundary, int64_t start, int64_t woke, uint64_t executed);
    // One socket fewer; `address`: an admitted connection's, whose count drops too.
    void sockets_closed(const AddressKey* address) {
        if (address) addresses_.closed(*address);
        --open_sockets_;
        maybe_finish_drain();
    }
    void admit(tcp::socket socket);
    // Where the rooms' strands and timers run: the tick pool, or with --tick-threads 0 the I/O
    // thread's own context, where a post to a room and its report back wake no other thread.
    asio::io_context& room_context() { return tick_threads() == 0 ? io_ : pool_; }
    void maybe_finish_drain() {
        if (draining_ && open_sockets_ == 0) io_.stop();
    }

    friend class WsSession;

    const ServeOptions& options_;
    // The pool first: destroyed last, after io_'s pending handlers let go of the rooms whose
    // strands and timers are on it (run() leaves no handler pending on the pool itself).
    asio::io_context pool_;
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> pool_work_;
    std::vector<std::thread> pool_threads_;
    asio::io_context io_{1};
    std::shared_ptr<HostedRoom> default_room_;
    std::span<const RoomKind> kinds_;
    RoomDirectory directory_;
    // Every room by id, the default room included (ordered: shutdown and /rooms never depend on a hash).
    std::map<std::string, std::shared_ptr<HostedRoom>, std::less<>> rooms_;
    std::optional<TicketKey> ticket_key_;   // --ticket-key: POST /rooms requires a ticket it signed
    // Failover (--store). The watch's thread reads hosted_ids_ under hosted_mutex_ (the one lock
    // of the transport: the watch is not a room and owns no strand); everything else is I/O.
    std::unique_ptr<StoreWatch> store_watch_;
    std::mutex hosted_mutex_;
    std::set<std::string, std::less<>> hosted_ids_;
    std::set<std::string, std::less<>> adopting_;   // restored by the watch, not yet opened here
    uint32_t hosted_room_for_ = 0;   // how many more rooms may be adopted
    // Rooms other processes serve, by id, with their URL; each joined at most through one MovedRoom.
    std::map<std::string, std::string, std::less<>> moved_;
    std::map<std::string, std::shared_ptr<HostedRoom>, std::less<>> moved_rooms_;
    // A drain's rooms handed off, whose clients wait to be told where the room went (set_moved)
    // until handoff_timer_ closes them with 1001.
    std::set<std::string, std::less<>> handing_off_;
    asio::steady_timer handoff_timer_{io_};
    // Sends each client of a handed-off room to `url` (room_moved, then 1012).
    void send_on(HostedRoom& room, const std::string& url);
    std::span<const HttpRoute> routes_;
    TransportLimits limits_;
    AddressBook addresses_;
    tcp::acceptor acceptor_;
    asio::signal_set signals_;
    asio::steady_timer drain_timer_;
    asio::steady_timer accept_retry_;
    asio::steady_timer idle_timer_;

    StaticRoots roots_;
    GzipFiles gzip_files_;
    std::vector<std::string> origins_;
    HealthPolicy health_policy_;
    std::optional<int64_t> last_fell_behind_ns_;
    bool ticking_started_ = false;
    bool draining_ = false;
    bool batching_ = false;
    std::deque<std::shared_ptr<WsSession>> to_flush_;
    bool slice_posted_ = false;
    // TANDEM_SERVE_SEND_SLICE_US overrides the slice for measurements; a budget larger than
    // any tick's sends (say 1000000) sends a tick's batch in one go, as before slices.
    int64_t slice_budget_ns_ = send_slice_ns;
    uint64_t ticks_run_ = 0;
    uint32_t open_sockets_ = 0;

    ServerMetrics metrics_;
    TransportFigures figures_;
    std::optional<ActivityTrace> trace_;
    FILE* trace_out_ = nullptr;
    long trace_involuntary_switches_ = 0;
    long long trace_run_delay_ns_ = 0;
    std::vector<Outgoing> sends_;
    std::vector<CloseOrder> closes_;
    // Ordered containers: shutdown and outbox order never depend on a hash.
    std::set<std::shared_ptr<WsSession>> ws_handshaking_;
    std::set<std::shared_ptr<HttpSession>> http_sessions_;
    std::set<std::shared_ptr<HttpRefusal>> refusals_;
    // What a route's reply posts through, from any thread; closed (io = nullptr) when the
    // server stops, so a worker's late answer is dropped instead of reaching a dead context.
    struct ReplyGate {
        std::mutex mutex;
        asio::io_context* io = nullptr;
    };
    std::shared_ptr<ReplyGate> reply_gate_ = std::make_shared<ReplyGate>();
};

}  // namespace tandem::server::detail
