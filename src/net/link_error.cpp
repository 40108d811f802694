// The stable codes and sentences of LinkError. Codes never change meaning once published:
// JavaScript and logs match on them.
#include "tandem/net/link_error.hpp"

namespace tandem::net {

std::string_view error_name(LinkError error) {
    switch (error) {
    case LinkError::capacity_zero: return "capacity_zero";
    case LinkError::gap_not_positive: return "gap_not_positive";
    case LinkError::gap_too_long: return "gap_too_long";
    case LinkError::delay_negative: return "delay_negative";
    case LinkError::delay_too_long: return "delay_too_long";
    case LinkError::window_zero: return "window_zero";
    case LinkError::window_too_large: return "window_too_large";
    case LinkError::fraction_out_of_range: return "fraction_out_of_range";
    }
    return "unknown";
}

std::string_view describe(LinkError error) {
    switch (error) {
    case LinkError::capacity_zero: return "a playout buffer needs room for at least one packet";
    case LinkError::gap_not_positive: return "the largest tolerated gap must be a positive duration";
    case LinkError::gap_too_long: return "the largest tolerated gap must be at most 2^60 ns";
    case LinkError::delay_negative: return "a render delay cannot be negative";
    case LinkError::delay_too_long: return "a render delay must be at most 2^60 ns";
    case LinkError::window_zero: return "an arrival monitor needs a window of at least one sample";
    case LinkError::window_too_large: return "an arrival monitor's window is limited to max_arrival_window samples";
    case LinkError::fraction_out_of_range: return "a fraction is outside the range its parameter allows";
    }
    return "an unknown link toolkit error";
}

}  // namespace tandem::net
