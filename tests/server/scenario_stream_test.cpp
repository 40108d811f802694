// Properties of tandem/server/scenario_stream.hpp, over made-up scenario names and digests (no
// game): the query of GET /native/stream is refused with a typed code naming the parameter
// unless it is exactly a listed name and whole numbers in range; the body is laid out line by
// line as written here; the route answers a bad query 400, a stream 200 once computed (and at
// once after), a second request while one is computed 503 with Retry-After, and stop() ends a
// computation in progress; the budgets: a computation stops at its CPU allowance (a fake CPU
// clock here) and is refused over_budget, then refused before any work; an address past its
// minute's CPU is refused 429 while another is served; a client gone stops the work; a
// precomputed file is parsed only when whole and of this simulation. The arena's streams
// against its golden files: tests/games/arena/server/scenario_stream_test.cpp.
#include "tandem/server/scenario_stream.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
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

HttpRequest get(std::string query) {
    HttpRequest r;
    r.target = "/native/stream" + query;
    return r;
}

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
    HttpRoute route = native_stream_route("toy", 7, listed, [&](const NativeStreamRequest& r, const std::function<bool()>&) {
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
    HttpRoute route = native_stream_route("toy", 7, listed, [&](const NativeStreamRequest&, const std::function<bool()>& keep_going) {
        running = true;
        while (keep_going()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
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

// ---- Budgets ------------------------------------------------------------------------------
namespace {

// A made-up computation whose every step costs `step_ns` of a fake CPU clock (the worker's
// thread reads it; the test's thread only sets the step's cost before starting).
struct FakeCost {
    std::atomic<int64_t> now{0};
    int64_t step_ns = 1'000'000;
    std::atomic<uint64_t> steps{0};
    ComputeDigests compute() {
        return [this](const NativeStreamRequest& r, const std::function<bool()>& keep_going) {
            std::vector<uint64_t> d{0x1000};
            while (d.size() <= r.ticks && keep_going()) {
                now += step_ns;
                ++steps;
                d.push_back(0x1000 + d.size());
            }
            return d;
        };
    }
    std::function<int64_t()> clock() {
        return [this] { return now.load(); };
    }
};

HttpRequest from(std::string query, std::string peer, std::shared_ptr<const std::atomic<bool>> gone = nullptr) {
    HttpRequest r = get(std::move(query));
    r.peer = std::move(peer);
    r.gone = std::move(gone);
    return r;
}

}  // namespace

TEST_CASE("a stream past the request's CPU budget stops there and is refused over_budget, then at once without work") {
    FakeCost cost;   // 1 ms a step
    NativeStreamLimits limits;
    limits.request_cpu_ns = 100'000'000;   // 100 steps
    int64_t wall = 0;
    HttpRoute route = native_stream_route("toy", 7, listed, cost.compute(), {}, limits, cost.clock(), [&] { return wall; });
    Answers answers;
    route.handle(from("?scenario=alpha&ticks=3600", "10.0.0.1"), answers.reply());
    const auto refused = answers.wait_for(1);
    REQUIRE(refused);
    CHECK(refused->status == 400);
    CHECK(refused->body.starts_with("over_budget: 3600 ticks of alpha cost about 3.6 s of CPU here (1 ms a tick), over the 100 ms"));
    CHECK(refused->body.find("at most 100 ticks fit") != std::string::npos);
    CHECK(cost.steps == 100);   // it stopped at its allowance, not at 3600
    // The cost is known now: refused before any step.
    route.handle(from("?scenario=alpha&ticks=3000", "10.0.0.2"), answers.reply());
    REQUIRE(answers.got.size() == 2);   // answered before handle returned
    CHECK(answers.got[1].status == 400);
    CHECK(cost.steps == 100);
    // What fits is computed; the kept prefix answers what it covers.
    route.handle(from("?scenario=alpha&ticks=90", "10.0.0.2"), answers.reply());
    const auto fits = answers.wait_for(3);
    REQUIRE(fits);
    CHECK(fits->status == 200);
    route.stop();
}

TEST_CASE("an address past its minute's CPU is refused 429 with Retry-After, another address is served, and it refills") {
    FakeCost cost;
    NativeStreamLimits limits;
    limits.request_cpu_ns = 1'000'000'000;
    limits.address_cpu_ns_per_minute = 60'000'000;   // 60 steps a minute: one per second
    int64_t wall = 0;
    HttpRoute route = native_stream_route("toy", 7, listed, cost.compute(), {}, limits, cost.clock(), [&] { return wall; });
    Answers answers;
    // 50 steps fit; the next request's allowance is what is left (10 ms), so 40 ticks are over it.
    route.handle(from("?scenario=alpha&ticks=50", "10.0.0.1"), answers.reply());
    REQUIRE(answers.wait_for(1));
    CHECK(answers.got[0].status == 200);
    route.handle(from("?scenario=beta&ticks=40", "10.0.0.1"), answers.reply());
    REQUIRE(answers.wait_for(2));
    CHECK(answers.got[1].status == 400);   // stopped at the 10 ms it had left
    CHECK(answers.got[1].body.find("over the 10 ms this request may cost") != std::string::npos);
    route.handle(from("?scenario=beta&ticks=30", "10.0.0.1"), answers.reply());   // beta is known to tick 10 only
    REQUIRE(answers.got.size() == 3);
    CHECK(answers.got[2].status == 429);
    CHECK(answers.got[2].body.starts_with("address_budget: this address has spent the 60 ms of CPU per minute"));
    // Admitted again at a tenth of the minute's, 6 ms: 6 s at 1 ms a second.
    CHECK(answers.got[2].headers == std::vector<std::pair<std::string, std::string>>{{"Retry-After", "6"}});
    // Another address is served meanwhile (computed: beta is known to tick 10 only).
    route.handle(from("?scenario=beta&ticks=20", "10.0.0.9"), answers.reply());
    REQUIRE(answers.wait_for(4));
    CHECK(answers.got[3].status == 200);
    // A known stream costs nothing and is served to the spent address too.
    route.handle(from("?scenario=alpha&ticks=50", "10.0.0.1"), answers.reply());
    REQUIRE(answers.got.size() == 5);
    CHECK(answers.got[4].status == 200);
    // Two seconds later it has 2 ms: still refused. Six seconds later, 6 ms: admitted, but 30
    // ticks are over that.
    wall += 2'000'000'000;
    route.handle(from("?scenario=beta&ticks=30", "10.0.0.1"), answers.reply());
    REQUIRE(answers.got.size() == 6);
    CHECK(answers.got[5].status == 429);
    CHECK(answers.got[5].headers == std::vector<std::pair<std::string, std::string>>{{"Retry-After", "4"}});
    wall += 4'000'000'000;
    route.handle(from("?scenario=beta&ticks=30", "10.0.0.1"), answers.reply());
    REQUIRE(answers.got.size() == 7);
    CHECK(answers.got[6].status == 400);
    CHECK(answers.got[6].body.find("over the 6 ms this request may cost") != std::string::npos);
    route.stop();
}

TEST_CASE("a client gone stops the computation within a step and frees the worker, answering nothing") {
    FakeCost cost;
    cost.step_ns = 1;
    std::atomic<bool> started{false};
    auto gone = std::make_shared<std::atomic<bool>>(false);
    ComputeDigests slow = [&](const NativeStreamRequest& r, const std::function<bool()>& keep_going) {
        started = true;
        std::vector<uint64_t> d{0x1000};
        while (d.size() <= r.ticks && keep_going()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            d.push_back(0x1000 + d.size());
        }
        return d;
    };
    HttpRoute route = native_stream_route("toy", 7, listed, slow, {}, NativeStreamLimits{}, cost.clock());
    Answers answers;
    route.handle(from("?scenario=alpha&ticks=3600", "10.0.0.1", gone), answers.reply());   // about 7 s
    while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    *gone = true;
    // The worker comes free: a following request is computed, not refused 503.
    bool served = false;
    for (size_t asked = 0; asked < 2000 && !served; ++asked) {
        route.handle(from("?scenario=beta&ticks=2", "10.0.0.2"), answers.reply());
        const auto got = answers.wait_for(asked + 1);
        REQUIRE(got);
        served = got->status == 200;
        if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CHECK(served);
    for (const HttpResponse& r : answers.got) CHECK(r.body.find("alpha") == std::string::npos);   // the gone one got nothing
    route.stop();
}

TEST_CASE("a precomputed file is every tick from 0 of this simulation version, or nothing") {
    const std::string good = "# a comment\nsimulation_version 7\n0 0000000000001000\n1 0000000000001001\n2 0000000000001002\nsummary x\n";
    CHECK(parse_stream_file(good, 7) == std::vector<uint64_t>{0x1000, 0x1001, 0x1002});
    CHECK_FALSE(parse_stream_file(good, 8));                                              // another simulation
    CHECK_FALSE(parse_stream_file("0 0000000000001000\n", 7));                            // no version
    CHECK_FALSE(parse_stream_file("simulation_version 7\n0 0000000000001000\n2 0000000000001002\n", 7));   // a gap
    CHECK_FALSE(parse_stream_file("simulation_version 7\n1 0000000000001001\n", 7));     // not from 0
    CHECK_FALSE(parse_stream_file("simulation_version 7\n0 00000000000010\n", 7));       // not 16 digits
    CHECK_FALSE(parse_stream_file("simulation_version 7\n", 7));                          // nothing
}

TEST_CASE("AddressBudgets: full at first, charged, refilled at the minute's rate, admitting from a tenth, bounded in addresses") {
    AddressBudgets b(60'000, 2);
    CHECK(b.available("a", 0) == 60'000);
    CHECK(b.wait_ns("a", 0) == 0);
    b.charge("a", 70'000, 0);
    CHECK(b.available("a", 0) == -10'000);
    CHECK(b.wait_ns("a", 0) == 16'000'000'000);   // 16,000 ns to the 6,000 floor at 1 ns per ms
    CHECK(b.available("a", 30'000'000'000) == 20'000);
    CHECK(b.available("a", 600'000'000'000) == 60'000);   // never above a minute's worth
    b.charge("b", 1, 0);
    b.charge("a", 5, 600'000'000'000);
    b.available("c", 600'000'000'000);                    // a third: the one with the most left goes
    CHECK(b.tracked() == 2);
}
