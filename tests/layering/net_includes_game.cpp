// Must not build: the kit never names a game, so no game's headers are in its view.
#include "arena/world.hpp"
