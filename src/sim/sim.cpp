// The parts of the seam that do not depend on a game: error texts, the fingerprint's hash and
// the field diff over two flattened states.
#include <map>

#include "tandem/core/digest.hpp"
#include "tandem/sim/codec.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::sim {

std::string_view error_name(DecodeError error) {
    switch (error) {
    case DecodeError::truncated: return "truncated";
    case DecodeError::bad_magic: return "bad_magic";
    case DecodeError::unsupported_version: return "unsupported_version";
    case DecodeError::fingerprint_mismatch: return "fingerprint_mismatch";
    case DecodeError::count_out_of_range: return "count_out_of_range";
    case DecodeError::value_out_of_range: return "value_out_of_range";
    case DecodeError::digest_mismatch: return "digest_mismatch";
    case DecodeError::trailing_bytes: return "trailing_bytes";
    }
    return "unknown";
}

std::string_view describe(DecodeError error) {
    switch (error) {
    case DecodeError::truncated: return "the snapshot ends before a field its format requires";
    case DecodeError::bad_magic: return "the bytes do not start with a tandem snapshot's magic \"TNDM\"";
    case DecodeError::unsupported_version: return "the snapshot's format version is not one this build reads";
    case DecodeError::fingerprint_mismatch:
        return "the snapshot was written by a build of another game, number format or simulation version";
    case DecodeError::count_out_of_range: return "a list's count is outside what the game allows there";
    case DecodeError::value_out_of_range:
        return "a field lies outside its domain (a config knob, a key out of order, a broken invariant)";
    case DecodeError::digest_mismatch: return "the trailing digest disagrees with the decoded state";
    case DecodeError::trailing_bytes: return "bytes follow the snapshot's trailing digest";
    }
    return "unknown snapshot error";
}

std::string_view error_name(CodecError error) {
    switch (error) {
    case CodecError::truncated: return "truncated";
    case CodecError::trailing_bytes: return "trailing_bytes";
    case CodecError::value_out_of_range: return "value_out_of_range";
    case CodecError::bad_kind: return "bad_kind";
    }
    return "unknown";
}

std::string_view describe(CodecError error) {
    switch (error) {
    case CodecError::truncated: return "fewer bytes than the game's layout needs";
    case CodecError::trailing_bytes: return "more bytes than the game's layout";
    case CodecError::value_out_of_range: return "a field outside its domain, or a config the game refuses";
    case CodecError::bad_kind: return "an input's kind byte must be 0 (join), 1 (leave) or 2 (command)";
    }
    return "unknown codec error";
}

uint64_t fingerprint_hash(std::string_view text) {
    StateDigest d;
    d.write_bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    return d.finish();
}

std::string to_string(const FieldDifference& d) {
    std::string out = d.path;
    out += ' ';
    out += d.a ? *d.a : std::string("-");
    out += ' ';
    out += d.b ? *d.b : std::string("-");
    if (!d.section.empty()) {
        out += " (";
        out += d.section;
        out += ')';
    }
    return out;
}

FieldDiff diff_fields(const std::vector<FieldLine>& a, const std::vector<FieldLine>& b, uint32_t limit) {
    // Paths are unique within a state (list elements are named by strictly increasing keys),
    // so a map by path pairs the two sides; the report follows a's order, then b's extras.
    std::map<std::string_view, std::size_t> in_b;
    for (std::size_t i = 0; i < b.size(); ++i) in_b.emplace(b[i].path, i);
    std::vector<bool> matched(b.size(), false);
    FieldDiff out;
    auto add = [&](FieldDifference d) {
        ++out.total;
        if (out.differences.size() < limit) out.differences.push_back(std::move(d));
    };
    for (const FieldLine& x : a) {
        const auto it = in_b.find(x.path);
        if (it == in_b.end()) {
            add({x.path, x.section, x.value, std::nullopt});
            continue;
        }
        matched[it->second] = true;
        const FieldLine& y = b[it->second];
        if (x.value != y.value) add({x.path, x.section, x.value, y.value});
    }
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (!matched[i]) add({b[i].path, b[i].section, std::nullopt, b[i].value});
    }
    return out;
}

}  // namespace tandem::sim
