// Must build: ships sees the seam it implements (the control for the ships probes).
#include "tandem/sim/state.hpp"
