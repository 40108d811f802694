// The request-target parser and the file lookup behind src/server's static HTTP. The
// parser decodes exactly once and refuses rather than repairs: a target a browser would
// never send for a real file is an attack or a bug, and 400 says so.
#include "server/static_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <span>
#include <system_error>

namespace tandem::server {

std::string_view error_name(PathRefusal refusal) {
    switch (refusal) {
    case PathRefusal::not_origin_form: return "not_origin_form";
    case PathRefusal::too_long: return "too_long";
    case PathRefusal::bad_percent_encoding: return "bad_percent_encoding";
    case PathRefusal::encoded_separator: return "encoded_separator";
    case PathRefusal::encoded_percent: return "encoded_percent";
    case PathRefusal::backslash: return "backslash";
    case PathRefusal::control_byte: return "control_byte";
    case PathRefusal::invalid_utf8: return "invalid_utf8";
    case PathRefusal::dot_segment: return "dot_segment";
    case PathRefusal::empty_segment: return "empty_segment";
    }
    return "unknown";
}

std::string_view describe(PathRefusal refusal) {
    switch (refusal) {
    case PathRefusal::not_origin_form: return "the request target must be a path starting with '/'";
    case PathRefusal::too_long: return "the request target is longer than the server accepts";
    case PathRefusal::bad_percent_encoding: return "a '%' must be followed by two hexadecimal digits";
    case PathRefusal::encoded_separator: return "an encoded '/' or '\\' is not accepted in a path";
    case PathRefusal::encoded_percent: return "an encoded '%' (double encoding) is not accepted in a path";
    case PathRefusal::backslash: return "'\\' is not accepted in a path";
    case PathRefusal::control_byte: return "NUL and other control bytes are not accepted in a path";
    case PathRefusal::invalid_utf8: return "the decoded path is not valid shortest-form UTF-8";
    case PathRefusal::dot_segment: return "'.' and '..' segments are not accepted in a path";
    case PathRefusal::empty_segment: return "an empty path segment ('//') is not accepted";
    }
    return "unknown refusal";
}

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Shortest-form UTF-8 only (RFC 3629): no overlong forms (so no "%C0%AE" for '.'), no
// surrogates, nothing past U+10FFFF.
bool valid_utf8(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        const auto b0 = static_cast<unsigned char>(s[i]);
        if (b0 < 0x80) {
            ++i;
            continue;
        }
        size_t length = 0;
        uint32_t code = 0;
        uint32_t smallest = 0;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            length = 2, code = b0 & 0x1Fu, smallest = 0x80;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            length = 3, code = b0 & 0x0Fu, smallest = 0x800;
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            length = 4, code = b0 & 0x07u, smallest = 0x10000;
        } else {
            return false;  // continuation byte first, C0/C1 (always overlong), F5..FF
        }
        if (i + length > s.size()) return false;
        for (size_t k = 1; k < length; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            if ((b & 0xC0u) != 0x80u) return false;
            code = (code << 6) | (b & 0x3Fu);
        }
        if (code < smallest || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
        i += length;
    }
    return true;
}

}  // namespace

Result<RequestPath, PathRefusal> parse_request_path(std::string_view target) {
    if (target.size() > longest_request_target) return PathRefusal::too_long;
    if (target.empty() || target.front() != '/') return PathRefusal::not_origin_form;
    if (const size_t query = target.find_first_of("?#"); query != std::string_view::npos) {
        target = target.substr(0, query);
    }

    RequestPath path;
    std::string segment;
    // Each segment is judged after decoding, so "%2e%2E" is the same ".." as "..".
    auto finish_segment = [&]() -> std::optional<PathRefusal> {
        if (segment.empty()) return PathRefusal::empty_segment;
        if (segment == "." || segment == "..") return PathRefusal::dot_segment;
        if (!valid_utf8(segment)) return PathRefusal::invalid_utf8;
        path.segments.push_back(std::move(segment));
        segment.clear();
        return std::nullopt;
    };

    for (size_t i = 1; i < target.size(); ++i) {
        const char c = target[i];
        if (c == '/') {
            if (auto refused = finish_segment()) return *refused;
            continue;
        }
        if (c == '\\') return PathRefusal::backslash;
        char byte = c;
        if (c == '%') {
            if (i + 2 >= target.size()) return PathRefusal::bad_percent_encoding;
            const int hi = hex_value(target[i + 1]);
            const int lo = hex_value(target[i + 2]);
            if (hi < 0 || lo < 0) return PathRefusal::bad_percent_encoding;
            byte = static_cast<char>(hi * 16 + lo);
            i += 2;
            if (byte == '/' || byte == '\\') return PathRefusal::encoded_separator;
            if (byte == '%') return PathRefusal::encoded_percent;
        }
        const auto u = static_cast<unsigned char>(byte);
        if (u < 0x20 || u == 0x7F) return PathRefusal::control_byte;
        segment.push_back(byte);
    }
    if (segment.empty()) {
        path.directory = true;  // "/" or ".../"
    } else if (auto refused = finish_segment()) {
        return *refused;
    }
    return path;
}

