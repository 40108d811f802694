// The only translation unit that sees Boost.Beast (one such file takes about 40 s to compile
// at -O2): HTTP static files, /metrics, /healthz, the WebSocket at /ws, the tick timer and
// the signals, all on one thread. It moves bytes and keeps time; every decision it could
// get wrong is made by a pure function elsewhere in src/server or by the room.
//
// WebSocket reads go through Beast; writes do not. The room's frames leave with a
// non-blocking sendmsg() of header + shared payload straight from the handler that queued
// them, and wait for the socket only when it would block: Beast's composed write per frame
// cost more than the send itself and queued a completion ahead of the tick timer. Beast's
// own writes (the handshake answer, pings, pongs, the close frame) reach the socket through
// the same writer (SocketGate below), between whole frames, so nothing interleaves.
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <ostream>
#include <set>

#include "server/activity_trace.hpp"
#include "server/health.hpp"
#include "server/metrics.hpp"
#include "server/native_stream.hpp"
#include "server/send_pacer.hpp"
#include "server/server.hpp"
#include "server/static_files.hpp"
#include "server/write_queue.hpp"
#include "tandem/core/tick_loop.hpp"
#include "tandem/core/timestep.hpp"

namespace tandem::server {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using error_code = beast::error_code;

constexpr uint32_t largest_request_header_bytes = 8192;
constexpr uint32_t largest_request_body_bytes = 4096;  // we serve GET and HEAD: any body is refused
constexpr uint16_t close_going_away = 1001;

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
std::chrono::steady_clock::time_point steady_at(int64_t ns) {
    return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}
std::chrono::nanoseconds duration(int64_t ns) { return std::chrono::nanoseconds(ns); }

// What ended a WebSocket connection, as the close code and the reason /metrics counts.
struct Ending {
    uint16_t code = 1006;
    std::string reason;
};

// Beast fails a connection itself (sending the close frame) on protocol errors, oversize
// messages and invalid text; this names what happened for the books.
Ending ending_for_read_error(const error_code& ec) {
    if (ec == websocket::error::closed) return {1000, "peer_closed"};
    if (ec == websocket::error::message_too_big || ec == websocket::error::buffer_overflow) {
        return {1009, "message_too_big"};
    }
    if (ec == websocket::error::bad_frame_payload) return {1007, "invalid_payload"};
    if (ec == beast::error::timeout) return {1006, "timeout"};
    if (ec == websocket::condition::protocol_violation) return {1002, "protocol_error"};
    return {1006, "connection_lost"};
}

class Server;
class WsSession;

// The stream under Beast's websocket::stream: reads pass straight to the socket; every
// write Beast makes is copied (a handshake answer or a control frame, a few dozen bytes)
// into the session's writer, which sends it between whole frames of the room's, and is
// reported done at once. So the session's raw frames and Beast's never interleave.
class SocketGate {
public:
    using executor_type = beast::tcp_stream::executor_type;
    using next_layer_type = beast::tcp_stream;

    explicit SocketGate(beast::tcp_stream&& stream) : stream_(std::move(stream)) {}
    void attach(WsSession* owner) { owner_ = owner; }
    executor_type get_executor() { return stream_.get_executor(); }
    next_layer_type& next_layer() { return stream_; }  // beast::get_lowest_layer follows this

    template <class MutableBuffers, class Token>
    auto async_read_some(const MutableBuffers& buffers, Token&& token) {
        return stream_.async_read_some(buffers, std::forward<Token>(token));
    }
    template <class ConstBuffers, class Token>
    auto async_write_some(const ConstBuffers& buffers, Token&& token) {
        return asio::async_initiate<Token, void(error_code, size_t)>(
            [this](auto handler, const ConstBuffers& b) {
                std::vector<uint8_t> bytes(asio::buffer_size(b));
                asio::buffer_copy(asio::buffer(bytes), b);
                const size_t n = bytes.size();
                hand_over(std::move(bytes));
                const auto ex = asio::get_associated_executor(handler, stream_.get_executor());
                asio::post(ex, beast::bind_front_handler(std::move(handler), error_code{}, n));
            },
            token, buffers);
    }
    // Beast's teardown after a close handshake: once the writer has sent everything it
    // holds (the close frame last), shut down the sending side. `done` runs then.
    void teardown_after_writes(std::function<void()> done);

private:
    void hand_over(std::vector<uint8_t> bytes);

    beast::tcp_stream stream_;
    WsSession* owner_ = nullptr;  // owns the websocket::stream that owns this
};

// Found by argument-dependent lookup from Beast's close and read operations.
template <class Handler>
void async_teardown(beast::role_type, SocketGate& gate, Handler&& handler) {
    auto held = std::make_shared<std::decay_t<Handler>>(std::forward<Handler>(handler));
    gate.teardown_after_writes([held, ex = gate.get_executor()] {
        const auto to = asio::get_associated_executor(*held, ex);
        asio::post(to, beast::bind_front_handler(std::move(*held), error_code{}));
    });
}

// One WebSocket connection: reads whole messages into the room, writes the room's shared
// frames through a byte-capped queue, sent as soon as they are queued while the socket takes
// them.
class WsSession : public std::enable_shared_from_this<WsSession> {
public:
    WsSession(Server& server, beast::tcp_stream&& stream);
    void accept(http::request<http::string_body> request);
    void enqueue(SharedBytes message);
    // Sends what is queued, then the close frame; tears the socket down if that stalls.
    void close(uint16_t code, std::string reason);
    void tear_down();
    ConnectionId id() const { return id_; }
    uint64_t queued_bytes() const { return queue_.bytes(); }

