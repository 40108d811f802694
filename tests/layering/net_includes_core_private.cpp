// Must not build: a module's private headers (src/core/) are seen by that module alone.
#include "core/sqrt_segments.hpp"
