// Prints ships' fingerprint hash (hex, as `tandem` prints digests), for the ships room suite
// over sockets (tests/server/room/ships.test.mjs), whose hello must name it.
#include <iostream>

#include "ships/sim.hpp"
#include "tandem/core/digest.hpp"

int main() {
    std::cout << tandem::hex64(tandem::sim::fingerprint_hash<ships::Sim>()) << "\n";
    return 0;
}
