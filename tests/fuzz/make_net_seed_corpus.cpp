// make_net_seed_corpus DIR client|server|replay|checkpoint: the seed corpus of a net fuzzer, every
// message of that direction (or a small recorded match and its cuts, or a room's checkpoint
// segment and its cuts), so the fuzzer starts inside the formats rather than at the type byte.
// Deterministic: the same files every run.
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

#include "net/recording.hpp"
#include "tandem/net/room.hpp"

using namespace tandem;
using namespace tandem::net::testing;

namespace {

using Sim = arena::Sim;

arena::Scenario small_chaos() {
    arena::Scenario s = *arena::find_scenario("chaos");
    s.config.pellet_count = 8;
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string_view kind = argc == 3 ? argv[2] : "";
    if (kind != "client" && kind != "server" && kind != "replay" && kind != "checkpoint") {
        std::fprintf(stderr, "usage: make_net_seed_corpus DIR client|server|replay|checkpoint\n");
        return 2;
    }
    const std::string dir = argv[1];
    int n = 0;
    auto save = [&](const Bytes& bytes) {
        std::ofstream out(dir + "/seed-" + std::to_string(n++), std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    };
    if (kind == "client") {
        save(encoded(net::hello_for<Sim>(net::Role::play)));
        // A resuming hello, and one with a ticket (the layout's every optional part).
        net::Hello resuming = net::hello_for<Sim>(net::Role::play);
        resuming.resume = net::ResumeToken{};
        resuming.resume->fill(0x5A);
        save(encoded(resuming));
        net::Hello ticketed = net::hello_for<Sim>(net::Role::watch);
        ticketed.ticket = net::Ticket{};
        ticketed.ticket->expires_unix_s = 1'700'000'000;
        ticketed.ticket->role = net::Role::watch;
        ticketed.ticket->room = "default";
        ticketed.ticket->name = "ann \xC3\xA9";
        save(encoded(ticketed));
        save(encoded(net::input_message<Sim>(7, arena::Steer{{Fx::from_int(3), Fx::from_int(-4)}})));
        save(encoded(net::Ack{true, 40, 0x1234}));
        save(encoded(net::Ack{false, 0, 0}));
        save(encoded(net::Ping{123456789}));
        save(encoded(net::Desync{9, {1, 2, 3, 4, 5}}));
    } else if (kind == "server") {
        const arena::Scenario s = small_chaos();
        save(encoded(net::welcome_for<Sim>(net::Role::play, 3, 2, 100, 16, s.config)));
        save(arena_frame(5, 0x99, {{arena::join(1, {Fx::from_int(2), Fx::from_int(3)}), 0},
                                   {arena::steer(1, {Fx::from_int(5), Fx::from_int(6)}), 9},
                                   {arena::leave(2), 0}}));
        save(arena_frame(6, 0x98, {}));
        save(encoded(net::Baseline{0, arena::encode(arena::start(s))}));
        save(encoded(net::Pong{1, 2, 3}));
        save(encoded(net::Sections{9, true, {1, 2, 3, 4, 5}}));
        save(encoded(net::Sections{9, false, {}}));
        save(encoded(net::ErrorMsg{net::ErrorCode::version_mismatch, "protocol version 9, this server speaks 1 \xC3\xA9"}));
    } else if (kind == "checkpoint") {
        // A room with a player who joined, steered and dropped (its seat kept for its token).
        net::RoomConfig<Sim> config;
        config.game = small_chaos().config;
        config.max_players = 2;
        net::Room<Sim> room = net::Room<Sim>::create(config).value();
        room.set_token_source([] {
            net::ResumeToken t{};
            t.fill(5);
            return t;
        });
        room.enable_checkpoints(100);
        const uint32_t id = room.connect(0);
        room.receive(id, encoded(net::hello_for<Sim>(net::Role::play)), 0);
        room.tick(1);
        room.receive(id, encoded(net::input_message<Sim>(1, arena::Steer{{Fx::from_int(3), Fx::from_int(-4)}})), 1);
        room.tick(2);
        room.disconnect(id, 2);
        room.tick(3);
        net::CheckpointBatch batch;
        room.take_checkpoint(batch);
        save(batch.bytes);
        save(Bytes(batch.bytes.begin(), batch.bytes.end() - 3));
    } else {
        const Bytes file = record_match(small_chaos(), {.ticks = 6}).file;
        save(file);
        save(Bytes(file.begin(), file.end() - 3));
    }
    return 0;
}
