// Properties of src/server/native_stream.*: the query of GET /native/stream is refused with a
// typed code naming the parameter unless it is exactly a listed scenario and whole numbers in
// range, and the stream it serves is the native one the golden files record.
#include "server/native_stream.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace tandem::server;

namespace {

std::string code_of(std::string_view query) {
    const auto r = parse_native_stream_query(query);
    return r ? std::string("ok") : std::string(r.code());
}

// The "TICK DIGEST" lines of a stream (comments and the version line left out).
std::vector<std::string> points(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#' || line.rfind("simulation_version", 0) == 0 || line.rfind("summary ", 0) == 0) continue;
        out.push_back(line);
    }
    return out;
}

std::string file(const std::string& path) {
    std::ifstream in(path);
    INFO(path << " (working directory: the source root)");
    REQUIRE(in);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_CASE("a listed scenario with ticks (and every) in range is accepted") {
    const auto r = parse_native_stream_query("scenario=orbits&ticks=2000");
    REQUIRE(r);
    CHECK(r.value() == NativeStreamRequest{"orbits", 2000, 1});
    CHECK(parse_native_stream_query("every=100&ticks=2000&scenario=trig").value() == NativeStreamRequest{"trig", 2000, 100});
    CHECK(code_of("scenario=chaos&ticks=3600&every=3600") == "ok");
    CHECK(code_of("scenario=crowd&ticks=1") == "ok");
}

TEST_CASE("every other query is a typed refusal naming the parameter") {
    CHECK(code_of("") == "missing_parameter");
    CHECK(code_of("scenario=orbits") == "missing_parameter");
    CHECK(code_of("ticks=10") == "missing_parameter");
    CHECK(code_of("scenario=orbits&ticks=10&speed=2") == "unknown_parameter");
    CHECK(code_of("scenario=orbits&ticks=10&ticks=20") == "unknown_parameter");
    CHECK(code_of("scenario=orbit&ticks=10") == "unknown_scenario");
    CHECK(code_of("scenario=ORBITS&ticks=10") == "unknown_scenario");
    // Random worlds are not served: their size is the spec's, so the cost would not be bounded.
    CHECK(code_of("scenario=random:1&ticks=10") == "unknown_scenario");
    CHECK(code_of("scenario=orbits&ticks=0") == "bad_ticks");
    CHECK(code_of("scenario=orbits&ticks=3601") == "bad_ticks");
    CHECK(code_of("scenario=orbits&ticks=-1") == "bad_ticks");
    CHECK(code_of("scenario=orbits&ticks=+5") == "bad_ticks");
    CHECK(code_of("scenario=orbits&ticks=1e3") == "bad_ticks");
    CHECK(code_of("scenario=orbits&ticks=") == "bad_ticks");
    CHECK(code_of("scenario=orbits&ticks=99999999999999999999999") == "bad_ticks");
    CHECK(code_of("scenario=orbits&ticks=10&every=0") == "bad_every");
    CHECK(code_of("scenario=orbits&ticks=10&every=11") == "bad_every");
    const auto r = parse_native_stream_query("scenario=orbits&ticks=5000");
    REQUIRE_FALSE(r);
    CHECK(r.message() == "ticks must be a whole number in 1..3600 (got '5000')");
}

// trig: the cheapest listed scenario (about 1.5 s of a core natively, far more under the
// sanitizers); orbits is held to its golden points below, over its first 300 ticks.
TEST_CASE("the stream served is the golden one: trig every 100 ticks to 2000 equals tests/world/golden") {
    for (const std::string name : {"trig"}) {
        const std::string text = native_stream_text(NativeStreamRequest{name, 2000, 100});
        CHECK(points(text) == points(file("tests/world/golden/" + name + ".txt")));
        CHECK(text.find("\nsimulation_version 2\n") != std::string::npos);
    }
}

TEST_CASE("every = 1 serves one point per tick, 0..N, whose multiples of 100 are the golden points") {
    const std::vector<std::string> all = points(native_stream_text(NativeStreamRequest{"orbits", 300, 1}));
    REQUIRE(all.size() == 301);
    const std::vector<std::string> golden = points(file("tests/world/golden/orbits.txt"));
    for (size_t t = 0; t <= 300; t += 100) CHECK(all[t] == golden[t / 100]);
    CHECK(all[1].rfind("1 ", 0) == 0);
    CHECK(all[300].rfind("300 ", 0) == 0);
}
