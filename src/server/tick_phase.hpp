// Where in the tick period a new room's boundaries fall. Rooms that tick at the same moment
// wait for each other on the process's cores (each tick's step and sends run one after
// another), so a room started beside others takes the middle of the widest gap between their
// phases. Pure: the phases and the clock are passed in.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tandem::server {

// The phase (in [0, step_ns)) that lies in the middle of the widest gap between `phases`
// (each in [0, step_ns), any order, repeats allowed) going round the period; of equally wide
// gaps, the one that begins at the smallest phase. With no phases, `fallback`.
inline int64_t widest_gap_phase(std::vector<int64_t> phases, int64_t step_ns, int64_t fallback) {
    if (phases.empty() || step_ns <= 0) return fallback;
    std::sort(phases.begin(), phases.end());
    int64_t best_start = phases.back();
    int64_t best_width = phases.front() + step_ns - phases.back();   // the gap round the end
    for (size_t k = 1; k < phases.size(); ++k) {
        const int64_t width = phases[k] - phases[k - 1];
        if (width > best_width || (width == best_width && phases[k - 1] < best_start)) {
            best_width = width;
            best_start = phases[k - 1];
        }
    }
    return (best_start + best_width / 2) % step_ns;
}

// A boundary's phase: where in the period [0, step_ns) it falls.
inline int64_t phase_of(int64_t at_ns, int64_t step_ns) {
    const int64_t r = at_ns % step_ns;
    return r < 0 ? r + step_ns : r;
}

// The anchor for a tick grid of phase `phase` started at `now_ns`: the latest instant at or
// before now whose phase it is, so the grid's first boundary (anchor + step) comes within one
// step of now and never before it.
inline int64_t anchor_for_phase(int64_t now_ns, int64_t step_ns, int64_t phase) {
    return now_ns - phase_of(now_ns - phase, step_ns);
}

}  // namespace tandem::server
