// The client's copy of a server-streamed entity set (DeltaMirror), checked against the
// server's SetDigest after every packet, and the key allocator both ends share (SlotAllocator).
// Apply every packet whatever baseline it names: deltas carry absolute values, so applying a
// superset is harmless, while discarding what cannot be rebased silently empties the mirror.
#pragma once

#include <cstdint>
#include <deque>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "tandem/core/digest.hpp"
#include "tandem/core/result.hpp"
#include "tandem/core/slot_key.hpp"
#include "tandem/predict/sequence.hpp"

namespace tandem::predict {

// A settle's verdict: our digest of the set against theirs.
struct Agreement {
    uint64_t ours = 0;
    uint64_t theirs = 0;
    bool agreed() const { return ours == theirs; }
};

// Which keys differ, once the server ships its key list (a debug build's diagnosis).
struct Divergence {
    std::vector<SlotKey> missing;   // they hold it, we do not: lost or never sent
    std::vector<SlotKey> extra;     // we hold it, they do not: a removal never landed
    bool empty() const { return missing.empty() && extra.empty(); }
};

// One occupant per slot index, named by SlotKey (index and generation). Three counters, to
// be read separately: frames_lost() counts packet sequence numbers that never arrived,
// stale_refs() counts messages naming an occupant other than the one held at that index
// when the one held is newer, divergences() counts digest mismatches, which neither of the
// other two predicts.
template <class T>
class DeltaMirror {
public:
    // Opens a packet. A full baseline replaces the whole set. Sequences wrap (u32).
    void begin(uint32_t seq, bool full_baseline) {
        const Seq32 s(seq);
        if (last_seq_) {
            const int64_t gap = s.distance_from(*last_seq_);
            if (gap > 1) frames_lost_ += static_cast<uint64_t>(gap - 1);
            if (gap > 0) last_seq_ = s;
        } else {
            last_seq_ = s;
        }
        if (full_baseline) drop_entries();
    }

    // Enters or updates an occupant. An older generation than the one held is stale: the
    // message is about an occupant that has already been replaced, and is ignored.
    void insert(SlotKey key, T value) {
        auto it = entries_.find(key.index);
        if (it == entries_.end()) {
            entries_.emplace(key.index, Held{key.generation, std::move(value)});
            digest_.insert(key.encode());
            return;
        }
        Held& held = it->second;
        if (held.generation == key.generation) {
            held.value = std::move(value);   // absolute values: re-applying is idempotent
            return;
        }
        if (Seq32(key.generation).is_after(Seq32(held.generation))) {
            digest_.remove(SlotKey{key.index, held.generation}.encode());
            digest_.insert(key.encode());
            held = Held{key.generation, std::move(value)};
            return;
        }
        ++stale_refs_;
    }

    // Removes an occupant. Removing what is not held is a no-op (a re-applied delta); a key
    // older than the occupant held is stale and ignored; a newer one means the occupant held
    // died before it, so the slot is empty on the server and is emptied here too.
    void remove(SlotKey key) {
        auto it = entries_.find(key.index);
        if (it == entries_.end()) return;
        const uint32_t held = it->second.generation;
        if (held != key.generation && Seq32(held).is_after(Seq32(key.generation))) {
            ++stale_refs_;
            return;
        }
        digest_.remove(SlotKey{key.index, held}.encode());
        entries_.erase(it);
    }

    // Closes a packet against the server's SetDigest of its set.
    Agreement settle(uint64_t their_digest) {
        const Agreement a{digest_.digest(), their_digest};
        if (!a.agreed()) ++divergences_;
        return a;
    }

    // Compares the held keys with the server's full key list (any order, duplicates ignored).
    template <class Keys>
    Divergence divergence_from(const Keys& their_keys) const {
        std::map<uint64_t, SlotKey> theirs;   // ordered by the encoded key: a total order
        for (const SlotKey& key : their_keys) theirs.emplace(key.encode(), key);
        Divergence d;
        for (const auto& [encoded, key] : theirs)
            if (!contains(key)) d.missing.push_back(key);
        for (const auto& [index, held] : entries_) {
            const SlotKey key{index, held.generation};
            if (!theirs.contains(key.encode())) d.extra.push_back(key);
        }
        return d;
    }

    // Drops the whole mirror and forgets the sequence: the resume contract. A client may
    // discard any stretch of the stream provided it drops what it derived from it; an
    // acknowledgement of nothing is then answered with a full baseline. The skipped packets
    // were not lost by the wire, so they are not counted as lost.
    void clear() {
        drop_entries();
        last_seq_.reset();
    }

    const T* find(SlotKey key) const {
        const auto it = entries_.find(key.index);
        if (it == entries_.end() || it->second.generation != key.generation) return nullptr;
        return &it->second.value;
    }
    bool contains(SlotKey key) const { return find(key) != nullptr; }
    uint32_t size() const { return static_cast<uint32_t>(entries_.size()); }
    uint64_t digest() const { return digest_.digest(); }

    // f(SlotKey, const T&) for each occupant, in index order.
    template <class F>
    void for_each(F&& f) const {
        for (const auto& [index, held] : entries_) f(SlotKey{index, held.generation}, held.value);
    }

    uint64_t frames_lost() const { return frames_lost_; }
    uint64_t stale_refs() const { return stale_refs_; }
    uint64_t divergences() const { return divergences_; }

private:
    struct Held {
        uint32_t generation;
        T value;
    };

    void drop_entries() {
        entries_.clear();
        digest_ = SetDigest{};
    }

    std::map<uint32_t, Held> entries_;
    SetDigest digest_;
    std::optional<Seq32> last_seq_;
    uint64_t frames_lost_ = 0;
    uint64_t stale_refs_ = 0;
    uint64_t divergences_ = 0;
};

// Which freed slot to reuse first. FIFO keeps a freed slot idle longest, which gives a late
// message about its dead occupant the most time to arrive before the slot is reoccupied;
// LIFO reuses the most recently freed (warm in cache), which scatters despawn runs.
enum class ReusePolicy : uint8_t { fifo, lifo };

enum class SlotError : uint8_t {
    not_live,   // the key names no live occupant: never allocated, already freed, or stale
};
inline std::string_view error_name(SlotError) { return "not_live"; }
inline std::string_view describe(SlotError) {
    return "the key does not name a live occupant (never allocated, already freed, or an older generation)";
}

// Hands out SlotKeys for a client that allocates its own, keyed exactly like the server's.
// The generation of a slot bumps when it is freed, never when it is allocated, so a key
// held past its occupant's death never matches the next occupant. Storage is the caller's,
// sized by index_space().
class SlotAllocator {
public:
    SlotAllocator() = default;
    static SlotAllocator with_capacity(uint32_t capacity);
    SlotAllocator with_policy(ReusePolicy policy) const {
        SlotAllocator copy = *this;
        copy.policy_ = policy;
        return copy;
    }

    SlotKey alloc();
    Result<void, SlotError> free(SlotKey key);
    bool is_live(SlotKey key) const;

    // Indices handed out so far (one past the highest): size your storage by this.
    uint32_t index_space() const { return static_cast<uint32_t>(generations_.size()); }
    uint32_t live() const { return live_; }
    ReusePolicy policy() const { return policy_; }

private:
    std::vector<uint32_t> generations_;
    std::vector<bool> occupied_;
    std::deque<uint32_t> free_;
    uint32_t live_ = 0;
    ReusePolicy policy_ = ReusePolicy::fifo;
};

}  // namespace tandem::predict
