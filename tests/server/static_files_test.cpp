// Properties of src/server/static_files.*: the request-target parser refuses every spelling
// of a path that could leave the root (each with its reason), decodes exactly once, accepts
// plain and UTF-8 names; the MIME table and If-None-Match follow the registrations and
// RFC 9110; the lookup never returns a file outside its root, links included; gzip bodies
// decode to exactly the file's bytes, once per version, within their bounds.
#include "server/static_files.hpp"

#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

using namespace tandem::server;
namespace fs = std::filesystem;

namespace {
PathRefusal refused(std::string_view target) {
    const auto parsed = parse_request_path(target);
    INFO(target);
    REQUIRE_FALSE(parsed.ok());
    return parsed.error();
}
RequestPath accepted(std::string_view target) {
    const auto parsed = parse_request_path(target);
    INFO(target << " refused: " << parsed.message());
    REQUIRE(parsed.ok());
    return parsed.value();
}
}  // namespace

TEST_CASE("plain targets become their segments, and a trailing slash asks for the index") {
    CHECK(accepted("/") == RequestPath{{}, true});
    CHECK(accepted("/index.html") == RequestPath{{"index.html"}, false});
    CHECK(accepted("/pkg/tandem.wasm") == RequestPath{{"pkg", "tandem.wasm"}, false});
    CHECK(accepted("/a/b/") == RequestPath{{"a", "b"}, true});
    CHECK(accepted("/main.js?v=3#x") == RequestPath{{"main.js"}, false});
    CHECK(accepted("/a%20b.txt") == RequestPath{{"a b.txt"}, false});
    CHECK(accepted("/%C3%BCn%C3%AF.txt") == RequestPath{{"\xC3\xBCn\xC3\xAF.txt"}, false});
    CHECK(accepted("/%F0%9F%98%80") == RequestPath{{"\xF0\x9F\x98\x80"}, false});  // 4-byte UTF-8
    CHECK(accepted("/...") == RequestPath{{"..."}, false});                          // a name, not a step up
    CHECK(accepted("/..a") == RequestPath{{"..a"}, false});
}

TEST_CASE("dot segments are refused raw and in every encoding") {
    for (const char* t : {"/..", "/../x", "/a/../../x", "/.", "/./x", "/a/./b", "/%2e%2e/x", "/%2E%2E/x",
                          "/.%2e/x", "/%2e./x", "/%2e", "/a/%2E%2e"}) {
        CHECK(refused(t) == PathRefusal::dot_segment);
    }
}

TEST_CASE("encoded separators and double encoding are refused") {
    for (const char* t : {"/..%2fx", "/a%2Fb", "/a%5cb", "/%5C..%5Cx"}) CHECK(refused(t) == PathRefusal::encoded_separator);
    for (const char* t : {"/%252e%252e/x", "/%25", "/%2525"}) CHECK(refused(t) == PathRefusal::encoded_percent);
}

TEST_CASE("backslashes, NUL and control bytes are refused raw and encoded") {
    CHECK(refused("/..\\x") == PathRefusal::backslash);
    CHECK(refused("/a\\b") == PathRefusal::backslash);
    CHECK(refused(std::string_view("/a\0b", 4)) == PathRefusal::control_byte);
    for (const char* t : {"/a%00b", "/%00", "/%0a", "/%1F", "/%7f", "/a\tb"}) CHECK(refused(t) == PathRefusal::control_byte);
}

TEST_CASE("invalid UTF-8 is refused: overlong dots and slashes, surrogates, stray bytes") {
    for (const char* t : {"/%c0%ae%c0%ae/x",  // overlong '.' (2 bytes)
                          "/%e0%80%ae",       // overlong '.' (3 bytes)
                          "/%f0%80%80%ae",    // overlong '.' (4 bytes)
                          "/%c0%af",          // overlong '/'
                          "/%c1%9c",          // overlong '\'
                          "/%ed%a0%80",       // a surrogate
                          "/%f4%90%80%80",    // past U+10FFFF
                          "/%ff", "/%80", "/%c3", "/%e2%82", "/\xC0\xAE"}) {
        CHECK(refused(t) == PathRefusal::invalid_utf8);
    }
}

