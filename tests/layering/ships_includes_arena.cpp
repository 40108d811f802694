// Must not build: one game never sees another's headers (each links only core and the seam).
#include "arena/world.hpp"
