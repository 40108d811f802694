// Properties of src/cli: every bad argument exits 2 naming what was wrong and what is
// accepted, --help works everywhere, and run/dump print the formats the cross-build check
// diffs (16 lowercase hex digits per digest, one field per line).
#include "cli/cli.hpp"

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace tandem::cli;

namespace {
struct Outcome {
    int status;
    std::string out;
    std::string err;
};
Outcome call(std::vector<std::string_view> args) {
    std::ostringstream out, err;
    const int status = run(args, out, err);
    return {status, out.str(), err.str()};
}
}  // namespace

TEST_CASE("bad arguments exit 2 and name the problem and the accepted values") {
    struct Case {
        std::vector<std::string_view> args;
        std::string must_mention;
    };
    const std::vector<Case> cases{
        {{}, "accepted: run, dump"},
        {{"fly"}, "unknown command 'fly'"},
        {{"run"}, "needs --scenario"},
        {{"run", "--scenario", "nope"}, "unknown scenario 'nope' (accepted: orbits, crowd, chaos, trig)"},
        {{"run", "--scenario"}, "missing value for --scenario"},
        {{"run", "--scenario", "orbits", "--ticks"}, "missing value for --ticks"},
        {{"run", "--scenario", "orbits", "--ticks", "abc"}, "--ticks expects a whole number"},
        {{"run", "--scenario", "orbits", "--ticks", "-5"}, "--ticks must not be negative"},
        {{"run", "--scenario", "orbits", "--ticks", "1.5"}, "--ticks expects a whole number"},
        {{"run", "--scenario", "orbits", "--ticks", "99999999999999999999999"}, "--ticks expects a whole number"},
        {{"run", "--scenario", "orbits", "--every", "0"}, "--every expects a whole number in 1.."},
        {{"run", "--scenario", "orbits", "--format", "xml"}, "unknown format 'xml' (accepted: text, json)"},
        {{"run", "--scenario", "orbits", "--frobnicate"}, "unknown argument '--frobnicate' for run"},
        {{"dump", "--scenario", "orbits"}, "dump needs --tick"},
        {{"dump", "--scenario", "orbits", "--tick", "x"}, "--tick expects a whole number"},
        {{"scenarios", "extra"}, "unknown argument 'extra' for scenarios"},
        {{"help", "nothing"}, "no help for 'nothing'"},
    };
    for (const Case& c : cases) {
        const Outcome o = call(c.args);
        INFO("stderr: " << o.err);
        CHECK(o.status == 2);
        CHECK(o.err.find(c.must_mention) != std::string::npos);
        CHECK(o.out.empty());
    }
}

TEST_CASE("--help works for every command and exits 0") {
    for (std::vector<std::string_view> args : std::vector<std::vector<std::string_view>>{
             {"--help"}, {"help"}, {"help", "run"}, {"run", "--help"}, {"dump", "--help"}, {"scenarios", "--help"},
             {"version", "--help"}, {"run", "--scenario", "orbits", "--help"}}) {
        const Outcome o = call(args);
        CHECK(o.status == 0);
        CHECK(o.out.find("usage: tandem") != std::string::npos);
    }
}

TEST_CASE("run prints one tick and 16 lowercase hex digits per line, then a summary") {
    const Outcome o = call({"run", "--scenario", "trig", "--ticks", "5", "--every", "2"});
    REQUIRE(o.status == 0);
    std::istringstream lines(o.out);
    std::vector<std::string> all;
    for (std::string l; std::getline(lines, l);) all.push_back(l);
    REQUIRE(all.size() == 5);  // ticks 0, 2, 4, 5 and the summary
    for (int i = 0; i < 4; ++i) {
        const std::string& l = all[static_cast<size_t>(i)];
        const auto space = l.find(' ');
        REQUIRE(space != std::string::npos);
        const std::string hex = l.substr(space + 1);
        CHECK(hex.size() == 16);
        CHECK(hex.find_first_not_of("0123456789abcdef") == std::string::npos);
    }
    CHECK(all[3].starts_with("5 "));
    CHECK(all[4].starts_with("summary scenario=trig ticks=5 "));
}

TEST_CASE("json and text report the same digests") {
    const Outcome text = call({"run", "--scenario", "chaos", "--ticks", "3", "--every", "1"});
    const Outcome json = call({"run", "--scenario=chaos", "--ticks=3", "--every=1", "--format=json"});
    REQUIRE(text.status == 0);
    REQUIRE(json.status == 0);
    std::istringstream lines(text.out);
    for (std::string l; std::getline(lines, l);) {
        if (l.starts_with("summary")) continue;
        const std::string hex = l.substr(l.find(' ') + 1);
        CHECK(json.out.find("\"digest\": \"" + hex + "\"") != std::string::npos);
    }
    CHECK(json.out.find("\"stream\": [") != std::string::npos);
}

TEST_CASE("dump prints one field per line ending with the digest run reports") {
    const Outcome d = call({"dump", "--scenario", "trig", "--tick", "4"});
    const Outcome r = call({"run", "--scenario", "trig", "--ticks", "4", "--every", "4"});
    REQUIRE(d.status == 0);
    CHECK(d.out.find("\ntick 4\n") != std::string::npos);
    CHECK(d.out.find("pellet[1023].pos.x ") != std::string::npos);
    const std::string last_digest = d.out.substr(d.out.rfind("digest ") + 7, 16);
    CHECK(r.out.find("4 " + last_digest + "\n") != std::string::npos);
}

TEST_CASE("scenarios and version list what the other commands accept") {
    const Outcome s = call({"scenarios"});
    CHECK(s.status == 0);
    for (const char* name : {"orbits", "crowd", "chaos", "trig"}) CHECK(s.out.find(name) != std::string::npos);
    const Outcome v = call({"version"});
    CHECK(v.status == 0);
    CHECK(v.out.find("fingerprint tandem snapshot/1 Q16.16 sim/1") != std::string::npos);
}

TEST_CASE("counts parse strictly") {
    CHECK(parse_count("0", 10) == 0u);
    CHECK(parse_count("10", 10) == 10u);
    CHECK_FALSE(parse_count("11", 10));
    CHECK_FALSE(parse_count("", 10));
    CHECK_FALSE(parse_count("+1", 10));
    CHECK_FALSE(parse_count(" 1", 10));
    CHECK(parse_count("18446744073709551615", UINT64_MAX) == UINT64_MAX);
    CHECK_FALSE(parse_count("18446744073709551616", UINT64_MAX));
}
