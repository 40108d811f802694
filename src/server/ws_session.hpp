// One WebSocket connection of the transport (WsSession) and the stream it gives Beast
// (SocketGate). Reads go through Beast; writes do not. The room's frames leave with a
// non-blocking sendmsg() of header + shared payload straight from the handler that queued
// them, and wait for the socket only when it would block: Beast's composed write per frame
// cost more than the send itself and queued a completion ahead of the tick timer. Beast's
// own writes (the handshake answer, pings, pongs, the close frame) reach the socket through
// the same writer (SocketGate), between whole frames, so nothing interleaves.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/beast_support.hpp"
#include "tandem/server/room_port.hpp"
#include "server/write_queue.hpp"

namespace tandem::server::detail {

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

    // Bytes the peer sent after the upgrade request, in the same read as it: the HTTP
    // session's buffer holds them, and they are the WebSocket's first bytes.
    void give_pipelined(std::vector<uint8_t> bytes) { pipelined_ = std::move(bytes); }
    template <class MutableBuffers, class Token>
    auto async_read_some(const MutableBuffers& buffers, Token&& token) {
        if (pipelined_.empty()) return stream_.async_read_some(buffers, std::forward<Token>(token));
        return asio::async_initiate<Token, void(error_code, size_t)>(
            [this](auto handler, const MutableBuffers& b) {
                const size_t n = asio::buffer_copy(b, asio::buffer(pipelined_));
                pipelined_.erase(pipelined_.begin(), pipelined_.begin() + static_cast<std::ptrdiff_t>(n));
                const auto ex = asio::get_associated_executor(handler, stream_.get_executor());
                asio::post(ex, beast::bind_front_handler(std::move(handler), error_code{}, n));
            },
            token, buffers);
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
    std::vector<uint8_t> pipelined_;
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
    void give_pipelined(std::vector<uint8_t> bytes) { ws_.next_layer().give_pipelined(std::move(bytes)); }
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

}  // namespace tandem::server::detail
