// /native/stream: the query's rules, the stream's text, the worker and the route over them
// (see tandem/server/scenario_stream.hpp). Nothing here knows a game: its names, its version
// and its digests are handed in.
#include "tandem/server/scenario_stream.hpp"

#include <charconv>
#include <optional>

#include "tandem/core/digest.hpp"

namespace tandem::server {

std::string_view error_name(const NativeStreamError& error) {
    switch (error.code) {
    case NativeStreamErrorCode::unknown_parameter: return "unknown_parameter";
    case NativeStreamErrorCode::missing_parameter: return "missing_parameter";
    case NativeStreamErrorCode::unknown_scenario: return "unknown_scenario";
    case NativeStreamErrorCode::bad_ticks: return "bad_ticks";
    case NativeStreamErrorCode::bad_every: return "bad_every";
    }
    return "unknown";
}

std::string_view describe(const NativeStreamError& error) { return error.text; }

namespace {

NativeStreamError refuse(NativeStreamErrorCode code, std::string text) { return NativeStreamError{code, std::move(text)}; }

// A whole decimal number in [min, max], digits only (no sign, no spaces, no leading '+').
std::optional<uint64_t> whole(std::string_view text, uint64_t min, uint64_t max) {
    if (text.empty() || text.size() > 20) return std::nullopt;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
    }
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max) return std::nullopt;
    return v;
}

std::string listed_names(std::span<const std::string> listed) {
    std::string names;
    for (const std::string& name : listed) names += (names.empty() ? "" : ", ") + name;
    return names;
}

}  // namespace

Result<NativeStreamRequest, NativeStreamError> parse_native_stream_query(std::string_view query,
                                                                         std::span<const std::string> listed) {
    std::optional<std::string_view> scenario, ticks, every;
    while (!query.empty()) {
        const size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
        const size_t eq = pair.find('=');
        const std::string_view key = pair.substr(0, eq);
        const std::string_view value = eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
        std::optional<std::string_view>* slot = key == "scenario" ? &scenario : key == "ticks" ? &ticks : key == "every" ? &every : nullptr;
        if (slot == nullptr) {
            return refuse(NativeStreamErrorCode::unknown_parameter,
                          "unknown parameter '" + std::string(key.substr(0, 40)) + "' (accepted: scenario, ticks, every)");
        }
        if (slot->has_value()) {
            return refuse(NativeStreamErrorCode::unknown_parameter, "parameter '" + std::string(key) + "' given twice");
        }
        *slot = value;
    }
    if (!scenario || !ticks) {
        return refuse(NativeStreamErrorCode::missing_parameter,
                      std::string("missing parameter '") + (scenario ? "ticks" : "scenario") + "' (usage: /native/stream?scenario=NAME&ticks=N[&every=K])");
    }
    NativeStreamRequest request;
    bool is_listed = false;
    for (const std::string& name : listed) is_listed = is_listed || name == *scenario;
    if (!is_listed) {
        return refuse(NativeStreamErrorCode::unknown_scenario,
                      "scenario '" + std::string(scenario->substr(0, 40)) + "' is not one of " + listed_names(listed));
    }
    request.scenario = std::string(*scenario);
    const auto t = whole(*ticks, 1, max_native_stream_ticks);
    if (!t) {
        return refuse(NativeStreamErrorCode::bad_ticks, "ticks must be a whole number in 1.." + std::to_string(max_native_stream_ticks) +
                                                            " (got '" + std::string(ticks->substr(0, 40)) + "')");
    }
    request.ticks = *t;
    if (every) {
        const auto e = whole(*every, 1, request.ticks);
        if (!e) {
            return refuse(NativeStreamErrorCode::bad_every, "every must be a whole number in 1.." + std::to_string(request.ticks) +
                                                                " (got '" + std::string(every->substr(0, 40)) + "')");
        }
        request.every = *e;
    }
    return request;
}

std::string native_stream_text(std::string_view game, uint32_t simulation_version, const NativeStreamRequest& request,
                               const std::vector<uint64_t>& digests) {
    std::string out = "# tandem run --game " + std::string(game) + " --scenario " + request.scenario + " --ticks " +
                      std::to_string(request.ticks) + " --every " + std::to_string(request.every) +
                      " (this server's native build)\n";
    out += "simulation_version " + std::to_string(simulation_version) + "\n";
    for (uint64_t t = 0; t <= request.ticks && t < digests.size(); ++t) {
        if (t != 0 && t % request.every != 0 && t != request.ticks) continue;
        out += std::to_string(t);
        out += ' ';
        out += hex64(digests[t]);
        out += '\n';
    }
    return out;
}

