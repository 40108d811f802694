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
TEST_CASE("serve --help with --game shows that game's flags; without --game, the default game's") {
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
#else
TEST_CASE("a build without the server refuses serve with exit 1 and says which builds have it") {
    const Ran r = run({"serve", "--port", "0"});
    CHECK(r.status == 1);
    CHECK(r.err == "tandem: this build has no server (it is built by the native g++ presets)\n");
}
#endif
