// The seam between tandem and a game: what a game implements (its config, state, command,
// step, and one visitor over each of them) so that the room, the client session, replays, the
// server and the determinism check work for it unchanged. The kit never names a game; a game
// reaches the kit only through this header and tandem/core.
//
// What a game must never do, in anything its step, its visitors or its scenarios compute:
//   - floats, doubles or libm: the same expression rounds differently across compilers,
//     x87/SSE, FMA and JavaScript engines (use tandem::Fx and the fixed-point functions);
//   - an order a library chooses: iteration over unordered containers, std::hash, pointer
//     values, <random>'s distributions, an unstable sort of ties; libstdc++ (the server)
//     and libc++ (the browser) differ in all of them;
//   - clocks, I/O, globals or statics that carry state from one call to the next: a step is a
//     function of the state and the inputs alone, or a replay cannot re-run it;
//   - size_t, long or pointer-width integers in state (wasm32 is 32-bit, the server 64-bit),
//     and undefined behaviour (signed overflow above all: use Fx's defined saturation).
// The visitor is the only description of the state the kit has: a member it does not visit is
// neither digested, nor sent in a snapshot, nor compared, and two peers will drift in it.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "tandem/core/result.hpp"

namespace tandem::sim {

// ---- Inputs: the kit's envelope around a game's command -----------------------------------
// The room authors joins and leaves and stamps each player's command onto a tick; the game
// defines only what a command carries (a steer target, a set of held buttons, ...).
enum class InputKind : uint8_t { join = 0, leave = 1, command = 2 };

// One input of one tick. `command` is what the client sent for `kind == command`; a join
// carries the game's join_command, a leave a default Command. On the wire and in replays:
//   u32 player | u8 kind | the command's fields (command_bytes<G>() bytes, see codec.hpp)
template <class Command>
struct PlayerInput {
    uint32_t player = 0;
    InputKind kind = InputKind::command;
    Command command{};
    friend bool operator==(const PlayerInput&, const PlayerInput&) = default;
};

// ---- The visitor contract ------------------------------------------------------------------
// A game describes each of its types once, as a function template over a visitor V and the
// object (const or not: the same walk writes a digest, encodes, decodes, dumps and diffs):
//
//   template <class V, class C> static void visit_config(V& v, C& config);
//   template <class V, class S> static void visit_state(V& v, S& state);
//   template <class V, class C> static void visit_command(V& v, C& command);
//
// calling, in one fixed order that depends on nothing but the values already visited:
//   v.field("name", x)            a value of a field type (below), in the current section
//   v.field("name", x, section)   the same, into another section the enclosing list spans
//   v.section(section)            later fields go into this section (visit_state only)
//   v.config("name", config)      the state's config, walked with visit_config; a decoder
//                                 validates it right there, so later counts may depend on it
//   v.list("name", vector, count, element)           a vector of elements, each walked by
//   v.list("name", vector, count, also(s...), element)   element(e); `also` names the other
//                                 sections its elements write fields into
//   v.key("name", x)              first in an element: what names it (an integer or a SlotKey);
//                                 keys strictly increase along a list
//   v.object("name", walk)        a named group of fields (walk()): a path prefix only
//   v.derived("name", compute)    a u64 computed from the state: digested and dumped, never
//                                 encoded (a summary such as a set digest)
//   v.require(predicate)          an invariant of the values visited so far; a decoder refuses
//                                 a snapshot where predicate() is false (value_out_of_range);
//                                 visit_command and visit_config may call it too (a command's
//                                 reserved bits clear, say): the command and config decoders
//                                 then refuse such bytes as value_out_of_range
//
// Field types and their canonical encoding (little-endian, in digests and on the wire alike):
// uint8/16/32/64_t and int8/16/32/64_t as themselves, bool as one byte 0 or 1, Fx as its int32
// raw, Vec2 as x then y, SlotKey as index then generation, XorShift as its u64 state (never 0).
//
// The digest of a state is XXH3 over the fields visited before the first section (the
// header: the tick, say) followed by each section's digest, in section order. A section's
// digest is XXH3 over what was written into it: fields in visit order, each list's element
// count (u32) before its elements, in every section the list spans, and each element's key
// again at the start of its fields in every such section, so a section alone still says
// which element a value belongs to.

// How many elements a list may hold; a decoder refuses a count outside it.
struct Count {
    uint32_t min = 0;
    uint32_t max = 0;
};
constexpr Count at_most(uint32_t max) { return {0, max}; }
constexpr Count exactly(uint32_t n) { return {n, n}; }

// The sections a list's elements write into beyond the current one (a bit per section).
struct Also {
    uint32_t mask = 0;
};
template <class... Sections>
constexpr Also also(Sections... sections) {
    return Also{((uint32_t{1} << static_cast<uint32_t>(sections)) | ... | 0u)};
}

// The most sections a game may have: the wire carries their digests in a desync report.
inline constexpr uint32_t max_sections = 16;
// The most bytes a command may encode to: the server's read limit follows from it.
inline constexpr uint32_t max_command_bytes = 64;
// A game's name: 1 to 32 of [a-z0-9_-]. It is on the wire (hello, welcome) and in the fingerprint.
inline constexpr uint32_t max_game_name_bytes = 32;
constexpr bool valid_game_name(std::string_view name) {
    if (name.empty() || name.size() > max_game_name_bytes) return false;
    for (char c : name) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
    }
    return true;
}

