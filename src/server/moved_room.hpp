// The answer to a join for a room another process serves (failover, store_watch.hpp): a
// RoomPort that greets every connection with a room_moved error naming the WebSocket URL of the
// room's process, then closes it with 1012 (service restart). It runs on a strand like any room
// but never ticks; the client session follows the URL (client_session.hpp's next_url).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tandem/net/protocol.hpp"
#include "tandem/server/room_port.hpp"

namespace tandem::server {

// room_moved as the transport sends it, here and from a drain's hand-off (Server::send_on):
// the error naming `url`, then the close that follows it.
inline SharedBytes room_moved_message(const std::string& url) {
    auto bytes = std::make_shared<std::vector<uint8_t>>();
    net::encode(*bytes, net::ErrorMsg{net::ErrorCode::room_moved, url});
    return bytes;
}
inline CloseOrder room_moved_close(ConnectionId who) {
    return {who, net::websocket_close_code(net::CloseReason::room_moved), std::string(net::error_name(net::CloseReason::room_moved))};
}

class MovedRoom final : public RoomPort {
public:
    explicit MovedRoom(const std::string& url) : url_(url), greeting_(room_moved_message(url)) {}
    const std::string& url() const { return url_; }

    ConnectionId connect(int64_t, const AddressKey&) override {
        const ConnectionId id = ++last_id_;
        sends_.push_back({id, greeting_});
        closes_.push_back(room_moved_close(id));
        ++answered_;
        return id;
    }
    void receive(ConnectionId, std::span<const uint8_t>, int64_t) override {}   // closing already
    void disconnect(ConnectionId, int64_t) override {}
    void tick(int64_t) override {}
    void shut_down(int64_t) override {}
    void take_outbox(std::vector<Outgoing>& sends, std::vector<CloseOrder>& closes) override {
        for (Outgoing& s : sends_) sends.push_back(std::move(s));
        for (CloseOrder& c : closes_) closes.push_back(std::move(c));
        sends_.clear();
        closes_.clear();
    }
    RoomFigures figures() const override {
        RoomFigures f;
        if (answered_ > 0) f.refusals.emplace_back(std::string(net::error_name(net::ErrorCode::room_moved)), answered_);
        return f;
    }
    uint32_t max_client_message_bytes() const override { return net::max_client_message_bytes; }
    uint32_t tick_hz() const override { return 1; }   // never ticked

private:
    std::string url_;
    SharedBytes greeting_;
    ConnectionId last_id_ = 0;
    uint64_t answered_ = 0;
    std::vector<Outgoing> sends_;
    std::vector<CloseOrder> closes_;
};

}  // namespace tandem::server