std::string_view mime_type_for(std::string_view file_name) {
    const size_t dot = file_name.rfind('.');
    if (dot == std::string_view::npos) return "application/octet-stream";
    std::string ext(file_name.substr(dot + 1));
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    struct Entry {
        std::string_view ext;
        std::string_view mime;
    };
    // Browsers refuse module scripts and streaming wasm compilation under any other type,
    // so these few must be exact; the rest are the common IANA registrations.
    static constexpr std::array<Entry, 22> table = {{
        {"html", "text/html; charset=utf-8"},
        {"htm", "text/html; charset=utf-8"},
        {"js", "text/javascript; charset=utf-8"},
        {"mjs", "text/javascript; charset=utf-8"},
        {"css", "text/css; charset=utf-8"},
        {"json", "application/json"},
        {"map", "application/json"},
        {"wasm", "application/wasm"},
        {"png", "image/png"},
        {"jpg", "image/jpeg"},
        {"jpeg", "image/jpeg"},
        {"gif", "image/gif"},
        {"webp", "image/webp"},
        {"svg", "image/svg+xml"},
        {"ico", "image/x-icon"},
        {"txt", "text/plain; charset=utf-8"},
        {"md", "text/markdown; charset=utf-8"},
        {"ts", "text/plain; charset=utf-8"},  // a .d.ts is read, never run, by a browser
        {"woff", "font/woff"},
        {"woff2", "font/woff2"},
        {"glb", "model/gltf-binary"},
        {"gltf", "model/gltf+json"},
    }};
    for (const Entry& e : table) {
        if (e.ext == ext) return e.mime;
    }
    return "application/octet-stream";
}

bool if_none_match_hits(std::string_view header, std::string_view etag) {
    auto trim = [](std::string_view s) {
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
        while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
        return s;
    };
    auto opaque = [](std::string_view tag) { return tag.starts_with("W/") ? tag.substr(2) : tag; };
    const std::string_view ours = opaque(etag);
    while (!header.empty()) {
        const size_t comma = header.find(',');
        const std::string_view item = trim(header.substr(0, comma));
        if (item == "*" || (!item.empty() && opaque(item) == ours)) return true;
        if (comma == std::string_view::npos) break;
        header.remove_prefix(comma + 1);
    }
    return false;
}

namespace {

// Strong: a file's size and modification time in nanoseconds, which change with its bytes.
std::string etag_of(const struct ::stat& info) {
    const int64_t mtime_ns = static_cast<int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
    char tag[64];
    std::snprintf(tag, sizeof tag, "\"%llx-%llx\"", static_cast<unsigned long long>(info.st_size),
                  static_cast<unsigned long long>(mtime_ns));
    return tag;
}

}  // namespace

