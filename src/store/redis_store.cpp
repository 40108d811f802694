// The Redis store (redis_store.hpp) over hiredis's blocking client: one connection for the
// shared calls (leases, loads, the directory) under a mutex, and one per room log, pipelined.
#include "tandem/store/redis_store.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <charconv>
#include <vector>

namespace tandem::store {

namespace {

// Each script compares the lease with the caller before it changes anything.
constexpr std::string_view append_lua =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('RPUSH', KEYS[2], ARGV[2]) return 1 end return 0";
constexpr std::string_view start_lua =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[2]) redis.call('RPUSH', KEYS[2], ARGV[2]) "
    "redis.call('SADD', KEYS[3], ARGV[3]) return 1 end return 0";
// -1 when the lease is not the caller's, else the length of the room's segment.
constexpr std::string_view confirm_lua =
    "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end return redis.call('LLEN', KEYS[2])";
constexpr std::string_view acquire_lua =
    "local o = redis.call('GET', KEYS[1]) if not o then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 "
    "elseif o == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end return 0";
constexpr std::string_view renew_lua =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end return 0";
constexpr std::string_view release_lua =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end return 0";
constexpr std::string_view hand_over_lua =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end "
    "return 0";
constexpr std::string_view erase_lua =
    "local o = redis.call('GET', KEYS[1]) if o and o ~= ARGV[1] then return 0 end redis.call('DEL', KEYS[1], KEYS[2]) "
    "redis.call('SREM', KEYS[3], ARGV[2]) return 1";

constexpr timeval store_timeout{2, 0};

redisContext* connect(const RedisAddress& a) {
    redisContext* c = a.unix_path.empty() ? redisConnectWithTimeout(a.host.c_str(), a.port, store_timeout)
                                          : redisConnectUnixWithTimeout(a.unix_path.c_str(), store_timeout);
    if (c == nullptr) return nullptr;
    if (c->err != 0 || redisSetTimeout(c, store_timeout) != REDIS_OK) {
        redisFree(c);
        return nullptr;
    }
    return c;
}

struct ReplyFree {
    void operator()(redisReply* r) const {
        if (r) freeReplyObject(r);
    }
};
using Reply = std::unique_ptr<redisReply, ReplyFree>;

Reply command(redisContext* c, const std::vector<std::string_view>& parts) {
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (std::string_view p : parts) {
        argv.push_back(p.data());
        lengths.push_back(p.size());
    }
    return Reply(static_cast<redisReply*>(redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lengths.data())));
}

std::vector<std::string_view> eval_parts(std::string_view lua, std::initializer_list<std::string_view> keys,
                                         std::initializer_list<std::string_view> args, std::string& count) {
    count = std::to_string(keys.size());
    std::vector<std::string_view> parts{"EVAL", lua, count};
    parts.insert(parts.end(), keys.begin(), keys.end());
    parts.insert(parts.end(), args.begin(), args.end());
    return parts;
}

