// Properties of tandem/server/scenario_stream.hpp, over made-up scenario names and digests (no
// game): the query of GET /native/stream is refused with a typed code naming the parameter
// unless it is exactly a listed name and whole numbers in range; the body is laid out line by
// line as written here; the route answers a bad query 400, a stream 200 once computed (and at
// once after), a second request while one is computed 503 with Retry-After, and stop() ends a
// computation in progress. The arena's streams against its golden files:
// tests/games/arena/server/scenario_stream_test.cpp.
#include "tandem/server/scenario_stream.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace tandem::server;

namespace {

const std::vector<std::string> listed = {"alpha", "beta"};

std::string code_of(std::string_view query) {
    const auto r = parse_native_stream_query(query, listed);
    return r ? std::string("ok") : std::string(r.code());
}

// The digest of tick t in the made-up streams: distinct and easy to write down.
std::vector<uint64_t> made_up(uint64_t ticks) {
    std::vector<uint64_t> d;
    for (uint64_t t = 0; t <= ticks; ++t) d.push_back(0x1000 + t);
    return d;
}

// What a route's reply delivered, waited for from the test's thread.
struct Answers {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<HttpResponse> got;
    HttpReply reply() {
        return [this](HttpResponse r) {
            const std::lock_guard lock(mutex);
            got.push_back(std::move(r));
            changed.notify_all();
        };
    }
    std::optional<HttpResponse> wait_for(size_t count) {
        std::unique_lock lock(mutex);
        if (!changed.wait_for(lock, std::chrono::seconds(20), [&] { return got.size() >= count; })) return std::nullopt;
        return got[count - 1];
    }
};

HttpRequest get(std::string query) { return HttpRequest{"/native/stream" + query, false}; }

}  // namespace

TEST_CASE("a listed scenario with ticks (and every) in range is accepted") {
    const auto r = parse_native_stream_query("scenario=alpha&ticks=2000", listed);
    REQUIRE(r);
    CHECK(r.value() == NativeStreamRequest{"alpha", 2000, 1});
    CHECK(parse_native_stream_query("every=100&ticks=2000&scenario=beta", listed).value() == NativeStreamRequest{"beta", 2000, 100});
    CHECK(code_of("scenario=alpha&ticks=3600&every=3600") == "ok");
    CHECK(code_of("scenario=beta&ticks=1") == "ok");
}

TEST_CASE("every other query is a typed refusal naming the parameter") {
    CHECK(code_of("") == "missing_parameter");
    CHECK(code_of("scenario=alpha") == "missing_parameter");
    CHECK(code_of("ticks=10") == "missing_parameter");
    CHECK(code_of("scenario=alpha&ticks=10&speed=2") == "unknown_parameter");
    CHECK(code_of("scenario=alpha&ticks=10&ticks=20") == "unknown_parameter");
    CHECK(code_of("scenario=alph&ticks=10") == "unknown_scenario");
    CHECK(code_of("scenario=ALPHA&ticks=10") == "unknown_scenario");
    // Only listed names: a game's spec of a random world would set its own cost.
    CHECK(code_of("scenario=random:1&ticks=10") == "unknown_scenario");
    CHECK(code_of("scenario=alpha&ticks=0") == "bad_ticks");
    CHECK(code_of("scenario=alpha&ticks=3601") == "bad_ticks");
    CHECK(code_of("scenario=alpha&ticks=-1") == "bad_ticks");
    CHECK(code_of("scenario=alpha&ticks=+5") == "bad_ticks");
    CHECK(code_of("scenario=alpha&ticks=1e3") == "bad_ticks");
    CHECK(code_of("scenario=alpha&ticks=") == "bad_ticks");
    CHECK(code_of("scenario=alpha&ticks=99999999999999999999999") == "bad_ticks");
    CHECK(code_of("scenario=alpha&ticks=10&every=0") == "bad_every");
    CHECK(code_of("scenario=alpha&ticks=10&every=11") == "bad_every");
    const auto r = parse_native_stream_query("scenario=alpha&ticks=5000", listed);
    REQUIRE_FALSE(r);
    CHECK(r.message() == "ticks must be a whole number in 1..3600 (got '5000')");
    CHECK(parse_native_stream_query("scenario=gamma&ticks=5", listed).message() == "scenario 'gamma' is not one of alpha, beta");
}

TEST_CASE("the body: a comment, the simulation version, then tick 0, each multiple of every, and the last tick") {
    const std::string text = native_stream_text("toy", 7, NativeStreamRequest{"alpha", 10, 4}, made_up(10));
    CHECK(text ==
          "# tandem run --game toy --scenario alpha --ticks 10 --every 4 (this server's native build)\n"
          "simulation_version 7\n"
          "0 0000000000001000\n"
          "4 0000000000001004\n"
          "8 0000000000001008\n"
          "10 000000000000100a\n");
}

TEST_CASE("the route: 400 for a bad query, 200 once computed and at once after, 503 with Retry-After while busy") {
    std::mutex gate_mutex;
    std::condition_variable gate_changed;
    bool release = false;
    HttpRoute route = native_stream_route("toy", 7, listed, [&](const NativeStreamRequest& r, const std::atomic<bool>&) {
        std::unique_lock lock(gate_mutex);
        gate_changed.wait(lock, [&] { return release; });   // held until the test lets it go
        return made_up(r.ticks);
    });
    CHECK(route.path == "/native/stream");
    Answers answers;

    route.handle(get("?scenario=gamma&ticks=3"), answers.reply());
    auto bad = answers.wait_for(1);
    REQUIRE(bad);
    CHECK(bad->status == 400);
    CHECK(bad->body == "scenario 'gamma' is not one of alpha, beta\n");

    route.handle(get("?scenario=alpha&ticks=3"), answers.reply());   // the worker starts and waits
    route.handle(get("?scenario=beta&ticks=3"), answers.reply());    // refused meanwhile
    auto busy = answers.wait_for(2);
    REQUIRE(busy);
    CHECK(busy->status == 503);
    CHECK(busy->headers == std::vector<std::pair<std::string, std::string>>{{"Retry-After", "2"}});
    {
        const std::lock_guard lock(gate_mutex);
        release = true;
    }
    gate_changed.notify_all();
    auto computed = answers.wait_for(3);
    REQUIRE(computed);
    CHECK(computed->status == 200);
    CHECK(computed->content_type == "text/plain; charset=utf-8");
    CHECK(computed->body.find("\n3 0000000000001003\n") != std::string::npos);

    // Known now: answered on the caller's thread, before handle returns; a shorter request too.
    route.handle(get("?scenario=alpha&ticks=2&every=2"), answers.reply());
    REQUIRE(answers.got.size() == 4);
    CHECK(answers.got[3].status == 200);
    CHECK(answers.got[3].body.ends_with("simulation_version 7\n0 0000000000001000\n2 0000000000001002\n"));
    route.stop();
}

TEST_CASE("stop() ends a computation in progress, and a request after it is refused, not started") {
    std::atomic<bool> running{false};
    HttpRoute route = native_stream_route("toy", 7, listed, [&](const NativeStreamRequest&, const std::atomic<bool>& stop) {
        running = true;
        while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return std::vector<uint64_t>{};
    });
    Answers answers;
    route.handle(get("?scenario=alpha&ticks=3600"), answers.reply());
    while (!running) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    route.stop();   // returns only once the worker has ended
    CHECK(answers.got.empty());   // a stopped computation answers nothing (the server has gone)
    route.handle(get("?scenario=beta&ticks=3"), answers.reply());
    REQUIRE(answers.got.size() == 1);
    CHECK(answers.got[0].status == 503);
}
