// Must build: the template sees the seam it implements (the control for the starter probes).
#include "tandem/sim/state.hpp"
