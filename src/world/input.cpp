// Inputs as values and as bytes: the canonical order step() sorts them into, and the one
// 13-byte encoding the wire codec, replays and the ES module share. The reader takes
// untrusted bytes: it must check the length before reading and never assume a kind.
#include "tandem/world/world.hpp"

namespace tandem::world {

bool canonical_less(const Input& a, const Input& b) {
    if (a.player != b.player) return a.player < b.player;
    if (a.kind != b.kind) return static_cast<uint8_t>(a.kind) < static_cast<uint8_t>(b.kind);
    if (a.target.x != b.target.x) return a.target.x < b.target.x;
    return a.target.y < b.target.y;
}

std::string_view error_name(InputError error) {
    switch (error) {
    case InputError::truncated: return "truncated";
    case InputError::trailing_bytes: return "trailing_bytes";
    case InputError::bad_kind: return "bad_kind";
    }
    return "unknown";
}

std::string_view describe(InputError error) {
    switch (error) {
    case InputError::truncated: return "an input is 13 bytes and fewer were given";
    case InputError::trailing_bytes: return "an input is 13 bytes and more were given";
    case InputError::bad_kind: return "an input's kind byte must be 0 (join), 1 (leave) or 2 (steer)";
    }
    return "unknown input error";
}

namespace {
void put_le32(std::vector<uint8_t>& out, uint32_t v) {
    for (uint32_t i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
uint32_t get_le32(std::span<const uint8_t> bytes, uint32_t at) {
    uint32_t v = 0;
    for (uint32_t i = 0; i < 4; ++i) v |= uint32_t{bytes[at + i]} << (8 * i);
    return v;
}
}  // namespace

void append_input(std::vector<uint8_t>& out, const Input& input) {
    put_le32(out, input.player);
    out.push_back(static_cast<uint8_t>(input.kind));
    // Signed raws as their two's-complement bit patterns (defined in C++20).
    put_le32(out, static_cast<uint32_t>(input.target.x.raw()));
    put_le32(out, static_cast<uint32_t>(input.target.y.raw()));
}

Result<Input, InputError> read_input(std::span<const uint8_t> bytes) {
    if (bytes.size() < input_wire_bytes) return InputError::truncated;
    if (bytes.size() > input_wire_bytes) return InputError::trailing_bytes;
    const uint8_t kind = bytes[4];
    if (kind > static_cast<uint8_t>(InputKind::steer)) return InputError::bad_kind;
    Input input;
    input.player = get_le32(bytes, 0);
    input.kind = static_cast<InputKind>(kind);
    input.target = {Fx::from_raw(static_cast<int32_t>(get_le32(bytes, 5))),
                    Fx::from_raw(static_cast<int32_t>(get_le32(bytes, 9)))};
    return input;
}

}  // namespace tandem::world
