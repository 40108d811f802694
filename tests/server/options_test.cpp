// Properties of src/server/options.*: every `tandem serve` flag accepted in both spellings, a
// game's own flags handed back in order, every mistake refused with a message naming the flag
// and what it accepts, the game's flags and routes in --help, and origins normalised the way
// browsers serialise them.
#include "tandem/server/options.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace tandem::server;

namespace {
// A made-up game's flags: one a scenario fixes, one it does not.
const std::vector<FlagSpec> game_flags = {{"--tick-hz", "HZ", "ticks per second", ""},
                                          {"--crowd", "N", "how many\nof them", "a scenario fixes its own crowd"}};
tandem::Result<ServeCommand, ServeUsageError> parse(std::vector<std::string_view> args) {
    return parse_serve_args(args, ServeFlags{game_flags, true});
}
std::string refusal(std::vector<std::string_view> args) {
    const auto parsed = parse(std::move(args));
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.code() == "usage");
    return std::string(parsed.message());
}
}  // namespace

TEST_CASE("no flags: loopback on 8080, the page and package directories, room defaults") {
    const auto parsed = parse({});
    REQUIRE(parsed.ok());
    const ServeOptions& o = parsed->options;
    CHECK_FALSE(parsed->help);
    CHECK(o.host == "127.0.0.1");
    CHECK(o.port == 8080);
    CHECK(o.web_dir == "web");
    CHECK(o.pkg_dir.empty());   // the game's own package: serve_command resolves it (default_pkg_dir)
    CHECK_FALSE(o.pkg_dir_given);
    CHECK_FALSE(o.web_dir_given);
    CHECK(o.scenario.empty());
    CHECK(o.game_values.empty());
    CHECK_FALSE(o.input_delay_ticks);
    CHECK_FALSE(o.max_players);
    CHECK_FALSE(o.max_watchers);
    CHECK_FALSE(o.resume_grace_seconds);
    CHECK(o.record_path.empty());
    CHECK(o.allowed_origins.empty());
}

TEST_CASE("every flag is read, as --flag value and as --flag=value") {
    const auto spaced = parse({"--host", "::1", "--port", "0", "--web", "w", "--pkg", "p", "--crowd", "300",
                               "--tick-hz", "30", "--input-delay", "3", "--max-players", "8", "--max-watchers", "1000",
                               "--resume-grace", "0", "--record", "match.replay", "--allow-origin", "http://a.example",
                               "--allow-origin", "https://b.example:9000"});
    REQUIRE(spaced.ok());
    const ServeOptions& o = spaced->options;
    CHECK(o.host == "::1");
    CHECK(o.port == 0);
    CHECK(o.web_dir == "w");
    CHECK(o.web_dir_given);
    CHECK(o.pkg_dir == "p");
    CHECK(o.pkg_dir_given);
    // The game's, as given and in order: the game parses its own values.
    CHECK(o.game_values == std::vector<std::pair<std::string, std::string>>{{"--crowd", "300"}, {"--tick-hz", "30"}});
    CHECK(o.input_delay_ticks == 3u);
    CHECK(o.max_players == 8u);
    CHECK(o.max_watchers == 1000u);
    CHECK(o.resume_grace_seconds == 0u);
    CHECK(o.record_path == "match.replay");
    CHECK(o.allowed_origins == std::vector<std::string>{"http://a.example", "https://b.example:9000"});

    const auto joined = parse({"--host=0.0.0.0", "--port=9", "--scenario=orbits", "--tick-hz=5"});
    REQUIRE(joined.ok());
    CHECK(joined->options.host == "0.0.0.0");
    CHECK(joined->options.port == 9);
    CHECK(joined->options.scenario == "orbits");
    CHECK(joined->options.game_values == std::vector<std::pair<std::string, std::string>>{{"--tick-hz", "5"}});
}

