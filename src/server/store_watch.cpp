// StoreWatch (store_watch.hpp): the scans that adopt a dead owner's rooms and learn where the
// others are served.
#include "server/store_watch.hpp"

#include <chrono>

#include "tandem/net/checkpoint.hpp"
#include "tandem/server/room_checkpointing.hpp"

namespace tandem::server {

ScanPlan plan_scan(const std::vector<StoreRoom>& rooms, const std::set<std::string, std::less<>>& hosted,
                   std::string_view self, const std::set<std::string, std::less<>>& skip, uint32_t room_for) {
    ScanPlan plan;
    for (const StoreRoom& r : rooms) {
        if (hosted.contains(r.room)) continue;
        const bool free = !r.owner.has_value() || *r.owner == self;
        if (free) {
            if (!skip.contains(r.room) && plan.adopt.size() < room_for) plan.adopt.push_back(r.room);
            continue;
        }
        const std::string url = owner_url(*r.owner);
        if (!url.empty()) plan.moved[r.room] = room_websocket_url(url, r.room);
    }
    return plan;
}

StoreWatch::StoreWatch(const ServeOptions& options, std::span<const RoomKind> kinds, Hooks hooks)
    : options_(options), kinds_(kinds), hooks_(std::move(hooks)) {
    thread_ = std::thread([this] { run(); });
}

StoreWatch::~StoreWatch() { stop(); }

void StoreWatch::stop() {
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void StoreWatch::hurry() {
    {
        const std::lock_guard lock(mutex_);
        hurried_ = true;
    }
    wake_.notify_all();
}

void StoreWatch::run() {
    // One connection of its own: the rooms' logs each have theirs, used by their strands.
    auto opened = store::open_store(options_.store_address);
    if (!opened.ok()) {
        hooks_.log("the store watch cannot open --store " + options_.store_address + ": " + std::string(opened.message()) +
                   "; no room of a dead process will be adopted here");
        return;
    }
    std::unique_ptr<store::CheckpointStore> store = std::move(opened).value();
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        lock.unlock();
        scan(*store);
        lock.lock();
        const bool was_hurried = hurried_;
        wake_.wait_for(lock, std::chrono::nanoseconds(hurried_ ? store_scan_hurried_ns : store_scan_interval_ns),
                       [&] { return stopping_ || hurried_ != was_hurried; });
    }
}

void StoreWatch::scan(store::CheckpointStore& store) {
    auto listed = store.rooms();
    if (!listed.ok()) return;   // unreachable for now: the next scan tries again
    std::vector<StoreRoom> rooms;
    rooms.reserve(listed->size());
    for (std::string& room : listed.value()) {
        auto owner = store.owner(room);
        if (!owner.ok()) return;
        rooms.push_back({std::move(room), std::move(owner).value()});
    }
    auto [hosted, room_for] = hooks_.hosted();
    ScanPlan plan = plan_scan(rooms, hosted, options_.store_owner, skip_, room_for);
    hooks_.moved(std::move(plan.moved));
    for (const std::string& room : plan.adopt) {
        {
            const std::lock_guard lock(mutex_);
            if (stopping_) return;
        }
        if (auto adopted = adopt(room)) hooks_.adopted(std::move(*adopted));
    }
}

std::optional<AdoptedRoom> StoreWatch::adopt(const std::string& room) {
    // No wait: a lease taken meanwhile is another process's adoption, and the room is theirs.
    auto checkpointing = RoomCheckpointing::open(options_.store_address, room, options_.store_owner, /*wait_ns=*/0);
    if (!checkpointing.ok()) return std::nullopt;
    std::unique_ptr<RoomCheckpointing> c = std::move(checkpointing).value();
    if (c->segments().empty()) {
        c->hand_back();   // erased between the scan and here
        return std::nullopt;
    }
    const auto game = net::checkpoint_game(c->segments().front());
    const RoomKind* kind = nullptr;
    for (const RoomKind& k : kinds_) {
        if (game && k.game == *game && k.restore) kind = &k;
    }
    if (kind == nullptr) {
        hooks_.log("room '" + room + "' in the store is " + (game ? "a game of '" + std::string(*game) + "'" : "not readable") +
                   ", which this process does not host: left to another");
        skip_.insert(room);
        c->hand_back();
        return std::nullopt;
    }
    RoomSettings settings;
    settings.id = room;
    if (hooks_.judge) settings.judge = hooks_.judge(room);
    AdoptedRoom out{room, kind->game, nullptr, {}};
    auto port = kind->restore(options_, settings, std::move(c), &out.restored);
    if (!port.ok()) {
        hooks_.log("room '" + room + "' could not be restored here: " + std::string(port.message()));
        skip_.insert(room);
        return std::nullopt;
    }
    out.port = std::move(port).value();
    return out;
}

}  // namespace tandem::server
