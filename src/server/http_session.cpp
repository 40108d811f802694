// HttpSession: reads a request, answers it through the server's routes, and hands a
// WebSocket upgrade at /ws or /ws/ROOM (origin checked, not while draining) to a WsSession
// of that room.
#include "server/http_session.hpp"

#include "server/request_rules.hpp"
#include "server/transport.hpp"

namespace tandem::server::detail {

HttpSession::HttpSession(Server& server, tcp::socket&& socket, const AddressKey& address)
    : server_(server), stream_(std::move(socket)), address_(address) {}

void HttpSession::await_next_request() {
    if (buffer_.size() > 0) {  // pipelined: the next request has begun already
        in_handshake_ = true;
        server_.handshake_begun(address_);
        read_request();
        return;
    }
    // Idle between requests: the idle timeout, until the first byte starts the request's own.
    stream_.expires_after(duration(server_.limits().http_idle_timeout_ns));
    stream_.async_read_some(buffer_.prepare(1024), [self = shared_from_this()](const error_code& ec, size_t n) {
        self->buffer_.commit(n);
        if (ec) {
            if (ec == beast::error::timeout) self->server_.metrics().http_closed("idle_timeout");
            self->finish();
            return;
        }
        self->await_next_request();
    });
}

void HttpSession::read_request() {
    parser_.emplace();
    parser_->header_limit(largest_request_header_bytes);
    parser_->body_limit(largest_request_body_bytes);
    stream_.expires_after(duration(server_.limits().request_timeout_ns));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](const error_code& ec, size_t) { self->on_read(ec); });
}

void HttpSession::end_handshake() {
    if (!in_handshake_) return;
    in_handshake_ = false;
    server_.handshake_ended(address_);
}

