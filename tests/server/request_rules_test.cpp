// The handshake and framing rules (request_rules.hpp) against the RFCs' own examples and
// ranges, written out here.
#include <catch2/catch.hpp>

#include "server/request_rules.hpp"

using namespace tandem::server;

TEST_CASE("Sec-WebSocket-Key: the base64 of 16 bytes only (RFC 6455 4.2.1)") {
    CHECK(valid_websocket_key("dGhlIHNhbXBsZSBub25jZQ=="));  // RFC 6455 1.3's example
    CHECK(valid_websocket_key("AAAAAAAAAAAAAAAAAAAAAA=="));
    CHECK_FALSE(valid_websocket_key(""));
    CHECK_FALSE(valid_websocket_key("short"));
    CHECK_FALSE(valid_websocket_key("AAAAAAAAAAAAAAAAAAAAAAAA"));      // 18 bytes, no padding
    CHECK_FALSE(valid_websocket_key("AAAAAAAAAAAAAAAAAAAAA*=="));      // not base64
    CHECK_FALSE(valid_websocket_key("AAAAAAAAAAAAAAAAAAAAAAAAAA=="));  // 19 bytes
    CHECK_FALSE(valid_websocket_key("AAAAAAAAAAAAAAAAAAAAAB=="));      // nonzero pad bits
}

TEST_CASE("Transfer-Encoding: only a final chunked coding, never with Content-Length (RFC 9112 6.1, 6.3)") {
    CHECK_FALSE(transfer_encoding_problem(std::nullopt, false, 11));
    CHECK_FALSE(transfer_encoding_problem(std::nullopt, true, 11));
    CHECK_FALSE(transfer_encoding_problem("chunked", false, 11));
    CHECK_FALSE(transfer_encoding_problem("gzip, Chunked ", false, 11));
    CHECK(transfer_encoding_problem("xchunked", false, 11) == std::optional<std::string_view>("transfer_encoding_not_chunked"));
    CHECK(transfer_encoding_problem("chunked, gzip", false, 11));
    CHECK(transfer_encoding_problem("", false, 11));
    CHECK(transfer_encoding_problem("chunked", true, 11) == std::optional<std::string_view>("transfer_encoding_with_content_length"));
    CHECK(transfer_encoding_problem("chunked", false, 10));
}

TEST_CASE("peer close codes: 1000-1003, 1007-1014, 3000-4999 (RFC 6455 7.4)") {
    for (uint16_t c : {1000, 1001, 1002, 1003, 1007, 1011, 1014, 3000, 4999}) CHECK(valid_peer_close_code(c));
    for (uint16_t c : {0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535}) CHECK_FALSE(valid_peer_close_code(c));
}
