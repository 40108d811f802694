// Test support shared by the net tests, the CLI's process test and the fuzz seed corpus: a
// message's bytes, hand-writing helpers, and a replay of a scripted match of any game recorded
// the way a room records one (welcome, the baseline at tick 0, then per tick the frame of a
// scenario's inputs and the section digests; optionally later baselines, as a client's export
// holds), from a state stepped here, never by the room.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "arena/sim.hpp"
#include "tandem/net/game_codec.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/net/replay.hpp"
#include "tandem/sim/codec.hpp"
#include "tandem/sim/scenario.hpp"
#include "tandem/sim/state.hpp"

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

template <class G>
struct RecordingOf {
    Bytes file;
    std::vector<typename G::State> worlds;   // worlds[t]: the recorded state at tick t
    std::vector<uint64_t> record_ends;       // the byte offset after each record (the end marker is none)
    std::vector<uint64_t> record_ticks;      // the newest tick a baseline or frame reached once that record is read
};

template <class G>
struct GameRecordOptions {
    uint64_t ticks = 40;
    bool sections = true;                          // a held Sections record after every frame
    std::optional<uint64_t> damage_at;             // the recorded state is damaged after this tick
    std::function<void(typename G::State&)> damage;
    std::vector<uint64_t> baselines_at;            // a Baseline of the recorded state after these ticks' records
    bool end = true;                               // the end marker last, as a writer that finished writes it
};

template <sim::Scripted G>
RecordingOf<G> record_game_match(const typename G::Scenario& s, const GameRecordOptions<G>& o) {
    RecordingOf<G> r;
    uint64_t reached = 0;   // the newest tick recorded so far: the baseline's or a frame's
    const auto add = [&r, &reached](const Bytes& message) {
        append_replay_record(r.file, message);
        r.record_ends.push_back(r.file.size());
        r.record_ticks.push_back(reached);
    };
    append_replay_header<G>(r.file);
    typename G::State w = G::start(s);
    const typename G::Config config = G::config_of(w);
    add(encoded(welcome_for<G>(Role::watch, watcher_id, 2, 0, G::max_players(config), config)));
    reached = G::tick(w);
    add(encoded(Baseline{G::tick(w), sim::encode_snapshot<G>(w)}));
    r.worlds.push_back(w);
    typename G::Stepper stepper;
    for (uint64_t t = 1; t <= o.ticks; ++t) {
        // A frame holds each input once, in canonical order; step applies the same set.
        std::vector<sim::Input<G>> inputs = G::scenario_inputs(s, w);
        sim::sort_canonical<G>(inputs);
        inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
        stepper.step(w, inputs);
        if (o.damage_at == t && o.damage) o.damage(w);
        std::vector<Applied<G>> applied;
        for (const sim::Input<G>& in : inputs) applied.push_back({in, 0});
        Bytes frame;
        encode_frame<G>(frame, G::tick(w), sim::digest<G>(w), applied);
        reached = G::tick(w);
        add(frame);
        if (o.sections) add(encoded(Sections{G::tick(w), true, section_list<G>(sim::digests<G>(w).sections)}));
        if (std::find(o.baselines_at.begin(), o.baselines_at.end(), t) != o.baselines_at.end()) {
            add(encoded(Baseline{G::tick(w), sim::encode_snapshot<G>(w)}));
        }
        r.worlds.push_back(w);
    }
    if (o.end) append_replay_end(r.file);
    return r;
}

// The arena's recording, as the net tests have always made it.
using Recording = RecordingOf<arena::Sim>;

struct RecordOptions {
    uint64_t ticks = 40;
    bool sections = true;                                     // a held Sections record after every frame
    std::optional<uint64_t> corrupt_wells_at = std::nullopt;  // the recorded world is damaged after this tick
    bool end = true;                                          // the end marker last
};

inline Recording record_match(const arena::Scenario& s, const RecordOptions& o) {
    GameRecordOptions<arena::Sim> g;
    g.ticks = o.ticks;
    g.sections = o.sections;
    g.damage_at = o.corrupt_wells_at;
    g.end = o.end;
    g.damage = [](arena::World& w) {
        if (!w.wells.empty()) w.wells[0].pos.x = w.wells[0].pos.x + Fx::from_raw(1);
    };
    return record_game_match<arena::Sim>(s, g);
}

}  // namespace tandem::net::testing
