// Checkpoints of Room<G> (tandem/net/room.hpp, checkpoint.hpp), over the arena and ships: a room
// rebuilt from its segment reaches the dead room's digest at every tick since the snapshot, keeps
// its seats, scores and tokens, and then plays on exactly as the dead room would have after
// losing every connection at once; nothing a call queued reaches the outbox before the records
// it wrote were taken; the segment holds no token; damaged segments are refused by name.
#include "tandem/net/room.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "arena/sim.hpp"
#include "ships/sim.hpp"
#include "tandem/net/bot.hpp"
#include "tandem/net/checkpoint.hpp"
#include "tandem/net/game_codec.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

using Bytes = std::vector<uint8_t>;

// A room, scripted bots and the segment a store would hold: every pump takes the checkpoint
// first, as the driver's contract says, then the outbox. Every tick's digest is kept, read
// from the room's state (sim::digest), not from the checkpoint.
template <class G>
struct Harness {
    Room<G> room;
    std::vector<ScriptedBot<G>> bots;
    std::vector<uint32_t> ids;
    std::map<uint32_t, ResumeToken> tokens;     // by player, from the welcomes
    std::map<uint64_t, uint64_t> digests;       // by tick
    std::vector<ResumeToken> issued;
    Bytes segment;
    uint8_t next_token = 1;
    int64_t now = 0;

    explicit Harness(RoomConfig<G> config, uint32_t snapshot_every) : room(Room<G>::create(config).value()) {
        room.set_token_source([this] {
            ResumeToken t{};
            for (uint32_t i = 0; i < resume_token_bytes; ++i) t[i] = static_cast<uint8_t>(next_token * 31 + i * 7 + 1);
            ++next_token;
            issued.push_back(t);
            return t;
        });
        room.enable_checkpoints(snapshot_every);
        digests[room.state().tick] = sim::digest<G>(room.state());
        store();
    }
    void store() {
        CheckpointBatch batch;
        room.take_checkpoint(batch);
        if (batch.new_segment) segment.clear();
        segment.insert(segment.end(), batch.bytes.begin(), batch.bytes.end());
    }
    void join(uint64_t seed) {
        bots.emplace_back(seed);
        ids.push_back(room.connect(now));
        bots.back().on_connected();
        pump();
    }
    void drop(std::size_t bot) {
        room.disconnect(ids[bot], now);
        ids[bot] = 0;
        pump();
    }
    void pump() {
        std::vector<Outgoing> sends;
        std::vector<CloseRequest> closes;
        for (bool moved = true; moved;) {
            moved = false;
            for (std::size_t i = 0; i < bots.size(); ++i) {
                if (ids[i] == 0) continue;
                std::vector<Bytes> out;
                bots[i].take_outgoing(out);
                for (const Bytes& m : out) room.receive(ids[i], m, now);
                moved = moved || !out.empty();
            }
            store();
            sends.clear();
            room.take_outbox(sends, closes);
            for (const Outgoing& o : sends) {
                const auto m = decode_server(*o.bytes);
                REQUIRE(m.ok());
                if (const auto* w = std::get_if<Welcome>(&m.value()); w && w->resume) tokens[w->player] = *w->resume;
                for (std::size_t i = 0; i < bots.size(); ++i) {
                    if (ids[i] == o.to) bots[i].receive(*o.bytes);
                }
            }
            moved = moved || !sends.empty();
        }
        REQUIRE(closes.empty());
    }
    void run(uint64_t ticks) {
        for (uint64_t t = 0; t < ticks; ++t) {
            now += 1'000'000'000 / G::tick_hz(room.config().game);
            room.tick(now);
            digests[room.state().tick] = sim::digest<G>(room.state());
            pump();
        }
    }
};

RoomConfig<arena::Sim> arena_config() {
    RoomConfig<arena::Sim> c;
    c.game.pellet_count = 64;
    c.max_players = 4;
    c.resume_grace_ns = 5'000'000'000;
    return c;
}

RoomConfig<ships::Sim> ships_config() {
    RoomConfig<ships::Sim> c;
    c.game.max_players = 4;
    c.max_players = 4;
    c.resume_grace_ns = 5'000'000'000;
    return c;
}

Bytes hello_with(const Hello& h) {
    Bytes b;
    encode(b, h);
    return b;
}

