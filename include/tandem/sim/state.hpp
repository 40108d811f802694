// What the kit derives from a game's one state visitor (simulation.hpp), for every game and
// with no further code from it: the digest and the named section digests, the canonical
// snapshot (encode, and a decode that refuses anything else with a typed error), the text
// dump (one field per line) and a field diff of two states. Each is a visitor class below;
// none of them may depend on anything but the fields walked, in the order walked.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/bytes.hpp"
#include "tandem/core/digest.hpp"
#include "tandem/core/result.hpp"
#include "tandem/sim/fields.hpp"
#include "tandem/sim/simulation.hpp"

namespace tandem::sim {

// How a visitor that names fields by their dotted path ("pos.x") follows object(): the walk
// runs with "name." appended to the path, which is restored after.
template <class F>
void walk_nested(std::string& path, std::string_view name, F&& walk) {
    const std::size_t outer = path.size();
    path += name;
    path += '.';
    walk();
    path.resize(outer);
}

// ---- Digests ---------------------------------------------------------------------------------
template <class G>
using SectionDigests = std::array<uint64_t, section_count<G>>;

template <class G>
struct Digests {
    uint64_t digest = 0;
    SectionDigests<G> sections{};
    friend bool operator==(const Digests&, const Digests&) = default;
};

namespace detail {
inline constexpr uint8_t header_section = 0xFF;

template <class F>
void for_each_bit(uint32_t mask, F&& f) {
    for (uint32_t s = 0; mask != 0; ++s, mask >>= 1) {
        if (mask & 1u) f(s);
    }
}

// Fields to the StateDigest of their section; a list's count and each element's key to every
// section the list spans (simulation.hpp states the rule). The digests live outside the
// visitor: a byte stored into one of them then cannot alias the visitor's own members, which
// the compiler would otherwise reload after every field (it made the walk twice as slow).
template <class G>
class DigestVisitor {
public:
    // Slot 0 is the header, slot s + 1 section s.
    using Store = std::array<StateDigest, section_count<G> + 1>;
    explicit DigestVisitor(Store& store) : store_(store), target_(&store[0]) {}

    template <class T>
    void field(std::string_view, const T& v) {
        FieldTraits<std::remove_cv_t<T>>::digest(*target_, v);
    }
    template <class T, class S>
    void field(std::string_view, const T& v, S section) {
        FieldTraits<std::remove_cv_t<T>>::digest(store_[static_cast<uint32_t>(section) + 1], v);
    }
    template <class S>
    void section(S s) {
        current_ = static_cast<uint32_t>(s);
        target_ = &store_[current_ + 1];
    }
    template <class C>
    void config(std::string_view, const C& c) {
        G::visit_config(*this, c);
    }
    template <class E, class F>
    void list(std::string_view name, const std::vector<E>& v, Count count, F&& element) {
        list(name, v, count, Also{}, element);
    }
    template <class E, class F>
    void list(std::string_view, const std::vector<E>& v, Count, Also also, F&& element) {
        const uint32_t spans = also.mask | (current_ == header_section ? 0u : (uint32_t{1} << current_));
        for_each_bit(spans, [&](uint32_t s) { store_[s + 1].write_u32(static_cast<uint32_t>(v.size())); });
        const uint32_t saved = spans_;
        StateDigest* const saved_single = key_single_;
        spans_ = spans;
        // The common case, a list within one section, writes its keys without the loop.
        key_single_ = (spans & (spans - 1)) == 0 && spans != 0 ? target_ : nullptr;
        for (const E& e : v) element(e);
        spans_ = saved;
        key_single_ = saved_single;
    }
    template <class T>
    void key(std::string_view, const T& v) {
        if (key_single_ != nullptr) return FieldTraits<std::remove_cv_t<T>>::digest(*key_single_, v);
        for_each_bit(spans_, [&](uint32_t s) { FieldTraits<std::remove_cv_t<T>>::digest(store_[s + 1], v); });
    }
    template <class F>
    void object(std::string_view, F&& walk) {
        walk();
    }
    template <class F>
    void derived(std::string_view, F&& compute) {
        target_->write_u64(compute());
    }
    template <class F>
    void require(F&&) {}