TEST_CASE("the flag --per-address-limit N is kept as given, and unset by default") {
    CHECK_FALSE(parse({})->options.per_address_limit);
    CHECK(parse({"--per-address-limit", "2000"})->options.per_address_limit == 2000u);
}

TEST_CASE("serve's --help states the per-address budgets and the transport's limits with their default values") {
    const std::string text = serve_help_text();
    CHECK(text.find("--per-address-limit N") != std::string::npos);
    CHECK(text.find("(default 64, 16, 4 and 32;") != std::string::npos);
    CHECK(text.find("loopback counts like any address). Raise it") != std::string::npos);
    CHECK(text.find("4 player seats\n(kept seats included) and 32 watcher places") != std::string::npos);
    CHECK(text.find("address_limit") != std::string::npos);
    CHECK(text.find("counted as max_open_sockets") != std::string::npos);
    CHECK(text.find("within 5 s") != std::string::npos);
    CHECK(text.find("4 pings a second\nafter a burst of 8") != std::string::npos);
    CHECK(text.find("1008 ping_rate") != std::string::npos);
    CHECK(text.find("at most 1 MiB queued") != std::string::npos);
    CHECK(text.find("a 64 KiB kernel send buffer") != std::string::npos);
}

TEST_CASE("a --help wins wherever it stands") {
    CHECK(parse({"--help"})->help);
    CHECK(parse({"--port", "1", "-h"})->help);
    CHECK(serve_help_text().find("--allow-origin") != std::string::npos);
    CHECK(serve_help_text().find("/pkg/") != std::string::npos);
    CHECK(serve_help_text().find("--resume-grace SECONDS") != std::string::npos);
    CHECK(serve_help_text().find("resume_expired") != std::string::npos);
}

TEST_CASE("serve's --help states the ticket contract: the key, the room, what a ticket names, each refusal, and that without it the room is open") {
    const std::string text = serve_help_text();
    CHECK(text.find("--ticket-key FILE") != std::string::npos);
    CHECK(text.find("--room NAME") != std::string::npos);
    CHECK(text.find("Without\n                       it the room is open") != std::string::npos);
    for (const char* code : {"ticket_missing", "ticket_forged", "ticket_expired", "ticket_replayed", "ticket_invalid"}) {
        INFO(code);
        CHECK(text.find(code) != std::string::npos);
    }
    CHECK(text.find("A player's ticket admits once") != std::string::npos);
}

TEST_CASE("the flag --ticket-key is read, --room names the room its tickets must name, and --room alone is refused") {
    const auto parsed = parse({"--ticket-key", "k.key", "--room", "Lobby-7"});
    REQUIRE(parsed.ok());
    CHECK(parsed->options.ticket_key_path == "k.key");
    CHECK(parsed->options.room_name == "Lobby-7");
    CHECK(parse({})->options.room_name == "default");
    CHECK(parse({})->options.ticket_key_path.empty());
    CHECK(refusal({"--room", "lobby"}) == "--room names the room in its store and in its tickets: it needs --store ADDRESS or --ticket-key FILE");
    CHECK(refusal({"--ticket-key", "k", "--room", "a.b"}).starts_with("--room expects a name of 1 to 64"));
    CHECK(refusal({"--ticket-key", ""}).starts_with("--ticket-key expects a file"));
}

TEST_CASE("the flag --advertise takes an http(s) origin of at most 120 characters, normalised, and only with --store") {
    CHECK(parse({"--store", "dir:/tmp/s", "--advertise", "HTTP://Host.Example:8081/"})->options.advertise_url == "http://host.example:8081");
    CHECK(parse({"--store", "dir:/tmp/s", "--advertise=https://[::1]:8443"})->options.advertise_url == "https://[::1]:8443");
    CHECK(parse({"--store", "dir:/tmp/s"})->options.advertise_url.empty());
    for (const char* bad : {"ws://host:1", "http://host/path", "host:8080", "http://"}) {
        CHECK(refusal({"--store", "dir:/tmp/s", "--advertise", bad}).starts_with("--advertise expects the URL clients reach this process at"));
    }
    CHECK(refusal({"--store", "dir:/tmp/s", "--advertise", "http://" + std::string(120, 'h')}).starts_with("--advertise expects"));
    CHECK(refusal({"--advertise", "http://host:1"}) ==
          "--advertise tells the processes sharing a store where this one is: it needs --store ADDRESS");
}

