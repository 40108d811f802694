// Must not build: the template reaches tandem through the seam and core alone, never the room.
#include "tandem/net/room.hpp"
