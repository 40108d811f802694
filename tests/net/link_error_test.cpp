// Properties of src/net/link_error.*: every refusal of the link toolkit has its own stable
// snake_case code and a sentence, so JavaScript and logs can tell them apart.
#include "tandem/net/link_error.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using tandem::net::LinkError;

TEST_CASE("every link refusal has a distinct snake_case code and a sentence") {
    std::set<std::string> codes;
    for (uint8_t v = static_cast<uint8_t>(LinkError::capacity_zero); v <= static_cast<uint8_t>(LinkError::fraction_out_of_range); ++v) {
        const auto error = static_cast<LinkError>(v);
        const std::string code(error_name(error));
        INFO("value " << int{v} << " code " << code);
        CHECK(code != "unknown");
        CHECK(code.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos);
        CHECK(codes.insert(code).second);
        CHECK(describe(error).size() > 20);
    }
    CHECK(codes.size() == 8);
}
