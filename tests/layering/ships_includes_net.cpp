// Must not build: ships reaches tandem through the seam and core alone, never the room.
#include "tandem/net/room.hpp"
