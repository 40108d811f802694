// A game's config, commands and inputs as canonical bytes (the welcome, the input message,
// frames and replays carry them as opaque payloads), and the canonical order of a tick's
// inputs, all derived from the game's visit_config and visit_command. Decoders take untrusted
// bytes: they check lengths before reading and return a typed CodecError.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tandem/core/bytes.hpp"
#include "tandem/core/result.hpp"
#include "tandem/sim/fields.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::sim {

enum class CodecError : uint8_t {
    truncated,            // fewer bytes than the layout needs
    trailing_bytes,       // more bytes than the layout
    value_out_of_range,   // a field outside its domain, or a config the game does not validate
    bad_kind,             // an input kind byte other than 0 (join), 1 (leave), 2 (command)
};
std::string_view error_name(CodecError error);
std::string_view describe(CodecError error);

namespace detail {
// The fields of a command or a config with no lists, keys or sections: used to measure,
// order and compare them.
class SizeVisitor {
public:
    template <class T>
    void field(std::string_view, const T&) {
        bytes += FieldTraits<std::remove_cv_t<T>>::bytes;
        words += FieldTraits<std::remove_cv_t<T>>::order_words;
    }
    template <class F>
    void object(std::string_view, F&& walk) {
        walk();
    }
    template <class F>
    void require(F&&) {}
    uint32_t bytes = 0;
    uint32_t words = 0;
};

inline constexpr uint32_t max_command_words = 32;

class OrderVisitor {
public:
    template <class T>
    void field(std::string_view, const T& v) {
        FieldTraits<std::remove_cv_t<T>>::order(v, [this](uint64_t word) {
            if (count < words.size()) words[count++] = word;
        });
    }
    template <class F>
    void object(std::string_view, F&& walk) {
        walk();
    }
    template <class F>
    void require(F&&) {}
    std::array<uint64_t, max_command_words> words{};
    uint32_t count = 0;
};

// A flat walk (config or command) read back; a field's own domain check or the walk's
// require() refuses it.
template <class G>
class FlatDecodeVisitor {
public:
    explicit FlatDecodeVisitor(ByteReader& r) : r_(r) {}
    template <class T>
    void field(std::string_view, T& v) {
        if (!valid) return;
        if (!FieldTraits<T>::read(r_, v)) valid = false;
    }
    template <class F>
    void object(std::string_view, F&& walk) {
        walk();
    }
    // A command's or a config's own invariant (reserved bits clear, say): refused like a
    // field outside its domain.
    template <class F>
    void require(F&& predicate) {
        if (valid && r_.ok() && !predicate()) valid = false;
    }
    bool valid = true;

private:
    ByteReader& r_;
};
}  // namespace detail

// ---- Commands --------------------------------------------------------------------------------
// The bytes one command encodes to: the sum of its fields' (a command holds fields only).
template <class G>
uint32_t command_bytes() {
    static const uint32_t bytes = [] {
        detail::SizeVisitor v;
        const typename G::Command c{};
        G::visit_command(v, c);
        return v.bytes;
    }();
    return bytes;
}

template <class G>
void encode_command(ByteWriter& w, const typename G::Command& c) {
    detail::EncodeVisitor<ByteWriter> v(w);
    G::visit_command(v, c);
}

// Reads exactly command_bytes<G>() bytes (the caller has checked they are there).
template <class G>
Result<typename G::Command, CodecError> read_command(ByteReader& r) {
    typename G::Command c{};
    detail::FlatDecodeVisitor<G> v(r);
    G::visit_command(v, c);
    if (!r.ok()) return CodecError::truncated;
    if (!v.valid) return CodecError::value_out_of_range;
    return c;
}

template <class G>
Result<typename G::Command, CodecError> decode_command(std::span<const uint8_t> bytes) {
    if (bytes.size() < command_bytes<G>()) return CodecError::truncated;
    if (bytes.size() > command_bytes<G>()) return CodecError::trailing_bytes;
    ByteReader r(bytes);
    return read_command<G>(r);
}

