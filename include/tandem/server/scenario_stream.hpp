// GET /native/stream?scenario=NAME&ticks=N[&every=K]: a listed scenario's digest stream as this
// native build computes it, for a page to compare with its own wasm run tick by tick. Opt-in
// for a game with scenarios (tandem::sim::Scripted): its serve hooks install
// scenario_stream_route<G>(). The query is validated here, without sockets (a bad one is a
// 400 naming the parameter). What one request may cost is bounded: the streams the page ships
// (its native/NAME.txt) are served without computing; anything else is computed off the
// server's thread, one at a time, within a CPU budget per request and per address, and stops
// when its client goes away (NativeStreamLimits).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tandem/core/result.hpp"
#include "tandem/server/serve.hpp"
#include "tandem/sim/scenario.hpp"
#include "tandem/sim/state.hpp"

namespace tandem::server {

// A minute of ticks at 60 Hz: the most one request may ask for. A tick of a listed scenario may
// cost tens of milliseconds in a Release build (a large world's), so a stream is
// computed off the server's thread (NativeStreams), one at a time, and kept.
inline constexpr uint64_t max_native_stream_ticks = 3600;

// What the streams a stranger asks for may cost, each with its reason. `tandem serve` sets the
// first two from --stream-cpu-ms and --stream-address-cpu-ms.
struct NativeStreamLimits {
    // The CPU (the worker thread's own time) one request may spend. Past it the computation
    // stops and the request is refused 400 over_budget; once a scenario's cost per tick is
    // known (measured by earlier work), a request it would not fit is refused before any work.
    // 2 s: the page's own streams come precomputed, so only a hand-made request pays, and 2 s
    // of one core is a tenth of a 2-core machine for 10 s.
    int64_t request_cpu_ns = 2'000'000'000;
    // The CPU one address's requests may spend per minute: a token bucket, full at first,
    // refilled at this rate; an address with less than a tenth of it left is refused 429
    // address_budget with Retry-After (no stream of slivers), while the others are served.
    int64_t address_cpu_ns_per_minute = 10'000'000'000;
    // Addresses remembered at once, so the memory of the budgets is bounded (about 100 bytes
    // each): past it the address with the most left is forgotten (it comes back with a full
    // bucket: it gains less than it had).
    size_t max_addresses = 4096;
};

// Per-address CPU buckets (pure: time is passed in, nanoseconds of any steady clock).
class AddressBudgets {
public:
    // An address is admitted while it holds at least per_minute / address_floor_divisor.
    static constexpr int64_t address_floor_divisor = 10;
    explicit AddressBudgets(int64_t per_minute_ns = NativeStreamLimits{}.address_cpu_ns_per_minute,
                            size_t max_addresses = NativeStreamLimits{}.max_addresses)
        : per_minute_ns_(per_minute_ns), max_addresses_(max_addresses) {}
    // The CPU the address may still spend now (below zero: what it owes).
    int64_t available(const std::string& address, int64_t now_ns);
    // How long until the address is admitted again (0: it is).
    int64_t wait_ns(const std::string& address, int64_t now_ns);
    // The address spent this much (its bucket may go below zero: the overshoot is owed).
    void charge(const std::string& address, int64_t spent_ns, int64_t now_ns);
    size_t tracked() const { return buckets_.size(); }

private:
    struct Bucket {
        int64_t tokens_ns = 0;
        int64_t at_ns = 0;
    };
    Bucket& refill(const std::string& address, int64_t now_ns);
    int64_t per_minute_ns_;
    size_t max_addresses_;
    std::map<std::string, Bucket> buckets_;
};

struct NativeStreamRequest {
    std::string scenario;   // a listed scenario's name
    uint64_t ticks = 0;     // 1..max_native_stream_ticks
    uint64_t every = 1;     // 1..ticks: a point at every multiple, and at the last tick
    friend bool operator==(const NativeStreamRequest&, const NativeStreamRequest&) = default;
};

enum class NativeStreamErrorCode : uint8_t {
    unknown_parameter,    // a parameter other than scenario, ticks, every (or one given twice)
    missing_parameter,    // scenario or ticks absent
    unknown_scenario,     // not a listed scenario's name
    bad_ticks,            // not a whole number in 1..max_native_stream_ticks
    bad_every,            // not a whole number in 1..ticks
    over_budget,          // the stream would cost more CPU than one request may (400)
    address_budget,       // this address has spent what it may per minute (429)
};

struct NativeStreamError {
    NativeStreamErrorCode code = NativeStreamErrorCode::unknown_parameter;
    std::string text;   // one sentence naming the parameter and what is accepted
};
std::string_view error_name(const NativeStreamError& error);
std::string_view describe(const NativeStreamError& error);

// The query string after '?' (empty when there is none), against the listed scenarios' names
// (only those: a random world's size is its spec's, so its cost would not be bounded). Values
// are taken literally: the accepted ones need no percent-decoding, so an encoded one is refused.
Result<NativeStreamRequest, NativeStreamError> parse_native_stream_query(std::string_view query,
                                                                         std::span<const std::string> listed);

// The body: a '#' comment naming the request and where the digests come from, "simulation_version
// V", then "TICK DIGEST" lines for ticks 0..request.ticks as `every` picks them (the layout of a
// game's golden streams and of `tandem run`'s stream), from digests at ticks 0..request.ticks
// (at least that many).
std::string native_stream_text(std::string_view game, uint32_t simulation_version, const NativeStreamRequest& request,
                               const std::vector<uint64_t>& digests, std::string_view source = "this server's native build");

// A precomputed stream file (the layout native_stream_text writes and `tandem run` prints: '#'
// comments, "simulation_version V", "TICK DIGEST" lines, a 'summary' line) as the digests at
// ticks 0..N, or nothing unless it names this simulation version and holds every tick from 0.
std::optional<std::vector<uint64_t>> parse_stream_file(std::string_view text, uint32_t simulation_version);

// The digests of a scenario at ticks 0..ticks, computed on the worker's thread: it asks
// keep_going() before each step and returns what it has (fewer) once that says no.
using ComputeDigests =
    std::function<std::vector<uint64_t>(const NativeStreamRequest& request, const std::function<bool()>& keep_going)>;
// The digest of a listed scenario at tick 0 (no step): what a precomputed file must begin with.
using StartDigest = std::function<uint64_t(std::string_view scenario)>;

// The CPU time of the calling thread, in nanoseconds: what a computation is charged.
int64_t thread_cpu_ns();

// The streams the server knows (computed, or precomputed and loaded), and the one worker thread
// that computes a new one, so a request never holds the tick loop: a stream already known is
// answered at once, an unknown one starts the worker (one at a time: a second is told to come
// back), which stops at its CPU allowance, when its client has gone or when the server stops,
// and reports how it ended to the caller's function, on the worker's thread.
class NativeStreams {
public:
    // cpu_clock: read on the worker's thread before and during a computation (a test's fake).
    explicit NativeStreams(ComputeDigests compute, std::function<int64_t()> cpu_clock = thread_cpu_ns)
        : compute_(std::move(compute)), cpu_clock_(std::move(cpu_clock)) {}
    NativeStreams(const NativeStreams&) = delete;
    NativeStreams& operator=(const NativeStreams&) = delete;
    // Stops a computation in progress (within a tick) and waits for the worker.
    ~NativeStreams() { stop(); }
    void stop();

