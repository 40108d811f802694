// The rules of request_rules.hpp, each straight from its RFC section.
#include "server/request_rules.hpp"

#include <cctype>
#include <string>

namespace tandem::server {

bool valid_websocket_key(std::string_view key) {
    if (key.size() != 24 || key.substr(22) != "==") return false;
    for (const char c : key.substr(0, 22)) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/')) return false;
    }
    // The 16th byte's last 4 bits fill the 22nd character's low bits with zeros (RFC 4648 3.5:
    // canonical encoders set the pad bits to zero); a nonzero tail is not the base64 of 16 bytes.
    const char last = key[21];
    const std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    return (alphabet.find(last) & 0x0F) == 0;
}

std::optional<std::string_view> transfer_encoding_problem(std::optional<std::string_view> transfer_encoding,
                                                          bool has_content_length, unsigned http_version) {
    if (!transfer_encoding) return std::nullopt;
    if (has_content_length) return "transfer_encoding_with_content_length";
    if (http_version < 11) return "transfer_encoding_in_http_1_0";
    // The final coding: the last comma-separated element, without whitespace or parameters.
    std::string_view value = *transfer_encoding;
    const size_t comma = value.rfind(',');
    if (comma != std::string_view::npos) value.remove_prefix(comma + 1);
    if (const size_t semi = value.find(';'); semi != std::string_view::npos) value = value.substr(0, semi);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    std::string lower(value);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower != "chunked") return "transfer_encoding_not_chunked";
    return std::nullopt;
}

bool valid_peer_close_code(uint16_t code) {
    if (code >= 1000 && code <= 1003) return true;
    if (code >= 1007 && code <= 1014) return true;
    return code >= 3000 && code <= 4999;
}

}  // namespace tandem::server
