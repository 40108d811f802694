// The server's source of resume tokens (net::TokenSource) and ticket nonces: bytes straight
// from the kernel's CSPRNG (getrandom), so a token cannot be guessed from any other token, a
// seed or the time. The room itself is pure logic and takes its tokens from whatever source it
// is handed.
#pragma once

#include <cstdint>
#include <span>

#include "tandem/net/room.hpp"

namespace tandem::server {

// Fills `out` from the OS (as os_resume_token below).
void os_random_bytes(std::span<uint8_t> out);

// A fresh token from the OS. getrandom blocks only until the kernel's pool is first seeded at
// boot; a kernel without it falls back to /dev/urandom, and a process that can read neither
// stops (std::abort) rather than hand out a guessable token.
net::ResumeToken os_resume_token();

}  // namespace tandem::server