    Digests<G> finish() const {
        Digests<G> out;
        StateDigest all = store_[0];
        for (uint32_t s = 0; s < section_count<G>; ++s) {
            out.sections[s] = store_[s + 1].finish();
            all.write_u64(out.sections[s]);
        }
        out.digest = all.finish();
        return out;
    }

private:
    Store& store_;
    StateDigest* target_;              // the current section's digest (the header before any)
    StateDigest* key_single_ = nullptr;
    uint32_t current_ = header_section;
    uint32_t spans_ = 0;
};
}  // namespace detail

// Flattened: the game's visit_state and its lambdas are inlined here, so the visitor is a local
// whose members (the current digest, the list's spans) stay in registers. Called out of line,
// visit_state sees the visitor through a reference that any spill could change, and reloads
// it after every field: 1.1-1.5x the hand-written digest of the build before the seam.
template <class G>
[[gnu::flatten]] Digests<G> digests(const typename G::State& state) {
    typename detail::DigestVisitor<G>::Store store;
    detail::DigestVisitor<G> v(store);
    G::visit_state(v, state);
    return v.finish();
}
template <class G>
uint64_t digest(const typename G::State& state) {
    return digests<G>(state).digest;
}

// The names of the sections whose digests differ, in section order.
template <class G>
std::vector<std::string_view> differing_sections(const SectionDigests<G>& a, const SectionDigests<G>& b) {
    std::vector<std::string_view> out;
    for (uint32_t s = 0; s < section_count<G>; ++s) {
        if (a[s] != b[s]) out.push_back(G::sections[s]);
    }
    return out;
}
// The same over digests that came off the wire (any count; extra entries on either side differ).
template <class G>
std::vector<std::string_view> differing_sections(std::span<const uint64_t> a, std::span<const uint64_t> b) {
    std::vector<std::string_view> out;
    for (uint32_t s = 0; s < section_count<G>; ++s) {
        const bool differ = s >= a.size() || s >= b.size() || a[s] != b[s];
        if (differ) out.push_back(G::sections[s]);
    }
    return out;
}

// ---- Snapshots -------------------------------------------------------------------------------
// Layout (little-endian): "TNDM" | u16 snapshot_format_version | u64 fingerprint_hash<G>()
// | every field as visit_state walks it (a list as its u32 count, then its elements; derived
// values are not written) | u64 digest<G>(state).
inline constexpr uint16_t snapshot_format_version = 2;

// "tandem snapshot/2 Q16.16 arena/2": the snapshot format, the number format, the game and its
// simulation version. Two builds that print different strings must not exchange snapshots or
// play together; the hello, the snapshot and the replay header carry its hash.
template <class G>
std::string fingerprint() {
    return "tandem snapshot/" + std::to_string(snapshot_format_version) + " Q16.16 " + std::string(G::name) + "/" +
           std::to_string(G::version);
}
uint64_t fingerprint_hash(std::string_view fingerprint_text);
template <class G>
uint64_t fingerprint_hash() {
    static const uint64_t hash = fingerprint_hash(fingerprint<G>());
    return hash;
}

enum class DecodeError : uint8_t {
    truncated,              // the bytes end before a field the format requires
    bad_magic,              // not a tandem snapshot
    unsupported_version,    // a format version this build cannot read
    fingerprint_mismatch,   // written by a build of another game, number format or simulation
    count_out_of_range,     // a list's count outside what the game allows there
    value_out_of_range,     // a field outside its domain (the config, a key order, an invariant)
    digest_mismatch,        // the trailing digest disagrees with the decoded state
    trailing_bytes,         // bytes after the trailing digest
};
std::string_view error_name(DecodeError error);
std::string_view describe(DecodeError error);

// Fuzzers skip the trailing digest to reach the field checks behind it; nothing else may.
enum class DigestCheck : uint8_t { check, skip_for_fuzzing };

namespace detail {
inline constexpr uint8_t snapshot_magic[4] = {'T', 'N', 'D', 'M'};

// Writes the fields in walk order through a ByteWriter (growing a vector) or a SpanWriter
// (a buffer measured in advance).
template <class Writer>
class EncodeVisitor {
public:
    explicit EncodeVisitor(Writer& w) : w_(w) {}
    template <class T>
    void field(std::string_view, const T& v) {
        FieldTraits<std::remove_cv_t<T>>::write(w_, v);
    }
    template <class T, class S>
    void field(std::string_view name, const T& v, S) {
        field(name, v);
    }
    template <class S>
    void section(S) {}
    template <class E, class F>
    void list(std::string_view, const std::vector<E>& v, Count, F&& element) {
        w_.u32(static_cast<uint32_t>(v.size()));
        for (const E& e : v) element(e);
    }
    template <class E, class F>
    void list(std::string_view name, const std::vector<E>& v, Count count, Also, F&& element) {
        list(name, v, count, element);
    }
    template <class T>
    void key(std::string_view name, const T& v) {
        field(name, v);
    }
    template <class F>
    void object(std::string_view, F&& walk) {
        walk();
    }
    template <class F>
    void derived(std::string_view, F&&) {}
    template <class F>
    void require(F&&) {}

private:
    Writer& w_;
};

// Binds EncodeVisitor's config() to the game (a visitor's config() must know whose
// visit_config to call).
template <class G, class Writer>
class GameEncodeVisitor : public EncodeVisitor<Writer> {
public:
    using EncodeVisitor<Writer>::EncodeVisitor;
    template <class C>
    void config(std::string_view, const C& c) {
        G::visit_config(*this, c);
    }
};

// Reads the fields back in the same walk. The first refusal sticks and every later call does
// nothing, so a game's walk needs no error handling of its own. A list's count is checked
// against its Count and against the bytes present (times the smallest an element can
// encode to) before anything is allocated for it.
template <class G>
class DecodeVisitor {
public:
    explicit DecodeVisitor(ByteReader& r) : r_(r) {}

