// Properties of src/cli: every bad argument exits 2 naming what was wrong and what is
// accepted, bad data exits 1 naming the decoder's reason, --help works everywhere, run/dump
// print the formats the cross-build check diffs (16 lowercase hex digits per digest, one field
// per line), and a snapshot resumed with run --from continues the stream a fresh run prints.
// The executable's JSON output and version are checked through real parsers by
// cli_process_test.py (Python's json module, CMakeLists.txt's project() line).
#include "cli/cli.hpp"

#include <unistd.h>  // getpid: CTest runs test cases as parallel processes, files must differ

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "arena/scenario.hpp"
#include "arena/sim.hpp"

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

// A file in the temp directory, unique to this process, removed when the test ends.
struct TempFile {
    std::string path;
    explicit TempFile(const std::string& name)
        : path((std::filesystem::temp_directory_path() /
                ("tandem_cli_test_" + std::to_string(::getpid()) + "_" + name)).string()) {}
    ~TempFile() { std::remove(path.c_str()); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
};

std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::string> stream_lines(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) {
        if (!l.starts_with("summary")) lines.push_back(l);
    }
    return lines;
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
        {{"run", "--scenario", "nope"}, "unknown scenario 'nope' (accepted: orbits, crowd, chaos, trig, random:SEED"},
        {{"run", "--scenario", "random:x"}, "the seed 'x' is not a decimal 64-bit number"},
        {{"run", "--scenario", "random:1:pellets=999999"}, "pellets='999999' is not a count 0..131072"},
        {{"run", "--scenario", "random:1:colour=red"}, "unknown or repeated modifier 'colour=red'"},
        {{"run", "--scenario", "random:1:without=join+fly"}, "unknown input class 'fly'"},
        {{"run", "--scenario", "orbits", "--world", "w"}, "run takes --scenario NAME or --world FILE, not both"},
        {{"run", "--world", "w", "--from", "s"}, "--from is not accepted with it"},
        {{"run", "--world"}, "missing value for --world"},
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
        {{"run", "--scenario", "chaos", "--from"}, "missing value for --from"},
        {{"dump", "--scenario", "chaos", "--tick", "1", "--from", "x"}, "unknown argument '--from' for dump"},
        {{"snapshot"}, "snapshot needs --scenario"},
        {{"snapshot", "--scenario", "chaos", "--out", "x"}, "snapshot needs --tick"},
        {{"snapshot", "--scenario", "chaos", "--tick", "3"}, "snapshot needs --out FILE"},
        {{"snapshot", "--scenario", "chaos", "--tick", "3", "--out"}, "missing value for --out"},
        {{"snapshot", "--scenario", "chaos", "--tick", "-3", "--out", "x"}, "--tick must not be negative"},
        {{"snapshot", "--scenario", "chaos", "--tick", "3", "--out", "x", "--every", "2"},
         "unknown argument '--every' for snapshot (accepted: --game, --scenario, --tick, --out, --help)"},
    };
    for (const Case& c : cases) {
        const Outcome o = call(c.args);
        INFO("stderr: " << o.err);
        CHECK(o.status == 2);
        CHECK(o.err.find(c.must_mention) != std::string::npos);
        CHECK(o.out.empty());
    }
}

TEST_CASE("parse refuses with a usage error and accepts with the command asked for") {
    const std::vector<std::string_view> bad{"run", "--scenario", "orbits", "--every", "0"};
    const auto refused = parse(bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.code() == "usage");
    CHECK(refused.message().find("--every expects a whole number in 1..") != std::string_view::npos);
    const std::vector<std::string_view> good{"snapshot", "--tick=12", "--out", "f.snap", "--scenario", "chaos"};
    const auto parsed = parse(good);
    REQUIRE(parsed.ok());
    CHECK(parsed->kind == CommandKind::snapshot);
    CHECK(parsed->tick == 12u);
    CHECK(parsed->out_path == "f.snap");
    CHECK(parsed->scenario == "chaos");
    const std::vector<std::string_view> alias{"--version"};
    CHECK(parse(alias)->kind == CommandKind::version);
}

TEST_CASE("each command's usage line shows exactly the flags its parser accepts") {
    // Every flag any usage line shows, tried on every command: accepted (not reported as an
    // unknown argument) exactly where that command's usage line shows it.
    const std::vector<std::string_view> commands{"run", "dump", "snapshot", "scenarios", "version"};
    std::vector<std::string> flags;
    for (std::string_view c : commands) {
        const std::string usage = help_text(c).substr(0, help_text(c).find('\n'));
        std::istringstream words(usage);
        for (std::string w; words >> w;) {
            if (w.starts_with("[")) w = w.substr(1);
            if (w.starts_with("--") && std::find(flags.begin(), flags.end(), w) == flags.end()) flags.push_back(w);
        }
    }
    REQUIRE(flags.size() == 9);
    for (std::string_view c : commands) {
        const std::string usage = help_text(c).substr(0, help_text(c).find('\n'));
        for (const std::string& f : flags) {
            const std::vector<std::string_view> args{c, f, "1"};
            const Outcome o = call(args);
            const bool shown = usage.find(" " + f + " ") != std::string::npos || usage.find("[" + f + " ") != std::string::npos;
            INFO(c << " " << f << ": " << o.err);
            CHECK((o.err.find("unknown argument '" + f + "'") == std::string::npos) == shown);
        }
    }
}