// ---- Inputs ----------------------------------------------------------------------------------
//   u32 player | u8 kind | the command's bytes
template <class G>
uint32_t input_bytes() {
    return 5 + command_bytes<G>();
}

template <class G>
void encode_input(ByteWriter& w, const Input<G>& input) {
    w.u32(input.player);
    w.u8(static_cast<uint8_t>(input.kind));
    encode_command<G>(w, input.command);
}
template <class G>
void append_input(std::vector<uint8_t>& out, const Input<G>& input) {
    ByteWriter w(out);
    encode_input<G>(w, input);
}

template <class G>
Result<Input<G>, CodecError> read_input(ByteReader& r) {
    Input<G> input;
    input.player = r.u32();
    const uint8_t kind = r.u8();
    if (!r.ok()) return CodecError::truncated;
    if (kind > static_cast<uint8_t>(InputKind::command)) return CodecError::bad_kind;
    input.kind = static_cast<InputKind>(kind);
    auto command = read_command<G>(r);
    if (!command) return command.error();
    input.command = *command;
    return input;
}

template <class G>
Result<Input<G>, CodecError> decode_input(std::span<const uint8_t> bytes) {
    if (bytes.size() < input_bytes<G>()) return CodecError::truncated;
    if (bytes.size() > input_bytes<G>()) return CodecError::trailing_bytes;
    ByteReader r(bytes);
    return read_input<G>(r);
}

// The canonical order of a tick's inputs: (player, kind, then the command's fields in visit
// order, each compared numerically). A total key over every field, so equal keys are equal
// inputs and any sort gives the same sequence. Frames carry inputs in this order.
template <class G>
bool canonical_less(const Input<G>& a, const Input<G>& b) {
    if (a.player != b.player) return a.player < b.player;
    if (a.kind != b.kind) return static_cast<uint8_t>(a.kind) < static_cast<uint8_t>(b.kind);
    detail::OrderVisitor x, y;
    G::visit_command(x, a.command);
    G::visit_command(y, b.command);
    return std::lexicographical_compare(x.words.begin(), x.words.begin() + x.count, y.words.begin(),
                                        y.words.begin() + y.count);
}

template <class G>
void sort_canonical(std::span<Input<G>> inputs) {
    std::sort(inputs.begin(), inputs.end(), [](const Input<G>& a, const Input<G>& b) { return canonical_less<G>(a, b); });
}

// ---- Configs ---------------------------------------------------------------------------------
template <class G>
void encode_config(ByteWriter& w, const typename G::Config& c) {
    detail::EncodeVisitor<ByteWriter> v(w);
    G::visit_config(v, c);
}
template <class G>
std::vector<uint8_t> encode_config(const typename G::Config& c) {
    std::vector<uint8_t> out;
    ByteWriter w(out);
    encode_config<G>(w, c);
    return out;
}
template <class G>
uint32_t config_bytes() {
    static const uint32_t bytes = [] {
        detail::SizeVisitor v;
        const typename G::Config c{};
        G::visit_config(v, c);
        return v.bytes;
    }();
    return bytes;
}

// Exactly config_bytes<G>() bytes, and a config G::validate accepts (else value_out_of_range).
template <class G>
Result<typename G::Config, CodecError> decode_config(std::span<const uint8_t> bytes) {
    if (bytes.size() < config_bytes<G>()) return CodecError::truncated;
    if (bytes.size() > config_bytes<G>()) return CodecError::trailing_bytes;
    ByteReader r(bytes);
    typename G::Config c{};
    detail::FlatDecodeVisitor<G> v(r);
    G::visit_config(v, c);
    if (!r.ok()) return CodecError::truncated;
    if (!v.valid || !G::validate(c).ok()) return CodecError::value_out_of_range;
    return c;
}

}  // namespace tandem::sim
