// What an HTTP request target means as a file: a pure parser that refuses every spelling
// of a path that could leave the served directory, then a lookup that resolves symbolic
// links and checks the result is still inside. Must never hand out a file outside the
// roots, list a directory, or decode a target twice.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tandem/core/result.hpp"

namespace tandem::server {

inline constexpr uint32_t longest_request_target = 2048;

// Why a target is refused before any file is looked at (all answered with 400).
enum class PathRefusal : uint8_t {
    not_origin_form,       // not "/..." (absolute URLs, "*", empty)
    too_long,              // over longest_request_target bytes
    bad_percent_encoding,  // '%' not followed by two hex digits
    encoded_separator,     // %2F or %5C: a slash that would appear only after decoding
    encoded_percent,       // %25: the second layer of a double encoding
    backslash,             // '\\': a separator on other systems, never a file-name byte here
    control_byte,          // NUL or another C0 control, or DEL, raw or encoded
    invalid_utf8,          // bytes that are not shortest-form UTF-8 (overlong '.', surrogates...)
    dot_segment,           // "." or "..", raw or encoded
    empty_segment,         // "//": a name that is no name
};
std::string_view error_name(PathRefusal refusal);
std::string_view describe(PathRefusal refusal);

// A target reduced to plain file-name segments. `directory` is true for "/" and for a
// target ending in '/', which is answered by that directory's index.html, never a listing.
struct RequestPath {
    std::vector<std::string> segments;
    bool directory = false;
    friend bool operator==(const RequestPath&, const RequestPath&) = default;
};

// The path of an origin-form target (its query ignored), decoded once. Pure.
Result<RequestPath, PathRefusal> parse_request_path(std::string_view target);

// The Content-Type for a file name, by its extension (case-insensitive);
// application/octet-stream when unknown.
std::string_view mime_type_for(std::string_view file_name);

// Whether an If-None-Match header value names this entity tag (weak comparison, as
// RFC 9110 requires for If-None-Match; "*" matches any).
bool if_none_match_hits(std::string_view header, std::string_view etag);

// The two served directories, canonical (symbolic links resolved) at start-up.
struct StaticRoots {
    std::filesystem::path web;
    std::filesystem::path pkg;   // empty: /pkg/ serves nothing
};

struct FoundFile {
    std::filesystem::path path;  // canonical, inside its root
    uint64_t size = 0;
    std::string etag;            // strong: size and modification time in nanoseconds
    std::string_view mime;
};

// The regular file a parsed path names: the first segment "pkg" selects roots.pkg, any
// other path resolves under roots.web. nullopt (404) when it is missing, hidden (a segment
// starting with '.'), not a regular file, or resolves outside its root.
std::optional<FoundFile> find_file(const StaticRoots& roots, const RequestPath& path);

}  // namespace tandem::server