TEST_CASE("every command's --help works and exits 0") {
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

TEST_CASE("snapshot writes the encoded world at the tick and prints the line run prints for it") {
    TempFile file("snapshot.snap");
    const Outcome o = call({"snapshot", "--scenario", "trig", "--tick", "7", "--out", file.path});
    REQUIRE(o.status == 0);
    const Outcome r = call({"run", "--scenario", "trig", "--ticks", "7", "--every", "7"});
    CHECK(stream_lines(r.out).back() + "\n" == o.out);

    const arena::Scenario s = *arena::find_scenario("trig");
    arena::World w = arena::start(s);
    arena::advance(s, w, 7);
    CHECK(read_bytes(file.path) == arena::encode(w));
}

TEST_CASE("run --from a snapshot continues with the lines a fresh run prints after that tick") {
    TempFile file("resume.snap");
    REQUIRE(call({"snapshot", "--scenario", "chaos", "--tick", "40", "--out", file.path}).status == 0);
    for (const char* every : {"1", "7"}) {
        const Outcome fresh = call({"run", "--scenario", "chaos", "--ticks", "70", "--every", every});
        const Outcome resumed = call({"run", "--scenario", "chaos", "--from", file.path, "--ticks", "30", "--every", every});
        REQUIRE(resumed.status == 0);
        const std::vector<std::string> all = stream_lines(fresh.out);
        std::vector<std::string> after;  // tick 40 and everything past it
        for (const std::string& l : all) {
            if (std::stoull(l.substr(0, l.find(' '))) >= 40) after.push_back(l);
        }
        // A resumed stream starts with the snapshot's own tick even where 40 is no multiple.
        if (!after.empty() && !after.front().starts_with("40 ")) {
            const Outcome at40 = call({"run", "--scenario", "chaos", "--ticks", "40", "--every", "40"});
            after.insert(after.begin(), stream_lines(at40.out).back());
        }
        INFO("every " << every);
        CHECK(stream_lines(resumed.out) == after);
        CHECK(resumed.out.substr(resumed.out.find("summary")) == fresh.out.substr(fresh.out.find("summary")));
    }
}

TEST_CASE("a snapshot that does not decode exits 1 with the decoder's reason on stderr") {
    TempFile good("good.snap"), bad("bad.snap");
    REQUIRE(call({"snapshot", "--scenario", "chaos", "--tick", "5", "--out", good.path}).status == 0);
    const std::vector<uint8_t> bytes = read_bytes(good.path);
    REQUIRE(bytes.size() > 16);

    struct Case {
        std::vector<uint8_t> bytes;
        std::string reason;
    };
    std::vector<uint8_t> flipped_magic = bytes, flipped_digest = bytes, longer = bytes;
    flipped_magic[0] ^= 1;
    flipped_digest.back() ^= 1;
    longer.push_back(0);
    const std::vector<Case> cases{
        {std::vector<uint8_t>(bytes.begin(), bytes.begin() + 10), "refused: truncated"},
        {{}, "refused: truncated"},
        {flipped_magic, "refused: bad_magic"},
        {flipped_digest, "refused: digest_mismatch"},
        {longer, "refused: trailing_bytes"},
    };
    for (const Case& c : cases) {
        write_bytes(bad.path, c.bytes);
        const Outcome o = call({"run", "--scenario", "chaos", "--from", bad.path, "--ticks", "3"});
        INFO("stderr: " << o.err);
        CHECK(o.status == 1);
        CHECK(o.err.find(c.reason) != std::string::npos);
        CHECK(o.out.empty());
    }
}

TEST_CASE("run --from refuses an unreadable file and another scenario's world with exit 1") {
    TempFile snap("other.snap");
    const Outcome missing = call({"run", "--scenario", "chaos", "--from", snap.path + ".absent"});
    CHECK(missing.status == 1);
    CHECK(missing.err.find("cannot read snapshot") != std::string::npos);
    REQUIRE(call({"snapshot", "--scenario", "trig", "--tick", "2", "--out", snap.path}).status == 0);
    const Outcome other = call({"run", "--scenario", "chaos", "--from", snap.path});
    CHECK(other.status == 1);
    CHECK(other.err.find("config_mismatch") != std::string::npos);
    CHECK(other.out.empty());
}

TEST_CASE("snapshot to a path that cannot be written exits 1") {
    const Outcome o = call({"snapshot", "--scenario", "trig", "--tick", "1", "--out",
                            (std::filesystem::temp_directory_path() / "tandem_no_such_dir" / "x.snap").string()});
    CHECK(o.status == 1);
    CHECK(o.err.find("cannot write snapshot") != std::string::npos);
}

TEST_CASE("dump prints one field per line ending with the digest run reports") {
    const Outcome d = call({"dump", "--scenario", "trig", "--tick", "4"});
    const Outcome r = call({"run", "--scenario", "trig", "--ticks", "4", "--every", "4"});
    REQUIRE(d.status == 0);
    CHECK(d.out.find("\ntick 4\n") != std::string::npos);
    CHECK(d.out.find("\npellets[1023].pos.x ") != std::string::npos);
    const std::string last_digest = d.out.substr(d.out.rfind("digest ") + 7, 16);
    CHECK(r.out.find("4 " + last_digest + "\n") != std::string::npos);
}

TEST_CASE("scenarios and version list what the other commands accept") {
    const Outcome s = call({"scenarios"});
    CHECK(s.status == 0);
    for (const char* name : {"orbits", "crowd", "chaos", "trig"}) CHECK(s.out.find(name) != std::string::npos);
    const Outcome v = call({"version"});
    CHECK(v.status == 0);
    CHECK(v.out.find("\nfingerprint tandem snapshot/2 Q16.16 arena/" + std::to_string(arena::simulation_version) +
                     "\n") != std::string::npos);
    CHECK(v.out.find("\nsimulation_version " + std::to_string(arena::simulation_version) + "\n") !=
          std::string::npos);
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

TEST_CASE("run --scenario accepts a random world's spec and prints its stream") {
    const Outcome a = call({"run", "--scenario", "random:5:pellets=20", "--ticks", "6", "--every", "3"});
    REQUIRE(a.status == 0);
    const arena::Scenario s = *arena::find_scenario("random:5:pellets=20");
    arena::World w = arena::start(s);
    arena::advance(s, w, 6);
    CHECK(a.out.find("\n6 " + tandem::hex64(arena::digest(w)) + "\n") != std::string::npos);
    CHECK(a.out.find("summary scenario=random:5:pellets=20 ticks=6 ") != std::string::npos);
}

TEST_CASE("run --world runs the file's scenario and ticks and checks its expected digest") {
    const Outcome direct = call({"run", "--scenario", "random:5:pellets=20", "--ticks", "6", "--every", "1"});
    REQUIRE(direct.status == 0);
    const std::string last = direct.out.substr(direct.out.find("\n6 ") + 3, 16);
    TempFile file("world");
    auto write = [&](const std::string& text) { std::ofstream(file.path) << text; };

    write("# a comment\nscenario random:5:pellets=20\nticks 6\nexpect 6 " + last + "\n");
    const Outcome same = call({"run", "--world", file.path});
    CHECK(same.status == 0);
    CHECK(same.out == direct.out);
    CHECK(same.err.find("matches the reference") != std::string::npos);

    write("scenario random:5:pellets=20\nticks 6\nevery 3\nexpect 6 0123456789abcdef\n");
    const Outcome differs = call({"run", "--world", file.path});
    CHECK(differs.status == 1);
    CHECK(differs.err.find("tick 6 digest " + last + " differs from 0123456789abcdef") != std::string::npos);
    CHECK(call({"run", "--world", file.path, "--ticks", "4"}).err.find("did not print tick 6") != std::string::npos);

    for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
             {"ticks 6\n", "no 'scenario NAME' line"},
             {"scenario trig\n", "no 'ticks N' line"},
             {"scenario trig\nticks x\n", "line 2: ticks expects a whole number"},
             {"scenario trig\nticks 3\nexpect 3 zz\n", "line 3: expect needs a tick and 16 hex digits"},
             {"scenario trig\nticks 3\ncolour red\n", "line 3: unexpected 'colour red'"},
             {"scenario random:q\nticks 3\n", "the seed 'q' is not a decimal"}}) {
        write(text);
        const Outcome o = call({"run", "--world", file.path});
        INFO(text);
        CHECK(o.status == 1);
        CHECK(o.err.find(says) != std::string::npos);
    }
    const Outcome missing = call({"run", "--world", file.path + ".absent"});
    CHECK(missing.status == 1);
    CHECK(missing.err.find("cannot read world file") != std::string::npos);
}

TEST_CASE("ticket is the kit's where the command has it, and a clear refusal where it has no server") {
    std::ostringstream out, err;
    const std::vector<std::string_view> args = {"ticket", "--help"};
#ifdef TANDEM_TEST_CLI_HAS_SERVER
    // The g++ builds have the server, so `tandem ticket` is the kit's.
    CHECK(run(args, out, err) == exit_ok);
    CHECK(out.str().starts_with("usage: tandem ticket --ticket-key FILE"));
#else
    // The libc++ build has none: `tandem ticket` says so, as any command without it does.
    CHECK(run(args, out, err) == exit_data);
    CHECK(err.str() == "tandem: this build has no server (it is built by the native g++ presets)\n");
#endif
    // A command over the same games without the server (a libc++ or cross build's) refuses it.
    const Catalog bare{"mygame", tandem_command().games};
    std::ostringstream out2, err2;
    CHECK(run(bare, args, out2, err2) == exit_data);
    CHECK(out2.str().empty());
    CHECK(err2.str() == "mygame: this build has no server (it is built by the native g++ presets)\n");
}
