// One HTTP connection of the transport (keep-alive) until it upgrades to a WebSocket or ends,
// and the short life of a connection refused at the door (HttpRefusal).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "server/beast_support.hpp"
#include "server/budgets.hpp"

namespace tandem::server::detail {

class Server;

// One HTTP connection (keep-alive) until it upgrades or ends. Its first request must be
// complete within the request timeout of the connection's opening; a later one within the
// request timeout of its first byte, which must come within the HTTP idle timeout.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
public:
    // Admitted from `address`, its first request counted as unfinished (AddressBook::admit).
    HttpSession(Server& server, tcp::socket&& socket, const AddressKey& address);
    void start() { read_request(); }
    void tear_down();
    const AddressKey& address() const { return address_; }

    // Writes a response that was produced later than the request's read (a route's).
    void write(http::message_generator response, bool keep_alive);

private:
    void await_next_request();
    void read_request();
    void on_read(const error_code& ec);
    void on_write(bool keep_alive, const error_code& ec);
    void end_handshake();  // the request is complete (or the connection ends): its place is free
    void finish();
    // While a route works on the answer, nothing reads the socket: this waits for it to turn
    // readable and peeks, so a client that closed or reset it is noticed (gone is set, the
    // session ends) and the route can stop working for nobody.
    void watch_for_hangup(std::shared_ptr<std::atomic<bool>> gone);

    Server& server_;
    beast::tcp_stream stream_;
    AddressKey address_;
    bool in_handshake_ = true;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    bool finished_ = false;
    bool awaiting_route_ = false;   // a route's answer is due; nothing else reads the socket
    uint64_t route_requests_ = 0;   // which request a hangup watch belongs to
};

// A connection refused by a budget at accept: it is answered 503 with the reason (so a client
// sees why, not a reset), its sending side shut, and what the peer still sends is read and
// dropped until it closes or the close timeout passes; closing with unread input would reset
// the connection and could lose the answer on its way.
class HttpRefusal : public std::enable_shared_from_this<HttpRefusal> {
public:
    HttpRefusal(Server& server, tcp::socket&& socket, const AddressKey& address);
    void start(std::string_view reason);
    void tear_down();
    const AddressKey& address() const { return address_; }

private:
    void drain();
    void finish();

    Server& server_;
    beast::tcp_stream stream_;
    AddressKey address_;
    std::array<char, 512> scratch_{};
    bool finished_ = false;
};

}  // namespace tandem::server::detail