// The whole story for one game: three bots, one dropped and one joined late (seats records),
// a snapshot every 50 ticks, the owner lost at tick 173 with 23 frames since its last snapshot
// and the late join still on its way (the room authored it; it lands on 174).
template <class G>
void rebuilt_room_matches(const RoomConfig<G>& config) {
    Harness<G> h(config, 50);
    h.join(11);
    h.join(12);
    h.join(13);
    h.run(60);
    h.drop(1);       // player 2's seat is kept for its token
    h.run(111);
    h.join(14);      // takes seat 4 (seat 2 is kept); its join lands on tick 174, after the crash
    h.run(2);
    const uint64_t crash_tick = h.room.state().tick;
    REQUIRE(crash_tick == 173);

    RestoreReport report;
    std::map<uint64_t, uint64_t> replayed;
    auto restored = Room<G>::restore(h.segment, &report, [&](uint64_t tick, uint64_t digest) { replayed[tick] = digest; });
    REQUIRE(restored.ok());
    Room<G>& room = restored.value();
    CHECK(report.snapshot_tick == 150);
    CHECK(report.frames_replayed == 23);
    CHECK(report.tick == crash_tick);
    CHECK_FALSE(report.torn_tail);
    CHECK(report.seats_kept == 4);   // players 1, 3 and 4 had connections; 2's was kept already
    // The same digest at every tick from the snapshot to the crash, and the same state.
    REQUIRE(replayed.size() == 24);
    for (const auto& [tick, digest] : replayed) {
        INFO("tick " << tick);
        CHECK(digest == h.digests.at(tick));
    }
    CHECK(room.state() == h.room.state());
    for (uint32_t p = 1; p <= 4; ++p) CHECK(room.seat_held(p));

    // The dead room, had it lost every connection at once instead, plays on as the restored one.
    for (std::size_t i = 0; i < h.ids.size(); ++i) {
        if (h.ids[i] != 0) h.drop(i);
    }
    room.set_token_source([] {
        ResumeToken t{};
        t.fill(0xAB);
        return t;
    });
    for (int t = 0; t < 120; ++t) {
        h.run(1);
        room.tick(h.now);
        INFO("tick " << room.state().tick);
        REQUIRE(sim::digest<G>(room.state()) == h.digests.at(room.state().tick));
    }
    CHECK(room.state() == h.room.state());

    // A player's token from the dead room takes its own seat back in the restored one.
    for (uint32_t player : {1u, 4u}) {
        Hello hello = hello_for<G>(Role::play);
        hello.resume = h.tokens.at(player);
        const uint32_t id = room.connect(h.now);
        room.receive(id, hello_with(hello), h.now);
        std::vector<Outgoing> sends;
        std::vector<CloseRequest> closes;
        room.take_outbox(sends, closes);
        REQUIRE_FALSE(sends.empty());
        const auto welcome = decode_server(*sends.front().bytes);
        REQUIRE(welcome.ok());
        REQUIRE(std::holds_alternative<Welcome>(welcome.value()));
        CHECK(std::get<Welcome>(welcome.value()).player == player);
        CHECK(closes.empty());
    }
    CHECK(room.stats().resumes == 2);
}

// A snapshot every tick: the crash comes right after one (the tick's checkpoint taken, nothing
// received since), with commands accepted in earlier ticks and not applied yet.
template <class G>
void snapshot_keeps_pending_commands(const RoomConfig<G>& config) {
    Harness<G> h(config, 1);
    h.join(21);
    h.join(22);
    bool pending = false;
    for (int t = 0; t < 300 && !pending; ++t) {
        h.now += 1'000'000'000 / G::tick_hz(h.room.config().game);
        h.room.tick(h.now);
        h.digests[h.room.state().tick] = sim::digest<G>(h.room.state());
        h.store();
        CheckpointReader records(h.segment);
        while (const auto r = records.next()) pending = pending || r->kind == CheckpointKind::input;
        if (!pending) h.pump();
    }
    REQUIRE(pending);
    auto restored = Room<G>::restore(h.segment);
    REQUIRE(restored.ok());
    for (uint32_t& id : h.ids) {
        h.room.disconnect(id, h.now);
        id = 0;
    }
    h.pump();
    for (int t = 0; t < 30; ++t) {
        h.run(1);
        restored->tick(h.now);
        INFO("tick " << restored->state().tick);
        REQUIRE(sim::digest<G>(restored->state()) == h.digests.at(restored->state().tick));
    }
}

