// Must not build: tandem_core is below the net layer, so the net's headers are not in its view.
#include "tandem/net/protocol.hpp"