    // ---- the writer, for SocketGate ----
    // Bytes Beast wrote (whole frames, or the handshake's HTTP answer), sent next between frames.
    void write_control(std::vector<uint8_t> bytes);
    void when_written(std::function<void()> done);
    // Sends what is queued until the socket would block (then waits for it) or all is sent.
    void flush();
    void flush_after_batch() {
        flush_wanted_ = false;
        flush();
    }

private:
    void on_accept(const error_code& ec);
    void read();
    void on_read(const error_code& ec, size_t bytes);
    bool send_some();  // false: blocked or failed; true: nothing left
    void drop_unstarted();
    // The socket is gone: nothing more will be written; whoever waits for the writes is told.
    void abandon_writes();
    void finish(Ending ending);

    Server& server_;
    websocket::stream<SocketGate> ws_;
    beast::flat_buffer buffer_;
    WriteQueue queue_;
    std::deque<std::vector<uint8_t>> control_;  // Beast's writes, not counted against the cap
    bool control_in_progress_ = false;           // the item being sent is control_.front()
    size_t sent_of_current_ = 0;                 // bytes of the item being sent already sent
    bool waiting_writable_ = false;
    bool flushing_ = false;
    bool flush_wanted_ = false;  // queued during a tick's steps, sent when they are done
    std::vector<std::function<void()>> when_written_;
    asio::steady_timer close_timer_;
    ConnectionId id_ = 0;
    bool registered_ = false;  // the room knows this connection
    bool accepted_ = false;    // the handshake is done: what Beast writes now is frames
    bool finished_ = false;
    std::optional<websocket::close_reason> close_after_queue_;
    bool close_sent_ = false;  // a close frame (ours or Beast's) is queued: no frame after it
    std::optional<Ending> ending_;  // the first cause, which is what gets counted
};

void SocketGate::hand_over(std::vector<uint8_t> bytes) { owner_->write_control(std::move(bytes)); }
void SocketGate::teardown_after_writes(std::function<void()> done) {
    owner_->when_written([this, done = std::move(done)] {
        error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        done();
    });
}

// One HTTP connection (keep-alive) until it upgrades or ends.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
public:
    HttpSession(Server& server, tcp::socket&& socket);
    void start() { read(); }
    void tear_down();

    // Writes a response that was produced later than the request's read (a native stream).
    void write(http::message_generator response, bool keep_alive);

private:
    void read();
    void on_read(const error_code& ec);
    void on_write(bool keep_alive, const error_code& ec);
    void finish();

    Server& server_;
    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    bool finished_ = false;
};

class Server {
public:
    Server(const ServeOptions& options, RoomPort& room, const TransportLimits& limits)
        : options_(options),
          room_(room),
          limits_(limits),
          acceptor_(io_),
          signals_(io_, SIGINT, SIGTERM),
          tick_timer_(io_),
          drain_timer_(io_),
          accept_retry_(io_) {}

    int run(std::ostream& out, std::ostream& err);

    // ---- used by the sessions ----
    asio::io_context& io() { return io_; }
    RoomPort& room() { return room_; }
    const TransportLimits& limits() const { return limits_; }
    TransportFigures& figures() { return figures_; }
    ServerMetrics& metrics() { return metrics_; }
    bool draining() const { return draining_; }

    http::message_generator respond(const http::request<http::string_body>& request);
    // GET /native/stream: answered through `reply` at once (a known stream, a refusal, busy)
    // or when the worker has computed it; the tick loop never waits for it.
    void native_stream(const http::request<http::string_body>& request,
                       std::function<void(http::message_generator)> reply);
    bool origin_allowed(std::string_view origin_header) const;
    void http_opened(const std::shared_ptr<HttpSession>& s) { http_sessions_.insert(s); }
    // The socket went on to a WebSocket session, which now owns it and its count.
    void http_handed_over(const std::shared_ptr<HttpSession>& s) { http_sessions_.erase(s); }
    void http_closed(const std::shared_ptr<HttpSession>& s) {
        http_sessions_.erase(s);
        sockets_closed();
    }
    void ws_registered(const std::shared_ptr<WsSession>& s) {
        ws_sessions_[s->id()] = s;
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
    // Hands everything the room queued to the connections, in order.
    void pump_outbox();
    // While a tick runs its due steps, frames are queued and sent once after the last, so a
    // catch-up of several steps costs one system call per connection, not one per step.
    // The connections are then flushed in slices of at most send_slice_ns, each next slice
    // posted behind what is ready (the tick timer, reads): at 1,000 watchers a tick's sends
    // take several milliseconds, and the next tick must not wait behind all of them.
    bool batching() const { return batching_; }
    // Runs the tick now if its boundary has passed. Called before each WebSocket read is
    // handled: when many sockets are ready at once the reactor queues all their reads ahead of
    // the timer's handler, and a due tick would otherwise wait for every one of them (at 1,000
    // watchers, a burst of acks is milliseconds of reads). With this it waits for one handler.
    // The timer's own wait is re-armed by the tick and finds nothing due.
    void tick_if_due() {
        if (loop_ && !draining_ && now_ns() >= loop_->next_boundary_ns()) on_tick();
    }
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
    void schedule_tick();
    void on_tick();
    void begin_drain();
    void trace_late(int64_t boundary, int64_t start, int64_t woke, uint64_t executed);
    void sockets_closed() {
        --open_sockets_;
        maybe_finish_drain();
    }
    void maybe_finish_drain() {
        if (draining_ && open_sockets_ == 0) io_.stop();
    }

    friend class WsSession;

    const ServeOptions& options_;
    RoomPort& room_;
    TransportLimits limits_;
    asio::io_context io_{1};
    tcp::acceptor acceptor_;
    asio::signal_set signals_;
    asio::steady_timer tick_timer_;
    asio::steady_timer drain_timer_;
    asio::steady_timer accept_retry_;

    StaticRoots roots_;
    GzipFiles gzip_files_;
    std::vector<std::string> origins_;
    std::optional<TickLoop> loop_;
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
    std::map<ConnectionId, std::shared_ptr<WsSession>> ws_sessions_;
    std::set<std::shared_ptr<WsSession>> ws_handshaking_;
    std::set<std::shared_ptr<HttpSession>> http_sessions_;
    // Last: destroyed first, so its worker is stopped and joined while io_ still exists.
    NativeStreams native_streams_;
};

// ---- HTTP ---------------------------------------------------------------------------------

HttpSession::HttpSession(Server& server, tcp::socket&& socket) : server_(server), stream_(std::move(socket)) {}

void HttpSession::read() {
    parser_.emplace();
    parser_->header_limit(largest_request_header_bytes);
    parser_->body_limit(largest_request_body_bytes);
    stream_.expires_after(duration(server_.limits().http_idle_timeout_ns));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](const error_code& ec, size_t) { self->on_read(ec); });
}

