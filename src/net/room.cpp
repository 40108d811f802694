// The parts of the Room (room.hpp) that do not depend on the game: the names and sentences of
// its config refusals and of a refused hello. The room itself is a template over the game,
// header-only.
#include "tandem/net/room.hpp"

#include <string>

#include "tandem/core/digest.hpp"  // hex64: the one spelling of a digest

namespace tandem::net {

std::string_view error_name(RoomConfigCode code) {
    switch (code) {
        case RoomConfigCode::game_config: return "game_config";
        case RoomConfigCode::input_delay_out_of_range: return "input_delay_out_of_range";
        case RoomConfigCode::max_players_out_of_range: return "max_players_out_of_range";
        case RoomConfigCode::max_watchers_out_of_range: return "max_watchers_out_of_range";
        case RoomConfigCode::idle_timeout_out_of_range: return "idle_timeout_out_of_range";
        case RoomConfigCode::resume_grace_out_of_range: return "resume_grace_out_of_range";
    }
    return "unknown";
}

std::string_view describe(RoomConfigCode code) {
    switch (code) {
        case RoomConfigCode::game_config: return "the game's config does not validate";
        case RoomConfigCode::input_delay_out_of_range: return "the input delay must be at most 600 ticks";
        case RoomConfigCode::max_players_out_of_range:
            return "the room's max_players must be at most the game's max_players (a place in the state for every "
                   "seat) and at most 64 (max_players_per_room)";
        case RoomConfigCode::max_watchers_out_of_range: return "max_watchers must be at most 65536";
        case RoomConfigCode::idle_timeout_out_of_range: return "the idle timeout must be at least one second";
        case RoomConfigCode::resume_grace_out_of_range: return "the resume grace must be 0 to 3600 seconds";
    }
    return "unknown room config error";
}

namespace detail {

std::string version_refusal(uint16_t theirs) {
    return "protocol version " + std::to_string(theirs) + ", this server speaks " + std::to_string(protocol_version);
}

std::string game_refusal(std::string_view theirs, std::string_view ours) {
    return "game '" + std::string(theirs) + "', this room runs '" + std::string(ours) + "'";
}

std::string fingerprint_refusal(uint64_t theirs, uint64_t ours, std::string_view our_fingerprint) {
    return "simulation fingerprint " + hex64(theirs) + ", this server runs " + hex64(ours) + " (" +
           std::string(our_fingerprint) + ")";
}

}  // namespace detail

}  // namespace tandem::net
