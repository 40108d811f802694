// Must not build: the kit never names a game, so ships' headers are not in its view.
#include "ships/world.hpp"
