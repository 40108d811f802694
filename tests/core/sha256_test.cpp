// Properties of src/core/sha256.*: it is SHA-256. The expected values are FIPS 180-4's examples
// and, for the lengths around the padding's block boundary, Python's hashlib (an implementation
// that shares nothing with ours).
#include "tandem/core/sha256.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::string hex(const tandem::Sha256& h) {
    std::string out;
    char two[3];
    for (uint8_t b : h) {
        std::snprintf(two, sizeof two, "%02x", b);
        out += two;
    }
    return out;
}

std::string of(std::string_view text) {
    return hex(tandem::sha256(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size())));
}

std::string of(const std::vector<uint8_t>& bytes) { return hex(tandem::sha256(bytes)); }

std::vector<uint8_t> counting(uint32_t n) {
    std::vector<uint8_t> v(n);
    for (uint32_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i);
    return v;
}

}  // namespace

TEST_CASE("sha256 of the FIPS 180-4 examples is the standard's digest") {
    CHECK(of("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(of("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(of(std::string(1'000'000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 pads correctly at the block boundary: 55, 56 and 64 bytes as hashlib computes them") {
    CHECK(of(counting(55)) == "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59");
    CHECK(of(counting(56)) == "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562");
    CHECK(of(counting(64)) == "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108");
    std::vector<uint8_t> thousand(1000);
    for (uint32_t i = 0; i < 1000; ++i) thousand[i] = static_cast<uint8_t>(i * 7 % 256);
    CHECK(of(thousand) == "89f4ff56a25dd1db06a4ce6033603775d705fb96f30f8693733fef602a1ca532");
}
