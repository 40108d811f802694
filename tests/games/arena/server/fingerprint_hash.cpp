// Prints the arena's fingerprint hash (hex, as `tandem` prints digests), for the room suite
// over sockets (tests/server/room/room.test.mjs), whose hello must name it.
#include <iostream>

#include "arena/sim.hpp"
#include "tandem/core/digest.hpp"

int main() {
    std::cout << tandem::hex64(tandem::sim::fingerprint_hash<arena::Sim>()) << "\n";
    return 0;
}