void HttpSession::on_read(const error_code& ec) {
    Server::Mark mark(server_, Activity::http);
    if (ec) {
        // A malformed request gets a 400 when the socket still works; timeouts and resets
        // just end the connection.
        if (ec != http::error::end_of_stream && ec != beast::error::timeout && ec != asio::error::operation_aborted &&
            ec != asio::error::connection_reset && stream_.socket().is_open()) {
            http::response<http::string_body> bad{http::status::bad_request, 11};
            bad.set(http::field::content_type, "text/plain; charset=utf-8");
            bad.set(http::field::connection, "close");
            bad.body() = "bad request: " + ec.message() + "\n";
            bad.prepare_payload();
            server_.metrics().http_response(400);
            stream_.expires_after(duration(server_.limits().handshake_timeout_ns));
            beast::async_write(stream_, http::message_generator(std::move(bad)),
                              [self = shared_from_this()](const error_code& e, size_t) { self->on_write(false, e); });
            return;
        }
        finish();
        return;
    }
    http::request<http::string_body> request = parser_->release();
    if (websocket::is_upgrade(request)) {
        const std::string_view target(request.target().data(), request.target().size());
        const std::string_view path = target.substr(0, target.find('?'));
        std::optional<std::pair<http::status, std::string>> refusal;
        if (path != "/ws") {
            refusal = {http::status::not_found, "not_found"};
        } else if (server_.draining()) {
            refusal = {http::status::service_unavailable, "draining"};
        } else if (const auto origin = request.find(http::field::origin);
                   origin != request.end() &&
                   !server_.origin_allowed(std::string_view(origin->value().data(), origin->value().size()))) {
            refusal = {http::status::forbidden, "origin"};
        }
        if (refusal) {
            server_.metrics().handshake_refused(refusal->second);
            http::response<http::string_body> no{refusal->first, request.version()};
            no.set(http::field::content_type, "text/plain; charset=utf-8");
            no.set(http::field::connection, "close");
            no.body() = "websocket refused: " + refusal->second + "\n";
            no.prepare_payload();
            server_.metrics().http_response(static_cast<unsigned>(refusal->first));
            beast::async_write(stream_, http::message_generator(std::move(no)),
                              [self = shared_from_this()](const error_code& e, size_t) { self->on_write(false, e); });
            return;
        }
        // The socket now belongs to the WebSocket session; this one ends without closing it.
        auto ws = std::make_shared<WsSession>(server_, std::move(stream_));
        finished_ = true;
        server_.http_handed_over(shared_from_this());
        ws->accept(std::move(request));
        return;
    }
    const bool keep_alive = request.keep_alive() && !server_.draining();
    if (const std::string_view t(request.target().data(), request.target().size());
        t.substr(0, t.find('?')) == "/native/stream" &&
        (request.method() == http::verb::get || request.method() == http::verb::head)) {
        server_.native_stream(request, [self = shared_from_this(), keep_alive](http::message_generator response) {
            self->write(std::move(response), keep_alive);
        });
        return;
    }
    http::message_generator response = server_.respond(request);
    stream_.expires_after(duration(server_.limits().http_idle_timeout_ns));
    beast::async_write(stream_, std::move(response),
                      [self = shared_from_this(), keep_alive](const error_code& e, size_t) { self->on_write(keep_alive, e); });
}

void HttpSession::write(http::message_generator response, bool keep_alive) {
    if (finished_) return;
    stream_.expires_after(duration(server_.limits().http_idle_timeout_ns));
    beast::async_write(stream_, std::move(response),
                      [self = shared_from_this(), keep_alive](const error_code& e, size_t) { self->on_write(keep_alive, e); });
}

void HttpSession::on_write(bool keep_alive, const error_code& ec) {
    if (ec || !keep_alive || server_.draining()) {
        error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        finish();
        return;
    }
    read();
}

void HttpSession::tear_down() {
    error_code ignored;
    stream_.socket().close(ignored);
}

void HttpSession::finish() {
    if (finished_) return;
    finished_ = true;
    error_code ignored;
    stream_.socket().close(ignored);
    server_.http_closed(shared_from_this());
}