TEST_CASE("targets that are not a rooted path, empty segments, bad escapes and long targets are refused") {
    for (const char* t : {"", "*", "x", "http://host/x", "C:\\x"}) CHECK(refused(t) == PathRefusal::not_origin_form);
    for (const char* t : {"//etc/passwd", "/a//b", "//"}) CHECK(refused(t) == PathRefusal::empty_segment);
    for (const char* t : {"/%", "/%2", "/%zz", "/%g0", "/a%"}) CHECK(refused(t) == PathRefusal::bad_percent_encoding);
    CHECK(refused("/" + std::string(longest_request_target, 'a')) == PathRefusal::too_long);
    CHECK(accepted("/" + std::string(longest_request_target - 1, 'a')).segments.size() == 1);
}

TEST_CASE("every refusal has a stable name and a sentence") {
    for (int r = 0; r <= static_cast<int>(PathRefusal::empty_segment); ++r) {
        const auto refusal = static_cast<PathRefusal>(r);
        CHECK(error_name(refusal) != "unknown");
        CHECK(describe(refusal) != "unknown refusal");
    }
}

TEST_CASE("MIME types: the ones browsers enforce are exact, the rest registered, unknown is octet-stream") {
    CHECK(mime_type_for("tandem.wasm") == "application/wasm");
    CHECK(mime_type_for("a.js") == "text/javascript; charset=utf-8");
    CHECK(mime_type_for("a.mjs") == "text/javascript; charset=utf-8");
    CHECK(mime_type_for("A.MJS") == "text/javascript; charset=utf-8");
    CHECK(mime_type_for("index.html") == "text/html; charset=utf-8");
    CHECK(mime_type_for("s.css") == "text/css; charset=utf-8");
    CHECK(mime_type_for("package.json") == "application/json");
    CHECK(mime_type_for("i.png") == "image/png");
    CHECK(mime_type_for("i.svg") == "image/svg+xml");
    CHECK(mime_type_for("Makefile") == "application/octet-stream");
    CHECK(mime_type_for("x.exe") == "application/octet-stream");
}

TEST_CASE("If-None-Match compares weakly, accepts lists and '*'") {
    CHECK(if_none_match_hits("\"a-1\"", "\"a-1\""));
    CHECK(if_none_match_hits("W/\"a-1\"", "\"a-1\""));
    CHECK(if_none_match_hits("\"x\", \"a-1\"", "\"a-1\""));
    CHECK(if_none_match_hits(" \"x\" ,W/\"a-1\" ", "\"a-1\""));
    CHECK(if_none_match_hits("*", "\"a-1\""));
    CHECK_FALSE(if_none_match_hits("\"a-2\"", "\"a-1\""));
    CHECK_FALSE(if_none_match_hits("", "\"a-1\""));
    CHECK_FALSE(if_none_match_hits("a-1", "\"a-1\""));  // unquoted: not the same tag
}