std::string_view bytes_view(std::span<const uint8_t> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

// A room's log: its own connection, told to send no answers (see the header), so a write is
// done once it is in the socket, and nothing of Redis's is ever left unread when this process dies.
class RedisRoomLog final : public RoomLog {
public:
    RedisRoomLog(redisContext* c, std::string owner, std::string room, std::string lease_key, std::string log_key,
                 std::string rooms_key)
        : context_(c),
          owner_(std::move(owner)),
          room_(std::move(room)),
          lease_key_(std::move(lease_key)),
          log_key_(std::move(log_key)),
          rooms_key_(std::move(rooms_key)) {}
    ~RedisRoomLog() override { redisFree(context_); }

    // Before the first write: the connection answers nothing from here on.
    Result<void, StoreError> silence() { return send({"CLIENT", "REPLY", "OFF"}); }

    Result<void, StoreError> start_segment(std::span<const uint8_t> records) override {
        if (auto sent = send_script(start_lua, {lease_key_, log_key_, rooms_key_}, {owner_, bytes_view(records), room_});
            !sent.ok()) {
            return sent;
        }
        pushed_ = 1;
        return counted_write();
    }
    Result<void, StoreError> append(std::span<const uint8_t> records) override {
        if (auto sent = send_script(append_lua, {lease_key_, log_key_}, {owner_, bytes_view(records)}); !sent.ok()) {
            return sent;
        }
        ++pushed_;
        return counted_write();
    }
    Result<void, StoreError> sync() override { return confirm(); }

private:
    // Every confirm_every writes the log asks, in one round trip, whether all of them were kept:
    // a refused write (the lease moved) or one Redis dropped (out of memory) is found within half
    // a second of ticks at 60 Hz, besides the lease's own renewal every 250 ms.
    static constexpr uint32_t confirm_every = 30;

    Result<void, StoreError> counted_write() {
        if (++since_confirmed_ < confirm_every) return {};
        return confirm();
    }

    // Answers on for two commands: the lease still this owner's, and the segment as long as the
    // records this log pushed into it. Redis runs a connection's commands in order, so the answer
    // also says every earlier write has been applied.
    Result<void, StoreError> confirm() {
        if (failed_) return *failed_;
        since_confirmed_ = 0;
        std::string count;
        const auto check = eval_parts(confirm_lua, {lease_key_, log_key_}, {owner_}, count);
        for (const auto& parts : {std::vector<std::string_view>{"CLIENT", "REPLY", "ON"}, check,
                                  std::vector<std::string_view>{"CLIENT", "REPLY", "OFF"}}) {
            if (auto queued = queue(parts); !queued.ok()) return queued;
        }
        if (auto written = flush(); !written.ok()) return written;
        void* raw = nullptr;
        if (redisGetReply(context_, &raw) != REDIS_OK) return fail(StoreError::unavailable);
        const Reply on(static_cast<redisReply*>(raw));
        if (on->type != REDIS_REPLY_STATUS) return fail(StoreError::reply);
        raw = nullptr;
        if (redisGetReply(context_, &raw) != REDIS_OK) return fail(StoreError::unavailable);
        const Reply kept(static_cast<redisReply*>(raw));
        if (kept->type != REDIS_REPLY_INTEGER) return fail(StoreError::reply);
        if (kept->integer < 0) return fail(StoreError::not_owner);
        if (static_cast<uint64_t>(kept->integer) != pushed_) return fail(StoreError::lost);
        return {};
    }

    Result<void, StoreError> send_script(std::string_view lua, std::initializer_list<std::string_view> keys,
                                         std::initializer_list<std::string_view> args) {
        std::string count;
        return send(eval_parts(lua, keys, args, count));
    }

    // Into the socket now: that is the write path a frame waits for. A Redis that stops reading
    // blocks this write (up to the 2 s timeout), so it slows the room rather than grow a buffer.
    Result<void, StoreError> send(const std::vector<std::string_view>& parts) {
        if (failed_) return *failed_;
        if (auto queued = queue(parts); !queued.ok()) return queued;
        return flush();
    }

    Result<void, StoreError> queue(const std::vector<std::string_view>& parts) {
        std::vector<const char*> argv;
        std::vector<size_t> lengths;
        for (std::string_view p : parts) {
            argv.push_back(p.data());
            lengths.push_back(p.size());
        }
        if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data()) != REDIS_OK) {
            return fail(StoreError::unavailable);
        }
        return {};
    }

    Result<void, StoreError> flush() {
        for (int done = 0; !done;) {
            if (redisBufferWrite(context_, &done) != REDIS_OK) return fail(StoreError::unavailable);
        }
        return {};
    }

    StoreError fail(StoreError e) {
        failed_ = e;
        return e;
    }

    redisContext* context_;
    std::string owner_, room_, lease_key_, log_key_, rooms_key_;
    uint64_t pushed_ = 0;            // records in the segment this log started
    uint32_t since_confirmed_ = 0;
    std::optional<StoreError> failed_;   // sticky: a log refused once is not its owner's any more
};

}  // namespace

Result<RedisAddress, StoreError> parse_redis_address(std::string_view text) {
    RedisAddress a;
    if (const size_t hash = text.find('#'); hash != std::string_view::npos) {
        a.prefix = std::string(text.substr(hash + 1));
        text = text.substr(0, hash);
        if (a.prefix.empty() || !valid_room_name(a.prefix)) return StoreError::bad_address;
    }
    if (text.starts_with("unix:")) {
        a.unix_path = std::string(text.substr(5));
        if (a.unix_path.empty()) return StoreError::bad_address;
        return a;
    }
    if (!text.starts_with("redis://")) return StoreError::bad_address;
    text = text.substr(8);
    if (!text.empty() && text.back() == '/') text.remove_suffix(1);
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return StoreError::bad_address;
    a.host = std::string(text.substr(0, colon));
    if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']') a.host = a.host.substr(1, a.host.size() - 2);
    const std::string_view port = text.substr(colon + 1);
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc{} || end != port.data() + port.size() || value == 0 || value > 65535) return StoreError::bad_address;
    a.port = static_cast<uint16_t>(value);
    return a;
}

Result<std::unique_ptr<RedisStore>, StoreError> RedisStore::open(const RedisAddress& address) {
    redisContext* c = connect(address);
    if (c == nullptr) return StoreError::unavailable;
    const Reply pong = command(c, {"PING"});
    if (!pong || pong->type != REDIS_REPLY_STATUS) {
        redisFree(c);
        return StoreError::unavailable;
    }
    return std::unique_ptr<RedisStore>(new RedisStore(address, c));
}

RedisStore::RedisStore(RedisAddress address, redisContext* context) : address_(std::move(address)), context_(context) {}

RedisStore::~RedisStore() { redisFree(context_); }

std::string RedisStore::key(std::string_view room, std::string_view what) const {
    return address_.prefix + ":room:" + std::string(room) + ":" + std::string(what);
}

Result<int64_t, StoreError> RedisStore::script(std::string_view lua, std::initializer_list<std::string_view> keys,
                                               std::initializer_list<std::string_view> args) {
    const std::lock_guard lock(mutex_);
    std::string count;
    const Reply reply = command(context_, eval_parts(lua, keys, args, count));
    if (!reply) return StoreError::unavailable;
    if (reply->type != REDIS_REPLY_INTEGER) return StoreError::reply;
    return static_cast<int64_t>(reply->integer);
}