    bool failed() const { return error_.has_value(); }
    std::optional<DecodeError> error() const { return error_; }

    template <class T>
    void field(std::string_view, T& v) {
        if (measuring_) {
            measured_ += FieldTraits<T>::bytes;
            return;
        }
        if (failed()) return;
        const bool valid = FieldTraits<T>::read(r_, v);
        if (!r_.ok()) fail(DecodeError::truncated);
        else if (!valid) fail(DecodeError::value_out_of_range);
    }
    template <class T, class S>
    void field(std::string_view name, T& v, S) {
        field(name, v);
    }
    template <class S>
    void section(S) {}
    template <class C>
    void config(std::string_view, C& c) {
        G::visit_config(*this, c);
        if (measuring_ || failed()) return;
        if (!G::validate(c).ok()) fail(DecodeError::value_out_of_range);
    }
    template <class E, class F>
    void list(std::string_view name, std::vector<E>& v, Count count, F&& element) {
        list(name, v, count, Also{}, element);
    }
    template <class E, class F>
    void list(std::string_view, std::vector<E>& v, Count count, Also, F&& element) {
        if (measuring_) {
            measured_ += 4;  // an element's smallest form holds its nested lists empty
            return;
        }
        if (failed()) return;
        const uint32_t n = r_.u32();
        if (!r_.ok()) return fail(DecodeError::truncated);
        if (n < count.min || n > count.max) return fail(DecodeError::count_out_of_range);
        // The smallest an element can encode to, measured by walking a default one.
        E probe{};
        measuring_ = true;
        measured_ = 0;
        element(probe);
        measuring_ = false;
        const uint64_t least = measured_;
        if (least > 0 && uint64_t{n} * least > r_.remaining()) return fail(DecodeError::truncated);
        v.clear();
        v.resize(n);
        KeyOrder order;
        KeyOrder* const saved = key_order_;
        key_order_ = &order;
        for (E& e : v) {
            element(e);
            if (failed()) break;
        }
        key_order_ = saved;
    }
    template <class T>
    void key(std::string_view name, T& v) {
        field(name, v);
        if (measuring_ || failed() || key_order_ == nullptr) return;
        std::array<uint64_t, 2> k{};
        uint32_t n = 0;
        FieldTraits<T>::order(v, [&](uint64_t word) {
            if (n < k.size()) k[n++] = word;
        });
        if (key_order_->have_previous && !(key_order_->previous < k)) return fail(DecodeError::value_out_of_range);
        key_order_->previous = k;
        key_order_->have_previous = true;
    }
    template <class F>
    void object(std::string_view, F&& walk) {
        walk();
    }
    template <class F>
    void derived(std::string_view, F&&) {}
    template <class F>
    void require(F&& predicate) {
        if (measuring_ || failed()) return;
        if (!predicate()) fail(DecodeError::value_out_of_range);
    }

private:
    struct KeyOrder {
        std::array<uint64_t, 2> previous{};
        bool have_previous = false;
    };
    void fail(DecodeError e) {
        if (!error_) error_ = e;
    }

