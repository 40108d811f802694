// The arena's side of `tandem serve`: its own flags (--pellets, --tick-hz), the seats
// --max-players asks for, and its routes (the native scenario stream).
#pragma once

#include "arena/sim.hpp"
#include "tandem/server/serve_main.hpp"

namespace arena {

tandem::server::GameServe<Sim> serve_hooks();

}  // namespace arena