// ---- WebSocket ----------------------------------------------------------------------------

WsSession::WsSession(Server& server, beast::tcp_stream&& stream)
    : server_(server),
      ws_(std::move(stream)),
      queue_(server.limits().write_queue_cap_bytes),
      close_timer_(server.io()) {
    ws_.next_layer().attach(this);
}

void WsSession::accept(http::request<http::string_body> request) {
    server_.ws_pending(shared_from_this());
    beast::get_lowest_layer(ws_).expires_never();  // the WebSocket's own timeouts take over
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = duration(server_.limits().handshake_timeout_ns);
    timeouts.idle_timeout = duration(server_.limits().idle_timeout_ns);
    timeouts.keep_alive_pings = true;
    ws_.set_option(timeouts);
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& response) { response.set(http::field::server, "tandem"); }));
    // Whole messages, one frame each: fragmenting a 32 KiB frame into 4 KiB pieces tripled
    // the server's CPU per message here, and no client needs the pieces.
    ws_.auto_fragment(false);
    // The largest legal client message, not Beast's 16 MiB default: a peer cannot make the
    // server buffer more than one message of the protocol.
    ws_.read_message_max(server_.room().max_client_message_bytes());
    ws_.binary(true);
    ws_.async_accept(request, [self = shared_from_this()](const error_code& ec) { self->on_accept(ec); });
}

void WsSession::on_accept(const error_code& ec) {
    Server::Mark mark(server_, Activity::handshake);
    server_.ws_pending_done(shared_from_this());
    if (ec) {
        finish({1006, "handshake_failed"});
        return;
    }
    if (server_.draining()) {
        close(close_going_away, "going_away");
        read();
        return;
    }
    accepted_ = true;
    id_ = server_.room().connect(now_ns());
    registered_ = true;
    server_.ws_registered(shared_from_this());
    read();
    server_.pump_outbox();
}

void WsSession::read() {
    ws_.async_read(buffer_, [self = shared_from_this()](const error_code& ec, size_t bytes) { self->on_read(ec, bytes); });
}

void WsSession::on_read(const error_code& ec, size_t bytes) {
    Server::Mark mark(server_, Activity::ws_read);
    if (ec) {
        Ending ending = ending_for_read_error(ec);
        if (ec == websocket::error::closed) ending.code = ws_.reason().code;
        finish(std::move(ending));
        return;
    }
    // A due tick first (see tick_if_due): this message then lands after it, as it arrived
    // after the boundary. The tick may have closed this connection.
    server_.tick_if_due();
    if (finished_) return;
    if (close_after_queue_ || close_sent_) {
        // Closing: keep reading until the peer's close frame, but hand nothing more on.
        buffer_.consume(buffer_.size());
        read();
        return;
    }
    ++server_.figures().frames_received;
    server_.figures().bytes_received += bytes;
    if (!ws_.got_binary()) {
        // The protocol is binary only; a text message is a payload the room cannot read.
        buffer_.consume(buffer_.size());
        close(1007, "binary_only");
        read();
        return;
    }
    const auto* data = static_cast<const uint8_t*>(buffer_.cdata().data());
    server_.room().receive(id_, std::span<const uint8_t>(data, buffer_.size()), now_ns());
    buffer_.consume(buffer_.size());
    server_.pump_outbox();
    if (!finished_) read();
}

void WsSession::enqueue(SharedBytes message) {
    if (finished_ || close_after_queue_ || close_sent_) return;
    const uint64_t size = message->size();
    if (!queue_.push(std::move(message))) {
        // The hard cap: drop what has not started, close with the reason. A peer that
        // stopped reading will not take even the close frame; the close timer ends it.
        drop_unstarted();
        close(1008, "write_queue_overflow");
        return;
    }
    server_.queue_bytes_changed(static_cast<int64_t>(size), queue_.bytes());
    if (!server_.batching()) {
        flush();
    } else if (!flush_wanted_) {
        flush_wanted_ = true;
        server_.flush_later(shared_from_this());
    }
}

void WsSession::close(uint16_t code, std::string reason) {
    if (finished_ || close_after_queue_ || close_sent_) return;
    if (!ending_) ending_ = Ending{code, reason};
    websocket::close_reason frame;
    frame.code = code;
    frame.reason = reason;  // snake_case and short: well under the 123 bytes a close frame allows
    close_after_queue_ = frame;
    close_timer_.expires_after(duration(server_.limits().close_timeout_ns));
    close_timer_.async_wait([self = shared_from_this()](const error_code& ec) {
        if (!ec) self->tear_down();
    });
    flush();
}

void WsSession::write_control(std::vector<uint8_t> bytes) {
    if (finished_ || bytes.empty()) return;
    // A close frame Beast sends (its answer to the peer's close, or a failure it closes
    // with) ends the stream of frames, as Beast's own writes would: what has not started is
    // dropped, and nothing is queued after it. (Before the handshake is done the bytes are
    // its HTTP answer, whose first byte means nothing here.)
    if (accepted_ && (bytes[0] & 0x0F) == 0x8) {
        close_sent_ = true;
        drop_unstarted();
    }
    control_.push_back(std::move(bytes));
    flush();
}

void WsSession::when_written(std::function<void()> done) {
    drop_unstarted();  // a teardown: the close frame is the last thing worth sending
    if (finished_ || !beast::get_lowest_layer(ws_).socket().is_open() ||
        (queue_.empty() && control_.empty())) {
        done();
        return;
    }
    when_written_.push_back(std::move(done));
}