TEST_CASE("the lookup serves files under their root and nothing outside, links included") {
    const fs::path base = fs::temp_directory_path() / ("tandem_static_test_" + std::to_string(::getpid()));
    fs::remove_all(base);
    fs::create_directories(base / "web" / "sub");
    fs::create_directories(base / "pkg");
    fs::create_directories(base / "web-other");
    std::ofstream(base / "secret.txt") << "secret";
    std::ofstream(base / "web-other" / "x.js") << "x";
    std::ofstream(base / "web" / "index.html") << "<!doctype html>";
    std::ofstream(base / "web" / "sub" / "index.html") << "sub";
    std::ofstream(base / "web" / "a.js") << "a";
    std::ofstream(base / "web" / ".env") << "hidden";
    std::ofstream(base / "pkg" / "t.wasm") << "wasm";
    fs::create_symlink(base / "secret.txt", base / "web" / "out.txt");
    fs::create_symlink(base / "web-other", base / "web" / "sibling");  // shares the "web" prefix
    fs::create_symlink(base / "web" / "a.js", base / "web" / "in.js");
    fs::create_directories(base / "web" / "empty");
    const StaticRoots roots{fs::canonical(base / "web"), fs::canonical(base / "pkg")};
    auto find = [&](std::string_view target) { return find_file(roots, parse_request_path(target).value()); };

    REQUIRE(find("/"));
    CHECK(find("/")->path == roots.web / "index.html");
    CHECK(find("/")->mime == "text/html; charset=utf-8");
    CHECK(find("/sub/")->path == roots.web / "sub" / "index.html");
    CHECK(find("/a.js")->size == 1);
    CHECK(find("/pkg/t.wasm")->mime == "application/wasm");
    CHECK(find("/pkg/t.wasm")->path == roots.pkg / "t.wasm");
    CHECK(find("/in.js")->mime == "text/javascript; charset=utf-8");  // a link that stays inside
    CHECK_FALSE(find("/out.txt"));          // a link out of the root
    CHECK_FALSE(find("/sibling/x.js"));     // out, into a directory whose name starts like the root's
    CHECK_FALSE(find("/.env"));             // hidden
    CHECK_FALSE(find("/sub"));              // a directory is not a file, and is never listed
    CHECK_FALSE(find("/empty/"));           // no index: 404, not a listing
    CHECK_FALSE(find("/missing.js"));
    CHECK_FALSE(find("/pkg/"));
    CHECK_FALSE(find("/etc/passwd"));

    // The tag changes when the file does.
    const std::string before = find("/a.js")->etag;
    std::ofstream(base / "web" / "a.js") << "ab";
    CHECK(find("/a.js")->etag != before);

    // An empty package root serves nothing under /pkg/.
    CHECK_FALSE(find_file(StaticRoots{roots.web, {}}, parse_request_path("/pkg/t.wasm").value()));
    fs::remove_all(base);
}

namespace {
// zlib's own inflate, told to expect a gzip wrapper, as the decoder a client would use.
std::string gunzip(const std::string& gz) {
    z_stream z{};
    REQUIRE(inflateInit2(&z, 15 + 16) == Z_OK);
    std::string out;
    char chunk[16384];
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
    z.avail_in = static_cast<uInt>(gz.size());
    int status = Z_OK;
    while (status == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(chunk);
        z.avail_out = sizeof chunk;
        status = inflate(&z, Z_NO_FLUSH);
        out.append(chunk, sizeof chunk - z.avail_out);
    }
    inflateEnd(&z);
    REQUIRE(status == Z_STREAM_END);
    return out;
}

std::string text_of_size(size_t n, uint32_t seed) {
    std::string s;
    for (uint32_t k = seed; s.size() < n; ++k) s += "export const value" + std::to_string(k % 97) + " = " + std::to_string(k * 2654435761u) + ";\n";
    s.resize(n);
    return s;
}
}  // namespace

TEST_CASE("Accept-Encoding admits gzip by name or '*' with a weight above 0, and q=0 refuses it") {
    for (const char* yes : {"gzip", "gzip, deflate, br", "br;q=1.0, gzip;q=0.8", "GZIP", " x-gzip ", "*", "br, *;q=0.1",
                            "gzip;q=0.001", "gzip ; Q=1", "gzip;q=0, gzip"}) {
        INFO(yes);
        CHECK(accepts_gzip(yes));
    }
    for (const char* no : {"", "identity", "deflate, br", "gzip;q=0", "gzip;q=0.000", "gzip; q=0.", "*;q=0",
                           "gzip;q=0, *", "gzipx", "br;q=1, identity"}) {
        INFO(no);
        CHECK_FALSE(accepts_gzip(no));
    }
}

TEST_CASE("only formats that are not compressed already are worth compressing") {
    for (const char* file : {"a.js", "a.mjs", "a.html", "a.css", "a.json", "a.wasm", "a.svg", "a.txt", "a.gltf"}) {
        INFO(file);
        CHECK(compressible(mime_type_for(file)));
    }
    for (const char* file : {"a.png", "a.jpg", "a.webp", "a.woff2", "a.glb", "a.bin"}) {
        INFO(file);
        CHECK_FALSE(compressible(mime_type_for(file)));
    }
}

TEST_CASE("the gzip representation has its own strong tag") {
    CHECK(gzip_etag("\"2a-17\"") == "\"2a-17-gz\"");
    CHECK(gzip_etag("\"2a-17\"") != "\"2a-17\"");
}

