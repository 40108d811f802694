// What `tandem serve --store` adds to its room: the store, the room's lease and the log its
// checkpoint is written through (GameRoom<G> drives it: game_room.hpp). The lease is what makes
// the room one process's at a time; a process that cannot renew it stops serving the room, since
// another may have taken it. Nothing here decides anything about the game or the room.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tandem/core/result.hpp"
#include "tandem/net/checkpoint.hpp"
#include "tandem/server/options.hpp"
#include "tandem/store/checkpoint_store.hpp"

namespace tandem::server {

// The room's lease lasts one second and is renewed every quarter of it. The TTL is the time a
// crashed owner's room stays closed before another process may take it, so it is as short as
// renewals allow: three renewals may be missed (a stalled tick loop, a slow store) before the
// lease lapses under a live owner. An owner that cannot renew stops sending frames, so two
// owners never both serve a room.
inline constexpr uint32_t room_lease_ttl_ms = 1000;
inline constexpr int64_t room_lease_renew_ns = 250'000'000;
// A process started while a dead owner's lease is still live waits this long for it to lapse.
inline constexpr int64_t room_lease_wait_ns = 2 * int64_t{room_lease_ttl_ms} * 1'000'000;
// The lease a process takes to load and restore a room, before its first step renews it to
// room_lease_ttl_ms: a restore of a large world in a debug build can outlast a second, and a
// lease that lapsed meanwhile would end the room it just restored. A process that dies while
// restoring keeps the room closed this long.
inline constexpr uint32_t room_lease_restore_ttl_ms = 10'000;

// This process's name as a lease owner, the same for every room it serves: "URL|host|pid|
// incarnation", URL being --advertise's ("-" when not given) and the incarnation random, so a
// process restarted with the same pid is not taken for the one that held the lease before.
std::string process_owner(const std::string& advertise_url);
// The --advertise URL an owner's name carries ("" when it carries none).
std::string owner_url(std::string_view owner);
// The WebSocket URL of room `room` at the process advertised as `url` (http -> ws, https -> wss).
std::string room_websocket_url(std::string_view url, std::string_view room);

// --record-dir's file for a room: DIR/ROOM.replay, or DIR/ROOM.N.replay for the first N free
// (a room adopted again, or made again after it closed, never overwrites its earlier replay);
// "" when `dir` is "".
std::string record_path_in(const std::string& dir, const std::string& room);

class RoomCheckpointing {
public:
    // Opens the store, takes the room's lease for `owner` (waiting for a lapsed owner's at most
    // `wait_ns`) and loads the room's segments. A refusal says why (exit 1: not a command-line
    // mistake). A process names itself once (process_owner) and opens every room it serves
    // under that name.
    static Result<std::unique_ptr<RoomCheckpointing>, ServeUsageError> open(const std::string& address, const std::string& room,
                                                                            const std::string& owner,
                                                                            int64_t wait_ns = room_lease_wait_ns);

    // The room's segments as loaded, newest first (empty: a new room).
    const std::vector<std::vector<uint8_t>>& segments() const { return segments_; }
    void forget_segments() { segments_.clear(); segments_.shrink_to_fit(); }

    // Into the store's write path. False: the store refused it (the lease is gone, the store is
    // unreachable); the room must stop, and problem() says why.
    bool write(const net::CheckpointBatch& batch);
    // Renews the lease when room_lease_renew_ns has passed since the last renewal (steady time,
    // the tick loop's clock). GameRoom calls it before each step, so a tick's frames go out at
    // most a quarter of the TTL after a renewal the store confirmed, whatever stalled the loop
    // before. False: it is not this process's any more.
    bool keep_lease(int64_t now_ns);
    // A stop: every write synced, then the lease given back, so a process started next can take
    // the room at once.
    void hand_back();
    // The room ended for good (closed idle): its checkpoint and lease leave the store, so no
    // other process brings it back.
    void erase();

    const std::string& owner() const { return owner_; }
    const std::string& room() const { return room_; }
    const std::string& problem() const { return problem_; }

private:
    RoomCheckpointing() = default;

    std::unique_ptr<store::CheckpointStore> store_;
    std::unique_ptr<store::RoomLog> log_;
    std::string room_;
    std::string owner_;
    std::vector<std::vector<uint8_t>> segments_;
    int64_t last_renewed_ns_ = 0;   // steady time (the tick loop's clock)
    bool serving_ = false;          // renewed since the restore (to room_lease_ttl_ms)
    std::string problem_;
};

}  // namespace tandem::server