// ---- The concept ---------------------------------------------------------------------------
// G is a traits type (a struct of static members and types), so a game's state stays a plain
// value of its own:
//   G::name                  the game's name (valid_game_name)
//   G::version               bumped by every change to what step computes from the same
//                            state and inputs; in the fingerprint, so builds of different
//                            simulations refuse each other's snapshots and peers
//   G::sections              std::array of section names; its enum or indices name them
//   G::Config, G::State, G::Command, G::Event: plain values (State and Config comparable ==)
//   G::ConfigError           an error code (error_name, describe) for a config out of range
//   G::validate(config)      Result<void, ConfigError>: the first knob out of its range
//   G::make(config)          Result<State, ConfigError>: the state at tick 0
//   G::tick(state)           the ticks stepped since make (step adds one)
//   G::config_of(state)      the config the state runs
//   G::tick_hz(config)       ticks per second, 1 to 1000
//   G::max_players(config)   players the state can hold; the room offers at most as many seats
//   G::join_command(config)  the command a join carries (where a new player starts aiming)
//   G::Stepper               default-constructible and copyable; owns every scratch buffer a
//                            step needs and the events of its last step (valid until the next).
//                            step(state, inputs) advances exactly one tick with that tick's
//                            inputs, which may come in any order and number, and returns the
//                            events; any Stepper steps any state to the same bits
// plus the three visitors above. Optional:
//   G::idle_command(config)  the command a player whose connection dropped is given once,
//                            while the room keeps its seat for a resume (room.hpp): for a game
//                            whose players would otherwise keep acting on their last command
//                            (held buttons). Without it the room sends no command at all.
template <class G>
concept Simulation =
    requires {
        typename G::Config;
        typename G::State;
        typename G::Command;
        typename G::Event;
        typename G::Stepper;
        typename G::ConfigError;
        { G::name } -> std::convertible_to<std::string_view>;
        { G::version } -> std::convertible_to<uint32_t>;
        { G::sections.size() } -> std::convertible_to<std::size_t>;
    } && ErrorCode<typename G::ConfigError> && std::default_initializable<typename G::Stepper> &&
    std::copy_constructible<typename G::Stepper> && std::equality_comparable<typename G::State> &&
    std::equality_comparable<typename G::Config> && std::default_initializable<typename G::Command> &&
    std::equality_comparable<typename G::Command> &&
    requires(const typename G::Config& config, typename G::State& state, const typename G::State& cstate,
             typename G::Stepper& stepper, std::span<const PlayerInput<typename G::Command>> inputs) {
        { G::validate(config) } -> std::same_as<Result<void, typename G::ConfigError>>;
        { G::make(config) } -> std::same_as<Result<typename G::State, typename G::ConfigError>>;
        { G::tick(cstate) } -> std::convertible_to<uint64_t>;
        { G::config_of(cstate) } -> std::convertible_to<const typename G::Config&>;
        { G::tick_hz(config) } -> std::convertible_to<uint32_t>;
        { G::max_players(config) } -> std::convertible_to<uint32_t>;
        { G::join_command(config) } -> std::convertible_to<typename G::Command>;
        { stepper.step(state, inputs) } -> std::convertible_to<std::span<const typename G::Event>>;
    };

template <class G>
using Input = PlayerInput<typename G::Command>;

template <class G>
inline constexpr uint32_t section_count = static_cast<uint32_t>(G::sections.size());

}  // namespace tandem::sim
