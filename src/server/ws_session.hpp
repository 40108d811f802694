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
#include <span>
#include <string>
#include <vector>

#include "server/beast_support.hpp"
#include "server/budgets.hpp"
#include "server/ws_lifecycle.hpp"
#include "tandem/server/room_port.hpp"
#include "server/write_queue.hpp"

namespace tandem::server::detail {

class Server;
class WsSession;
struct HostedRoom;

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
    // Every read Beast makes, the pings it answers included, comes through here: while the
    // session's queue could not take what the read might make Beast answer, the read is held
    // (the peer's bytes wait in the kernel, and TCP stops the peer), and it resumes once the
    // queue has drained (resume_read) or the socket is gone.
    template <class MutableBuffers, class Token>
    auto async_read_some(const MutableBuffers& buffers, Token&& token) {
        return asio::async_initiate<Token, void(error_code, size_t)>(
            [this](auto handler, const MutableBuffers& b) {
                before_read();
                if (!reading_allowed(asio::buffer_size(b))) {
                    read_held_back();
                    auto held = std::make_shared<std::decay_t<decltype(handler)>>(std::move(handler));
                    held_read_ = [this, held, b] { start_read(b, std::move(*held)); };
                    return;
                }
                start_read(b, std::move(handler));
            },
            token, buffers);
    }
    // The held read, if any, goes ahead now (on a closed socket it fails at once).
    void resume_read() {
        if (!held_read_) return;
        auto go = std::move(held_read_);
        held_read_ = nullptr;
        go();
    }
    bool read_held() const { return static_cast<bool>(held_read_); }
    // The server stopped with the session still open: the held read's handler (which owns the
    // session) is destroyed without running, as the io context destroys the others.
    void drop_held_read() { held_read_ = nullptr; }
    template <class ConstBuffers, class Token>
    auto async_write_some(const ConstBuffers& buffers, Token&& token) {
        return asio::async_initiate<Token, void(error_code, size_t)>(
            [this](auto handler, const ConstBuffers& b) {
                // A control frame is at most 2 + 125 bytes: copied through the stack, a ping
                // flood allocates nothing per pong. The handshake's answer is larger.
                const size_t n = asio::buffer_size(b);
                if (n <= 256) {
                    std::array<uint8_t, 256> small;
                    asio::buffer_copy(asio::buffer(small), b);
                    hand_over(std::span<const uint8_t>(small.data(), n));
                } else {
                    std::vector<uint8_t> bytes(n);
                    asio::buffer_copy(asio::buffer(bytes), b);
                    hand_over(bytes);
                }
                const auto ex = asio::get_associated_executor(handler, stream_.get_executor());
                asio::post(ex, beast::bind_front_handler(std::move(handler), error_code{}, n));
            },
            token, buffers);
    }
    // Beast's teardown after a close handshake: once the writer has sent everything it
    // holds (the close frame last), shut down the sending side. `done` runs then.
    void teardown_after_writes(std::function<void()> done);

private:
    void hand_over(std::span<const uint8_t> bytes);
    bool reading_allowed(size_t read_bytes) const;
    void before_read();
    void read_held_back();
    template <class MutableBuffers, class Handler>
    void start_read(const MutableBuffers& b, Handler&& handler) {
        if (pipelined_.empty()) {
            stream_.async_read_some(b, std::forward<Handler>(handler));
            return;
        }
        const size_t n = asio::buffer_copy(b, asio::buffer(pipelined_));
        pipelined_.erase(pipelined_.begin(), pipelined_.begin() + static_cast<std::ptrdiff_t>(n));
        const auto ex = asio::get_associated_executor(handler, stream_.get_executor());
        asio::post(ex, beast::bind_front_handler(std::forward<Handler>(handler), error_code{}, n));
    }

