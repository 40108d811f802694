// /native/stream: the query's rules and the stream's text (see native_stream.hpp).
#include "server/native_stream.hpp"

#include <charconv>
#include <optional>

#include "tandem/core/digest.hpp"
#include "tandem/world/scenario.hpp"
#include "tandem/world/world.hpp"

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

std::string listed_names() {
    std::string names;
    for (const world::Scenario& s : world::scenarios()) names += (names.empty() ? "" : ", ") + s.name;
    return names;
}

}  // namespace

Result<NativeStreamRequest, NativeStreamError> parse_native_stream_query(std::string_view query) {
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
    bool listed = false;
    for (const world::Scenario& s : world::scenarios()) listed = listed || s.name == *scenario;
    if (!listed) {
        return refuse(NativeStreamErrorCode::unknown_scenario,
                      "scenario '" + std::string(scenario->substr(0, 40)) + "' is not one of " + listed_names());
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

std::string native_stream_text(const NativeStreamRequest& request, const std::vector<uint64_t>& digests) {
    std::string out = "# tandem run --scenario " + request.scenario + " --ticks " + std::to_string(request.ticks) +
                      " --every " + std::to_string(request.every) + " (this server's native build)\n";
    out += "simulation_version " + std::to_string(world::simulation_version) + "\n";
    for (uint64_t t = 0; t <= request.ticks && t < digests.size(); ++t) {
        if (t != 0 && t % request.every != 0 && t != request.ticks) continue;
        out += std::to_string(t);
        out += ' ';
        out += hex64(digests[t]);
        out += '\n';
    }
    return out;
}

std::string native_stream_text(const NativeStreamRequest& request) {
    const auto found = world::find_scenario(request.scenario);
    if (!found) return {};   // parse_native_stream_query admits listed names only
    std::vector<uint64_t> digests;
    world::World w = world::start(*found);
    world::digest_stream(*found, w, request.ticks, 1, [&](const world::StreamPoint& p) { digests.push_back(p.digest); });
    return native_stream_text(request, digests);
}

NativeStreams::~NativeStreams() {
    stop_ = true;
    if (worker_.joinable()) worker_.join();
}

std::optional<std::string> NativeStreams::text(const NativeStreamRequest& request) const {
    const std::lock_guard lock(mutex_);
    const auto it = digests_.find(request.scenario);
    if (it == digests_.end() || it->second.size() <= request.ticks) return std::nullopt;
    return native_stream_text(request, it->second);
}

bool NativeStreams::start(const NativeStreamRequest& request, std::function<void()> done) {
    const std::lock_guard lock(mutex_);
    if (busy_) return false;
    busy_ = true;
    if (worker_.joinable()) worker_.join();   // the previous one has finished (busy_ was false)
    worker_ = std::thread([this, request, done = std::move(done)] {
        std::vector<uint64_t> digests;
        if (const auto found = world::find_scenario(request.scenario)) {
            world::World w = world::start(*found);
            world::Stepper stepper;
            digests.push_back(world::digest(w));
            while (w.tick < request.ticks && !stop_) {
                world::advance(*found, w, 1, stepper);
                digests.push_back(world::digest(w));
            }
        }
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

}  // namespace tandem::server