void WsSession::drop_unstarted() {
    const uint64_t before = queue_.bytes();
    if (!queue_.empty() && !control_in_progress_ && sent_of_current_ > 0) {
        queue_.drop_all_but_front();  // half sent: the peer must still get the rest of it
    } else {
        while (!queue_.empty()) queue_.pop_front();
    }
    server_.queue_bytes_changed(static_cast<int64_t>(queue_.bytes()) - static_cast<int64_t>(before), queue_.bytes());
}

void WsSession::flush() {
    // Re-entered through Beast (the close started below writes its frame through the gate):
    // the outer call's loop picks the new bytes up.
    if (flushing_ || waiting_writable_ || finished_) return;
    flushing_ = true;
    while (send_some()) {
        if (close_after_queue_ && !close_sent_) {
            close_sent_ = true;
            ws_.async_close(*close_after_queue_, [self = shared_from_this()](const error_code& ec) {
                // Sent: the read loop now waits for the peer's close frame (or the timer).
                if (ec) self->tear_down();
            });
            continue;  // its frame is in control_ now
        }
        auto done = std::move(when_written_);
        when_written_.clear();
        for (auto& f : done) f();
        break;
    }
    flushing_ = false;
}

bool WsSession::send_some() {
    auto& socket = beast::get_lowest_layer(ws_).socket();
    // A reader that fell behind, or a tick that caught up several steps, leaves several
    // frames queued: they go out together, up to this many per system call.
    constexpr size_t most = 16;
    std::array<std::array<uint8_t, 10>, most> headers{};
    std::array<iovec, 2 * most> parts{};
    for (;;) {
        if (!control_in_progress_ && sent_of_current_ == 0 && !control_.empty()) control_in_progress_ = true;
        if (!control_in_progress_ && queue_.empty()) return true;
        if (!socket.is_open()) {
            abandon_writes();
            return false;
        }
        size_t count = 0;
        size_t skip = sent_of_current_;  // the first item's bytes that went out before
        auto add = [&](const uint8_t* data, size_t size) {
            if (skip >= size) {
                skip -= size;
                return;
            }
            parts[count++] = {const_cast<uint8_t*>(data) + skip, size - skip};
            skip = 0;
        };
        if (control_in_progress_) {
            add(control_.front().data(), control_.front().size());
        } else {
            for (size_t i = 0; i < queue_.messages() && i < most; ++i) {
                const std::vector<uint8_t>& message = *queue_[i];
                add(headers[i].data(), binary_frame_header(message.size(), headers[i]));
                add(message.data(), message.size());
            }
        }
        msghdr msg{};
        msg.msg_iov = parts.data();
        msg.msg_iovlen = count;
        const ssize_t n = ::sendmsg(socket.native_handle(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                waiting_writable_ = true;
                socket.async_wait(tcp::socket::wait_write, [self = shared_from_this()](const error_code& ec) {
                    Server::Mark mark(self->server_, Activity::writable);
                    self->waiting_writable_ = false;
                    if (ec) {
                        self->abandon_writes();  // closed under us (tear_down, a timeout)
                        return;
                    }
                    self->flush();
                });
                return false;
            }
            tear_down();  // the pending read fails next and finishes the session
            abandon_writes();
            return false;
        }
        size_t done = sent_of_current_ + static_cast<size_t>(n);  // from the first item's start
        if (control_in_progress_) {
            if (done < control_.front().size()) {
                sent_of_current_ = done;
                continue;
            }
            control_.pop_front();
            control_in_progress_ = false;
            sent_of_current_ = 0;
            continue;
        }
        while (!queue_.empty()) {
            const uint64_t size = queue_.front()->size();
            const size_t framed = binary_frame_header(size, headers[0]) + size;
            if (done < framed) break;
            done -= framed;
            ++server_.figures().frames_sent;
            server_.figures().bytes_sent += size;
            queue_.pop_front();
            server_.queue_bytes_changed(-static_cast<int64_t>(size), queue_.bytes());
        }
        sent_of_current_ = done;  // into the new front: the rest, or EAGAIN, next time round
    }
}

void WsSession::abandon_writes() {
    const uint64_t held = queue_.bytes();
    while (!queue_.empty()) queue_.pop_front();
    if (held > 0) server_.queue_bytes_changed(-static_cast<int64_t>(held), 0);
    control_.clear();
    control_in_progress_ = false;
    sent_of_current_ = 0;
    auto done = std::move(when_written_);
    when_written_.clear();
    for (auto& f : done) f();
}

void WsSession::tear_down() {
    error_code ignored;
    beast::get_lowest_layer(ws_).socket().close(ignored);
}

void WsSession::finish(Ending ending) {
    if (finished_) return;
    finished_ = true;
    if (!ending_) ending_ = std::move(ending);
    close_timer_.cancel();
    tear_down();
    abandon_writes();
    server_.ws_closed(shared_from_this(), registered_, *ending_);
}

// ---- The server ---------------------------------------------------------------------------

template <class Body>
void common_headers(http::response<Body>& response) {
    response.set(http::field::server, "tandem");
    response.set("X-Content-Type-Options", "nosniff");  // the types below are exact
}