    beast::tcp_stream stream_;
    std::vector<uint8_t> pipelined_;
    std::function<void()> held_read_;  // a read waiting for the queue to drain
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
    // `address`: the peer's, whose connection (and unfinished upgrade) the server counts;
    // `room`: the one it joins, held until the session ends.
    WsSession(Server& server, std::shared_ptr<HostedRoom> room, beast::tcp_stream&& stream, const AddressKey& address);
    void accept(http::request<http::string_body> request);
    void give_pipelined(std::vector<uint8_t> bytes) { ws_.next_layer().give_pipelined(std::move(bytes)); }
    // From the room's strand, by way of the I/O thread: the room took the connection as `id`
    // (reading starts now), or it had shut down (closed 1001).
    void joined(ConnectionId id);
    void turned_away();
    // A message this session read has been handled by the room: reading goes on if it waited.
    void message_handled();
    void enqueue(SharedBytes message);
    // Sends what is queued, then the close frame; tears the socket down if that stalls.
    void close(uint16_t code, std::string reason);
    void tear_down();
    ConnectionId id() const { return id_; }
    const AddressKey& address() const { return address_; }
    uint64_t queued_bytes() const { return queue_.bytes(); }
    // For SocketGate: whether a read of `read_bytes` may start now (see WriteQueue::reading_allowed).
    bool reading_allowed(size_t read_bytes) const;
    void drop_held_read() { ws_.next_layer().drop_held_read(); }
    Server& server() { return server_; }
    HostedRoom& room() { return *room_; }

    // ---- the writer, for SocketGate ----
    // Bytes Beast wrote (whole frames, or the handshake's HTTP answer), sent next between frames.
    // A pong is written inside Beast's read, once per ping: pongs wait for the read to want
    // more input (before_read) and leave together, one system call for a buffer of pings.
    void write_control(std::span<const uint8_t> bytes);
    void before_read() {
        if (!queue_.control_empty()) flush();
    }
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
    void on_ping();
    // The queue shrank (or was emptied): a read held by the gate may go ahead.
    void queue_shrank() {
        if (ws_.next_layer().read_held() && reading_allowed(largest_ping_read)) ws_.next_layer().resume_read();
    }
    void handshake_over();  // the upgrade finished or failed: its place in the address's budget is free
    // The socket is gone: nothing more will be written; whoever waits for the writes is told.
    void abandon_writes();
    // Moves the phase by the table; true when the session must end now (once).
    bool advance(WsEvent event);
    bool ended() const { return phase_ == WsPhase::ended; }
    // Ends the session on `event` if the table says so: the socket, the room, the counts.
    void finish(WsEvent event, Ending ending);

    Server& server_;
    std::shared_ptr<HostedRoom> room_;
    websocket::stream<SocketGate> ws_;
    beast::flat_buffer buffer_;
    AddressKey address_;
    bool holds_handshake_ = true;  // counted as an unfinished upgrade of its address
    // Beast's reads parse frames out of a buffer of 1536 bytes (its tcp_frame_size), so one read
    // holds at most that many bytes of pings, and their pongs are no longer.
    static constexpr size_t largest_ping_read = 1536;
    WriteQueue queue_;  // the room's messages and Beast's own frames, under one cap
    TokenBucket pings_;
    bool control_in_progress_ = false;           // the item being sent is queue_.control_front()
    size_t sent_of_current_ = 0;                 // bytes of the item being sent already sent
    bool waiting_writable_ = false;
    bool flushing_ = false;
    bool flush_wanted_ = false;  // queued during a tick's steps, sent when they are done
    std::vector<std::function<void()>> when_written_;
    asio::steady_timer close_timer_;
    ConnectionId id_ = 0;
    bool registered_ = false;  // the room knows this connection
    // Messages read and posted to the room's strand but not yet handled. Past
    // max_messages_in_flight the next read waits (TCP then stops the peer), so a peer sending
    // faster than its room steps (a slow room, a flood) queues at most that many messages on
    // the pool, never an unbounded number.
    static constexpr uint32_t max_messages_in_flight = 16;
    uint32_t in_flight_ = 0;
    bool read_waits_ = false;
    // Where the session is in its life (ws_lifecycle.hpp), moved only by advance().
    WsPhase phase_ = WsPhase::handshaking;
    std::optional<websocket::close_reason> close_after_queue_;  // our close frame, once begun
    bool close_sent_ = false;  // a close frame (ours or Beast's) is queued: no frame after it
    std::optional<Ending> ending_;  // the first cause, which is what gets counted
};

}  // namespace tandem::server::detail
