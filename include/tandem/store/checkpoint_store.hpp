// Where rooms' checkpoints and leases live, behind one small interface: the bytes of each room's
// newest segment (the store never parses them: tandem/net/checkpoint.hpp says what they are), a
// lease per room naming the process that owns it, and the directory of rooms. Two stores
// implement it: a directory on disk (directory_store.hpp, one machine) and Redis (redis_store.hpp,
// a fleet). A store decides nothing about a game or a room; it must never let a process that
// does not hold a room's lease change what is stored for it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"

namespace tandem::store {

enum class StoreError : uint8_t {
    io,            // the disk refused a read or a write (the message says which)
    unavailable,   // the store cannot be reached, or stopped answering within its timeout
    reply,         // the store answered something this client does not understand
    not_owner,     // the lease is another process's (or nobody's): nothing was written
    bad_name,      // a room or owner name outside what a store accepts
    bad_address,   // a store address that does not parse
    lost,          // the store did not keep a write it was sent, though the lease is the writer's
};
std::string_view error_name(StoreError error);
std::string_view describe(StoreError error);

// A room's name in a store: 1 to 64 of [A-Za-z0-9_-] (it becomes a file name and a key). An
// owner's: 1 to 200 printable ASCII characters without spaces (a URL and an incarnation).
inline constexpr uint32_t max_room_name_bytes = 64;
inline constexpr uint32_t max_owner_bytes = 200;
bool valid_room_name(std::string_view name);
bool valid_owner(std::string_view owner);

// The write side of one room's checkpoint, opened by the process that holds its lease and used
// by one thread at a time. A write returns once its bytes are in the store's write path (handed
// to the kernel: a file's page cache, or the store's socket), so a crash of this process loses
// none of them; what a machine crash can lose is each store's durability window.
class RoomLog {
public:
    virtual ~RoomLog() = default;
    // A new segment (starting with a snapshot record) that replaces the room's; appends extend it.
    virtual Result<void, StoreError> start_segment(std::span<const uint8_t> records) = 0;
    virtual Result<void, StoreError> append(std::span<const uint8_t> records) = 0;
    // Returns once every write so far is as durable as the store makes anything (Redis: applied
    // and answered; the directory: fdatasync'd). For a hand-over, not for every tick.
    virtual Result<void, StoreError> sync() = 0;
    // Either of the above as one call.
    Result<void, StoreError> write(bool new_segment, std::span<const uint8_t> records) {
        if (records.empty()) return {};
        return new_segment ? start_segment(records) : append(records);
    }
};

class CheckpointStore {
public:
    virtual ~CheckpointStore() = default;
    virtual std::string_view kind() const = 0;   // "directory", "redis"

    // The log `owner` writes the room's checkpoint through; its writes are refused (not_owner)
    // once the lease is not `owner`'s (the directory store: once another owner opened a log).
    virtual Result<std::unique_ptr<RoomLog>, StoreError> open_log(std::string_view room, std::string_view owner) = 0;
    // The room's segments, newest first: the newest, and any older one still kept until the
    // newest is durable (a restore tries them in order). Empty: no checkpoint of that room.
    virtual Result<std::vector<std::vector<uint8_t>>, StoreError> load(std::string_view room) = 0;
    // The room ended: its checkpoint and lease go, if its lease is `owner`'s or nobody's.
    virtual Result<bool, StoreError> erase(std::string_view room, std::string_view owner) = 0;
    // Every room with a checkpoint, in byte order.
    virtual Result<std::vector<std::string>, StoreError> rooms() = 0;

    // Leases: at most one owner per room at a time, until ttl_ms pass without a renewal.
    // acquire: true when `owner` holds it now (it was free, expired or already `owner`'s).
    virtual Result<bool, StoreError> acquire(std::string_view room, std::string_view owner, uint32_t ttl_ms) = 0;
    // true: still `owner`'s, for ttl_ms more; false: it is not (expired and taken, or released).
    virtual Result<bool, StoreError> renew(std::string_view room, std::string_view owner, uint32_t ttl_ms) = 0;
    // Compare-and-delete: false when the lease was not `owner`'s (nothing changed).
    virtual Result<bool, StoreError> release(std::string_view room, std::string_view owner) = 0;
    // Compare-and-set to a named peer, for ttl_ms: a rolling restart's hand-over.
    virtual Result<bool, StoreError> hand_over(std::string_view room, std::string_view owner, std::string_view to,
                                               uint32_t ttl_ms) = 0;
    // The lease's holder now (nullopt: free or expired).
    virtual Result<std::optional<std::string>, StoreError> owner(std::string_view room) = 0;
};

// A store from its address: "dir:PATH" (or a path starting with '/' or '.'), "redis://HOST:PORT",
// "unix:PATH" (Redis on a unix socket). bad_address for anything else.
Result<std::unique_ptr<CheckpointStore>, StoreError> open_store(std::string_view address);
// Whether open_store would parse the address (it opens nothing).
bool valid_store_address(std::string_view address);

}  // namespace tandem::store
