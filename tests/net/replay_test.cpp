// Properties of the replays (tandem/net/replay.hpp, src/net/replay.cpp), over the arena: the header and record bytes are the documented layout,
// written out here by hand; a replay recorded by hand from a world stepped in the test checks
// clean, and the checker names the first divergent tick (and section, where the file holds
// the room's section digests there) of a replay damaged on purpose; every kind of bad file is
// refused with its typed error, every cut inside a record as truncated; where the file holds a
// state at or after the divergent tick, the checker names the fields that differ there.
#include "tandem/net/replay.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "net/recording.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/room.hpp"

using namespace tandem;
using namespace tandem::net;

namespace {

using namespace tandem::net::testing;
using Sim = arena::Sim;

// A small chaos match (players joining, leaving and steering at random).
arena::Scenario small_chaos() {
    arena::Scenario s = *arena::find_scenario("chaos");
    s.config.pellet_count = 120;
    return s;
}

Recording record(const RecordOptions& o) { return record_match(small_chaos(), o); }

Replay read_ok(const Bytes& file) {
    auto r = read_replay<Sim>(file);
    INFO(r.message());
    REQUIRE(r.ok());
    return std::move(r).value();
}

ReplayError read_error(const Bytes& file) {
    const auto r = read_replay<Sim>(file);
    REQUIRE_FALSE(r.ok());
    return r.error().error;
}

// A finished file: this build's header, the given messages as records, the end marker.
Bytes file_of(std::initializer_list<Bytes> messages) {
    Bytes file;
    append_replay_header<Sim>(file);
    for (const Bytes& m : messages) append_replay_record(file, m);
    append_replay_end(file);
    return file;
}

Bytes baseline_at_0() {
    const arena::World w = arena::make_world(small_chaos().config).value();
    return encoded(Baseline{0, arena::encode(w)});
}

}  // namespace

TEST_CASE("a replay header is TNDR, format 2, the protocol version and the game's fingerprint hash, little-endian") {
    Bytes expected = {'T', 'N', 'D', 'R', 2, 0, 5, 0};  // format 2, protocol 5
    le(expected, arena::fingerprint_hash(), 8);
    Bytes out;
    append_replay_header<Sim>(out);
    CHECK(out == expected);
    CHECK(out.size() == replay_header_bytes);
}

TEST_CASE("a replay record is the message's u32 length, then its bytes as they are") {
    Bytes out = {0xEE};  // records append to what is there
    append_replay_record(out, Bytes{0x83, 1, 2, 3, 4, 5});
    CHECK(out == Bytes{0xEE, 6, 0, 0, 0, 0x83, 1, 2, 3, 4, 5});
}

TEST_CASE("a replay recorded from a stepped world reads back and checks clean at every tick") {
    const Recording rec = record({});
    const Replay replay = read_ok(rec.file);
    REQUIRE(replay.welcome);
    CHECK(replay.welcome->role == Role::watch);
    CHECK(replay.records.size() == 2 + 2 * 40);
    const ReplayCheck check = check_replay<Sim>(replay);
    CHECK_FALSE(check.divergence);
    CHECK(check.first_tick == 0);
    CHECK(check.last_tick == 40);
    CHECK(check.frames_checked == 40);
}

TEST_CASE("the world at a tick is the one the recording stepped to, and a tick outside is not covered") {
    const Recording rec = record({});
    const Replay replay = read_ok(rec.file);
    for (uint64_t t : {0u, 1u, 17u, 40u}) {
        const auto w = replay_state_at<Sim>(replay, t);
        REQUIRE(w.ok());
        CHECK(*w == rec.worlds[t]);
    }
    const auto past = replay_state_at<Sim>(replay, 41);
    REQUIRE_FALSE(past.ok());
    CHECK(past.error().error == ReplayError::tick_not_covered);
    CHECK(past.error().text == "tick 41 is not in the replay (it covers ticks 0 to 40)");
}

TEST_CASE("a corrupted frame digest is named at its tick, with no section differing") {
    Recording rec = record({});
    // Record 2 + 2 * (t - 1) is tick t's frame; its digest field starts 4 + 1 + 8 bytes in.
    const uint64_t t = 23;
    const uint64_t frame_start = rec.record_ends[2 + 2 * (t - 1) - 1];
    rec.file[frame_start + 4 + 1 + 8] ^= 0x01;
    const ReplayCheck check = check_replay<Sim>(read_ok(rec.file));
    REQUIRE(check.divergence);
    CHECK(check.divergence->tick == t);
    CHECK(check.divergence->actual_digest == arena::digest(rec.worlds[t]));
    CHECK(check.divergence->sections_known);
    CHECK(check.divergence->sections.empty());
    CHECK(check.frames_checked == t);
}