http::message_generator Server::respond(const http::request<http::string_body>& request) {
    const bool head = request.method() == http::verb::head;
    const unsigned version = request.version();
    auto text = [&](http::status status, std::string body, std::string_view type = "text/plain; charset=utf-8") {
        http::response<http::string_body> response{status, version};
        common_headers(response);
        response.set(http::field::content_type, type);
        response.set(http::field::cache_control, "no-store");
        response.keep_alive(request.keep_alive());
        const size_t length = body.size();
        response.body() = head ? std::string() : std::move(body);
        response.content_length(length);  // HEAD: the length the GET would have had
        metrics_.http_response(static_cast<unsigned>(status));
        return response;
    };

    if (request.method() != http::verb::get && !head) {
        auto response = text(http::status::method_not_allowed, "only GET and HEAD are served\n");
        response.set(http::field::allow, "GET, HEAD");
        return response;
    }
    const std::string_view target(request.target().data(), request.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    if (path == "/metrics") {
        Mark mark(*this, Activity::metrics);
        return text(http::status::ok, metrics_.render(figures_, room_.figures()), "text/plain; version=0.0.4; charset=utf-8");
    }
    if (path == "/healthz") {
        const Health health = judge_health(health_policy_, TickHealthInput{
                                                               .now_ns = now_ns(),
                                                               .started = ticking_started_,
                                                               .draining = draining_,
                                                               .next_boundary_ns = loop_->next_boundary_ns(),
                                                               .last_fell_behind_ns = last_fell_behind_ns_,
                                                           });
        return text(static_cast<http::status>(http_status(health)), std::string(error_name(health)) + "\n");
    }
    if (path == "/ws") {
        auto response = text(http::status::upgrade_required, "/ws is a WebSocket endpoint\n");
        response.set(http::field::upgrade, "websocket");
        return response;
    }
    const auto parsed = parse_request_path(target);
    if (!parsed) return text(http::status::bad_request, std::string(parsed.message()) + "\n");
    const std::optional<FoundFile> found = find_file(roots_, parsed.value());
    if (!found) return text(http::status::not_found, "not found\n");

    // Files: always revalidated (no-cache), answered 304 while unchanged. The page, the JS
    // glue and the .wasm must come from one build, and their URLs carry no content hash, so
    // a cached copy must never be used without asking; the ETag makes asking cheap. A client
    // that accepts gzip gets the stored gzip body once it exists (GzipFiles), with its own tag.
    const auto accept = request.find(http::field::accept_encoding);
    const std::shared_ptr<const std::string> gzip =
        accept != request.end() && accepts_gzip(std::string_view(accept->value().data(), accept->value().size()))
            ? gzip_files_.find(*found)
            : nullptr;
    const std::string etag = gzip ? gzip_etag(found->etag) : found->etag;
    auto file_headers = [&](auto& response) {
        common_headers(response);
        response.set(http::field::etag, etag);
        response.set(http::field::cache_control, "no-cache");
        response.set(http::field::vary, "Accept-Encoding");
        response.keep_alive(request.keep_alive());
    };
    if (const auto match = request.find(http::field::if_none_match);
        match != request.end() && if_none_match_hits(std::string_view(match->value().data(), match->value().size()), etag)) {
        http::response<http::empty_body> response{http::status::not_modified, version};
        file_headers(response);
        metrics_.http_response(304);
        return response;
    }
    if (gzip) {
        http::response<http::string_body> response{http::status::ok, version};
        file_headers(response);
        response.set(http::field::content_type, found->mime);
        response.set(http::field::content_encoding, "gzip");
        if (!head) response.body() = *gzip;
        response.content_length(gzip->size());  // HEAD: the length the GET would have had
        metrics_.http_response(200);
        return response;
    }
    if (head) {
        http::response<http::empty_body> response{http::status::ok, version};
        file_headers(response);
        response.set(http::field::content_type, found->mime);
        response.content_length(found->size);
        metrics_.http_response(200);
        return response;
    }
    error_code ec;
    http::file_body::value_type body;
    body.open(found->path.c_str(), beast::file_mode::scan, ec);
    if (ec) return text(http::status::not_found, "not found\n");
    http::response<http::file_body> response{std::piecewise_construct, std::make_tuple(std::move(body)),
                                             std::make_tuple(http::status::ok, version)};
    file_headers(response);
    response.set(http::field::content_type, found->mime);
    response.prepare_payload();
    metrics_.http_response(200);
    return response;
}

void Server::native_stream(const http::request<http::string_body>& request,
                           std::function<void(http::message_generator)> reply) {
    const bool head = request.method() == http::verb::head;
    const unsigned version = request.version();
    const bool keep_alive = request.keep_alive();
    auto text = [this, head, version, keep_alive](http::status status, std::string body) {
        http::response<http::string_body> response{status, version};
        common_headers(response);
        response.set(http::field::content_type, "text/plain; charset=utf-8");
        response.set(http::field::cache_control, "no-store");
        if (status == http::status::service_unavailable) response.set(http::field::retry_after, "2");
        response.keep_alive(keep_alive);
        const size_t length = body.size();
        response.body() = head ? std::string() : std::move(body);
        response.content_length(length);
        metrics_.http_response(static_cast<unsigned>(status));
        return http::message_generator(std::move(response));
    };
    const std::string_view target(request.target().data(), request.target().size());
    const size_t q = target.find('?');
    const auto parsed = parse_native_stream_query(q == std::string_view::npos ? std::string_view{} : target.substr(q + 1));
    if (!parsed) return reply(text(http::status::bad_request, std::string(parsed.message()) + "\n"));
    if (auto known = native_streams_.text(parsed.value())) return reply(text(http::status::ok, std::move(*known)));
    const NativeStreamRequest wanted = parsed.value();
    // The worker's completion comes back to this thread; the reply is built from what it stored.
    const bool started = native_streams_.start(wanted, [this, wanted, reply, text] {
        asio::post(io_, [this, wanted, reply, text] {
            auto known = native_streams_.text(wanted);
            reply(known ? text(http::status::ok, std::move(*known))
                        : text(http::status::service_unavailable, "the stream was not computed; ask again\n"));
        });
    });
    if (!started) reply(text(http::status::service_unavailable, "another native stream is being computed; ask again in a moment\n"));
}

bool Server::origin_allowed(std::string_view origin_header) const {
    const std::optional<std::string> origin = normalize_origin(origin_header);
    if (!origin) return false;  // "null" (sandboxed frames, file: pages) and garbage
    return std::find(origins_.begin(), origins_.end(), *origin) != origins_.end();
}

void Server::ws_closed(const std::shared_ptr<WsSession>& session, bool registered, const Ending& ending) {
    ws_handshaking_.erase(session);
    if (registered) {
        ws_sessions_.erase(session->id());
        --figures_.connections_open;
        metrics_.connection_closed(ending.code, ending.reason);
        room_.disconnect(session->id(), now_ns());
        pump_outbox();
    } else {
        metrics_.handshake_refused(ending.reason);
    }
    sockets_closed();
}

void Server::pump_outbox() {
    sends_.clear();
    closes_.clear();
    room_.take_outbox(sends_, closes_);
    for (Outgoing& message : sends_) {
        const auto found = ws_sessions_.find(message.to);
        if (found != ws_sessions_.end()) found->second->enqueue(std::move(message.bytes));
    }
    for (CloseOrder& order : closes_) {
        const auto found = ws_sessions_.find(order.who);
        if (found != ws_sessions_.end()) found->second->close(order.code, std::move(order.reason));
    }
    sends_.clear();  // drop the shared buffers now, not at the next tick
}

void Server::accept() {
    acceptor_.async_accept([this](const error_code& ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || draining_) return;
        Mark mark(*this, Activity::accept);
        if (!ec) {
            if (open_sockets_ >= limits_.max_open_sockets) {
                metrics_.handshake_refused("too_many_sockets");
                error_code ignored;
                socket.close(ignored);
            } else {
                ++open_sockets_;
                error_code ignored;
                socket.set_option(tcp::no_delay(true), ignored);  // a frame must not wait for the next
                auto session = std::make_shared<HttpSession>(*this, std::move(socket));
                http_opened(session);
                session->start();
            }
            accept();
            return;
        }
        // Out of descriptors or a transient error: try again shortly rather than spin.
        accept_retry_.expires_after(std::chrono::milliseconds(50));
        accept_retry_.async_wait([this](const error_code& e) {
            if (!e && !draining_) accept();
        });
    });
}