    ByteReader& r_;
    std::optional<DecodeError> error_;
    bool measuring_ = false;
    uint64_t measured_ = 0;
    KeyOrder* key_order_ = nullptr;
};
}  // namespace detail

namespace detail {
// The bytes a state's walk encodes to, so the encoder allocates once.
template <class G>
class EncodedSizeVisitor {
public:
    template <class T>
    void field(std::string_view, const T&) {
        bytes += FieldTraits<std::remove_cv_t<T>>::bytes;
    }
    template <class T, class S>
    void field(std::string_view name, const T& v, S) {
        field(name, v);
    }
    template <class S>
    void section(S) {}
    template <class C>
    void config(std::string_view, const C& c) {
        G::visit_config(*this, c);
    }
    // Fields have fixed sizes, so elements without lists of their own all encode to the
    // first one's size: one element measured instead of every one.
    template <class E, class F>
    void list(std::string_view, const std::vector<E>& v, Count, F&& element) {
        bytes += 4;
        nested_ = true;
        if (v.empty()) return;
        const uint64_t before = bytes;
        nested_ = false;
        element(v.front());
        if (!nested_) {
            bytes += (bytes - before) * (v.size() - 1);
        } else {
            for (std::size_t i = 1; i < v.size(); ++i) element(v[i]);
        }
        nested_ = true;
    }
    template <class E, class F>
    void list(std::string_view name, const std::vector<E>& v, Count count, Also, F&& element) {
        list(name, v, count, element);
    }
    template <class T>
    void key(std::string_view name, const T& v) {
        field(name, v);
    }
    template <class F>
    void object(std::string_view, F&& walk) {
        walk();
    }
    template <class F>
    void derived(std::string_view, F&&) {}
    template <class F>
    void require(F&&) {}
    uint64_t bytes = 0;

private:
    bool nested_ = false;   // a list was met since the element being measured began
};
}  // namespace detail

namespace detail {
// The walk wrote another length than it measured: visit_state is not a function of the state
// alone (a game bug). The growing writer still produces what this walk wrote. Kept out of line
// so that encode_snapshot's flattening does not copy a second walk into it.
template <class G>
[[gnu::noinline]] void encode_snapshot_growing(const typename G::State& state, std::vector<uint8_t>& out,
                                              std::size_t at) {
    out.resize(at);
    ByteWriter grow(out);
    for (uint8_t b : snapshot_magic) grow.u8(b);
    grow.u16(snapshot_format_version);
    grow.u64(fingerprint_hash<G>());
    GameEncodeVisitor<G, ByteWriter> again(grow);
    G::visit_state(again, state);
    grow.u64(digest<G>(state));
}
}  // namespace detail

// Flattened for the same reason as digests() (the writer's cursor stays in a register).
template <class G>
[[gnu::flatten]] void encode_snapshot(const typename G::State& state, std::vector<uint8_t>& out) {
    detail::EncodedSizeVisitor<G> size;
    G::visit_state(size, state);
    const std::size_t at = out.size();
    out.resize(at + 4 + 2 + 8 + static_cast<std::size_t>(size.bytes) + 8);
    SpanWriter w(std::span<uint8_t>(out).subspan(at));
    for (uint8_t b : detail::snapshot_magic) w.u8(b);
    w.u16(snapshot_format_version);
    w.u64(fingerprint_hash<G>());
    detail::GameEncodeVisitor<G, SpanWriter> v(w);
    G::visit_state(v, state);
    w.u64(digest<G>(state));
    if (!w.full()) detail::encode_snapshot_growing<G>(state, out, at);
}
template <class G>
std::vector<uint8_t> encode_snapshot(const typename G::State& state) {
    std::vector<uint8_t> out;
    encode_snapshot<G>(state, out);
    return out;
}

// Never crashes, never reads past the span, and never allocates more than the bytes present
// could describe.
template <class G>
Result<typename G::State, DecodeError> decode_snapshot(std::span<const uint8_t> bytes,
                                                       DigestCheck check = DigestCheck::check) {
    ByteReader r(bytes);
    if (!r.has(4)) return DecodeError::truncated;
    for (uint8_t b : detail::snapshot_magic) {
        if (r.u8() != b) return DecodeError::bad_magic;
    }
    const uint16_t version = r.u16();
    if (!r.ok()) return DecodeError::truncated;
    if (version != snapshot_format_version) return DecodeError::unsupported_version;
    const uint64_t print = r.u64();
    if (!r.ok()) return DecodeError::truncated;
    if (print != fingerprint_hash<G>()) return DecodeError::fingerprint_mismatch;
    typename G::State state{};
    detail::DecodeVisitor<G> v(r);
    G::visit_state(v, state);
    if (v.failed()) return *v.error();
    const uint64_t stored = r.u64();
    if (!r.ok()) return DecodeError::truncated;
    if (check == DigestCheck::check && stored != digest<G>(state)) return DecodeError::digest_mismatch;
    if (r.remaining() != 0) return DecodeError::trailing_bytes;
    return state;
}

// ---- Text: the dump and the field diff --------------------------------------------------------
// One field of a state as text: its path ("wells[3].pos.x", "config.tick_hz"), the section it
// is digested in ("" for the header) and its value (integers in decimal, Fx as its raw integer).
struct FieldLine {
    std::string path;
    std::string_view section;
    std::string value;
};

namespace detail {
// Walks a state (const or not) naming each field by its path, as the dump does, and hands
// each to a sink: sink.field(path, section, value&), sink.line(path, section, text) for a
// list's count and a derived value. The dump, the FieldLines and the test-only perturbation
// (perturb_field) are sinks of the one walk, so they cannot disagree on a path.
//
// The path is one string grown and cut back in place (a field appends its name, an element its
// "[key]."), never rebuilt: the sinks see it as a view, valid during the call. Building a new
// string per field made the dump twice as slow as the hand-written one before the seam.
template <class G, class Sink>
class PathVisitor {
public:
    explicit PathVisitor(Sink& sink) : sink_(sink) {}
    template <class T>
    void field(std::string_view name, T& v) {
        emit(name, current_, v);
    }
    template <class T, class S>
    void field(std::string_view name, T& v, S section) {
        emit(name, static_cast<uint8_t>(section), v);
    }
    template <class S>
    void section(S s) {
        current_ = static_cast<uint8_t>(s);
    }
    template <class C>
    void config(std::string_view name, C& c) {
        object(name, [&] { G::visit_config(*this, c); });
    }
    template <class Vec, class F>
    void list(std::string_view name, Vec& v, Count count, F&& element) {
        list(name, v, count, Also{}, element);
    }
    template <class Vec, class F>
    void list(std::string_view name, Vec& v, Count, Also, F&& element) {
        const std::size_t outer = path_.size();
        path_ += name;
        const std::size_t base = path_.size();   // "pellets": an element's path starts here
        path_ += ".count";
        sink_.line(std::string_view(path_), section_name(current_), std::to_string(v.size()));
        const std::size_t saved_base = element_base_;
        element_base_ = base;
        for (std::size_t i = 0; i < v.size(); ++i) {
            // Named by its index until its key (first in an element) names it.
            path_.resize(base);
            path_ += '[';
            path_ += std::to_string(i);
            path_ += "].";
            element(v[i]);
        }
        element_base_ = saved_base;
        path_.resize(outer);
    }
    // The element is named by its key from here on (the key itself is in the path).
    template <class T>
    void key(std::string_view, const T& v) {
        path_.resize(element_base_);
        path_ += '[';
        path_ += key_text(v);
        path_ += "].";
    }
    template <class F>
    void object(std::string_view name, F&& walk) {
        walk_nested(path_, name, walk);
    }
    template <class F>
    void derived(std::string_view name, F&& compute) {
        const std::size_t outer = path_.size();
        path_ += name;
        sink_.line(std::string_view(path_), section_name(current_), std::to_string(compute()));
        path_.resize(outer);
    }
    template <class F>
    void require(F&&) {}

private:
    static std::string_view section_name(uint8_t s) {
        return s == header_section ? std::string_view{} : G::sections[s];
    }
    template <class T>
    void emit(std::string_view name, uint8_t section, T& v) {
        const std::size_t outer = path_.size();
        path_ += name;
        sink_.field(std::string_view(path_), section_name(section), v);
        path_.resize(outer);
    }

