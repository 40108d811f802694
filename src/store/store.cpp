// What every store shares: the error names, the rules for room and owner names, and the one
// function that opens a store from its address.
#include "tandem/store/checkpoint_store.hpp"
#include "tandem/store/directory_store.hpp"
#include "tandem/store/redis_store.hpp"

namespace tandem::store {

std::string_view error_name(StoreError error) {
    switch (error) {
        case StoreError::io: return "io";
        case StoreError::unavailable: return "unavailable";
        case StoreError::reply: return "reply";
        case StoreError::not_owner: return "not_owner";
        case StoreError::lost: return "lost";
        case StoreError::bad_name: return "bad_name";
        case StoreError::bad_address: return "bad_address";
    }
    return "unknown";
}

std::string_view describe(StoreError error) {
    switch (error) {
        case StoreError::io: return "the store's disk refused a read or a write";
        case StoreError::unavailable: return "the store cannot be reached or did not answer in time";
        case StoreError::reply: return "the store answered something this client does not understand";
        case StoreError::not_owner: return "this process does not hold the room's lease: nothing was written";
        case StoreError::lost: return "the store did not keep every write it was sent (out of memory, or a script failed)";
        case StoreError::bad_name:
            return "a room name is 1 to 64 of [A-Za-z0-9_-], an owner 1 to 200 printable characters without spaces, a TTL above 0";
        case StoreError::bad_address:
            return "a store address is dir:PATH (or a path), redis://HOST:PORT or unix:PATH, optionally followed by #PREFIX";
    }
    return "unknown store error";
}

bool valid_room_name(std::string_view name) {
    if (name.empty() || name.size() > max_room_name_bytes) return false;
    for (char c : name) {
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
    }
    return true;
}

bool valid_owner(std::string_view owner) {
    if (owner.empty() || owner.size() > max_owner_bytes) return false;
    for (char c : owner) {
        if (c <= ' ' || c > '~') return false;
    }
    return true;
}

bool valid_store_address(std::string_view address) {
    if (address.starts_with("redis://") || address.starts_with("unix:")) return parse_redis_address(address).ok();
    if (address.starts_with("dir:")) return address.size() > 4;
    return address.starts_with('/') || address.starts_with('.');
}

Result<std::unique_ptr<CheckpointStore>, StoreError> open_store(std::string_view address) {
    if (address.starts_with("redis://") || address.starts_with("unix:")) {
        auto parsed = parse_redis_address(address);
        if (!parsed.ok()) return parsed.error();
        auto redis = RedisStore::open(*parsed);
        if (!redis.ok()) return redis.error();
        return std::unique_ptr<CheckpointStore>(std::move(redis).value());
    }
    std::string_view path = address;
    if (path.starts_with("dir:")) {
        path = path.substr(4);
    } else if (!path.starts_with('/') && !path.starts_with('.')) {
        return StoreError::bad_address;
    }
    if (path.empty()) return StoreError::bad_address;
    auto dir = DirectoryStore::open(std::string(path));
    if (!dir.ok()) return dir.error();
    return std::unique_ptr<CheckpointStore>(std::move(dir).value());
}

}  // namespace tandem::store