std::optional<FoundFile> find_file(const StaticRoots& roots, const RequestPath& request) {
    std::span<const std::string> segments = request.segments;
    const std::filesystem::path* root = &roots.web;
    if (!segments.empty() && segments.front() == "pkg") {
        root = &roots.pkg;
        segments = segments.subspan(1);
    }
    if (root->empty()) return std::nullopt;
    std::filesystem::path candidate = *root;
    for (const std::string& s : segments) {
        if (s.front() == '.') return std::nullopt;  // .git, .env, .package-lock.json: never served
        candidate /= s;
    }
    if (request.directory || segments.empty()) candidate /= "index.html";

    std::error_code ec;
    // Resolving every symbolic link and comparing against the canonical root is what keeps
    // a link inside the tree that points out of it from being followed.
    const std::filesystem::path resolved = std::filesystem::canonical(candidate, ec);
    if (ec) return std::nullopt;
    const std::string& root_text = root->native();
    const std::string& resolved_text = resolved.native();
    const bool inside = resolved_text.size() > root_text.size() && resolved_text.starts_with(root_text) &&
                        (root_text.back() == '/' || resolved_text[root_text.size()] == '/');
    if (!inside) return std::nullopt;

    struct ::stat info {};
    if (::stat(resolved.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
    return FoundFile{resolved, static_cast<uint64_t>(info.st_size), etag_of(info), mime_type_for(candidate.filename().native())};
}

// ---- gzip ------------------------------------------------------------------------------------

bool accepts_gzip(std::string_view header) {
    auto trim = [](std::string_view s) {
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
        while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
        return s;
    };
    auto lower = [](std::string_view s) {
        std::string out(s);
        std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return out;
    };
    // A q-value is "0", "0.", "0.0".."0.000" for zero; anything else that parses is above it.
    auto zero_weight = [&](std::string_view params) {
        while (!params.empty()) {
            const size_t semi = params.find(';');
            const std::string p = lower(trim(params.substr(0, semi)));
            if (p.starts_with("q=")) {
                const std::string_view q = std::string_view(p).substr(2);
                return !q.empty() && q.find_first_not_of("0.") == std::string_view::npos && q.front() == '0';
            }
            if (semi == std::string_view::npos) break;
            params.remove_prefix(semi + 1);
        }
        return false;
    };
    std::optional<bool> gzip;  // what "gzip" or "x-gzip" said
    bool star = false;
    while (!header.empty()) {
        const size_t comma = header.find(',');
        const std::string_view item = header.substr(0, comma);
        const size_t semi = item.find(';');
        const std::string coding = lower(trim(item.substr(0, semi)));
        const bool allowed = semi == std::string_view::npos || !zero_weight(item.substr(semi + 1));
        if (coding == "gzip" || coding == "x-gzip") {
            gzip = gzip.value_or(false) || allowed;
        } else if (coding == "*") {
            star = star || allowed;
        }
        if (comma == std::string_view::npos) break;
        header.remove_prefix(comma + 1);
    }
    return gzip.value_or(star);
}

bool compressible(std::string_view mime) {
    return mime.starts_with("text/") || mime == "application/json" || mime == "application/wasm" ||
           mime == "image/svg+xml" || mime == "model/gltf+json";
}

std::string gzip_etag(std::string_view etag) {
    if (etag.size() >= 2 && etag.back() == '"') return std::string(etag.substr(0, etag.size() - 1)) + "-gz\"";
    return std::string(etag) + "-gz";
}

std::string gzip_compress(std::string_view bytes, int level) {
    z_stream z{};
    // windowBits 15 + 16: a gzip wrapper; zlib writes modification time 0 and no name.
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
    std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int status = deflate(&z, Z_FINISH);  // deflateBound's room always suffices
    out.resize(z.total_out);
    deflateEnd(&z);
    return status == Z_STREAM_END ? out : std::string();
}

GzipFiles::GzipFiles(Limits limits) : limits_(limits) {}

GzipFiles::~GzipFiles() {
    {
        const std::lock_guard lock(mutex_);
        stop_ = true;
        queue_.clear();
    }
    wake_.notify_all();
    if (worker_.joinable()) worker_.join();
}

std::shared_ptr<const std::string> GzipFiles::find(const FoundFile& file) {
    if (!compressible(file.mime) || file.size < limits_.smallest_file || file.size > limits_.largest_file) return nullptr;
    const std::lock_guard lock(mutex_);
    const auto it = entries_.find(file.path.native());
    if (it != entries_.end() && it->second.etag == file.etag) return it->second.done ? it->second.body : nullptr;
    if (it == entries_.end() && entries_.size() >= limits_.files) return nullptr;
    // New, or a new version of the file: the old body goes, the new one is queued.
    Entry& entry = entries_[file.path.native()];
    if (entry.body) held_ -= entry.body->size();
    entry = Entry{file.etag, false, nullptr};
    queue_.push_back(Job{file.path, file.etag});
    if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
    wake_.notify_one();
    return nullptr;
}

void GzipFiles::wait_idle() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

uint64_t GzipFiles::held_bytes() const {
    const std::lock_guard lock(mutex_);
    return held_;
}

void GzipFiles::work() {
    std::unique_lock lock(mutex_);
    while (true) {
        wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        const Job job = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        lock.unlock();

        // Read the version that was asked for: a file changed since its lookup is left for
        // the next request, which names the new version.
        std::shared_ptr<const std::string> body;
        bool same_version = false;
        if (const int fd = ::open(job.path.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
            struct ::stat info {};
            if (::fstat(fd, &info) == 0 && etag_of(info) == job.etag) {
                std::string bytes(static_cast<size_t>(info.st_size), '\0');
                size_t got = 0;
                while (got < bytes.size()) {
                    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
                    if (n <= 0) break;
                    got += static_cast<size_t>(n);
                }
                if (got == bytes.size()) {
                    same_version = true;
                    std::string gz = gzip_compress(bytes);
                    if (!gz.empty() && gz.size() < bytes.size()) body = std::make_shared<const std::string>(std::move(gz));
                }
            }
            ::close(fd);
        }

        lock.lock();
        busy_ = false;
        const auto it = entries_.find(job.path.native());
        if (it != entries_.end() && it->second.etag == job.etag) {
            if (!same_version) {
                entries_.erase(it);
            } else {
                if (body && held_ + body->size() > limits_.held_bytes) body = nullptr;  // full: sent as it is
                if (body) held_ += body->size();
                it->second.done = true;
                it->second.body = std::move(body);
            }
        }
        if (queue_.empty()) idle_.notify_all();
    }
}

}  // namespace tandem::server
