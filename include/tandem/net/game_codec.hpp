// Where the wire meets a game: the opaque payloads of protocol.hpp (a welcome's config, an
// input's command, a frame's applied inputs, section digests) turned into the game's types and
// back, through the codecs the seam derives from the game's visitors. Every check the opaque
// codec cannot make without the game (a command's length and fields, the canonical order of a
// frame's inputs, a config the game refuses) is made here, with the same ProtocolError codes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tandem/core/bytes.hpp"
#include "tandem/core/result.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/sim/codec.hpp"
#include "tandem/sim/simulation.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::net {

// One input the room applied at a tick, in the game's types, and the sequence number of the
// client message it came from (0 for the joins and leaves the room authors).
template <class G>
struct Applied {
    sim::Input<G> input;
    uint32_t sequence = 0;
    friend bool operator==(const Applied&, const Applied&) = default;
};

// The hello a client of game G sends.
template <class G>
Hello hello_for(Role role) {
    return Hello{protocol_version, sim::fingerprint_hash<G>(), role, std::string(G::name), std::nullopt, std::nullopt};
}

// ---- Commands ------------------------------------------------------------------------------
template <class G>
InputMsg input_message(uint32_t sequence, const typename G::Command& command) {
    std::vector<uint8_t> bytes;
    ByteWriter w(bytes);
    sim::encode_command<G>(w, command);
    return InputMsg{sequence, CommandBytes::of(bytes)};
}

// A client's command, or bad_input when it is not exactly one the game accepts.
template <class G>
Result<typename G::Command, ProtocolError> command_of(const InputMsg& message) {
    auto command = sim::decode_command<G>(message.command.view());
    if (!command.ok()) return ProtocolError::bad_input;
    return *command;
}

// ---- Frames --------------------------------------------------------------------------------
// The frame of one tick, written straight from the applied inputs (given in canonical order).
template <class G>
void encode_frame(std::vector<uint8_t>& out, uint64_t tick, uint64_t digest, std::span<const Applied<G>> inputs) {
    const uint32_t command_bytes = sim::command_bytes<G>();
    out.reserve(out.size() + frame_header_bytes + inputs.size() * (applied_input_header_bytes + command_bytes));
    ByteWriter w(out);
    write_frame_header(w, tick, digest, static_cast<uint16_t>(inputs.size()), static_cast<uint8_t>(command_bytes));
    for (const Applied<G>& a : inputs) {
        w.u32(a.input.player);
        w.u8(static_cast<uint8_t>(a.input.kind));
        w.u32(a.sequence);
        sim::encode_command<G>(w, a.input.command);
    }
}

// A frame's inputs in the game's types, into `out` (reused): bad_input for a command size
// other than the game's or a command it refuses, inputs_out_of_order unless each input is
// strictly greater than the one before (sim::canonical_less), so a frame has one encoding.
template <class G>
Result<void, ProtocolError> decode_frame_inputs(const Frame& frame, std::vector<Applied<G>>& out) {
    out.clear();
    if (frame.command_bytes != sim::command_bytes<G>()) return ProtocolError::bad_input;
    ByteReader r(frame.inputs);
    out.reserve(frame.count);
    for (uint32_t i = 0; i < frame.count; ++i) {
        Applied<G> a;
        a.input.player = r.u32();
        const uint8_t kind = r.u8();
        a.sequence = r.u32();
        if (!r.ok()) return ProtocolError::truncated;
        if (kind > static_cast<uint8_t>(sim::InputKind::command)) return ProtocolError::bad_input;
        a.input.kind = static_cast<sim::InputKind>(kind);
        auto command = sim::read_command<G>(r);
        if (!command.ok()) return ProtocolError::bad_input;
        a.input.command = *command;
        if (!out.empty() && !sim::canonical_less<G>(out.back().input, a.input)) return ProtocolError::inputs_out_of_order;
        out.push_back(a);
    }
    return {};
}

template <class G>
Result<std::vector<Applied<G>>, ProtocolError> decode_frame_inputs(const Frame& frame) {
    std::vector<Applied<G>> out;
    auto decoded = decode_frame_inputs<G>(frame, out);
    if (!decoded.ok()) return decoded.error();
    return out;
}

// ---- Welcomes ------------------------------------------------------------------------------
template <class G>
Welcome welcome_for(Role role, uint32_t player, uint32_t input_delay_ticks, uint64_t server_tick, uint32_t max_players,
                    const typename G::Config& config) {
    return Welcome{role, player, input_delay_ticks, server_tick, max_players, std::string(G::name), sim::encode_config<G>(config),
                   std::nullopt};
}

// The welcome's config, or bad_config when the game refuses its bytes.
template <class G>
Result<typename G::Config, ProtocolError> config_of(const Welcome& welcome) {
    auto config = sim::decode_config<G>(welcome.config);
    if (!config.ok()) return ProtocolError::bad_config;
    return *config;
}

// ---- Section digests -----------------------------------------------------------------------
template <class G>
std::vector<uint64_t> section_list(const sim::SectionDigests<G>& sections) {
    return std::vector<uint64_t>(sections.begin(), sections.end());
}

}  // namespace tandem::net
