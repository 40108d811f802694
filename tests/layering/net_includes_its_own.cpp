// Must build: the control. A library sees its own headers and those of what it links.
#include "tandem/core/fixed.hpp"
#include "tandem/net/protocol.hpp"
#include "tandem/sim/state.hpp"
int tandem_layering_control() { return static_cast<int>(tandem::net::protocol_version); }
