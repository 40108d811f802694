// What every CheckpointStore must do, as one suite run against each store (directory_store_test,
// redis_store_test): leases with one owner at a time, segments replaced and extended, a
// superseded owner's writes refused, the room directory, erase, a process killed right after its
// writes returned losing none of them, and a Room<G> restored from what the store returned.
#pragma once

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/bot.hpp"
#include "tandem/net/room.hpp"
#include "tandem/store/checkpoint_store.hpp"

namespace store_contract {

using namespace tandem;
using Bytes = std::vector<uint8_t>;

// A store under test and the way its leases' time passes (a fake clock, or a real sleep).
struct Subject {
    std::function<std::unique_ptr<store::CheckpointStore>()> open;   // a fresh client of the same store
    std::function<void(uint32_t ms)> let_time_pass;
    // Stops the store from reading anything until resumed (a stalled Redis); empty for a store
    // that has no process of its own to stall.
    std::function<void()> stall, resume;
};

inline Bytes bytes(std::initializer_list<int> v) {
    Bytes out;
    for (int x : v) out.push_back(static_cast<uint8_t>(x));
    return out;
}

inline void leases_have_one_owner(const Subject& s) {
    auto st = s.open();
    const uint32_t ttl = 300;
    CHECK(st->acquire("r1", "http://a|1", ttl).value());
    CHECK_FALSE(st->acquire("r1", "http://b|2", ttl).value());
    CHECK(st->owner("r1").value() == std::optional<std::string>("http://a|1"));
    CHECK(st->acquire("r1", "http://a|1", ttl).value());   // already its own
    CHECK(st->renew("r1", "http://a|1", ttl).value());
    CHECK_FALSE(st->renew("r1", "http://b|2", ttl).value());
    CHECK_FALSE(st->release("r1", "http://b|2").value());
    CHECK_FALSE(st->hand_over("r1", "http://b|2", "http://a|1", ttl).value());
    CHECK(st->hand_over("r1", "http://a|1", "http://b|2", ttl).value());
    CHECK(st->owner("r1").value() == std::optional<std::string>("http://b|2"));
    CHECK_FALSE(st->renew("r1", "http://a|1", ttl).value());
    CHECK(st->release("r1", "http://b|2").value());
    CHECK_FALSE(st->owner("r1").value().has_value());
    CHECK(st->acquire("r1", "http://b|2", ttl).value());
    // Not renewed, the lease lapses after its TTL and anyone may take it; renewed, it does not.
    s.let_time_pass(ttl / 2);
    CHECK(st->renew("r1", "http://b|2", ttl).value());
    s.let_time_pass(ttl / 2 + 50);
    CHECK_FALSE(st->acquire("r1", "http://a|1", ttl).value());
    s.let_time_pass(ttl);
    CHECK_FALSE(st->owner("r1").value().has_value());
    CHECK_FALSE(st->renew("r1", "http://b|2", ttl).value());
    CHECK(st->acquire("r1", "http://a|1", ttl).value());
    // Names a store cannot hold are refused, not mangled.
    CHECK(st->acquire("../etc", "http://a|1", ttl).error() == store::StoreError::bad_name);
    CHECK(st->acquire("r2", "has space", ttl).error() == store::StoreError::bad_name);
}

inline void segments_replace_and_extend(const Subject& s) {
    auto st = s.open();
    REQUIRE(st->acquire("seg", "A", 5000).value());
    auto log = st->open_log("seg", "A");
    REQUIRE(log.ok());
    CHECK(st->load("seg").value().empty());
    REQUIRE((*log)->start_segment(bytes({1, 2, 3})).ok());
    REQUIRE((*log)->append(bytes({4})).ok());
    REQUIRE((*log)->append(bytes({5, 6})).ok());
    REQUIRE((*log)->sync().ok());
    auto loaded = st->load("seg").value();
    REQUIRE_FALSE(loaded.empty());
    CHECK(loaded[0] == bytes({1, 2, 3, 4, 5, 6}));
    REQUIRE((*log)->write(true, bytes({9, 9})).ok());
    REQUIRE((*log)->write(false, bytes({8})).ok());
    REQUIRE((*log)->write(false, Bytes{}).ok());   // nothing to write: nothing written
    REQUIRE((*log)->sync().ok());
    loaded = st->load("seg").value();
    REQUIRE_FALSE(loaded.empty());
    CHECK(loaded[0] == bytes({9, 9, 8}));
    CHECK(st->rooms().value() == std::vector<std::string>{"seg"});
}

// The old owner stalled past its TTL; the new one took the lease, opened a log and started its
// own segment. Whatever the old one writes after that is refused, and load() returns the new
// owner's segment first.
inline void a_superseded_owner_changes_nothing(const Subject& s) {
    auto st = s.open();
    REQUIRE(st->acquire("moved", "A", 200).value());
    auto old_log = st->open_log("moved", "A").value();
    REQUIRE(old_log->start_segment(bytes({1})).ok());
    REQUIRE(old_log->sync().ok());
    s.let_time_pass(400);
    REQUIRE(st->acquire("moved", "B", 5000).value());
    auto new_log = st->open_log("moved", "B").value();
    REQUIRE(new_log->start_segment(bytes({7, 7})).ok());
    REQUIRE(new_log->sync().ok());
    bool refused = false;
    for (int i = 0; i < 3 && !refused; ++i) {
        refused = !old_log->append(bytes({2})).ok() || !old_log->start_segment(bytes({3})).ok() || !old_log->sync().ok();
    }
    CHECK(refused);
    const auto loaded = st->load("moved").value();
    REQUIRE_FALSE(loaded.empty());
    CHECK(loaded[0] == bytes({7, 7}));
}

inline void rooms_and_erase(const Subject& s) {
    auto st = s.open();
    for (const char* room : {"b-room", "a-room", "c-room"}) {
        REQUIRE(st->acquire(room, "A", 5000).value());
        auto log = st->open_log(room, "A").value();
        REQUIRE(log->start_segment(bytes({1})).ok());
        REQUIRE(log->sync().ok());
    }
    CHECK(st->rooms().value() == std::vector<std::string>{"a-room", "b-room", "c-room"});
    CHECK_FALSE(st->erase("b-room", "B").value());   // A's lease: B may not end it
    CHECK(st->rooms().value().size() == 3);
    CHECK(st->erase("b-room", "A").value());
    CHECK(st->rooms().value() == std::vector<std::string>{"a-room", "c-room"});
    CHECK(st->load("b-room").value().empty());
    CHECK_FALSE(st->owner("b-room").value().has_value());
}

// The child writes and is killed with SIGKILL the moment its last write returned: no sync, no
// destructor, no flush of anything.
inline void a_killed_writer_loses_nothing(const Subject& s, bool store_stalled) {
    auto st = s.open();
    REQUIRE(st->acquire("killed", "A", 5000).value());
    // The child connects first; then, if asked, the store stops reading while the child writes
    // and dies, so every write is still unread in the store's socket when the writer is gone.
    // 20 records of 2000 bytes: more than a server reads from a client at once (Redis: 16 KiB),
    // few enough to fit in the socket's buffers while nobody reads them, and fewer writes than a
    // log makes before it waits for the store to confirm them (Redis: 30).
    constexpr int appends = 20;
    constexpr std::size_t record_bytes = 2000;
    int ready[2], go[2];
    REQUIRE(::pipe(ready) == 0);
    REQUIRE(::pipe(go) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        auto mine = s.open();
        auto log = mine->open_log("killed", "A");
        if (!log.ok()) ::_exit(3);
        char byte = 1;
        if (::write(ready[1], &byte, 1) != 1 || ::read(go[0], &byte, 1) != 1) ::_exit(7);
        if (!(*log)->start_segment(bytes({0})).ok()) ::_exit(4);
        for (int i = 1; i <= appends; ++i) {
            if (!(*log)->append(Bytes(record_bytes, static_cast<uint8_t>(i))).ok()) ::_exit(5);
        }
        ::kill(::getpid(), SIGKILL);
        ::_exit(6);
    }
    char byte = 0;
    REQUIRE(::read(ready[0], &byte, 1) == 1);
    if (store_stalled) s.stall();
    REQUIRE(::write(go[1], &byte, 1) == 1);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    if (store_stalled) s.resume();
    for (int fd : {ready[0], ready[1], go[0], go[1]}) ::close(fd);
    INFO("the writer's exit status " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1) << " (3-7: a step failed)");
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    Bytes expected{0};
    for (int i = 1; i <= appends; ++i) expected.insert(expected.end(), record_bytes, static_cast<uint8_t>(i));
    // The store applies what reached its socket in order; give it a moment to read the last bytes.
    Bytes got;
    for (int tries = 0; tries < 50 && got != expected; ++tries) {
        const auto loaded = st->load("killed").value();
        got = loaded.empty() ? Bytes{} : loaded[0];
        if (got != expected) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(got.size() == expected.size());
    CHECK(got == expected);
}

// A room that writes its checkpoint through the store as the driver contract says, killed at
// tick 130; the room restored from the store's newest segment has the dead room's state.
inline void a_room_restores_from_the_store(const Subject& s) {
    auto st = s.open();
    REQUIRE(st->acquire("arena-1", "A", 5000).value());
    auto log = st->open_log("arena-1", "A").value();
    net::RoomConfig<arena::Sim> config;
    config.game.pellet_count = 64;
    config.max_players = 4;
    net::Room<arena::Sim> room = net::Room<arena::Sim>::create(config).value();
    room.set_token_source([n = uint8_t{0}]() mutable {
        net::ResumeToken t{};
        t.fill(++n);
        return t;
    });
    room.enable_checkpoints(50);
    std::vector<net::ScriptedBot<arena::Sim>> bots{net::ScriptedBot<arena::Sim>(1), net::ScriptedBot<arena::Sim>(2)};
    std::vector<uint32_t> ids;
    for (auto& b : bots) {
        ids.push_back(room.connect(0));
        b.on_connected();
    }
    int64_t now = 0;
    auto pump = [&] {
        for (bool moved = true; moved;) {
            moved = false;
            for (std::size_t i = 0; i < bots.size(); ++i) {
                std::vector<Bytes> out;
                bots[i].take_outgoing(out);
                for (const Bytes& m : out) room.receive(ids[i], m, now);
                moved = moved || !out.empty();
            }
            net::CheckpointBatch batch;
            room.take_checkpoint(batch);
            REQUIRE(log->write(batch.new_segment, batch.bytes).ok());
            std::vector<net::Outgoing> sends;
            std::vector<net::CloseRequest> closes;
            room.take_outbox(sends, closes);
            for (const net::Outgoing& o : sends) {
                for (std::size_t i = 0; i < bots.size(); ++i) {
                    if (ids[i] == o.to) bots[i].receive(*o.bytes);
                }
            }
            moved = moved || !sends.empty();
        }
    };
    pump();
    for (int t = 0; t < 130; ++t) {
        now += 16'666'667;
        room.tick(now);
        pump();
    }
    REQUIRE(log->sync().ok());
    auto other = s.open();
    const auto loaded = other->load("arena-1").value();
    REQUIRE_FALSE(loaded.empty());
    net::RestoreReport report;
    auto restored = net::Room<arena::Sim>::restore(loaded[0], &report);
    REQUIRE(restored.ok());
    CHECK(report.snapshot_tick == 100);
    CHECK(report.tick == 130);
    CHECK(restored->state() == room.state());
    CHECK(restored->seat_held(1));
    CHECK(restored->seat_held(2));
}

}  // namespace store_contract