TEST_CASE("a room world that diverged is named at its tick and by the section that differs") {
    const uint64_t t = 12;
    const Recording rec = record({.corrupt_wells_at = t});
    REQUIRE_FALSE(rec.worlds[t].wells.empty());
    const ReplayCheck check = check_replay<Sim>(read_ok(rec.file));
    REQUIRE(check.divergence);
    CHECK(check.divergence->tick == t);
    CHECK(check.divergence->expected_digest == arena::digest(rec.worlds[t]));
    CHECK(check.divergence->sections_known);
    CHECK(check.divergence->sections == std::vector<std::string_view>{"wells"});

    // Without the room's Sections records the tick is still named, the section cannot be.
    const Recording bare = record({.sections = false, .corrupt_wells_at = t});
    const ReplayCheck bare_check = check_replay<Sim>(read_ok(bare.file));
    REQUIRE(bare_check.divergence);
    CHECK(bare_check.divergence->tick == t);
    CHECK_FALSE(bare_check.divergence->sections_known);
    CHECK(bare_check.divergence->sections.empty());

    // The dump steps on past the divergence: it shows this build's own world there and after.
    const auto after = replay_state_at<Sim>(read_ok(rec.file), t + 5);
    REQUIRE(after.ok());
    CHECK(after->tick == t + 5);
    CHECK(*after != rec.worlds[t + 5]);
}

TEST_CASE("a later baseline is checked world against world, or adopted past a gap in the frames") {
    const Recording rec = record({.sections = false});
    const Replay full = read_ok(rec.file);
    // A client's export: welcome, baseline 0, frames 1..10, baseline 10 (a heal), frames 11..20,
    // then a baseline at 30 (it resynced after missing 21..30) and frames 31..40.
    Replay client;
    client.welcome = full.welcome;
    client.records.assign(full.records.begin(), full.records.begin() + 2 + 10);
    client.records.push_back(Baseline{10, arena::encode(rec.worlds[10])});
    client.records.insert(client.records.end(), full.records.begin() + 12, full.records.begin() + 22);
    client.records.push_back(Baseline{30, arena::encode(rec.worlds[30])});
    client.records.insert(client.records.end(), full.records.begin() + 32, full.records.end());
    Bytes file;
    append_replay_header<Sim>(file);
    for (const ServerMessage& m : client.records) append_replay_record(file, encoded(m));
    const ReplayCheck check = check_replay<Sim>(read_ok(file));
    CHECK_FALSE(check.divergence);
    CHECK(check.frames_checked == 30);
    CHECK(check.baselines_checked == 1);
    CHECK(check.baselines_adopted == 1);
    CHECK(check.last_tick == 40);
    const auto in_gap = replay_state_at<Sim>(read_ok(file), 25);
    REQUIRE_FALSE(in_gap.ok());
    CHECK(in_gap.error().text == "tick 25 is not in the replay (it covers ticks 0 to 40, with gaps)");

    // A heal baseline that disagrees with the re-run names the sections from the whole world.
    arena::World bad = rec.worlds[10];
    bad.rng = XorShift::from_state(bad.rng.state() + 1);
    client.records[12] = Baseline{10, arena::encode(bad)};
    const ReplayCheck healed = check_replay<Sim>(client);
    REQUIRE(healed.divergence);
    CHECK(healed.divergence->tick == 10);
    CHECK(healed.divergence->sections == std::vector<std::string_view>{"rng"});
}

TEST_CASE("a replay ends with the end marker, a u32 zero, and a file that ends with it reads as marked") {
    Bytes out = {0xEE};
    append_replay_end(out);
    CHECK(out == Bytes{0xEE, 0, 0, 0, 0});
    const Recording rec = record({.ticks = 3});
    REQUIRE(rec.file.size() == rec.record_ends.back() + 4);
    CHECK(Bytes(rec.file.end() - 4, rec.file.end()) == Bytes{0, 0, 0, 0});
    const Replay r = read_ok(rec.file);
    CHECK(r.end == ReplayEnd::marked);
    CHECK(replay_coverage(r).last == 3);
}

