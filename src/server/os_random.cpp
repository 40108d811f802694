// Resume tokens and ticket nonces from the kernel (tandem/server/os_random.hpp): getrandom(2), or /dev/urandom
// where the call is missing. Nothing else in the server draws random bytes.
#include "tandem/server/os_random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace tandem::server {

net::ResumeToken os_resume_token() {
    net::ResumeToken t{};
    os_random_bytes(t);
    return t;
}

void os_random_bytes(std::span<uint8_t> t) {
    size_t got = 0;
    while (got < t.size()) {
        const ssize_t n = getrandom(t.data() + got, t.size() - got, 0);
        if (n > 0) {
            got += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        break;
    }
    if (got < t.size()) {
        std::FILE* f = std::fopen("/dev/urandom", "rb");
        if (f != nullptr) {
            got += std::fread(t.data() + got, 1, t.size() - got, f);
            std::fclose(f);
        }
    }
    if (got < t.size()) {
        std::fputs("tandem: no random bytes from the OS for a resume token or a ticket\n", stderr);
        std::abort();
    }
}

}  // namespace tandem::server