TEST_CASE("the flag --record-dir takes an existing directory and nothing else") {
    CHECK(parse({"--record-dir", "/tmp"})->options.record_dir == "/tmp");
    CHECK(refusal({"--record-dir", "/no/such/folder/here"}) == "--record-dir expects an existing directory (got '/no/such/folder/here')");
    CHECK(refusal({"--record-dir", "/etc/hostname"}) == "--record-dir expects an existing directory (got '/etc/hostname')");
}

TEST_CASE("the flag --max-rooms takes 1 to 1024 rooms, and is unset by default (the transport's 64)") {
    CHECK_FALSE(parse({})->options.max_rooms.has_value());
    CHECK(parse({"--max-rooms", "1"})->options.max_rooms == 1u);
    CHECK(parse({"--max-rooms=1024"})->options.max_rooms == 1024u);
    CHECK(refusal({"--max-rooms", "0"}) == "--max-rooms expects a whole number in 1..1024 (got '0')");
    CHECK(refusal({"--max-rooms", "1025"}) == "--max-rooms expects a whole number in 1..1024 (got '1025')");
    CHECK(refusal({"--max-rooms"}) == "missing value for --max-rooms");
}

TEST_CASE("the flag --room-idle-close takes whole seconds from 1 to a day, and defaults to a minute") {
    CHECK(parse({})->options.room_idle_close_seconds == 60);
    CHECK(parse({"--room-idle-close", "1"})->options.room_idle_close_seconds == 1);
    CHECK(parse({"--room-idle-close=86400"})->options.room_idle_close_seconds == 86400);
    CHECK(refusal({"--room-idle-close", "0"}) == "--room-idle-close expects a whole number in 1..86400 (got '0')");
    CHECK(refusal({"--room-idle-close", "86401"}) == "--room-idle-close expects a whole number in 1..86400 (got '86401')");
    CHECK(refusal({"--room-idle-close", "1m"}) == "--room-idle-close expects a whole number in 1..86400 (got '1m')");
    CHECK(refusal({"--room-idle-close"}) == "missing value for --room-idle-close");
    CHECK(refusal({"--room-idle-close", "5", "--room-idle-close", "6"}).starts_with("--room-idle-close given twice"));
}

TEST_CASE("the flag --tick-threads takes 0 (the I/O thread) to 64 threads, and is unset unless given") {
    CHECK_FALSE(parse({})->options.tick_threads.has_value());
    CHECK(parse({"--tick-threads", "0"})->options.tick_threads == 0u);
    CHECK(parse({"--tick-threads", "1"})->options.tick_threads == 1u);
    CHECK(parse({"--tick-threads", "64"})->options.tick_threads == 64u);
    CHECK(refusal({"--tick-threads", "-1"}) == "--tick-threads expects a whole number in 0..64 (got '-1')");
    CHECK(refusal({"--tick-threads", "65"}) == "--tick-threads expects a whole number in 0..64 (got '65')");
}

