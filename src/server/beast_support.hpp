// What every file of the transport shares about Boost.Beast: the namespace aliases, the
// clock in the forms Asio wants, the request bounds, and how a WebSocket read error is named
// for the books. Only the transport's own files include it (Beast is most of their compile time).
#pragma once

#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace tandem::server::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using error_code = beast::error_code;

constexpr uint32_t largest_request_header_bytes = 8192;
constexpr uint32_t largest_request_body_bytes = 4096;  // we serve GET and HEAD: any body is refused
constexpr uint16_t close_going_away = 1001;

inline int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
inline std::chrono::steady_clock::time_point steady_at(int64_t ns) {
    return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}
inline std::chrono::nanoseconds duration(int64_t ns) { return std::chrono::nanoseconds(ns); }

// What ended a WebSocket connection, as the close code and the reason /metrics counts.
struct Ending {
    uint16_t code = 1006;
    std::string reason;
};

// Beast fails a connection itself (sending the close frame) on protocol errors, oversize
// messages and invalid text; this names what happened for the books.
inline Ending ending_for_read_error(const error_code& ec) {
    if (ec == websocket::error::closed) return {1000, "peer_closed"};
    if (ec == websocket::error::message_too_big || ec == websocket::error::buffer_overflow) {
        return {1009, "message_too_big"};
    }
    if (ec == websocket::error::bad_frame_payload) return {1007, "invalid_payload"};
    if (ec == beast::error::timeout) return {1006, "timeout"};
    if (ec == websocket::condition::protocol_violation) return {1002, "protocol_error"};
    return {1006, "connection_lost"};
}

template <class Body>
void common_headers(http::response<Body>& response) {
    response.set(http::field::server, "tandem");
    response.set("X-Content-Type-Options", "nosniff");  // every Content-Type sent is exact
}

}  // namespace tandem::server::detail
