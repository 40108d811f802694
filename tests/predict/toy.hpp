// The rollback tests' toy game: each player's position integrates its stick, and a history
// hash folds every position in order, so any wrong input at any frame changes every later state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tandem/core/random.hpp"

namespace toy {

struct Toy {
    std::vector<int64_t> pos;
    uint64_t history = 0;
    friend bool operator==(const Toy&, const Toy&) = default;
};
using Stick = int32_t;

inline void toy_step(Toy& t, std::span<const Stick> in) {
    for (size_t p = 0; p < in.size(); ++p) {
        t.pos[p] += in[p];
        t.history = tandem::mix64(t.history ^ static_cast<uint64_t>(t.pos[p]) ^ (uint64_t{p} << 56));
    }
}
inline uint64_t toy_digest(const Toy& t) {
    uint64_t d = t.history;
    for (int64_t p : t.pos) d = tandem::mix64(d ^ static_cast<uint64_t>(p));
    return d;
}

}  // namespace toy
