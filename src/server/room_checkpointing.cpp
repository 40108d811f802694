// RoomCheckpointing (room_checkpointing.hpp): the store, the lease and the log behind
// `tandem serve --store`.
#include "tandem/server/room_checkpointing.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tandem/server/os_random.hpp"

namespace tandem::server {

namespace {

int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string process_owner(const std::string& advertise_url) {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') host[0] = '?';
    std::string name = (advertise_url.empty() ? std::string("-") : advertise_url) + "|" + std::string(host).substr(0, 40) +
                       "|" + std::to_string(::getpid()) + "|";
    static constexpr char hex[] = "0123456789abcdef";
    const net::ResumeToken random = os_resume_token();
    for (uint32_t i = 0; i < 6; ++i) {
        name += hex[random[i] >> 4];
        name += hex[random[i] & 15];
    }
    std::string clean;
    for (char c : name) clean += (c > ' ' && c <= '~') ? c : '_';
    return clean.substr(0, store::max_owner_bytes);
}

std::string record_path_in(const std::string& dir, const std::string& room) {
    if (dir.empty()) return {};
    std::error_code ec;
    const std::filesystem::path base(dir);
    std::filesystem::path path = base / (room + ".replay");
    for (uint32_t n = 1; std::filesystem::exists(path, ec); ++n) path = base / (room + "." + std::to_string(n) + ".replay");
    return path.string();
}

std::string owner_url(std::string_view owner) {
    const size_t bar = owner.find('|');
    const std::string_view url = owner.substr(0, bar);
    if (bar == std::string_view::npos || !(url.starts_with("http://") || url.starts_with("https://"))) return {};
    return std::string(url);
}

std::string room_websocket_url(std::string_view url, std::string_view room) {
    const bool tls = url.starts_with("https://");
    const std::string_view rest = url.substr(tls ? 8 : 7);
    return (tls ? "wss://" : "ws://") + std::string(rest) + "/ws/" + std::string(room);
}

Result<std::unique_ptr<RoomCheckpointing>, ServeUsageError> RoomCheckpointing::open(const std::string& address, const std::string& room,
                                                                                   const std::string& owner, int64_t wait_ns) {
    auto opened = store::open_store(address);
    if (!opened.ok()) return ServeUsageError{"--store " + address + ": " + std::string(opened.message()), 1};
    std::unique_ptr<RoomCheckpointing> c(new RoomCheckpointing());
    c->store_ = std::move(opened).value();
    c->room_ = room;
    c->owner_ = owner;
    const int64_t give_up = steady_ns() + wait_ns;
    for (;;) {
        const auto taken = c->store_->acquire(room, c->owner_, room_lease_restore_ttl_ms);
        if (!taken.ok()) return ServeUsageError{"--store " + address + ": " + std::string(taken.message()), 1};
        if (*taken) break;
        if (steady_ns() >= give_up) {
            const auto holder = c->store_->owner(room);
            const std::string who = holder.ok() && holder->has_value() ? **holder : "another process";
            return ServeUsageError{"the room '" + room + "' in --store " + address + " is served by " + who +
                                   " (its lease did not lapse in time)",
                                   1};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    c->last_renewed_ns_ = steady_ns();
    auto loaded = c->store_->load(room);
    if (!loaded.ok()) return ServeUsageError{"--store " + address + ": " + std::string(loaded.message()), 1};
    c->segments_ = std::move(loaded).value();
    auto log = c->store_->open_log(room, c->owner_);
    if (!log.ok()) return ServeUsageError{"--store " + address + ": " + std::string(log.message()), 1};
    c->log_ = std::move(log).value();
    return c;
}

bool RoomCheckpointing::write(const net::CheckpointBatch& batch) {
    if (!problem_.empty()) return false;
    const auto written = log_->write(batch.new_segment, batch.bytes);
    if (!written.ok()) {
        problem_ = "the store refused the room's checkpoint: " + std::string(written.message());
        return false;
    }
    return true;
}

bool RoomCheckpointing::keep_lease(int64_t now_ns) {
    if (!problem_.empty()) return false;
    if (serving_ && now_ns - last_renewed_ns_ < room_lease_renew_ns) return true;
    serving_ = true;
    last_renewed_ns_ = now_ns;   // before asking: the lease runs from no later than this
    const auto renewed = store_->renew(room_, owner_, room_lease_ttl_ms);
    if (!renewed.ok()) {
        problem_ = "the room's lease could not be renewed: " + std::string(renewed.message());
        return false;
    }
    if (!*renewed) {
        problem_ = "the room's lease lapsed or was taken by another process";
        return false;
    }
    return true;
}

void RoomCheckpointing::hand_back() {
    if (!problem_.empty()) return;
    (void)log_->sync();
    (void)store_->release(room_, owner_);
}

void RoomCheckpointing::erase() {
    if (!problem_.empty()) return;
    (void)store_->erase(room_, owner_);
}

}  // namespace tandem::server
