// Properties of `tandem serve`'s dispatch in src/cli: --game picks the game whose flags the
// command reads (the arena's by default), an unknown game exits 2 naming the games accepted,
// and --help with --game shows that game's own flags. Nothing here opens a socket.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli.hpp"

namespace {
struct Ran {
    int status;
    std::string out, err;
};
Ran run(std::vector<std::string_view> args) {
    std::ostringstream out, err;
    const int status = tandem::cli::run(args, out, err);
    return {status, out.str(), err.str()};
}
}  // namespace

TEST_CASE("serve --game nosuch exits 2 naming the games accepted") {
    const Ran r = run({"serve", "--game", "nosuch"});
    CHECK(r.status == 2);
    CHECK(r.err.find("unknown game 'nosuch' (accepted: arena") != std::string::npos);
    CHECK(run({"serve", "--port", "0", "--game=nosuch"}).status == 2);
    CHECK(run({"serve", "--game"}).status == 2);
}

#if TANDEM_TEST_CLI_HAS_SERVER
TEST_CASE("serve --help with --game shows that game's flags, without --game, the default game's") {
    for (const auto& args : {std::vector<std::string_view>{"serve", "--game", "arena", "--help"},
                             std::vector<std::string_view>{"serve", "--help"}}) {
        const Ran r = run(args);
        CHECK(r.status == 0);
        CHECK(r.out.starts_with("usage: tandem serve --game arena"));
        CHECK(r.out.find("  --pellets N ") != std::string::npos);
        CHECK(r.out.find("  --tick-hz HZ ") != std::string::npos);
        CHECK(r.out.find("/native/stream?scenario=NAME") != std::string::npos);
    }
}

TEST_CASE("serve reads the game's flags and refuses their mistakes with exit 2") {
    CHECK(run({"serve", "--game", "arena", "--pellets", "0"}).err ==
          "tandem serve: --pellets expects a whole number in 1..131072 (got '0')\n");
    CHECK(run({"serve", "--tick-hz", "1001"}).err == "tandem serve: --tick-hz expects a whole number in 1..1000 (got '1001')\n");
    CHECK(run({"serve", "--scenario", "nope"}).status == 2);
    CHECK(run({"serve", "--frobnicate"}).status == 2);
}

// ships is served through the same dispatch with its own flags: the expected texts are written
// out here from the flags' documented ranges, not read back from the code.
TEST_CASE("serve --game ships --help shows ships' flags, its scenarios and its stream route, and no arena flag") {
    const Ran r = run({"serve", "--game", "ships", "--help"});
    CHECK(r.status == 0);
    CHECK(r.out.starts_with("usage: tandem serve --game ships"));
    CHECK(r.out.find("Runs a room of ships (the default room)") != std::string::npos);
    CHECK(r.out.find("  --tick-hz HZ ") != std::string::npos);
    CHECK(r.out.find("1..1000 (default: the game's, 30)") != std::string::npos);
    CHECK(r.out.find("  --seed N ") != std::string::npos);
    CHECK(r.out.find("duel, melee, rockfield, chaos") != std::string::npos);
    CHECK(r.out.find("/native/stream?scenario=NAME") != std::string::npos);
    CHECK(r.out.find("--pellets") == std::string::npos);
}

TEST_CASE("serve --game ships refuses its flags' mistakes with exit 2 and one line naming the flag") {
    const auto refused = [](std::vector<std::string_view> args, std::string_view message) {
        args.insert(args.begin(), {"serve", "--game", "ships"});
        const Ran r = run(args);
        CHECK(r.status == 2);
        CHECK(r.out.empty());
        CHECK(r.err == "tandem serve: " + std::string(message) + "\n");
    };
    refused({"--tick-hz", "0"}, "--tick-hz expects a whole number in 1..1000 (got '0')");
    refused({"--tick-hz", "1001"}, "--tick-hz expects a whole number in 1..1000 (got '1001')");
    refused({"--tick-hz", "30x"}, "--tick-hz expects a whole number in 1..1000 (got '30x')");
    refused({"--seed", "4294967296"}, "--seed expects a whole number in 0..4294967295 (got '4294967296')");
    refused({"--scenario", "duel", "--seed", "3"}, "--seed and --scenario are exclusive (a scenario fixes its own seed)");
    // The arena's flag is not ships'.
    CHECK(run({"serve", "--game", "ships", "--pellets", "64"}).status == 2);
    CHECK(run({"serve", "--game", "ships", "--scenario", "nope"}).status == 2);
    CHECK(run({"serve", "--game", "ships", "--scenario", "trig"}).status == 2);   // an arena scenario
    // Nine ships is past the game's eight: the room names the refusal.
    const Ran nine = run({"serve", "--game", "ships", "--max-players", "9"});
    CHECK(nine.status == 2);
    CHECK(nine.err.find("the room refuses these settings") != std::string::npos);
}
#else
TEST_CASE("a build without the server refuses serve with exit 1 and says which builds have it") {
    const Ran r = run({"serve", "--port", "0"});
    CHECK(r.status == 1);
    CHECK(r.err == "tandem: this build has no server (it is built by the native g++ presets)\n");
}
#endif
