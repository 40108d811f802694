// Why a link-toolkit factory refused its parameters (playout buffer, render clock, arrival
// monitor). A bad capacity or delay is refused where the object is made, with a stable code,
// rather than discovered later as a buffer that never plays or a clock that never starts.
#pragma once

#include <cstdint>
#include <string_view>

namespace tandem::net {

enum class LinkError : uint8_t {
    capacity_zero = 1,        // a playout buffer that can hold nothing can play nothing
    gap_not_positive,         // the largest gap a playout buffer tolerates must be > 0
    gap_too_long,             // ... and at most longest_duration_ns
    delay_negative,           // a render clock cannot sit ahead of the time it estimates
    delay_too_long,           // ... nor further behind than longest_duration_ns
    window_zero,              // an arrival monitor needs at least one sample to measure
    window_too_large,         // ... and at most max_arrival_window samples
    fraction_out_of_range,    // a fraction outside the range its parameter allows
};

// "capacity_zero", "gap_not_positive", ...: the stable code the bindings expose as `.code`.
std::string_view error_name(LinkError error);
// One sentence naming the rule that was broken.
std::string_view describe(LinkError error);

}  // namespace tandem::net
