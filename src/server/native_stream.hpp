// GET /native/stream?scenario=NAME&ticks=N[&every=K]: a listed scenario's digest stream as this
// native build computes it, for a page to compare with its own wasm run tick by tick. The
// query is validated here, without sockets (a bad one is a 400 naming the parameter), and the
// cost of one request is bounded by max_native_stream_ticks.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tandem/core/result.hpp"

namespace tandem::server {

// A minute of ticks at 60 Hz: the most one request may ask for. A tick of the listed scenarios
// costs 0.7 ms (trig) to 55 ms (crowd's 32768 pellets) in a Release build, so a stream is
// computed off the server's thread (NativeStreams), one at a time, and kept.
inline constexpr uint64_t max_native_stream_ticks = 3600;

struct NativeStreamRequest {
    std::string scenario;   // a listed scenario (orbits, crowd, chaos, trig)
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

// The query string after '?' (empty when there is none). Values are taken literally: the
// accepted ones need no percent-decoding, so an encoded one is simply refused.
Result<NativeStreamRequest, NativeStreamError> parse_native_stream_query(std::string_view query);

// The body: a '#' comment naming the request, "simulation_version V", then "TICK DIGEST"
// lines, the layout of tests/world/golden/*.txt and of `tandem run`'s stream.
std::string native_stream_text(const NativeStreamRequest& request);
// The same from digests at ticks 0..request.ticks (at least that many).
std::string native_stream_text(const NativeStreamRequest& request, const std::vector<uint64_t>& digests);

// The streams the server has computed, and the one worker thread that computes a new one, so a
// request never holds the tick loop: a stream already known is answered at once, an unknown
// one starts the worker (one at a time: a second is told to come back), and its completion is
// reported to the caller's function, on the worker's thread.
class NativeStreams {
public:
    NativeStreams() = default;
    NativeStreams(const NativeStreams&) = delete;
    NativeStreams& operator=(const NativeStreams&) = delete;
    // Stops a computation in progress (within a tick) and waits for the worker.
    ~NativeStreams();

    // The body for this request if the scenario's digests reach its ticks.
    std::optional<std::string> text(const NativeStreamRequest& request) const;
    // Starts computing the scenario's digests to request.ticks; false when the worker is busy.
    // `done` runs on the worker's thread once they are stored.
    bool start(const NativeStreamRequest& request, std::function<void()> done);

private:
    mutable std::mutex mutex_;
    std::map<std::string, std::vector<uint64_t>> digests_;   // per scenario: ticks 0..N
    std::thread worker_;
    bool busy_ = false;
    std::atomic<bool> stop_{false};
};

}  // namespace tandem::server
