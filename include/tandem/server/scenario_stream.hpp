// GET /native/stream?scenario=NAME&ticks=N[&every=K]: a listed scenario's digest stream as this
// native build computes it, for a page to compare with its own wasm run tick by tick. Opt-in
// for a game with scenarios (tandem::sim::Scripted): its serve hooks install
// scenario_stream_route<G>(). The query is validated here, without sockets (a bad one is a
// 400 naming the parameter), the cost of one request is bounded by max_native_stream_ticks, and
// a stream is computed off the server's thread, one at a time, and kept.
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
// cost tens of milliseconds (the arena's crowd: 55 ms in a Release build), so a stream is
// computed off the server's thread (NativeStreams), one at a time, and kept.
inline constexpr uint64_t max_native_stream_ticks = 3600;

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

// The body: a '#' comment naming the request, "simulation_version V", then "TICK DIGEST" lines
// for ticks 0..request.ticks as `every` picks them (the layout of a game's golden streams and
// of `tandem run`'s stream), from digests at ticks 0..request.ticks (at least that many).
std::string native_stream_text(std::string_view game, uint32_t simulation_version, const NativeStreamRequest& request,
                               const std::vector<uint64_t>& digests);

// The digests of a scenario at ticks 0..ticks, computed on the worker's thread; it returns
// early (with fewer) once `stop` is set.
using ComputeDigests = std::function<std::vector<uint64_t>(const NativeStreamRequest& request, const std::atomic<bool>& stop)>;

// The streams the server has computed, and the one worker thread that computes a new one, so a
// request never holds the tick loop: a stream already known is answered at once, an unknown
// one starts the worker (one at a time: a second is told to come back), and its completion is
// reported to the caller's function, on the worker's thread.
class NativeStreams {
public:
    explicit NativeStreams(ComputeDigests compute) : compute_(std::move(compute)) {}
    NativeStreams(const NativeStreams&) = delete;
    NativeStreams& operator=(const NativeStreams&) = delete;
    // Stops a computation in progress (within a tick) and waits for the worker.
    ~NativeStreams() { stop(); }
    void stop();

    // The digests at ticks 0..request.ticks if they are known.
    std::optional<std::vector<uint64_t>> digests(const NativeStreamRequest& request) const;
    // Starts computing the scenario's digests to request.ticks; false when the worker is busy
    // or stopped. `done` runs on the worker's thread once they are stored.
    bool start(const NativeStreamRequest& request, std::function<void()> done);

private:
    ComputeDigests compute_;
    mutable std::mutex mutex_;
    std::map<std::string, std::vector<uint64_t>> digests_;   // per scenario: ticks 0..N
    std::thread worker_;
    bool busy_ = false;
    std::atomic<bool> stop_{false};
};

// The route's whole behaviour over a game's listed names and its digests: a bad query is a 400
// naming the parameter, a known stream a 200 at once, an unknown one a 200 when the worker has
// computed it, and a request while the worker is busy a 503 with Retry-After: 2.
HttpRoute native_stream_route(std::string game, uint32_t simulation_version, std::vector<std::string> listed,
                              ComputeDigests compute);

// GET /native/stream for a game with scenarios: the digests of G's listed scenarios.
template <sim::Scripted G>
HttpRoute scenario_stream_route() {
    std::vector<std::string> listed;
    for (const typename G::Scenario& s : G::scenarios()) listed.emplace_back(s.name);
    return native_stream_route(std::string(G::name), G::version, std::move(listed),
                               [](const NativeStreamRequest& request, const std::atomic<bool>& stop) {
                                   std::vector<uint64_t> digests;
                                   const auto found = G::find_scenario(request.scenario);
                                   if (!found) return digests;   // the query admits listed names only
                                   typename G::State state = G::start(*found);
                                   typename G::Stepper stepper;
                                   digests.push_back(sim::digest<G>(state));
                                   while (G::tick(state) < request.ticks && !stop) {
                                       sim::advance<G>(*found, state, 1, stepper);
                                       digests.push_back(sim::digest<G>(state));
                                   }
                                   return digests;
                               });
}

}  // namespace tandem::server
