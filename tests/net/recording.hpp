// Test support shared by the net tests, the CLI's process test and the fuzz seed corpus: a
// message's bytes, hand-writing helpers, and a replay of an arena match recorded the way a room
// records one (welcome, the baseline at tick 0, then per tick the frame of a scenario's inputs
// and the section digests), from a world stepped here, never by the room.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/sim/codec.hpp"

namespace tandem::net::testing {

using Bytes = std::vector<uint8_t>;

// n little-endian bytes of v appended: hand-written expected bytes, independent of the codec.
inline void le(Bytes& b, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

template <class M>
Bytes encoded(const M& m) {
    Bytes out;
    encode(out, m);
    return out;
}

// The frame of one tick of the arena, through the game's codec.
inline Bytes arena_frame(uint64_t tick, uint64_t digest, const std::vector<Applied<arena::Sim>>& inputs) {
    Bytes out;
    encode_frame<arena::Sim>(out, tick, digest, inputs);
    return out;
}

struct Recording {
    Bytes file;
    std::vector<arena::World> worlds;   // worlds[t]: the recorded world at tick t
    std::vector<uint64_t> record_ends;  // the byte offset after each record
};

struct RecordOptions {
    uint64_t ticks = 40;
    bool sections = true;                                     // a held Sections record after every frame
    std::optional<uint64_t> corrupt_wells_at = std::nullopt;  // the recorded world is damaged after this tick
};

inline Recording record_match(const arena::Scenario& s, const RecordOptions& o) {
    using Sim = arena::Sim;
    Recording r;
    const auto add = [&r](const Bytes& message) {
        append_replay_record(r.file, message);
        r.record_ends.push_back(r.file.size());
    };
    append_replay_header<Sim>(r.file);
    add(encoded(welcome_for<Sim>(Role::watch, watcher_id, 2, 0, s.config.max_players, s.config)));
    arena::World w = arena::start(s);
    add(encoded(Baseline{w.tick, arena::encode(w)}));
    r.worlds.push_back(w);
    arena::Stepper stepper;
    for (uint64_t t = 1; t <= o.ticks; ++t) {
        // A frame holds each input once, in canonical order; step applies the same set.
        std::vector<arena::Input> inputs = arena::scenario_inputs(s, w);
        sim::sort_canonical<Sim>(inputs);
        inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
        stepper.step(w, inputs);
        if (o.corrupt_wells_at == t && !w.wells.empty()) w.wells[0].pos.x = w.wells[0].pos.x + Fx::from_raw(1);
        std::vector<Applied<Sim>> applied;
        for (const arena::Input& in : inputs) applied.push_back({in, 0});
        add(arena_frame(w.tick, arena::digest(w), applied));
        if (o.sections) add(encoded(Sections{w.tick, true, section_list<Sim>(arena::section_digests(w))}));
        r.worlds.push_back(w);
    }
    return r;
}

}  // namespace tandem::net::testing