template <class G>
bool contains(const Bytes& hay, std::span<const uint8_t> needle) {
    return std::search(hay.begin(), hay.end(), needle.begin(), needle.end()) != hay.end();
}

}  // namespace

TEST_CASE("an arena room rebuilt from its checkpoint reaches the same digest at every tick, keeps seats, wells, scores and tokens, and plays on alike") {
    rebuilt_room_matches<arena::Sim>(arena_config());
}

TEST_CASE("a ships room rebuilt from its checkpoint reaches the same digest at every tick, keeps seats, ships and tokens, and plays on alike") {
    rebuilt_room_matches<ships::Sim>(ships_config());
}

TEST_CASE("a new segment keeps the commands clients sent that no frame has applied yet, in the arena and ships") {
    snapshot_keeps_pending_commands<arena::Sim>(arena_config());
    snapshot_keeps_pending_commands<ships::Sim>(ships_config());
}

TEST_CASE("a tick's frame and a welcome's token leave the outbox only after the checkpoint that holds them was taken") {
    Room<arena::Sim> room = Room<arena::Sim>::create(arena_config()).value();
    room.set_token_source([] {
        ResumeToken t{};
        t.fill(7);
        return t;
    });
    room.enable_checkpoints(600);
    std::vector<Outgoing> sends;
    std::vector<CloseRequest> closes;
    CheckpointBatch batch;
    room.take_outbox(sends, closes);
    CHECK(sends.empty());

    const uint32_t id = room.connect(0);
    room.receive(id, hello_with(hello_for<arena::Sim>(Role::play)), 0);
    room.take_outbox(sends, closes);
    CHECK(sends.empty());    // the welcome carries a token the store has not been given
    room.take_checkpoint(batch);
    CHECK(batch.new_segment);   // the snapshot enable_checkpoints wrote, then the seats
    room.take_outbox(sends, closes);
    REQUIRE(sends.size() == 2);  // welcome, baseline
    sends.clear();

    room.tick(16'666'667);
    room.take_outbox(sends, closes);
    CHECK(sends.empty());    // the frame waits for its record
    room.take_checkpoint(batch);
    CHECK_FALSE(batch.new_segment);
    CheckpointReader records(batch.bytes);
    const auto frame = records.next();
    REQUIRE(frame);
    CHECK(frame->kind == CheckpointKind::frame);
    room.take_outbox(sends, closes);
    REQUIRE(sends.size() == 1);
    CHECK(Bytes(frame->payload.begin(), frame->payload.end()) == *sends[0].bytes);

    // A call that wrote nothing holds nothing back: a ping's pong goes at once.
    sends.clear();
    Bytes ping;
    encode(ping, Ping{42});
    room.receive(id, ping, 20'000'000);
    room.take_outbox(sends, closes);
    CHECK(sends.size() == 1);
}

TEST_CASE("without checkpoints nothing is held back and take_checkpoint gives nothing") {
    Room<arena::Sim> room = Room<arena::Sim>::create(arena_config()).value();
    const uint32_t id = room.connect(0);
    room.receive(id, hello_with(hello_for<arena::Sim>(Role::play)), 0);
    room.tick(16'666'667);
    std::vector<Outgoing> sends;
    std::vector<CloseRequest> closes;
    room.take_outbox(sends, closes);
    CHECK(sends.size() == 3);
    CheckpointBatch batch;
    room.take_checkpoint(batch);
    CHECK(batch.empty());
}

TEST_CASE("a checkpoint holds no resume token, only what a token can be checked against") {
    Harness<arena::Sim> h(arena_config(), 30);
    h.join(1);
    h.join(2);
    h.run(45);
    h.drop(0);
    h.run(5);
    REQUIRE(h.issued.size() == 2);
    for (const ResumeToken& t : h.issued) CHECK_FALSE(contains<arena::Sim>(h.segment, t));
    // ... and yet the restored room knows them (the test above takes a seat back with one).
    auto restored = Room<arena::Sim>::restore(h.segment);
    REQUIRE(restored.ok());
    CHECK(restored->seat_held(1));
    CHECK(restored->seat_held(2));
}