TEST_CASE("every cut of a finished replay is truncated: inside a record refused at the cut record, after a whole one read as cut short to its last tick") {
    // The writer's side is the reference: where each record ends and the newest tick it holds.
    const Recording rec = record({.ticks = 3});
    for (size_t n = 0; n <= rec.file.size(); ++n) {
        // An exact-size copy: a read past its end is a heap overflow ASan reports.
        const Bytes cut(rec.file.begin(), rec.file.begin() + static_cast<std::ptrdiff_t>(n));
        const auto r = read_replay<Sim>(cut);
        INFO("length " << n << " of " << rec.file.size());
        if (n == rec.file.size()) {
            REQUIRE(r.ok());
            CHECK(r->end == ReplayEnd::marked);
            CHECK(replay_coverage(*r).last == 3);
            continue;
        }
        const auto boundary = std::find(rec.record_ends.begin(), rec.record_ends.end(), n);
        if (n < replay_header_bytes) {
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().error == ReplayError::truncated);
            CHECK(r.error().offset == 0);   // the header's
        } else if (boundary != rec.record_ends.end() && boundary - rec.record_ends.begin() >= 1) {
            // After a whole record (the baseline or later), without the marker.
            const auto k = static_cast<size_t>(boundary - rec.record_ends.begin());
            REQUIRE(r.ok());
            CHECK(r->end == ReplayEnd::cut_short);
            CHECK(r->records.size() == k + 1);
            CHECK(replay_coverage(*r).last == rec.record_ticks[k]);
            CHECK_FALSE(check_replay<Sim>(*r).divergence);
        } else if (n == replay_header_bytes || boundary != rec.record_ends.end()) {
            // The header alone, or the welcome alone, without the marker: cut before the match.
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().error == ReplayError::truncated);
        } else {
            // Inside a record (the end marker included): refused at that record's first byte,
            // the end of the whole records before it.
            REQUIRE_FALSE(r.ok());
            CHECK(r.error().error == ReplayError::truncated);
            uint64_t start = replay_header_bytes;
            for (uint64_t e : rec.record_ends) {
                if (e <= n) start = e;
            }
            CHECK(r.error().offset == start);
        }
    }
}

TEST_CASE("bytes after the end marker are a bad record") {
    Bytes file = record({.ticks = 2}).file;
    file.push_back(0);
    CHECK(read_error(file) == ReplayError::bad_record);
    Bytes twice = record({.ticks = 2}).file;
    append_replay_end(twice);
    CHECK(read_error(twice) == ReplayError::bad_record);
}

TEST_CASE("each kind of bad file is refused with its typed error") {
    const Bytes good = record({.ticks = 2}).file;
    const auto with = [&good](size_t at, uint8_t value) {
        Bytes b = good;
        b[at] = value;
        return b;
    };
    CHECK(read_error(with(0, 'X')) == ReplayError::bad_magic);
    CHECK(read_error(with(4, 1)) == ReplayError::unsupported_version);   // the arena-only format
    CHECK(read_error(with(6, 9)) == ReplayError::protocol_mismatch);
    CHECK(read_error(with(8, good[8] ^ 1)) == ReplayError::fingerprint_mismatch);

    const Bytes welcome = encoded(welcome_for<Sim>(Role::watch, watcher_id, 2, 0, 16, small_chaos().config));
    const Bytes b0 = baseline_at_0();
    CHECK(read_error(file_of({welcome, Bytes{0x82, 1}})) == ReplayError::bad_record);  // a frame cut short
    CHECK(read_error(file_of({welcome, b0, encoded(Pong{})})) == ReplayError::bad_record);
    CHECK(read_error(file_of({welcome, b0, encoded(ErrorMsg{net::ErrorCode::idle, "x"})})) == ReplayError::bad_record);
    CHECK(read_error(file_of({welcome, b0, encoded(Hello{})})) == ReplayError::bad_record);  // a client message

    CHECK(read_error(file_of({welcome, arena_frame(1, 0, {})})) == ReplayError::out_of_order);
    CHECK(read_error(file_of({welcome, b0, arena_frame(2, 0, {})})) == ReplayError::out_of_order);
    CHECK(read_error(file_of({b0, welcome})) == ReplayError::out_of_order);
    arena::WorldConfig other_config = small_chaos().config;
    other_config.seed += 1;
    const Welcome other = welcome_for<Sim>(Role::watch, watcher_id, 2, 0, 16, other_config);
    CHECK(read_error(file_of({welcome, b0, encoded(other)})) == ReplayError::out_of_order);
    CHECK(read_error(file_of({welcome, b0, arena_frame(1, 0, {}), b0})) == ReplayError::out_of_order);
    CHECK(read_ok(file_of({welcome, b0, welcome})).records.size() == 3);  // a reconnect: the same room

    CHECK(read_error(file_of({welcome, encoded(Baseline{0, {1, 2, 3}})})) == ReplayError::bad_baseline);
    CHECK(read_error(file_of({welcome, encoded(Baseline{5, arena::encode(arena::make_world(small_chaos().config).value())})})) ==
          ReplayError::bad_baseline);
    CHECK(read_error(file_of({encoded(other), b0})) == ReplayError::bad_baseline);  // another config
    CHECK(read_error(file_of({welcome})) == ReplayError::no_baseline);

    // A record length far past the end is refused before anything is read for it.
    Bytes huge;
    append_replay_header<Sim>(huge);
    le(huge, 0xFFFFFFFFu, 4);
    const auto r = read_replay<Sim>(huge);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().error == ReplayError::truncated);
    CHECK(r.error().text == "a record claims 4294967295 bytes and 0 remain, in record 0 at byte 16");
}