void Server::schedule_tick() {
    tick_timer_.expires_at(steady_at(loop_->next_boundary_ns()));
    tick_timer_.async_wait([this](const error_code& ec) {
        if (!ec && !draining_) on_tick();
    });
}

void Server::on_tick() {
    const int64_t woke = now_ns();
    const TickAdvance advance = loop_->advance(woke);
    if (advance.clock_went_back) metrics_.clock_rolled_back();
    if (advance.dropped > 0) {
        metrics_.ticks_dropped(advance.dropped);
        last_fell_behind_ns_ = woke;
    }
    const int64_t step = loop_->step_ns();
    batching_ = true;
    for (uint64_t k = 0; k < advance.executed; ++k) {
        // The executed steps are the last `executed` boundaries the advance consumed.
        const int64_t boundary = loop_->last_boundary_ns() - static_cast<int64_t>(advance.executed - 1 - k) * step;
        const int64_t start = now_ns();
        const int64_t lateness = start - boundary;
        if (trace_ && k == 0) trace_late(boundary, start, woke, advance.executed);
        {
            Mark mark(*this, Activity::step);
            room_.tick(start);
        }
        const int64_t ticked = now_ns();
        {
            Mark mark(*this, Activity::build);
            pump_outbox();
        }
        if (k + 1 == advance.executed) {
            Mark mark(*this, Activity::send);
            flush_batch();  // the send time is the last step's
        }
        const int64_t sent = now_ns();
        loop_->record_step_duration_ns(ticked - start);
        metrics_.tick_ran(lateness, lateness >= step, ticked - start, room_.figures().last_step_ns, sent - ticked);
        if (lateness > health_policy_.lateness_bound_ns) last_fell_behind_ns_ = start;
        ++ticks_run_;
        ticking_started_ = true;
    }
    flush_batch();  // (no step ran)
    schedule_tick();
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

void Server::begin_drain() {
    if (draining_) return;
    draining_ = true;
    error_code ignored;
    acceptor_.close(ignored);
    tick_timer_.cancel();
    accept_retry_.cancel();
    room_.shut_down(now_ns());
    pump_outbox();
    // The room closed its connections with 1001; anything it did not, and every socket
    // that is not a room connection yet, goes the same way.
    for (auto& [id, session] : std::map(ws_sessions_)) session->close(close_going_away, "going_away");
    for (const auto& session : std::set(ws_handshaking_)) session->tear_down();
    for (const auto& session : std::set(http_sessions_)) session->tear_down();
    drain_timer_.expires_after(duration(limits_.drain_deadline_ns));
    drain_timer_.async_wait([this](const error_code& ec) {
        if (ec) return;
        io_.stop();  // what has not closed by now is dropped with the process
    });
    maybe_finish_drain();
}

int Server::run(std::ostream& out, std::ostream& err) {
    auto root = [&](const std::string& dir, std::string_view flag) {
        error_code ec;
        std::filesystem::path canonical = std::filesystem::canonical(dir, ec);
        if (ec || !std::filesystem::is_directory(canonical)) {
            err << "tandem serve: warning: no directory '" << dir << "' (" << flag << "): its URLs answer 404\n";
            return std::filesystem::path();
        }
        return canonical;
    };
    roots_.web = root(options_.web_dir, "--web");
    roots_.pkg = root(options_.pkg_dir, "--pkg");

    error_code ec;
    const asio::ip::address address = asio::ip::make_address(options_.host, ec);
    const std::string where = address.is_v6() ? "[" + options_.host + "]:" + std::to_string(options_.port)
                                              : options_.host + ":" + std::to_string(options_.port);
    if (!ec) {
        const tcp::endpoint endpoint(address, options_.port);
        acceptor_.open(endpoint.protocol(), ec);
        // SO_REUSEADDR lets a restarted server bind while old sockets sit in TIME_WAIT; on
        // Linux it never lets two servers listen on one port.
        if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
        if (!ec) acceptor_.bind(endpoint, ec);
        if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    }
    if (ec) {
        err << "tandem serve: cannot listen on " << where << ": " << ec.message() << "\n";
        return 1;
    }
    const uint16_t port = acceptor_.local_endpoint().port();

    // The page's own origin and localhost: a page elsewhere must be named with --allow-origin.
    auto origin_on = [&](const std::string& host) {
        std::string origin = "http://" + host;
        if (port != 80) {
            origin += ':';  // appended piecewise: ":" + string trips GCC 12's false -Wrestrict (bug 105329)
            origin += std::to_string(port);
        }
        return origin;
    };
    origins_ = {origin_on("localhost"), origin_on("127.0.0.1"), origin_on("[::1]")};
    if (!address.is_unspecified()) origins_.push_back(origin_on(address.is_v6() ? "[" + options_.host + "]" : options_.host));
    origins_.insert(origins_.end(), options_.allowed_origins.begin(), options_.allowed_origins.end());

    // A room with a thousand watchers needs more descriptors than the usual soft limit.
    struct ::rlimit files {};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &files);
    }

    const int64_t step_ns = step_ns_for_hz(room_.tick_hz());
    auto loop = TickLoop::create(TickLoopConfig{.step_ns = step_ns}, now_ns());
    if (!loop.ok()) {
        err << "tandem serve: tick loop refused: " << loop.message() << "\n";
        return 2;
    }
    loop_.emplace(std::move(loop).value());
    health_policy_ = health_policy_for_step(step_ns);
    figures_.write_queue_cap_bytes = limits_.write_queue_cap_bytes;
    if (const char* path = std::getenv("TANDEM_SERVE_TRACE_LATE"); path != nullptr && *path != '\0') {
        trace_out_ = std::fopen(path, "w");
        if (trace_out_ == nullptr) {
            err << "tandem serve: cannot write TANDEM_SERVE_TRACE_LATE file '" << path << "'\n";
            return 2;
        }
        trace_.emplace();
    }
    if (const char* slice = std::getenv("TANDEM_SERVE_SEND_SLICE_US"); slice != nullptr && *slice != '\0') {
        char* end = nullptr;
        const long long us = std::strtoll(slice, &end, 10);
        if (*end != '\0' || us < 0 || us > 10'000'000) {
            err << "tandem serve: TANDEM_SERVE_SEND_SLICE_US expects microseconds, 0 to 10000000 (got '" << slice << "')\n";
            return 2;
        }
        slice_budget_ns_ = us * 1000;
    }

    signals_.async_wait([this](const error_code& e, int) {
        if (e) return;
        begin_drain();
        // A second signal while draining: stop at once.
        signals_.async_wait([this](const error_code& again, int) {
            if (!again) io_.stop();
        });
    });
    accept();
    schedule_tick();
    const std::string shown = address.is_v6() ? "[" + options_.host + "]" : options_.host;
    out << "listening on http://" << shown << ":" << port << "/" << std::endl;
    io_.run();
    return 0;
}

}  // namespace

