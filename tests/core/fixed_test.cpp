// Properties of src/core/fixed.*: exact or correctly rounded arithmetic, saturation, and
// the stated error bounds of every function.
#include "core/fixed.hpp"

#include <catch2/catch.hpp>

using tandem::Fx;

TEST_CASE("multiplication rounds ties to even") {
    // 1.5 LSB * 0.5 = 0.75 LSB -> 1; 0.5 LSB exactly ties -> 0 (even)
    CHECK((Fx::from_raw(1) * Fx::from_raw(32768)).raw() == 0);
    CHECK((Fx::from_raw(3) * Fx::from_raw(32768)).raw() == 2);
}
