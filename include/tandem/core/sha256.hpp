// SHA-256 (FIPS 180-4), for what must not be readable back from what is stored: a resume
// token is kept and checkpointed only as its SHA-256, so a copy of a room's checkpoint (a
// Redis dump, a directory backup) names no token that could take a seat. Not for digests of
// state (those are XXH3: tandem/core/digest.hpp); never for anything a step computes.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace tandem {

inline constexpr uint32_t sha256_bytes = 32;
using Sha256 = std::array<uint8_t, sha256_bytes>;

Sha256 sha256(std::span<const uint8_t> message);

}  // namespace tandem
