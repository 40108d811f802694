// The Redis store (src/store/redis_store.*) against the store contract (store_contract.hpp), on a
// redis-server each test starts for itself (redis_server.hpp); leases lapse in Redis's own time,
// so the TTL tests sleep. And its own: the address forms, an unreachable Redis named as such, a
// writer killed while Redis was stalled, and a write Redis did not keep reported as lost.
#include "tandem/store/redis_store.hpp"

#include "store/redis_server.hpp"
#include "store/store_contract.hpp"

namespace {

using namespace tandem;

store_contract::Subject subject(const store_redis::RedisServer& redis) {
    store_contract::Subject s;
    const std::string address = redis.address();
    s.open = [address] { return std::move(store::open_store(address)).value(); };
    s.let_time_pass = [](uint32_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
    s.stall = [&redis] { redis.stall(); };
    s.resume = [&redis] { redis.resume(); };
    return s;
}

}  // namespace

TEST_CASE("redis store: a lease has one owner at a time, lapses after its TTL, and changes hands only by compare") {
    store_redis::RedisServer redis;
    if (!redis.ready()) return;
    store_contract::leases_have_one_owner(subject(redis));
}

TEST_CASE("redis store: a new segment replaces the room's, appends extend it, load returns the bytes written") {
    store_redis::RedisServer redis;
    if (!redis.ready()) return;
    store_contract::segments_replace_and_extend(subject(redis));
}

TEST_CASE("redis store: once the lease is another owner's, the old owner's writes are refused and load returns the new segment") {
    store_redis::RedisServer redis;
    if (!redis.ready()) return;
    store_contract::a_superseded_owner_changes_nothing(subject(redis));
}

TEST_CASE("redis store: rooms lists every room with a checkpoint, and only its lease holder or nobody's lease erases one") {
    store_redis::RedisServer redis;
    if (!redis.ready()) return;
    store_contract::rooms_and_erase(subject(redis));
}

TEST_CASE("redis store: a writer killed right after its writes returned loses none of them") {
    store_redis::RedisServer redis;
    if (!redis.ready()) return;
    store_contract::a_killed_writer_loses_nothing(subject(redis), false);
}

// A loaded machine: Redis is descheduled while the writer sends everything and dies, so when
// Redis runs again all of it is still unread in its socket. A writer that left answers unread
// behind makes the kernel reset the connection, and Redis, failing to write those answers, drops
// the client with the rest of its commands unread (how CI once lost 80 of 200 appends).
TEST_CASE("redis store: a writer killed while Redis was not reading loses none of its writes") {
    store_redis::RedisServer redis;
    if (!redis.ready()) return;
    store_contract::a_killed_writer_loses_nothing(subject(redis), true);
}

TEST_CASE("redis store: a room restored from the store's segment has the dead room's state and seats") {
    store_redis::RedisServer redis;
    if (!redis.ready()) return;
    store_contract::a_room_restores_from_the_store(subject(redis));
}

TEST_CASE("redis store: the addresses it takes, and an unreachable Redis is unavailable, not a hang") {
    CHECK(store::parse_redis_address("redis://127.0.0.1:6380").value().port == 6380);
    CHECK(store::parse_redis_address("redis://[::1]:7000").value().host == "::1");
    CHECK(store::parse_redis_address("unix:/tmp/x.sock").value().unix_path == "/tmp/x.sock");
    CHECK(store::parse_redis_address("redis://h:1#fleet2").value().prefix == "fleet2");
    CHECK(store::parse_redis_address("redis://h").error() == store::StoreError::bad_address);
    CHECK(store::parse_redis_address("redis://h:0").error() == store::StoreError::bad_address);
    CHECK(store::parse_redis_address("redis://h:1#bad prefix").error() == store::StoreError::bad_address);
    CHECK(store::parse_redis_address("unix:").error() == store::StoreError::bad_address);
    const auto gone = store::open_store("unix:/nonexistent/tandem-no-redis.sock");
    REQUIRE_FALSE(gone.ok());
    CHECK(gone.error() == store::StoreError::unavailable);
}

TEST_CASE("redis store: two fleets with different prefixes share one Redis without seeing each other's rooms") {
    store_redis::RedisServer redis;
    if (!redis.ready()) return;
    auto one = store::open_store(redis.address() + "#one").value();
    auto two = store::open_store(redis.address() + "#two").value();
    REQUIRE(one->acquire("r", "A", 5000).value());
    auto log = one->open_log("r", "A").value();
    REQUIRE(log->start_segment(store_contract::bytes({1})).ok());
    REQUIRE(log->sync().ok());
    CHECK(one->rooms().value() == std::vector<std::string>{"r"});
    CHECK(two->rooms().value().empty());
    CHECK(two->acquire("r", "B", 5000).value());
}

// With answers off, a write Redis refuses (here: out of memory) says nothing when it is sent; the
// log's confirmation finds the segment shorter than the records it pushed and reports it lost.
TEST_CASE("redis store: a write Redis did not keep is reported as lost by the next confirmation") {
    store_redis::RedisServer redis;
    if (!redis.ready()) return;
    auto st = store::open_store(redis.address()).value();
    REQUIRE(st->acquire("full", "A", 5000).value());
    auto log = st->open_log("full", "A").value();
    REQUIRE(log->start_segment(store_contract::bytes({1})).ok());
    REQUIRE(log->sync().ok());
    REQUIRE(redis.cli({"CONFIG", "SET", "maxmemory", "1"}));
    CHECK(log->append(store_contract::bytes({2})).ok());   // in the socket: not yet known to be refused
    const auto confirmed = log->sync();
    REQUIRE_FALSE(confirmed.ok());
    CHECK(confirmed.error() == store::StoreError::lost);
    CHECK(log->append(store_contract::bytes({3})).error() == store::StoreError::lost);   // and it stays so
}
