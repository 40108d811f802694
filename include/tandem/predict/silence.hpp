// Forgetting entities the server stopped mentioning. A server that filters by relevance
// sends no despawn: it simply stops naming the entity, so the client must time it out. The
// grace is in whatever unit the stamps use (frames, milliseconds); it is never zero.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tandem/core/result.hpp"

namespace tandem::predict {

enum class SilenceError : uint8_t {
    grace_not_positive,
};
inline std::string_view error_name(SilenceError) { return "grace_not_positive"; }
inline std::string_view describe(SilenceError) {
    return "a silence grace must be positive: with no grace, an entity vanishes on the first frame that skips it";
}

// How long an entity may go unmentioned before it is treated as gone. A grace of one frame
// makes entities at the edge of a view radius flicker as both ends drift across it; an
// entity streamed every frame it exists can use a short grace, one sometimes skipped for
// bandwidth needs a longer one.
template <std::integral Stamp = uint64_t>
class Silence {
public:
    static Result<Silence, SilenceError> with_grace(Stamp grace) {
        if (!(grace > 0)) return SilenceError::grace_not_positive;
        return Silence(grace);
    }

    Stamp grace() const { return grace_; }

    // Whether an entity last mentioned at `seen` is still kept at `now`: it is, while it has
    // gone unmentioned for at most `grace`. A stamp from the future is kept.
    bool keeps(Stamp seen, Stamp now) const {
        if (!(now > seen)) return true;
        using U = std::make_unsigned_t<Stamp>;
        return static_cast<U>(static_cast<U>(now) - static_cast<U>(seen)) <= static_cast<U>(grace_);
    }

    // Erases from `map` every entry silent for longer than the grace and returns their keys
    // in the map's order. stamp_of(key, value) -> std::optional<Stamp> gives when the entry
    // was last mentioned, or nothing for an entry silence must never remove (your own entity,
    // a spawn-only projectile that is sent once by design).
    template <class Map, class StampOf>
    std::vector<typename Map::key_type> sweep(Map& map, Stamp now, StampOf&& stamp_of) const {
        std::vector<typename Map::key_type> forgotten;
        for (auto it = map.begin(); it != map.end();) {
            const std::optional<Stamp> seen = stamp_of(it->first, it->second);
            if (seen && !keeps(*seen, now)) {
                forgotten.push_back(it->first);
                it = map.erase(it);
            } else {
                ++it;
            }
        }
        return forgotten;
    }

private:
    explicit Silence(Stamp grace) : grace_(grace) {}
    Stamp grace_;
};

}  // namespace tandem::predict