int serve(const ServeOptions& options, RoomPort& room, const TransportLimits& limits, std::ostream& out,
          std::ostream& err) {
    Server server(options, room, limits);
    return server.run(out, err);
}

int serve_command(std::span<const std::string_view> args, const RoomFactory& make_room, const TransportLimits& limits,
                  std::ostream& out, std::ostream& err) {
    auto parsed = parse_serve_args(args);
    if (!parsed.ok()) {
        err << "tandem serve: " << parsed.message() << "\n";
        return 2;
    }
    const ServeCommand& command = parsed.value();
    if (command.help) {
        out << serve_help_text();
        return 0;
    }
    const ServeOptions& options = command.options;
    for (const auto& [dir, given, flag] : {std::tuple{options.web_dir, options.web_dir_given, "--web"},
                                           std::tuple{options.pkg_dir, options.pkg_dir_given, "--pkg"}}) {
        std::error_code ec;
        if (given && !std::filesystem::is_directory(dir, ec)) {
            err << "tandem serve: " << flag << " expects a directory (got '" << dir << "', which is not one)\n";
            return 2;
        }
    }
    auto room = make_room(options);
    if (!room.ok()) {
        err << "tandem serve: " << room.message() << "\n";
        return 2;
    }
    return serve(options, *room.value(), limits, out, err);
}

}  // namespace tandem::server
