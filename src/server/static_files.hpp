// What an HTTP request target means as a file: a pure parser that refuses every spelling
// of a path that could leave the served directory, then a lookup that resolves symbolic
// links and checks the result is still inside. Must never hand out a file outside the
// roots, list a directory, or decode a target twice. Also the gzip coding of served files,
// compressed once per file version off the server's thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
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

// ---- gzip ------------------------------------------------------------------------------------

// Whether an Accept-Encoding header value admits the gzip coding (RFC 9110 12.5.3): "gzip",
// "x-gzip" or "*" with a q-value above 0. An explicit "gzip;q=0" refuses it even beside "*".
bool accepts_gzip(std::string_view accept_encoding);

// Whether a file of this Content-Type is worth compressing: text, JavaScript, JSON, wasm, SVG.
// Formats that are compressed already (PNG, JPEG, WebP, WOFF2...) are sent as they are.
bool compressible(std::string_view mime);

// The entity tag of a file's gzip representation: a strong tag must differ between
// representations of one resource (RFC 9110 8.8.3), so '"x"' becomes '"x-gz"'.
std::string gzip_etag(std::string_view identity_etag);

// The gzip member (RFC 1952) of `bytes` at zlib's `level`, with a fixed header (no file name,
// modification time 0): the same bytes always compress to the same body.
std::string gzip_compress(std::string_view bytes, int level = 6);

// The gzip bodies of served files. A file is compressed once per version (its ETag) on this
// object's own thread, so a request never holds the server's thread for it (three.js takes
// 0.1 s at level 6): the first request for a version queues it and is answered uncompressed,
// the ones after it get the stored body. Bounded in bytes held and in files remembered; past
// either bound a file is simply sent uncompressed.
class GzipFiles {
public:
    struct Limits {
        uint64_t held_bytes = 64ull << 20;    // compressed bodies kept, in all
        uint64_t largest_file = 16ull << 20;  // a larger file is never read into memory
        uint64_t smallest_file = 256;         // a smaller one saves less than its headers cost
        uint32_t files = 4096;                // versions remembered (compressed or not worth it)
    };
    GzipFiles() : GzipFiles(Limits{}) {}
    explicit GzipFiles(Limits limits);
    GzipFiles(const GzipFiles&) = delete;
    GzipFiles& operator=(const GzipFiles&) = delete;
    ~GzipFiles();  // drops the queue, waits for the file in hand

    // The gzip body of this version of the file, when compressed and smaller than the file;
    // otherwise nullptr (queued for compression if it may be worth it and is not yet known).
    std::shared_ptr<const std::string> find(const FoundFile& file);
    // Blocks until nothing is queued or in hand (tests).
    void wait_idle();
    uint64_t held_bytes() const;

private:
    struct Entry {
        std::string etag;
        bool done = false;
        std::shared_ptr<const std::string> body;  // done and null: sent as it is
    };
    struct Job {
        std::filesystem::path path;
        std::string etag;
    };
    void work();

    const Limits limits_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    std::map<std::string, Entry> entries_;  // by canonical path
    std::deque<Job> queue_;
    uint64_t held_ = 0;
    bool busy_ = false;
    bool stop_ = false;
    std::thread worker_;  // started with the first job
};

}  // namespace tandem::server