    struct Known {
        std::vector<uint64_t> digests;   // ticks 0..N, N >= the request's
        bool precomputed = false;        // loaded from a file, not computed by this process
    };
    // The digests at ticks 0..request.ticks if they are known.
    std::optional<Known> digests(const NativeStreamRequest& request) const;
    // A stream known without computing it (a precomputed file's digests at ticks 0..N).
    void preload(const std::string& scenario, std::vector<uint64_t> digests);
    // CPU per tick of a scenario, measured by earlier computations (none yet: unknown).
    std::optional<int64_t> cost_per_tick_ns(const std::string& scenario) const;

    enum class Outcome : uint8_t { computed, over_budget, client_gone, stopped };
    struct Finished {
        Outcome outcome = Outcome::computed;
        uint64_t ticks = 0;         // ticks stepped
        int64_t spent_ns = 0;       // the worker's CPU for it
    };
    // Starts computing the scenario's digests to request.ticks with at most allowance_ns of the
    // worker's CPU (checked before each step: a step begun may overshoot by one), stopping too
    // once `gone` is set; false when the worker is busy or stopped. `done` runs on the worker's
    // thread once what was computed is stored.
    bool start(const NativeStreamRequest& request, int64_t allowance_ns, std::shared_ptr<const std::atomic<bool>> gone,
               std::function<void(const Finished&)> done);

private:
    ComputeDigests compute_;
    std::function<int64_t()> cpu_clock_;
    mutable std::mutex mutex_;
    std::map<std::string, Known> known_;                // per scenario: ticks 0..N
    std::map<std::string, int64_t> cost_per_tick_ns_;   // per scenario: the newest measurement
    std::thread worker_;
    bool busy_ = false;
    std::atomic<bool> stop_{false};
};

// The route's whole behaviour over a game's listed names and its digests: a bad query is a 400
// naming the parameter; a known stream (computed before, or precomputed) a 200 at once; an
// address that has spent its minute's CPU a 429 with Retry-After; a stream whose known cost
// exceeds the request's budget a 400 over_budget at once; an unknown one a 200 when the worker
// has computed it, a 400 over_budget when it ran out of budget first, nothing when its client
// went away (the work stops within a step); a request while the worker is busy a 503 with
// Retry-After: 2. configure (called by serve_main before serving) reads --stream-cpu-ms and
// --stream-address-cpu-ms and loads the precomputed streams: DIR/native/NAME.txt under --web
// for each listed NAME, kept only when parse_stream_file takes it and its tick 0 is
// start_digest's. `clock` (steady nanoseconds) refills the address buckets.
HttpRoute native_stream_route(std::string game, uint32_t simulation_version, std::vector<std::string> listed,
                              ComputeDigests compute, StartDigest start_digest = {}, NativeStreamLimits limits = {},
                              std::function<int64_t()> cpu_clock = thread_cpu_ns, std::function<int64_t()> clock = {});

// GET /native/stream for a game with scenarios: the digests of G's listed scenarios.
template <sim::Scripted G>
HttpRoute scenario_stream_route() {
    std::vector<std::string> listed;
    for (const typename G::Scenario& s : G::scenarios()) listed.emplace_back(s.name);
    return native_stream_route(std::string(G::name), G::version, std::move(listed),
                               [](const NativeStreamRequest& request, const std::function<bool()>& keep_going) {
                                   std::vector<uint64_t> digests;
                                   const auto found = G::find_scenario(request.scenario);
                                   if (!found) return digests;   // the query admits listed names only
                                   typename G::State state = G::start(*found);
                                   typename G::Stepper stepper;
                                   digests.push_back(sim::digest<G>(state));
                                   while (G::tick(state) < request.ticks && keep_going()) {
                                       sim::advance<G>(*found, state, 1, stepper);
                                       digests.push_back(sim::digest<G>(state));
                                   }
                                   return digests;
                               },
                               [](std::string_view scenario) -> uint64_t {
                                   const auto found = G::find_scenario(scenario);
                                   return found ? sim::digest<G>(G::start(*found)) : 0;
                               });
}

}  // namespace tandem::server
