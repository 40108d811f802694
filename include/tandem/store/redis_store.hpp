// The fleet's store: Redis (Debian's redis-server), shared by every `tandem serve` of a fleet.
// Per room: a list holding its newest segment in the order written (KEY:log), a lease string
// holding its owner with a TTL (KEY:lease, SET NX PX), and the set of rooms (PREFIX:rooms). Every
// write and every lease change is a Lua script that first compares the lease with the caller, so
// a process whose lease expired or was handed on changes nothing (the writes of a superseded
// owner are refused, not interleaved).
//
// Durability: a room's log writes the command into the socket and returns (a tick never waits
// for a round trip), so a crash of the tandem process loses nothing already written (the bytes
// are in the kernel on their way to Redis). Its connection has Redis's answers off: a client
// that dies with answers unread makes the kernel reset the connection, and Redis, failing to
// write to it, drops the commands it has not read yet. Every 30 writes, and in sync(), one round
// trip confirms the lease and the segment's length: a refused write is reported then (not_owner),
// and one Redis did not keep (lost). What a crash of the Redis
// machine loses is Redis's own window: with appendonly yes and appendfsync everysec (as the tests
// and docs/scaling.md run it), at most about a second of writes (Redis documents up to two).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "tandem/store/checkpoint_store.hpp"

struct redisContext;

namespace tandem::store {

struct RedisAddress {
    std::string host;         // a TCP address (loopback in the tests), or
    uint16_t port = 6379;
    std::string unix_path;    // a unix socket, when set
    std::string prefix = "tandem";   // every key starts PREFIX:
};

// "redis://HOST:PORT" or "unix:PATH", optionally followed by "#PREFIX".
Result<RedisAddress, StoreError> parse_redis_address(std::string_view text);

class RedisStore final : public CheckpointStore {
public:
    // Connects (with a 2 s timeout for the connection and every answer): unavailable when Redis
    // is not there.
    static Result<std::unique_ptr<RedisStore>, StoreError> open(const RedisAddress& address);
    ~RedisStore() override;

    std::string_view kind() const override { return "redis"; }
    Result<std::unique_ptr<RoomLog>, StoreError> open_log(std::string_view room, std::string_view owner) override;
    Result<std::vector<std::vector<uint8_t>>, StoreError> load(std::string_view room) override;
    Result<bool, StoreError> erase(std::string_view room, std::string_view owner) override;
    Result<std::vector<std::string>, StoreError> rooms() override;
    Result<bool, StoreError> acquire(std::string_view room, std::string_view owner, uint32_t ttl_ms) override;
    Result<bool, StoreError> renew(std::string_view room, std::string_view owner, uint32_t ttl_ms) override;
    Result<bool, StoreError> release(std::string_view room, std::string_view owner) override;
    Result<bool, StoreError> hand_over(std::string_view room, std::string_view owner, std::string_view to,
                                       uint32_t ttl_ms) override;
    Result<std::optional<std::string>, StoreError> owner(std::string_view room) override;

private:
    explicit RedisStore(RedisAddress address, redisContext* context);
    Result<int64_t, StoreError> script(std::string_view lua, std::initializer_list<std::string_view> keys,
                                       std::initializer_list<std::string_view> args);
    std::string key(std::string_view room, std::string_view what) const;

    RedisAddress address_;
    std::mutex mutex_;   // one connection for the shared calls, from any thread
    redisContext* context_ = nullptr;
};

}  // namespace tandem::store