TEST_CASE("serve's --help lists the game's flags, its scenarios and its routes, without them, none") {
    ServeHelp help;
    help.command = "tandem serve --game toy";
    help.game = "toy";
    help.game_flags = game_flags;
    help.scenario_names = "orbits, trig";
    help.route_usage = {"/toy/thing           what the toy serves"};
    const std::string text = serve_help_text(help);
    CHECK(text.starts_with("usage: tandem serve --game toy [--host ADDR]"));
    CHECK(text.find("[--scenario NAME] [--tick-hz HZ] [--crowd N]\n") != std::string::npos);
    CHECK(text.find("\n  --tick-hz HZ         ticks per second\n") != std::string::npos);
    CHECK(text.find("\n  --crowd N            how many\n                       of them\n") != std::string::npos);
    CHECK(text.find("(orbits, trig)") != std::string::npos);
    CHECK(text.find("\n  /toy/thing           what the toy serves\n") != std::string::npos);
    CHECK(text.find("Runs a room of toy (the default room):") != std::string::npos);
    CHECK(text.find("\n  /ws/ROOM ") != std::string::npos);
    CHECK(text.find("\n  /rooms ") != std::string::npos);
    const std::string bare = serve_help_text();
    CHECK(bare.find("--scenario") == std::string::npos);
    CHECK(bare.find("--tick-hz") == std::string::npos);
}

TEST_CASE("the package directory is the game's own package unless --pkg names one, and --help says which") {
    CHECK(default_pkg_dir("ships") == "build/wasm/packages/ships");
    ServeHelp help;
    help.game = "toy";
    CHECK(serve_help_text(help).find("(default ./build/wasm/packages/toy)") != std::string::npos);
    CHECK(serve_help_text().find("(default ./build/wasm/packages/GAME)") != std::string::npos);
}

TEST_CASE("without a game's flags or scenarios, the kit's flags alone are accepted") {
    const auto r = parse_serve_args(std::vector<std::string_view>{"--tick-hz", "30"});
    REQUIRE_FALSE(r);
    CHECK(r.message() == "unknown option '--tick-hz' (accepted: --host, --port, --web, --pkg, --input-delay, "
                         "--max-players, --max-watchers, --per-address-limit, --resume-grace, --record, --record-dir, --store, --room, --advertise, --room-idle-close, --max-rooms, --tick-threads, --ticket-key, --allow-origin, --help)");
    CHECK_FALSE(parse_serve_args(std::vector<std::string_view>{"--scenario", "orbits"}));
}

TEST_CASE("each command-line mistake names the flag and what is accepted") {
    CHECK(refusal({"--port", "65536"}) == "--port expects a whole number in 0..65535 (got '65536'); 0 picks a free port");
    CHECK(refusal({"--port", "-1"}) == "--port expects a whole number in 0..65535 (got '-1'); 0 picks a free port");
    CHECK(refusal({"--port"}) == "missing value for --port");
    CHECK(refusal({"--port", "+80"}).starts_with("--port expects a whole number"));
    CHECK(refusal({"--port", "8o"}).starts_with("--port expects a whole number"));
    CHECK(refusal({"--port", "99999999999999999999999"}).starts_with("--port expects a whole number"));
    CHECK(refusal({"--host", "localhost"}).starts_with("--host expects an IP address"));
    CHECK(refusal({"--host", "1.2.3"}).starts_with("--host expects an IP address"));
    CHECK(refusal({"--input-delay", "601"}) == "--input-delay expects a whole number in 0..600 (got '601')");
    CHECK(refusal({"--max-players", "100001"}).starts_with("--max-players expects a whole number in 0..100000"));
    CHECK(refusal({"--per-address-limit", "0"}) == "--per-address-limit expects a whole number in 1..100000 (got '0')");
    CHECK(refusal({"--resume-grace", "3601"}) == "--resume-grace expects a whole number in 0..3600 (got '3601')");
    CHECK(refusal({"--crowd", "5", "--scenario", "orbits"}) ==
          "--crowd and --scenario are exclusive (a scenario fixes its own crowd)");
    CHECK(parse({"--tick-hz", "5", "--scenario", "orbits"}));   // a flag a scenario does not fix
    CHECK(refusal({"--tick-hz", "1", "--tick-hz", "2"}) == "--tick-hz given twice (each option but --allow-origin is accepted once)");
    CHECK(refusal({"--crowd"}) == "missing value for --crowd");
    CHECK(refusal({"--scenario", ""}).starts_with("--scenario expects a scenario's name"));
    CHECK(refusal({"--port", "1", "--port", "2"}) ==
          "--port given twice (each option but --allow-origin is accepted once)");
    CHECK(refusal({"--allow-origin", "example.com"}).starts_with("--allow-origin expects an origin"));
    CHECK(refusal({"--record", ""}).starts_with("--record expects a file path"));
    CHECK(refusal({"serve"}) == "unknown option 'serve' (accepted: --host, --port, --web, --pkg, --scenario, --tick-hz, "
                                "--crowd, --input-delay, --max-players, --max-watchers, --per-address-limit, --resume-grace, --record, --record-dir, --store, --room, --advertise, --room-idle-close, --max-rooms, --tick-threads, --ticket-key, --allow-origin, --help)");
    CHECK(refusal({"--verbose"}).starts_with("unknown option '--verbose'"));
}

