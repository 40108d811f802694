// Must not build: a game reaches tandem through the seam and core alone, never the room.
#include "tandem/net/room.hpp"
