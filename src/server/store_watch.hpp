// Failover: what a `tandem serve --store` does about the store's rooms it does not serve. Every
// scan it reads each room's lease. A room nobody holds (its owner died, or gave it back) is
// adopted: its lease taken, its checkpoint restored, the room opened here. A room another
// process holds is remembered with that process's WebSocket URL, so a join for it here is
// answered room_moved. plan_scan decides (pure, unit-tested); StoreWatch runs the scans on a
// thread of their own, since a store round trip or a restore must never hold the I/O thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tandem/server/room_port.hpp"
#include "tandem/server/serve.hpp"
#include "tandem/store/checkpoint_store.hpp"

namespace tandem::server {

// Half the lease's TTL (room_checkpointing.hpp): a dead owner's room is adopted at most
// 1.5 TTL after its last renewal (the lease lapses, then the next scan), and a scan of every
// room's lease twice a second is what a store of a few hundred rooms answers without strain.
inline constexpr int64_t store_scan_interval_ns = 500'000'000;
// While this process hands its rooms over (a rolling restart), it scans this often to learn
// at once which peer took each, so its clients wait for that and no longer.
inline constexpr int64_t store_scan_hurried_ns = 50'000'000;

// One room of the store as a scan read it.
struct StoreRoom {
    std::string room;
    std::optional<std::string> owner;   // the lease's holder (nullopt: nobody's, it may be adopted)
};

struct ScanPlan {
    std::vector<std::string> adopt;              // in the store's order, at most `room_for` of them
    std::map<std::string, std::string> moved;    // room -> the WebSocket URL of the process serving it
};

// hosted: the rooms this process serves (or is opening); self: its owner name; skip: rooms it
// failed to adopt (a game this binary does not have, a checkpoint that does not restore), not
// tried again; room_for: how many more rooms it may host. A room held by `self` but not hosted
// (a hand-over to this process) is adopted like a free one. A room held by another process that
// advertised no URL is in neither list (a join for it is answered room_unknown).
ScanPlan plan_scan(const std::vector<StoreRoom>& rooms, const std::set<std::string, std::less<>>& hosted,
                   std::string_view self, const std::set<std::string, std::less<>>& skip, uint32_t room_for);

// A room adopted on the watch's thread, for the I/O thread to open.
struct AdoptedRoom {
    std::string id;
    std::string game;
    std::unique_ptr<RoomPort> port;
    std::string restored;   // "restored room 'x' at tick N (...)", for the log
};

class StoreWatch {
public:
    struct Hooks {
        // The rooms hosted now and how many more may be (any thread: the hook locks what it reads).
        std::function<std::pair<std::set<std::string, std::less<>>, uint32_t>()> hosted;
        // A room restored here, to be opened (called on the watch's thread: post it on).
        std::function<void(AdoptedRoom)> adopted;
        // The rooms other processes serve, after every scan (the watch's thread: post it on).
        std::function<void(std::map<std::string, std::string>)> moved;
        // A line for the log (stderr): a room adopted, one that could not be.
        std::function<void(std::string)> log;
        // The judge of a room's tickets when tickets are on (null: the room is open).
        std::function<std::shared_ptr<net::TicketJudge>(const std::string& room)> judge;
    };

    // Starts the thread; the first scan runs at once.
    StoreWatch(const ServeOptions& options, std::span<const RoomKind> kinds, Hooks hooks);
    ~StoreWatch();   // stop()s
    StoreWatch(const StoreWatch&) = delete;
    StoreWatch& operator=(const StoreWatch&) = delete;
    // Ends the thread after the scan under way; adopts nothing more.
    void stop();
    // Scans every store_scan_hurried_ns from now on (a hand-over under way), one at once.
    void hurry();

private:
    void run();
    void scan(store::CheckpointStore& store);
    std::optional<AdoptedRoom> adopt(const std::string& room);

    const ServeOptions& options_;
    std::span<const RoomKind> kinds_;
    Hooks hooks_;
    std::set<std::string, std::less<>> skip_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    bool hurried_ = false;
    std::thread thread_;
};

}  // namespace tandem::server
