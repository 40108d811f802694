// Result<T, E>: the library's one refusal type. A value or a typed error, never both, and the
// error's stable code and sentence reachable without knowing the enum.
#include "tandem/core/result.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace {
enum class Refusal : uint8_t { too_small = 1, too_large = 2 };
std::string_view error_name(Refusal r) { return r == Refusal::too_small ? "too_small" : "too_large"; }
std::string_view describe(Refusal r) { return r == Refusal::too_small ? "below the minimum" : "above the maximum"; }

struct Usage {
    std::string message;
};
std::string_view error_name(const Usage&) { return "usage"; }
std::string_view describe(const Usage& u) { return u.message; }

tandem::Result<int, Refusal> bounded(int v) {
    if (v < 0) return Refusal::too_small;
    if (v > 9) return Refusal::too_large;
    return v;
}
}  // namespace

TEST_CASE("a Result holds either the value or the error that refused it") {
    const auto good = bounded(4);
    REQUIRE(good.ok());
    CHECK(*good == 4);
    CHECK(good.code().empty());
    const auto low = bounded(-1);
    REQUIRE_FALSE(low.ok());
    CHECK(low.error() == Refusal::too_small);
    CHECK(low.code() == "too_small");
    CHECK(low.message() == "below the minimum");
    CHECK(bounded(10).code() == "too_large");
    CHECK(low.value_or(7) == 7);
}

TEST_CASE("Result<void, E> is success by default and carries an error otherwise") {
    const tandem::Result<void, Refusal> fine;
    CHECK(fine.ok());
    const tandem::Result<void, Refusal> refused = Refusal::too_large;
    CHECK_FALSE(refused.ok());
    CHECK(refused.code() == "too_large");
}

TEST_CASE("a struct error carries its detail, reachable as the message") {
    const tandem::Result<int, Usage> r = Usage{"--ticks expects a whole number"};
    CHECK_FALSE(r.ok());
    CHECK(r.code() == "usage");
    CHECK(r.message() == "--ticks expects a whole number");
}
