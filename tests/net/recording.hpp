// Test support shared by the net tests, the CLI's process test and the fuzz seed corpus: a
// message's bytes, hand-writing helpers, and a replay recorded the way a room records one
// (welcome, the baseline at tick 0, then per tick the frame of a scenario's inputs and the
// section digests), from a world stepped here, never by the room.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "tandem/net/protocol.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/world/scenario.hpp"

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

struct Recording {
    Bytes file;
    std::vector<world::World> worlds;   // worlds[t]: the recorded world at tick t
    std::vector<uint64_t> record_ends;  // the byte offset after each record
};

struct RecordOptions {
    uint64_t ticks = 40;
    bool sections = true;                                     // a held Sections record after every frame
    std::optional<uint64_t> corrupt_wells_at = std::nullopt;  // the recorded world is damaged after this tick
};

inline Recording record_match(const world::Scenario& s, const RecordOptions& o) {
    Recording r;
    const auto add = [&r](const Bytes& message) {
        append_replay_record(r.file, message);
        r.record_ends.push_back(r.file.size());
    };
    append_replay_header(r.file);
    add(encoded(Welcome{Role::watch, watcher_id, 2, 0, s.config.max_players, s.config}));
    world::World w = world::start(s);
    add(encoded(Baseline{w.tick, world::encode(w)}));
    r.worlds.push_back(w);
    world::Stepper stepper;
    for (uint64_t t = 1; t <= o.ticks; ++t) {
        // A frame holds each input once, in canonical order; step applies the same set.
        std::vector<world::Input> inputs = world::scenario_inputs(s, w);
        std::sort(inputs.begin(), inputs.end(), world::canonical_less);
        inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
        stepper.step(w, inputs);
        if (o.corrupt_wells_at == t && !w.wells.empty()) w.wells[0].pos.x = w.wells[0].pos.x + Fx::from_raw(1);
        Frame f{w.tick, world::digest(w), {}};
        for (const world::Input& in : inputs) f.inputs.push_back({in, 0});
        add(encoded(f));
        if (o.sections) add(encoded(Sections{w.tick, true, world::section_digests(w)}));
        r.worlds.push_back(w);
    }
    return r;
}

}  // namespace tandem::net::testing