TEST_CASE("a room's own recording reads and checks clean, and a flipped digest in it is named") {
    RoomConfig<Sim> config;
    config.game = small_chaos().config;
    Room<Sim> room = Room<Sim>::create(config).value();
    int64_t now = 0;
    const uint32_t a = room.connect(now);
    const uint32_t b = room.connect(now);
    room.receive(a, encoded(hello_for<Sim>(Role::play)), now);
    room.tick(now += 16'000'000);
    room.start_recording();
    room.receive(b, encoded(hello_for<Sim>(Role::play)), now);
    for (uint32_t t = 1; t <= 30; ++t) {
        room.receive(a, encoded(input_message<Sim>(t, arena::Steer{{Fx::from_int(static_cast<int32_t>(10 * t)), Fx::from_int(500)}})), now);
        if (t % 3 == 0) room.receive(b, encoded(input_message<Sim>(t, arena::Steer{{Fx::from_int(900), Fx::from_int(static_cast<int32_t>(20 * t))}})), now);
        if (t == 20) room.disconnect(b, now);
        room.tick(now += 16'000'000);
    }
    Bytes file;
    room.take_recording(file);
    CHECK(read_ok(file).end == ReplayEnd::cut_short);   // a recording still going
    room.end_recording();
    const arena::World last = room.state();
    room.tick(now += 16'000'000);                       // nothing is recorded after its end
    room.take_recording(file);
    const Replay replay = read_ok(file);
    CHECK(replay.end == ReplayEnd::marked);
    const ReplayCheck check = check_replay<Sim>(replay);
    CHECK_FALSE(check.divergence);
    CHECK(check.frames_checked == 30);
    const auto end = replay_state_at<Sim>(replay, check.last_tick);
    REQUIRE(end.ok());
    CHECK(*end == last);

    // The digest of the 10th frame (record 2 + 2 * 9), 4 + 1 + 8 bytes into its record.
    uint64_t at = replay_header_bytes;
    for (int record = 0; record < 2 + 2 * 9; ++record) {
        at += 4 + (file[at] | file[at + 1] << 8 | file[at + 2] << 16 | uint64_t{file[at + 3]} << 24);
    }
    file[at + 4 + 1 + 8] ^= 0x80;
    room.start_recording();   // once: a finished recording is not begun again
    Bytes none;
    room.take_recording(none);
    CHECK(none.empty());
    const ReplayCheck damaged = check_replay<Sim>(read_ok(file));
    REQUIRE(damaged.divergence);
    CHECK(damaged.divergence->tick == check.first_tick + 10);
}

TEST_CASE("each ReplayError has a distinct name and a sentence") {
    std::vector<std::string_view> names;
    for (int e = 0; e <= static_cast<int>(ReplayError::tick_not_covered); ++e) {
        names.push_back(error_name(static_cast<ReplayError>(e)));
        CHECK(names.back() != "unknown");
        CHECK(describe(static_cast<ReplayError>(e)).size() > 20);
    }
    std::sort(names.begin(), names.end());
    CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
}

// ---- The field diff -----------------------------------------------------------------------
namespace {
// The records of `rec` with a baseline of the recorded world at tick `at` inserted right after
// that tick's frame and sections (as a client's export holds the heal the room sent it).
Bytes with_baseline_at(const Recording& rec, uint64_t at) {
    Replay r = read_ok(rec.file);
    const std::size_t after = 2 + 2 * at;   // welcome, baseline 0, then frame and sections per tick
    r.records.insert(r.records.begin() + static_cast<std::ptrdiff_t>(after), Baseline{at, arena::encode(rec.worlds[at])});
    Bytes file;
    append_replay_header<Sim>(file);
    for (const ServerMessage& m : r.records) append_replay_record(file, encoded(m));
    return file;
}
}  // namespace