TEST_CASE("gzip_compress is a gzip member that decodes to exactly its input, the same bytes every time") {
    for (const size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{300'000}}) {
        const std::string input = text_of_size(n, 7);
        const std::string gz = gzip_compress(input);
        INFO(n);
        REQUIRE(gz.size() >= 18);
        CHECK(static_cast<unsigned char>(gz[0]) == 0x1f);  // RFC 1952: ID1 ID2 CM=deflate
        CHECK(static_cast<unsigned char>(gz[1]) == 0x8b);
        CHECK(gz[2] == 8);
        CHECK(gz.substr(4, 4) == std::string(4, '\0'));  // MTIME 0
        CHECK(gunzip(gz) == input);
        CHECK(gzip_compress(input) == gz);
    }
    const std::string big = text_of_size(300'000, 7);
    CHECK(gzip_compress(big).size() < big.size() / 3);
}

TEST_CASE("gzip bodies: compressed once per file version off the caller's thread, never a file of another version, bounded") {
    const fs::path base = fs::temp_directory_path() / ("tandem_gzip_test_" + std::to_string(::getpid()));
    fs::remove_all(base);
    fs::create_directories(base / "web");
    const std::string js = text_of_size(50'000, 1);
    std::ofstream(base / "web" / "big.js") << js;
    std::ofstream(base / "web" / "other.js") << text_of_size(40'000, 2);
    std::ofstream(base / "web" / "tiny.js") << "export {};\n";
    std::ofstream(base / "web" / "pic.png") << text_of_size(50'000, 3);  // compressible bytes, but a PNG by name
    const StaticRoots roots{fs::canonical(base / "web"), {}};
    auto find = [&](std::string_view target) { return find_file(roots, parse_request_path(target).value()).value(); };

    GzipFiles files;
    CHECK(files.find(find("/big.js")) == nullptr);  // queued: this request is answered as it is
    files.wait_idle();
    const auto body = files.find(find("/big.js"));
    REQUIRE(body != nullptr);
    CHECK(gunzip(*body) == js);
    CHECK(files.find(find("/big.js")) == body);  // stored, not compressed again
    CHECK(files.held_bytes() == body->size());

    CHECK(files.find(find("/tiny.js")) == nullptr);  // below the smallest worth it
    CHECK(files.find(find("/pic.png")) == nullptr);  // not a compressible type
    files.wait_idle();
    CHECK(files.find(find("/tiny.js")) == nullptr);
    CHECK(files.find(find("/pic.png")) == nullptr);

    // A new version replaces the old body: never the old bytes under the new tag.
    const std::string js2 = js + "export const later = 1;\n";
    std::ofstream(base / "web" / "big.js") << js2;
    const FoundFile v2 = find("/big.js");
    CHECK(files.find(v2) == nullptr);
    files.wait_idle();
    REQUIRE(files.find(v2) != nullptr);
    CHECK(gunzip(*files.find(v2)) == js2);
    CHECK(files.held_bytes() == files.find(v2)->size());

    // A version that changed between its lookup and its compression is not stored under the old tag.
    const FoundFile stale = find("/other.js");
    std::ofstream(base / "web" / "other.js") << text_of_size(41'000, 2);
    CHECK(files.find(stale) == nullptr);
    files.wait_idle();
    CHECK(files.find(stale) == nullptr);  // asked again: queued again, still not served stale
    files.wait_idle();
    CHECK(files.find(stale) == nullptr);

    // Bounds: bytes held, and files remembered.
    GzipFiles small(GzipFiles::Limits{.held_bytes = gzip_compress(js2).size() + 10, .files = 2});
    small.find(find("/big.js"));
    small.wait_idle();
    REQUIRE(small.find(find("/big.js")) != nullptr);
    small.find(find("/other.js"));
    small.wait_idle();
    CHECK(small.find(find("/other.js")) == nullptr);  // would pass held_bytes: sent as it is
    CHECK(small.held_bytes() == small.find(find("/big.js"))->size());
    std::ofstream(base / "web" / "third.js") << text_of_size(30'000, 4);
    small.find(find("/third.js"));
    small.wait_idle();
    CHECK(small.find(find("/third.js")) == nullptr);  // a third file is past `files`
    fs::remove_all(base);
}