Result<std::unique_ptr<RoomLog>, StoreError> RedisStore::open_log(std::string_view room, std::string_view owner) {
    if (!valid_room_name(room) || !valid_owner(owner)) return StoreError::bad_name;
    redisContext* c = connect(address_);
    if (c == nullptr) return StoreError::unavailable;
    auto log = std::make_unique<RedisRoomLog>(c, std::string(owner), std::string(room), key(room, "lease"),
                                              key(room, "log"), address_.prefix + ":rooms");
    if (auto silenced = log->silence(); !silenced.ok()) return silenced.error();
    return std::unique_ptr<RoomLog>(std::move(log));
}

Result<std::vector<std::vector<uint8_t>>, StoreError> RedisStore::load(std::string_view room) {
    if (!valid_room_name(room)) return StoreError::bad_name;
    const std::string log = key(room, "log");
    const std::lock_guard lock(mutex_);
    const Reply reply = command(context_, {"LRANGE", log, "0", "-1"});
    if (!reply) return StoreError::unavailable;
    if (reply->type != REDIS_REPLY_ARRAY) return StoreError::reply;
    std::vector<std::vector<uint8_t>> out;
    if (reply->elements == 0) return out;
    std::vector<uint8_t> segment;
    for (size_t i = 0; i < reply->elements; ++i) {
        const redisReply* part = reply->element[i];
        if (part->type != REDIS_REPLY_STRING) return StoreError::reply;
        segment.insert(segment.end(), part->str, part->str + part->len);
    }
    out.push_back(std::move(segment));
    return out;
}

Result<bool, StoreError> RedisStore::erase(std::string_view room, std::string_view owner) {
    if (!valid_room_name(room) || !valid_owner(owner)) return StoreError::bad_name;
    const auto done = script(erase_lua, {key(room, "lease"), key(room, "log"), address_.prefix + ":rooms"}, {owner, room});
    if (!done.ok()) return done.error();
    return *done == 1;
}

Result<std::vector<std::string>, StoreError> RedisStore::rooms() {
    const std::string set = address_.prefix + ":rooms";
    const std::lock_guard lock(mutex_);
    const Reply reply = command(context_, {"SMEMBERS", set});
    if (!reply) return StoreError::unavailable;
    if (reply->type != REDIS_REPLY_ARRAY) return StoreError::reply;
    std::vector<std::string> out;
    for (size_t i = 0; i < reply->elements; ++i) {
        const redisReply* part = reply->element[i];
        if (part->type != REDIS_REPLY_STRING) return StoreError::reply;
        out.emplace_back(part->str, part->len);
    }
    std::sort(out.begin(), out.end());
    return out;
}

Result<bool, StoreError> RedisStore::acquire(std::string_view room, std::string_view owner, uint32_t ttl_ms) {
    if (!valid_room_name(room) || !valid_owner(owner) || ttl_ms == 0) return StoreError::bad_name;
    const auto done = script(acquire_lua, {key(room, "lease")}, {owner, std::to_string(ttl_ms)});
    if (!done.ok()) return done.error();
    return *done == 1;
}

Result<bool, StoreError> RedisStore::renew(std::string_view room, std::string_view owner, uint32_t ttl_ms) {
    if (!valid_room_name(room) || !valid_owner(owner) || ttl_ms == 0) return StoreError::bad_name;
    const auto done = script(renew_lua, {key(room, "lease")}, {owner, std::to_string(ttl_ms)});
    if (!done.ok()) return done.error();
    return *done == 1;
}

Result<bool, StoreError> RedisStore::release(std::string_view room, std::string_view owner) {
    if (!valid_room_name(room) || !valid_owner(owner)) return StoreError::bad_name;
    const auto done = script(release_lua, {key(room, "lease")}, {owner});
    if (!done.ok()) return done.error();
    return *done == 1;
}

Result<bool, StoreError> RedisStore::hand_over(std::string_view room, std::string_view owner, std::string_view to,
                                               uint32_t ttl_ms) {
    if (!valid_room_name(room) || !valid_owner(owner) || !valid_owner(to) || ttl_ms == 0) return StoreError::bad_name;
    const auto done = script(hand_over_lua, {key(room, "lease")}, {owner, to, std::to_string(ttl_ms)});
    if (!done.ok()) return done.error();
    return *done == 1;
}

Result<std::optional<std::string>, StoreError> RedisStore::owner(std::string_view room) {
    if (!valid_room_name(room)) return StoreError::bad_name;
    const std::string lease = key(room, "lease");
    const std::lock_guard lock(mutex_);
    const Reply reply = command(context_, {"GET", lease});
    if (!reply) return StoreError::unavailable;
    if (reply->type == REDIS_REPLY_NIL) return std::optional<std::string>{};
    if (reply->type != REDIS_REPLY_STRING) return StoreError::reply;
    return std::optional<std::string>(std::string(reply->str, reply->len));
}

}  // namespace tandem::store