void NativeStreams::stop() {
    stop_ = true;
    if (!worker_.joinable()) return;
    // The worker's own completion may hold the last reference to this object's owner; it has
    // finished its work by then and cannot join itself.
    if (worker_.get_id() == std::this_thread::get_id()) {
        worker_.detach();
    } else {
        worker_.join();
    }
}

std::optional<std::vector<uint64_t>> NativeStreams::digests(const NativeStreamRequest& request) const {
    const std::lock_guard lock(mutex_);
    const auto it = digests_.find(request.scenario);
    if (it == digests_.end() || it->second.size() <= request.ticks) return std::nullopt;
    return it->second;
}

bool NativeStreams::start(const NativeStreamRequest& request, std::function<void()> done) {
    const std::lock_guard lock(mutex_);
    if (busy_ || stop_) return false;
    busy_ = true;
    if (worker_.joinable()) worker_.join();   // the previous one has finished (busy_ was false)
    worker_ = std::thread([this, request, done = std::move(done)] {
        std::vector<uint64_t> digests = compute_(request, stop_);
        {
            const std::lock_guard stored(mutex_);
            std::vector<uint64_t>& kept = digests_[request.scenario];
            if (digests.size() > kept.size()) kept = std::move(digests);
            busy_ = false;
        }
        if (!stop_) done();
    });
    return true;
}

HttpRoute native_stream_route(std::string game, uint32_t simulation_version, std::vector<std::string> listed,
                              ComputeDigests compute) {
    // Shared by the handler and the stop hook; the worker is stopped and joined by either the
    // stop hook or the last copy of the route going away.
    struct State {
        State(std::string g, uint32_t v, std::vector<std::string> l, ComputeDigests c)
            : game(std::move(g)), version(v), listed(std::move(l)), streams(std::move(c)) {}
        std::string game;
        uint32_t version;
        std::vector<std::string> listed;
        NativeStreams streams;
    };
    auto state = std::make_shared<State>(std::move(game), simulation_version, std::move(listed), std::move(compute));
    HttpRoute route;
    route.path = "/native/stream";
    route.usage = {"/native/stream?scenario=NAME&ticks=N[&every=K]",
                   "                       a listed scenario's digest stream as this build computes it",
                   "                       (ticks 1.." + std::to_string(max_native_stream_ticks) +
                       "; every 1..N, default 1): '#' comment,",
                   "                       simulation_version, 'TICK DIGEST' lines; 400 for a bad query,",
                   "                       503 while another is being computed (off the tick loop)"};
    route.stop = [state] { state->streams.stop(); };
    route.handle = [state](const HttpRequest& request, HttpReply reply) {
        auto text = [](uint16_t status, std::string body) {
            HttpResponse response;
            response.status = status;
            response.body = std::move(body);
            if (status == 503) response.headers.emplace_back("Retry-After", "2");
            return response;
        };
        const auto parsed = parse_native_stream_query(request.query(), state->listed);
        if (!parsed) return reply(text(400, std::string(parsed.message()) + "\n"));
        const NativeStreamRequest wanted = parsed.value();
        if (auto known = state->streams.digests(wanted)) {
            return reply(text(200, native_stream_text(state->game, state->version, wanted, *known)));
        }
        // The completion runs on the worker's thread; the reply carries the answer to the server's.
        // A weak reference: the worker's own callback must not keep the worker's owner alive.
        const std::weak_ptr<State> weak = state;
        const bool started = state->streams.start(wanted, [weak, wanted, reply, text] {
            const auto held = weak.lock();
            auto known = held ? held->streams.digests(wanted) : std::nullopt;
            reply(known ? text(200, native_stream_text(held->game, held->version, wanted, *known))
                        : text(503, "the stream was not computed; ask again\n"));
        });
        if (!started) reply(text(503, "another native stream is being computed; ask again in a moment\n"));
    };
    return route;
}

}  // namespace tandem::server
