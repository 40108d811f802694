// Pure rules the transport applies to what a stranger sends before and around the WebSocket
// handshake: the Sec-WebSocket-Key's form (RFC 6455 4.2.1), the Transfer-Encoding a request
// may carry (RFC 9112 6.1, 6.3) and the close codes a peer may send (RFC 6455 7.4). No
// sockets here, so each rule is unit-tested on its own (tests/server/request_rules_test.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tandem::server {

// RFC 6455 4.2.1: the key is the base64 of 16 bytes: 22 base64 characters and "==".
bool valid_websocket_key(std::string_view key);

// RFC 9112 6.3: a request whose Transfer-Encoding does not end in "chunked" has a length
// the server cannot know, and must be answered 400 and the connection closed; one with both
// Transfer-Encoding and Content-Length is a smuggling attempt and gets the same. Returns the
// reason to refuse, or nothing when the framing is acceptable.
std::optional<std::string_view> transfer_encoding_problem(std::optional<std::string_view> transfer_encoding,
                                                          bool has_content_length, unsigned http_version);

// RFC 6455 7.4: the codes a peer may put in its close frame: 1000-1003, 1007-1014
// (registered), 3000-4999 (libraries and applications). 1004-1006, 1015, 0-999, 1016-2999
// and 5000 and above are refused (answered 1002).
bool valid_peer_close_code(uint16_t code);

}  // namespace tandem::server
