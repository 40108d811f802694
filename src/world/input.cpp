// Inputs as values and as bytes: the canonical order step() sorts them into, and the one
// 13-byte encoding the wire codec, replays and the ES module share. The reader takes
// untrusted bytes: it must check the length before reading and never assume a kind.
#include "tandem/world/world.hpp"
#include "world/bytes.hpp"

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

void append_input(std::vector<uint8_t>& out, const Input& input) {
    Writer w(out);
    w.u32(input.player);
    w.u8(static_cast<uint8_t>(input.kind));
    w.vec2(input.target);  // each raw as its two's-complement bit pattern
}

Result<Input, InputError> read_input(std::span<const uint8_t> bytes) {
    if (bytes.size() < input_wire_bytes) return InputError::truncated;
    if (bytes.size() > input_wire_bytes) return InputError::trailing_bytes;
    Reader r(bytes);
    Input input;
    input.player = r.u32();
    const uint8_t kind = r.u8();
    if (kind > static_cast<uint8_t>(InputKind::steer)) return InputError::bad_kind;
    input.kind = static_cast<InputKind>(kind);
    input.target = r.vec2();
    return input;
}

}  // namespace tandem::world