TEST_CASE("a game flag's whole number is parsed as the kit's are") {
    CHECK(parse_flag_count("--tick-hz", "30", 1, 1000).value() == 30u);
    CHECK(parse_flag_count("--tick-hz", "0", 1, 1000).message() == "--tick-hz expects a whole number in 1..1000 (got '0')");
    CHECK_FALSE(parse_flag_count("--tick-hz", "+3", 1, 1000));
    CHECK_FALSE(parse_flag_count("--tick-hz", "4294967296", 0, 4294967295u));
}

TEST_CASE("a flag's value may not be the next flag") {
    CHECK(refusal({"--web", "--port", "1"}) == "missing value for --web");
}

TEST_CASE("origins are normalised as browsers serialise them, and anything else is refused") {
    CHECK(normalize_origin("http://example.com") == "http://example.com");
    CHECK(normalize_origin("HTTP://Example.COM:8080/") == "http://example.com:8080");
    CHECK(normalize_origin("http://example.com:80") == "http://example.com");     // default port dropped
    CHECK(normalize_origin("https://example.com:443") == "https://example.com");
    CHECK(normalize_origin("https://example.com:80") == "https://example.com:80");
    CHECK(normalize_origin("http://[::1]:8080") == "http://[::1]:8080");
    CHECK(normalize_origin("http://127.0.0.1:8080") == "http://127.0.0.1:8080");
    for (const char* bad : {"example.com", "ftp://example.com", "http://", "http://example.com/path",
                            "http://user@example.com", "http://example.com:", "http://example.com:0",
                            "http://example.com:65536", "http://example.com:080", "http://::1:8080",
                            "http://[::1", "http://[]:80", "null", "http://exa mple.com", "http://example.com?x"}) {
        INFO(bad);
        CHECK_FALSE(normalize_origin(bad));
    }
}

TEST_CASE("the flags --store and --room take a store's address and a room's name, and refuse what no store could use") {
    const auto none = parse({});
    REQUIRE(none.ok());
    CHECK(none->options.store_address.empty());
    CHECK(none->options.room_name == "default");
    for (std::string_view address : {"dir:/var/lib/tandem", "/var/lib/tandem", "./rooms", "redis://127.0.0.1:6379",
                                     "redis://[::1]:7000#fleet", "unix:/run/redis.sock"}) {
        const auto parsed = parse({"--store", address, "--room", "match-7_B"});
        REQUIRE(parsed.ok());
        CHECK(parsed->options.store_address == address);
        CHECK(parsed->options.room_name == "match-7_B");
    }
    CHECK(refusal({"--store", "ftp://x"}).find("--store expects dir:PATH") != std::string::npos);
    CHECK(refusal({"--store", "redis://host"}).find("--store expects") != std::string::npos);
    CHECK(refusal({"--store", "rooms"}).find("(got 'rooms')") != std::string::npos);
    CHECK(refusal({"--room", "../x"}).find("--room expects a name") != std::string::npos);
    CHECK(refusal({"--room", std::string(65, 'a')}).find("--room expects") != std::string::npos);
}