TEST_CASE("a segment cut short restores up to its last whole record, and says so") {
    Harness<ships::Sim> h(ships_config(), 100);
    h.join(5);
    h.run(30);
    Bytes cut = h.segment;
    cut.resize(cut.size() - 3);   // the last frame torn
    RestoreReport report;
    auto restored = Room<ships::Sim>::restore(cut, &report);
    REQUIRE(restored.ok());
    CHECK(report.torn_tail);
    CHECK(report.tick == 29);
    CHECK(sim::digest<ships::Sim>(restored->state()) == h.digests.at(29));
}

TEST_CASE("a damaged segment is refused by name: no snapshot, another game, another build, a changed input, a missing tick") {
    Harness<arena::Sim> h(arena_config(), 100);
    h.join(5);
    h.run(30);
    const Bytes good = h.segment;
    CHECK(Room<arena::Sim>::restore(good).ok());
    CHECK(Room<arena::Sim>::restore(Bytes{}).error() == RestoreError::empty);
    CHECK(Room<ships::Sim>::restore(good).error() == RestoreError::game_mismatch);

    CheckpointReader records(good);
    std::vector<CheckpointRecord> all;
    while (auto r = records.next()) all.push_back(*r);
    REQUIRE(all.size() > 20);
    REQUIRE(all[0].kind == CheckpointKind::snapshot);
    const std::size_t snapshot_end = checkpoint_record_header_bytes + all[0].payload.size();

    Bytes frames_only(good.begin() + static_cast<std::ptrdiff_t>(snapshot_end), good.end());
    CHECK(Room<arena::Sim>::restore(frames_only).error() == RestoreError::no_snapshot);

    Bytes other_build = good;
    // The fingerprint hash follows the format version (2), the name's length (1) and "arena" (5).
    other_build[checkpoint_record_header_bytes + 2 + 1 + 5] ^= 1;
    CHECK(Room<arena::Sim>::restore(other_build).error() == RestoreError::fingerprint_mismatch);

    // The last frame that carries an input: its command's last byte changed, so stepping it
    // reaches another digest than the one it recorded.
    std::size_t at = 0;
    std::ptrdiff_t changed = -1;
    for (const CheckpointRecord& r : all) {
        const std::size_t start = static_cast<std::size_t>(r.payload.data() - good.data());
        if (r.kind == CheckpointKind::frame && r.payload.size() > frame_header_bytes) {
            changed = static_cast<std::ptrdiff_t>(start + r.payload.size() - 1);
        }
        at = start + r.payload.size();
    }
    REQUIRE(at == good.size());
    REQUIRE(changed > 0);
    Bytes other_input = good;
    other_input[static_cast<std::size_t>(changed)] ^= 0x40;
    const auto refused = Room<arena::Sim>::restore(other_input);
    REQUIRE_FALSE(refused.ok());
    CHECK((refused.error() == RestoreError::digest_mismatch || refused.error() == RestoreError::damaged));

    // A frame left out: the next one is not the next tick.
    Bytes missing;
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (i == 10) continue;
        append_checkpoint_record(missing, all[i].kind, all[i].payload);
    }
    CHECK(Room<arena::Sim>::restore(missing).error() == RestoreError::frame_out_of_order);

    // A record of an unknown kind.
    Bytes unknown = good;
    append_checkpoint_record(unknown, CheckpointKind::frame, Bytes{1, 2, 3});
    unknown[good.size()] = 9;
    CHECK(Room<arena::Sim>::restore(unknown).error() == RestoreError::damaged);
}

TEST_CASE("a shut down that keeps the seats closes every client and leaves their seats to their tokens in the checkpoint") {
    Harness<ships::Sim> h(ships_config(), 100);
    h.join(7);
    h.join(8);
    h.run(20);
    h.room.shut_down(h.now, /*keep_seats=*/true);
    h.store();
    std::vector<Outgoing> sends;
    std::vector<CloseRequest> closes;
    h.room.take_outbox(sends, closes);
    REQUIRE(closes.size() == 2);
    for (const CloseRequest& c : closes) CHECK(c.reason == CloseReason::shutting_down);
    CHECK(h.room.seat_held(1));
    CHECK(h.room.seat_held(2));
    CHECK(h.room.stats().players == 0);
    auto restored = Room<ships::Sim>::restore(h.segment);
    REQUIRE(restored.ok());
    CHECK(restored->seat_held(1));
    CHECK(restored->seat_held(2));
    CHECK(restored->state() == h.room.state());
}