    Sink& sink_;
    std::string path_;              // the current scope's prefix ("", "config.", "wells[3].")
    std::size_t element_base_ = 0;  // where the innermost list's element names begin in path_
    uint8_t current_ = header_section;
};

struct FlattenSink {
    std::vector<FieldLine>& out;
    template <class T>
    void field(std::string_view path, std::string_view section, const T& v) {
        FieldTraits<std::remove_cv_t<T>>::text(v, [&](std::string_view suffix, std::string value) {
            std::string full;
            full.reserve(path.size() + suffix.size());
            full += path;
            full += suffix;
            out.push_back({std::move(full), section, std::move(value)});
        });
    }
    void line(std::string_view path, std::string_view section, std::string value) {
        out.push_back({std::string(path), section, std::move(value)});
    }
};

// The dump's lines ("path value"), appended straight to its text.
struct DumpSink {
    std::string& out;
    template <class T>
    void field(std::string_view path, std::string_view, const T& v) {
        FieldTraits<std::remove_cv_t<T>>::text(v, [&](std::string_view suffix, const std::string& value) {
            out += path;
            out += suffix;
            out += ' ';
            out += value;
            out += '\n';
        });
    }
    void line(std::string_view path, std::string_view, const std::string& value) {
        out += path;
        out += ' ';
        out += value;
        out += '\n';
    }
};

// Flips the lowest bit of the first byte of the named field's canonical encoding (for a Vec2,
// its x), through the field's own codec, so the result is a value of the field's type.
struct PerturbSink {
    std::string_view target;
    bool done = false;
    template <class T>
    void field(std::string_view path, std::string_view, T& v) {
        if constexpr (!std::is_const_v<T>) {
            if (done || path != target) return;
            std::vector<uint8_t> bytes;
            ByteWriter w(bytes);
            FieldTraits<T>::write(w, v);
            bytes[0] ^= 1;
            ByteReader r(bytes);
            done = FieldTraits<T>::read(r, v);
        }
    }
    void line(std::string_view, std::string_view, const std::string&) {}
};
}  // namespace detail

// Every field of the state in visit order (paths name list elements by their keys).
template <class G>
std::vector<FieldLine> fields(const typename G::State& state) {
    std::vector<FieldLine> out;
    detail::FlattenSink sink{out};
    detail::PathVisitor<G, detail::FlattenSink> v(sink);
    G::visit_state(v, state);
    return out;
}

// Test-only fault injection (the determinism check's perturbed build): flips the lowest bit of
// the field at `path` (a field's path as fields() names it, without a Vec2's .x/.y suffix).
// False when the state has no such field or the flipped bytes are no value of its type.
template <class G>
bool perturb_field(typename G::State& state, std::string_view path) {
    detail::PerturbSink sink{path};
    detail::PathVisitor<G, detail::PerturbSink> v(sink);
    G::visit_state(v, state);
    return sink.done;
}

// The canonical state as text, diffable between builds (`tandem dump`): one "path value" line
// per field, then "section.NAME" and "digest" in hex, so a divergence report can name the
// differing section without a second run.
template <class G>
std::string dump(const typename G::State& state) {
    std::string out;
    detail::DumpSink sink{out};
    detail::PathVisitor<G, detail::DumpSink> v(sink);
    G::visit_state(v, state);
    const Digests<G> d = digests<G>(state);
    for (uint32_t s = 0; s < section_count<G>; ++s) {
        out += "section.";
        out += G::sections[s];
        out += ' ';
        out += hex64(d.sections[s]);
        out += '\n';
    }
    out += "digest " + hex64(d.digest) + "\n";
    return out;
}

// One field that differs between two states: in both with different values, or in only one
// (an element one state has and the other has not).
struct FieldDifference {
    std::string path;
    std::string_view section;
    std::optional<std::string> a;   // nullopt: not in a
    std::optional<std::string> b;
    friend bool operator==(const FieldDifference&, const FieldDifference&) = default;
};
struct FieldDiff {
    std::vector<FieldDifference> differences;   // at most the limit asked for, in a's field order
    uint64_t total = 0;                         // all that differ
};
// "wells[3].score 12 13 (scores)": one line per difference, "-" for a side without the field.
std::string to_string(const FieldDifference& d);

FieldDiff diff_fields(const std::vector<FieldLine>& a, const std::vector<FieldLine>& b, uint32_t limit);

template <class G>
FieldDiff diff(const typename G::State& a, const typename G::State& b, uint32_t limit = 32) {
    return diff_fields(fields<G>(a), fields<G>(b), limit);
}

}  // namespace tandem::sim
