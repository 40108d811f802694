// ships' side of `tandem serve`: its own flags (--tick-hz, --seed), the seats --max-players
// asks for, and its routes (the native scenario stream).
#pragma once

#include "ships/sim.hpp"
#include "tandem/server/serve_main.hpp"

namespace ships {

tandem::server::GameServe<Sim> serve_hooks();

}  // namespace ships
