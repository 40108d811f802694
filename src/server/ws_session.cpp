// WsSession: the handshake, the read loop into the room (each message posted to the room's
// strand, at most max_messages_in_flight at once), and the writer that sends the room's shared
// frames and Beast's own writes in order (see ws_session.hpp). Everything here runs on the I/O
// thread; the room is only ever reached through the server's room_* calls.
#include "server/ws_session.hpp"

#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <array>
#include <cerrno>

#include "server/request_rules.hpp"
#include "server/transport.hpp"

namespace tandem::server::detail {

void SocketGate::hand_over(std::span<const uint8_t> bytes) { owner_->write_control(bytes); }
bool SocketGate::reading_allowed(size_t read_bytes) const { return owner_->reading_allowed(read_bytes); }
void SocketGate::before_read() { owner_->before_read(); }
void SocketGate::read_held_back() { ++owner_->server().figures().reads_held; }
void SocketGate::teardown_after_writes(std::function<void()> done) {
    owner_->when_written([this, done = std::move(done)] {
        error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        done();
    });
}


WsSession::WsSession(Server& server, std::shared_ptr<HostedRoom> room, beast::tcp_stream&& stream, const AddressKey& address)
    : server_(server),
      room_(std::move(room)),
      ws_(std::move(stream)),
      address_(address),
      queue_(server.limits().write_queue_cap_bytes),
      pings_(server.limits().pings_per_second, server.limits().ping_burst, now_ns()),
      close_timer_(server.io()) {
    ws_.next_layer().attach(this);
}

bool WsSession::reading_allowed(size_t read_bytes) const {
    // A read larger than Beast's frame buffer is a message's payload read straight into ours:
    // it carries no pings beyond the first 1536 bytes' worth.
    return ended() || queue_.reading_allowed(std::min(read_bytes, largest_ping_read));
}

void WsSession::handshake_over() {
    if (!holds_handshake_) return;
    holds_handshake_ = false;
    server_.handshake_ended(address_);
}

void WsSession::on_ping() {
    // Beast answers every ping with a pong before the session sees anything; the budget is
    // what stops a peer that pings without end (each pong is bounded by the queue, but the
    // reading and answering cost the room's thread).
    if (phase_ != WsPhase::open || close_sent_) return;
    if (!pings_.take(now_ns())) close(1008, "ping_rate");
}

void WsSession::accept(http::request<http::string_body> request) {
    server_.ws_pending(shared_from_this());
    beast::get_lowest_layer(ws_).expires_never();  // the WebSocket's own timeouts take over
    if (const uint32_t sndbuf = server_.limits().socket_send_buffer_bytes; sndbuf > 0) {
        error_code ignored;
        beast::get_lowest_layer(ws_).socket().set_option(asio::socket_base::send_buffer_size(static_cast<int>(sndbuf)), ignored);
    }
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
    ws_.read_message_max(room_->max_message);
    ws_.binary(true);
    // Called by Beast's read for every control frame it takes, before it answers a ping.
    ws_.control_callback([this](websocket::frame_type kind, beast::string_view) {
        if (kind == websocket::frame_type::ping) on_ping();
    });
    ws_.async_accept(request, [self = shared_from_this()](const error_code& ec) { self->on_accept(ec); });
}

void WsSession::on_accept(const error_code& ec) {
    Server::Mark mark(server_, Activity::handshake);
    server_.ws_pending_done(shared_from_this());
    handshake_over();
    if (ec) {
        finish(WsEvent::handshake_failed, {1006, "handshake_failed"});
        return;
    }
    advance(WsEvent::accepted);  // from here on what Beast writes is frames
    if (server_.draining() || room_->closed) {
        // A room closed for idleness while this upgrade was under way: nobody to join.
        close(close_going_away, room_->closed ? "room_closed" : "going_away");
        read();
        return;
    }
    server_.room_connect(shared_from_this());
}

void WsSession::joined(ConnectionId id) {
    if (ended()) {
        // Ended (a timeout, a failed write) while the room was taking it: the room forgets it.
        server_.room_disconnect(*room_, id);
        return;
    }
    id_ = id;
    registered_ = true;
    server_.ws_registered(shared_from_this());
    read();
}

void WsSession::turned_away() {
    if (ended()) return;
    close(close_going_away, room_->closed ? "room_closed" : "going_away");
    read();
}

void WsSession::message_handled() {
    --in_flight_;
    if (read_waits_ && !ended()) {
        read_waits_ = false;
        read();
    }
}

void WsSession::read() {
    ws_.async_read(buffer_, [self = shared_from_this()](const error_code& ec, size_t bytes) { self->on_read(ec, bytes); });
}

void WsSession::on_read(const error_code& ec, size_t bytes) {
    Server::Mark mark(server_, Activity::ws_read);
    if (ended()) return;  // ended by the close deadline while this read was outstanding
    if (ec) {
        Ending ending = ending_for_read_error(ec);
        if (ec == websocket::error::closed) ending.code = ws_.reason().code;
        finish(WsEvent::read_failed, std::move(ending));
        return;
    }
    if (!delivers_messages(phase_) || close_sent_) {
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
    server_.room_receive(shared_from_this(), std::vector<uint8_t>(data, data + buffer_.size()), now_ns());
    buffer_.consume(buffer_.size());
    if (++in_flight_ >= max_messages_in_flight) {
        read_waits_ = true;   // message_handled reads on
        return;
    }
    read();
}

void WsSession::enqueue(SharedBytes message) {
    if (!queues_frames(phase_) || close_sent_) return;
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
    // Once, and not after the peer's close was answered (the stream of frames has ended).
    if (close_sent_ || next(phase_, WsEvent::close_begun).to == phase_) return;
    advance(WsEvent::close_begun);
    if (!ending_) ending_ = Ending{code, reason};
    websocket::close_reason frame;
    frame.code = code;
    frame.reason = reason;  // snake_case and short: well under the 123 bytes a close frame allows
    close_after_queue_ = frame;
    close_timer_.expires_after(duration(server_.limits().close_timeout_ns));
    close_timer_.async_wait([self = shared_from_this()](const error_code& ec) {
        // The deadline ends the session completely (seat, socket count, gauges), not just
        // the socket: a read that never completes must not keep it alive.
        if (!ec) self->finish(WsEvent::close_deadline, {1006, "close_timeout"});
    });
    flush();
}

void WsSession::write_control(std::span<const uint8_t> bytes) {
    if (ended() || bytes.empty()) return;
    // A close frame Beast sends (its answer to the peer's close, or a failure it closes
    // with) ends the stream of frames, as Beast's own writes would: what has not started is
    // dropped, and nothing is queued after it. (Before the handshake is done the bytes are
    // its HTTP answer, whose first byte means nothing here.)
    const bool frames = phase_ != WsPhase::handshaking;
    if (frames && close_sent_) return;  // nothing after our close frame, Beast's echo included
    // Closing: a pong would only delay our close frame, and the peer is being let go.
    if (phase_ == WsPhase::closing && (bytes[0] & 0x0F) == 0xA) return;
    if (frames && (bytes[0] & 0x0F) == 0x8) {
        close_sent_ = true;
        drop_unstarted();
        // RFC 6455 7.4: a peer's close code outside the defined ranges is a protocol error,
        // not something to echo.
        const uint16_t peer = ws_.reason().code;
        if (peer != 0 && !valid_peer_close_code(peer)) {
            static constexpr std::array<uint8_t, 4> protocol_error{0x88, 0x02, 0x03, 0xEA};  // 1002
            bytes = protocol_error;
            if (!ending_) ending_ = Ending{1002, "bad_close_code"};
        }
    }
    const bool pong = frames && (bytes[0] & 0x0F) == 0xA;
    const uint64_t before = queue_.bytes();
    queue_.push_control(bytes);
    server_.queue_bytes_changed(static_cast<int64_t>(queue_.bytes() - before), queue_.bytes());
    if (!pong) flush();  // a pong goes with the others when Beast's read wants more (before_read)
}

void WsSession::when_written(std::function<void()> done) {
    drop_unstarted();  // a teardown: the close frame is the last thing worth sending
    if (ended() || !beast::get_lowest_layer(ws_).socket().is_open() ||
        (queue_.empty() && queue_.control_empty())) {
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
    queue_shrank();
}

void WsSession::flush() {
    // Re-entered through Beast (the close started below writes its frame through the gate):
    // the outer call's loop picks the new bytes up.
    if (flushing_ || waiting_writable_ || ended()) return;
    flushing_ = true;
    while (send_some()) {
        if (close_after_queue_ && !close_sent_) {
            // Our close frame, written by us, never by Beast's async_close: its own reading
            // deadlocked against our outstanding read (see ws_lifecycle.hpp). Our read stays
            // Beast's only reader; it sees the peer's close frame, answers nothing more (its
            // echo is dropped in write_control) and completes, which finishes the session.
            close_sent_ = true;
            const std::string reason(close_after_queue_->reason.data(), close_after_queue_->reason.size());
            std::vector<uint8_t> frame{0x88, static_cast<uint8_t>(2 + reason.size()),
                                       static_cast<uint8_t>(close_after_queue_->code >> 8),
                                       static_cast<uint8_t>(close_after_queue_->code & 0xFF)};
            frame.insert(frame.end(), reason.begin(), reason.end());
            const uint64_t before = queue_.bytes();
            queue_.push_control(frame);
            server_.queue_bytes_changed(static_cast<int64_t>(queue_.bytes() - before), queue_.bytes());
            continue;
        }
        auto done = std::move(when_written_);
        when_written_.clear();
        for (auto& f : done) f();
        break;
    }
    flushing_ = false;
    queue_shrank();
}

bool WsSession::send_some() {
    auto& socket = beast::get_lowest_layer(ws_).socket();
    // A reader that fell behind, or a tick that caught up several steps, leaves several
    // frames queued: they go out together, up to this many per system call.
    constexpr size_t most = 16;
    std::array<std::array<uint8_t, 10>, most> headers{};
    std::array<iovec, 2 * most> parts{};
    for (;;) {
        if (!control_in_progress_ && sent_of_current_ == 0 && !queue_.control_empty()) control_in_progress_ = true;
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
            add(queue_.control_front().data(), queue_.control_front().size());
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
            if (done < queue_.control_front().size()) {
                sent_of_current_ = done;
                continue;
            }
            const uint64_t size = queue_.control_front().size();
            queue_.pop_control();
            server_.queue_bytes_changed(-static_cast<int64_t>(size), queue_.bytes());
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
    queue_.clear();
    if (held > 0) server_.queue_bytes_changed(-static_cast<int64_t>(held), 0);
    control_in_progress_ = false;
    sent_of_current_ = 0;
    auto done = std::move(when_written_);
    when_written_.clear();
    for (auto& f : done) f();
    // A read held for a full queue goes ahead and fails on the closed socket, which ends the
    // session (or finds it ended) and releases what its handler holds.
    ws_.next_layer().resume_read();
}

void WsSession::tear_down() {
    error_code ignored;
    beast::get_lowest_layer(ws_).socket().close(ignored);
}

bool WsSession::advance(WsEvent event) {
    const WsTransition t = next(phase_, event);
    phase_ = t.to;
    return t.finish;
}

void WsSession::finish(WsEvent event, Ending ending) {
    if (!advance(event)) return;  // ended already, or an event this phase does not end on
    if (!ending_) ending_ = std::move(ending);
    close_timer_.cancel();
    tear_down();
    abandon_writes();
    handshake_over();
    server_.ws_closed(shared_from_this(), registered_, *ending_);
}

}  // namespace tandem::server::detail