void HttpSession::on_read(const error_code& ec) {
    Server::Mark mark(server_, Activity::http);
    if (ec == beast::error::timeout) server_.metrics().http_closed("request_timeout");
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
    // An upgrade stays unfinished until the WebSocket handshake ends; it takes the place along.
    if (!websocket::is_upgrade(request)) end_handshake();
    {
        // RFC 9112 6.3: framing the server cannot know ends the connection with a 400, so the
        // bytes after it are never read as a request of their own (smuggling).
        const auto te = request.find(http::field::transfer_encoding);
        std::optional<std::string_view> problem = transfer_encoding_problem(
            te == request.end() ? std::nullopt : std::optional<std::string_view>(std::string_view(te->value().data(), te->value().size())),
            request.find(http::field::content_length) != request.end(), request.version());
        // RFC 6455 4.2.1: an upgrade's key must be the base64 of 16 bytes.
        if (!problem && websocket::is_upgrade(request)) {
            const auto key = request.find(http::field::sec_websocket_key);
            if (key == request.end() || !valid_websocket_key(std::string_view(key->value().data(), key->value().size()))) {
                problem = "bad_websocket_key";
                server_.metrics().handshake_refused("bad_websocket_key");
            }
        }
        if (problem) {
            http::response<http::string_body> bad{http::status::bad_request, request.version()};
            bad.set(http::field::content_type, "text/plain; charset=utf-8");
            bad.set(http::field::connection, "close");
            bad.body() = "bad request: " + std::string(*problem) + "\n";
            bad.prepare_payload();
            server_.metrics().http_response(400);
            beast::async_write(stream_, http::message_generator(std::move(bad)),
                              [self = shared_from_this()](const error_code& e, size_t) { self->on_write(false, e); });
            return;
        }
    }
    if (websocket::is_upgrade(request)) {
        const std::string_view target(request.target().data(), request.target().size());
        const std::string_view path = target.substr(0, target.find('?'));
        std::optional<std::pair<http::status, std::string>> refusal;
        std::shared_ptr<HostedRoom> room = server_.room_for(path);
        if (server_.draining() && (path == "/ws" || path.starts_with("/ws/"))) {
            refusal = {http::status::service_unavailable, "draining"};   // every room is closing
        } else if (!room) {
            refusal = {http::status::not_found, path.starts_with("/ws/") ? "room_unknown" : "not_found"};
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
        auto ws = std::make_shared<WsSession>(server_, std::move(room), std::move(stream_), address_);
        in_handshake_ = false;  // the WebSocket session holds it now
        const auto* left = static_cast<const uint8_t*>(buffer_.cdata().data());
        ws->give_pipelined(std::vector<uint8_t>(left, left + buffer_.size()));
        finished_ = true;
        server_.http_handed_over(shared_from_this());
        ws->accept(std::move(request));
        return;
    }
    const bool keep_alive = request.keep_alive() && !server_.draining();
    if (const std::string_view t(request.target().data(), request.target().size());
        request.method() == http::verb::get || request.method() == http::verb::head) {
        if (const HttpRoute* route = server_.route_for(t.substr(0, t.find('?')))) {
            error_code unknown;
            const tcp::endpoint peer = stream_.socket().remote_endpoint(unknown);
            auto gone = std::make_shared<std::atomic<bool>>(false);
            awaiting_route_ = true;
            ++route_requests_;
            watch_for_hangup(gone);
            server_.answer_route(*route, request, unknown ? std::string() : peer.address().to_string(), gone,
                                 [self = shared_from_this(), keep_alive](http::message_generator response) {
                                     self->write(std::move(response), keep_alive);
                                 });
            return;
        }
    }
    http::message_generator response = server_.respond(request, address_);
    stream_.expires_after(duration(server_.limits().http_idle_timeout_ns));
    beast::async_write(stream_, std::move(response),
                      [self = shared_from_this(), keep_alive](const error_code& e, size_t) { self->on_write(keep_alive, e); });
}

void HttpSession::watch_for_hangup(std::shared_ptr<std::atomic<bool>> gone) {
    stream_.socket().async_wait(tcp::socket::wait_read, [self = shared_from_this(), gone, request = route_requests_](const error_code& ec) {
        // Answered meanwhile (the reads own the socket again), or a wait of an earlier request.
        if (!self->awaiting_route_ || self->finished_ || request != self->route_requests_) return;
        uint8_t byte = 0;
        error_code peeked;
        size_t n = 0;
        if (!ec) {
            self->stream_.socket().non_blocking(true, peeked);
            if (!peeked) n = self->stream_.socket().receive(asio::buffer(&byte, 1), tcp::socket::message_peek, peeked);
        }
        if (!ec && peeked == asio::error::would_block) {
            self->watch_for_hangup(gone);   // woken for nothing: wait again
            return;
        }
        if (!ec && !peeked && n > 0) return;   // the client sent more (a pipelined request): it is there
        // End of stream, a reset or a failed wait: the client is gone.
        gone->store(true, std::memory_order_relaxed);
        self->finish();
    });
}

void HttpSession::write(http::message_generator response, bool keep_alive) {
    awaiting_route_ = false;
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
    await_next_request();
}

void HttpSession::tear_down() {
    error_code ignored;
    stream_.socket().close(ignored);
}

void HttpSession::finish() {
    if (finished_) return;
    finished_ = true;
    end_handshake();
    error_code ignored;
    stream_.socket().close(ignored);
    server_.http_closed(shared_from_this());
}

HttpRefusal::HttpRefusal(Server& server, tcp::socket&& socket, const AddressKey& address)
    : server_(server), stream_(std::move(socket)), address_(address) {}

void HttpRefusal::start(std::string_view reason) {
    http::response<http::string_body> no{http::status::service_unavailable, 11};
    common_headers(no);
    no.set(http::field::content_type, "text/plain; charset=utf-8");
    no.set(http::field::connection, "close");
    no.body() = "refused: " + std::string(reason) + "\n";
    no.prepare_payload();
    server_.metrics().http_response(503);
    // The whole life of a refusal, answer and drain, is bounded by the close timeout.
    stream_.expires_after(duration(server_.limits().close_timeout_ns));
    beast::async_write(stream_, http::message_generator(std::move(no)), [self = shared_from_this()](const error_code& ec, size_t) {
        if (ec) {
            self->finish();
            return;
        }
        error_code ignored;
        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        self->drain();
    });
}

void HttpRefusal::drain() {
    stream_.async_read_some(asio::buffer(scratch_), [self = shared_from_this()](const error_code& ec, size_t) {
        if (ec) {
            self->finish();  // the peer closed, or the deadline passed
            return;
        }
        self->drain();
    });
}

void HttpRefusal::tear_down() {
    error_code ignored;
    stream_.socket().close(ignored);
}

void HttpRefusal::finish() {
    if (finished_) return;
    finished_ = true;
    error_code ignored;
    stream_.socket().close(ignored);
    server_.refusal_closed(shared_from_this());
}

}  // namespace tandem::server::detail
