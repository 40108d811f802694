// One HTTP connection of the transport (keep-alive) until it upgrades to a WebSocket or ends.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "server/beast_support.hpp"

namespace tandem::server::detail {

class Server;

// One HTTP connection (keep-alive) until it upgrades or ends.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
public:
    HttpSession(Server& server, tcp::socket&& socket);
    void start() { read(); }
    void tear_down();

    // Writes a response that was produced later than the request's read (a route's).
    void write(http::message_generator response, bool keep_alive);

private:
    void read();
    void on_read(const error_code& ec);
    void on_write(bool keep_alive, const error_code& ec);
    void finish();
    // While a route works on the answer, nothing reads the socket: this waits for it to turn
    // readable and peeks, so a client that closed or reset it is noticed (gone is set, the
    // session ends) and the route can stop working for nobody.
    void watch_for_hangup(std::shared_ptr<std::atomic<bool>> gone);

    Server& server_;
    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    bool finished_ = false;
    bool awaiting_route_ = false;   // a route's answer is due; nothing else reads the socket
    uint64_t route_requests_ = 0;   // which request a hangup watch belongs to
};

}  // namespace tandem::server::detail