TEST_CASE("a divergence names the one field that differs in the replay's state at or after its tick") {
    const uint64_t t = 12;
    const Recording rec = record({.corrupt_wells_at = t});
    const arena::Well& damaged = rec.worlds[t].wells[0];
    for (uint64_t at : {t, t + 3}) {
        INFO("baseline at " << at);
        const ReplayCheck check = check_replay<Sim>(read_ok(with_baseline_at(rec, at)));
        REQUIRE(check.divergence);
        CHECK(check.divergence->tick == t);
        // The check's counts stop at the divergence; only the diff's re-run stepped on.
        CHECK(check.frames_checked == t);
        CHECK(check.last_tick == t);
        REQUIRE(check.divergence->fields);
        CHECK(check.divergence->fields_tick == at);
        if (at == t) {
            // Exactly what the recording damaged: well 0's x, one raw unit more in the replay.
            const sim::FieldDiff& d = *check.divergence->fields;
            CHECK(d.total == 1);
            REQUIRE(d.differences.size() == 1);
            const std::string path = "wells[" + std::to_string(damaged.player) + "].pos.x";
            CHECK(d.differences[0] == sim::FieldDifference{path, "wells", std::to_string(damaged.pos.x.raw()),
                                                           std::to_string(damaged.pos.x.raw() - 1)});
        } else {
            CHECK(check.divergence->fields->total >= 1);
        }
    }
    // No state at or after the divergence: no field diff.
    const ReplayCheck bare = check_replay<Sim>(read_ok(rec.file));
    REQUIRE(bare.divergence);
    CHECK_FALSE(bare.divergence->fields);
    // A state held only before the divergence says nothing about it.
    const ReplayCheck early = check_replay<Sim>(read_ok(with_baseline_at(rec, t - 2)));
    REQUIRE(early.divergence);
    CHECK(early.divergence->tick == t);
    CHECK(early.baselines_checked == 1);
    CHECK_FALSE(early.divergence->fields);
}

TEST_CASE("a heal baseline that disagrees is diffed against the re-run at its own tick") {
    const Recording rec = record({.ticks = 20, .sections = false});
    Replay r = read_ok(rec.file);
    arena::World bad = rec.worlds[10];
    bad.rng = XorShift::from_state(bad.rng.state() + 1);
    r.records.insert(r.records.begin() + 12, Baseline{10, arena::encode(bad)});
    const ReplayCheck check = check_replay<Sim>(r);
    REQUIRE(check.divergence);
    CHECK(check.divergence->tick == 10);
    REQUIRE(check.divergence->fields);
    CHECK(check.divergence->fields_tick == 10);
    REQUIRE(check.divergence->fields->differences.size() == 1);
    CHECK(check.divergence->fields->differences[0] ==
          sim::FieldDifference{"rng.state", "rng", std::to_string(bad.rng.state()), std::to_string(rec.worlds[10].rng.state())});
}

TEST_CASE("records the game refuses are bad records: another game's welcome, a frame's command, a sections count") {
    const Bytes b0 = baseline_at_0();
    const Bytes welcome = encoded(welcome_for<Sim>(Role::watch, watcher_id, 2, 0, 16, small_chaos().config));
    Welcome named = welcome_for<Sim>(Role::watch, watcher_id, 2, 0, 16, small_chaos().config);
    named.game = "ships";
    CHECK(read_error(file_of({encoded(named), b0})) == ReplayError::bad_record);
    Welcome short_config = named;
    short_config.game = "arena";
    short_config.config.pop_back();
    CHECK(read_error(file_of({encoded(short_config), b0})) == ReplayError::bad_record);
    // A frame of one input whose command is 3 bytes, not the arena's 8.
    Bytes frame = {0x82, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 3};
    frame.insert(frame.end(), {1, 0, 0, 0, 2, 0, 0, 0, 0, 1, 2, 3});
    REQUIRE(decode_server(frame).ok());
    CHECK(read_error(file_of({welcome, b0, frame})) == ReplayError::bad_record);
    CHECK(read_error(file_of({welcome, b0, encoded(Sections{0, true, {1, 2, 3}})})) == ReplayError::bad_record);
    CHECK(read_ok(file_of({welcome, b0, encoded(Sections{0, false, {}})})).records.size() == 3);
}
