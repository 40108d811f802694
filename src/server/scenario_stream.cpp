// /native/stream: the query's rules, the stream's text, the budgets, the worker and the route
// over them (see tandem/server/scenario_stream.hpp). Nothing here knows a game: its names, its
// version and its digests are handed in.
#include "tandem/server/scenario_stream.hpp"

#include <time.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>

#include "tandem/core/digest.hpp"

namespace tandem::server {

std::string_view error_name(const NativeStreamError& error) {
    switch (error.code) {
    case NativeStreamErrorCode::unknown_parameter: return "unknown_parameter";
    case NativeStreamErrorCode::missing_parameter: return "missing_parameter";
    case NativeStreamErrorCode::unknown_scenario: return "unknown_scenario";
    case NativeStreamErrorCode::bad_ticks: return "bad_ticks";
    case NativeStreamErrorCode::bad_every: return "bad_every";
    case NativeStreamErrorCode::over_budget: return "over_budget";
    case NativeStreamErrorCode::address_budget: return "address_budget";
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
                               const std::vector<uint64_t>& digests, std::string_view source) {
    std::string out = "# tandem run --game " + std::string(game) + " --scenario " + request.scenario + " --ticks " +
                      std::to_string(request.ticks) + " --every " + std::to_string(request.every) + " (" +
                      std::string(source) + ")\n";
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

std::optional<std::vector<uint64_t>> parse_stream_file(std::string_view text, uint32_t simulation_version) {
    std::vector<uint64_t> digests;
    bool versioned = false;
    while (!text.empty()) {
        const size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty() || line.front() == '#' || line.starts_with("summary ")) continue;
        if (line.starts_with("simulation_version ")) {
            const auto v = whole(line.substr(19), 0, UINT32_MAX);
            if (!v || *v != simulation_version) return std::nullopt;   // another simulation's digests
            versioned = true;
            continue;
        }
        const size_t space = line.find(' ');
        if (space == std::string_view::npos) return std::nullopt;
        const auto tick = whole(line.substr(0, space), 0, max_native_stream_ticks);
        const auto digest = parse_hex64(line.substr(space + 1));
        // Every tick from 0 in order: a stream with gaps cannot answer every=1.
        if (!tick || !digest || *tick != digests.size()) return std::nullopt;
        digests.push_back(*digest);
    }
    if (!versioned || digests.empty()) return std::nullopt;
    return digests;
}

int64_t thread_cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

// ---- AddressBudgets ----------------------------------------------------------------------

AddressBudgets::Bucket& AddressBudgets::refill(const std::string& address, int64_t now_ns) {
    auto it = buckets_.find(address);
    if (it == buckets_.end()) {
        if (buckets_.size() >= max_addresses_) {
            // Forget the one with the most left: it comes back full, gaining the least.
            auto most = buckets_.begin();
            for (auto b = buckets_.begin(); b != buckets_.end(); ++b) {
                if (b->second.tokens_ns > most->second.tokens_ns) most = b;
            }
            buckets_.erase(most);
        }
        it = buckets_.emplace(address, Bucket{per_minute_ns_, now_ns}).first;
    }
    Bucket& b = it->second;
    if (now_ns - b.at_ns >= 1'000'000) {
        // per_minute_ns_ per 60,000 ms, counted in whole milliseconds (the rest waits for the
        // next call): at most 60,000 ms times at most 600 s of CPU stays far inside int64.
        const int64_t elapsed_ms = (now_ns - b.at_ns) / 1'000'000;
        const int64_t gained = std::min<int64_t>(elapsed_ms, 60'000) * per_minute_ns_ / 60'000;
        b.tokens_ns = std::min<int64_t>(per_minute_ns_, b.tokens_ns + gained);
        b.at_ns += elapsed_ms * 1'000'000;
    }
    return b;
}

int64_t AddressBudgets::available(const std::string& address, int64_t now_ns) { return refill(address, now_ns).tokens_ns; }

int64_t AddressBudgets::wait_ns(const std::string& address, int64_t now_ns) {
    const Bucket& b = refill(address, now_ns);
    const int64_t floor = per_minute_ns_ / address_floor_divisor;
    if (b.tokens_ns >= floor || per_minute_ns_ <= 0) return 0;
    // Until the bucket holds the floor again, at the refill rate, in whole milliseconds rounded
    // up (owed is at most 1.1 minutes' worth: the debt is capped, so the product fits).
    const int64_t owed = floor - b.tokens_ns;
    return (owed * 60'000 + per_minute_ns_ - 1) / per_minute_ns_ * 1'000'000;
}

void AddressBudgets::charge(const std::string& address, int64_t spent_ns, int64_t now_ns) {
    Bucket& b = refill(address, now_ns);
    // No lower bound is needed for safety (spent is at most a request's allowance plus one
    // step), but the debt is capped at a minute's worth so the wait stays bounded.
    b.tokens_ns = std::max<int64_t>(-per_minute_ns_, b.tokens_ns - std::max<int64_t>(0, spent_ns));
}

// ---- NativeStreams -------------------------------------------------------------------------

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

std::optional<NativeStreams::Known> NativeStreams::digests(const NativeStreamRequest& request) const {
    const std::lock_guard lock(mutex_);
    const auto it = known_.find(request.scenario);
    if (it == known_.end() || it->second.digests.size() <= request.ticks) return std::nullopt;
    return it->second;
}

void NativeStreams::preload(const std::string& scenario, std::vector<uint64_t> digests) {
    const std::lock_guard lock(mutex_);
    Known& kept = known_[scenario];
    if (digests.size() > kept.digests.size()) kept = Known{std::move(digests), true};
}

std::optional<int64_t> NativeStreams::cost_per_tick_ns(const std::string& scenario) const {
    const std::lock_guard lock(mutex_);
    const auto it = cost_per_tick_ns_.find(scenario);
    if (it == cost_per_tick_ns_.end()) return std::nullopt;
    return it->second;
}

bool NativeStreams::start(const NativeStreamRequest& request, int64_t allowance_ns, std::shared_ptr<const std::atomic<bool>> gone,
                          std::function<void(const Finished&)> done) {
    const std::lock_guard lock(mutex_);
    if (busy_ || stop_) return false;
    busy_ = true;
    if (worker_.joinable()) worker_.join();   // the previous one has finished (busy_ was false)
    worker_ = std::thread([this, request, allowance_ns, gone = std::move(gone), done = std::move(done)] {
        Finished finished;
        const int64_t began = cpu_clock_();
        const std::function<bool()> keep_going = [&] {
            if (stop_) {
                finished.outcome = Outcome::stopped;
                return false;
            }
            if (gone && gone->load(std::memory_order_relaxed)) {
                finished.outcome = Outcome::client_gone;
                return false;
            }
            if (cpu_clock_() - began >= allowance_ns) {
                finished.outcome = Outcome::over_budget;
                return false;
            }
            return true;
        };
        std::vector<uint64_t> digests = compute_(request, keep_going);
        finished.spent_ns = cpu_clock_() - began;
        finished.ticks = digests.empty() ? 0 : digests.size() - 1;
        if (finished.outcome == Outcome::computed && digests.size() <= request.ticks) finished.outcome = Outcome::stopped;
        {
            const std::lock_guard stored(mutex_);
            Known& kept = known_[request.scenario];
            if (digests.size() > kept.digests.size()) kept = Known{std::move(digests), false};
            // The newest measurement: this machine as loaded now.
            if (finished.ticks > 0) cost_per_tick_ns_[request.scenario] = std::max<int64_t>(1, finished.spent_ns / static_cast<int64_t>(finished.ticks));
            busy_ = false;
        }
        if (!stop_) done(finished);
    });
    return true;
}

// ---- The route -------------------------------------------------------------------------------

namespace {

// How a request ended, for /metrics (the order of stream_outcomes).
enum class StreamOutcome : uint8_t { bad_query, known, precomputed, computed, over_budget, address_budget, busy, client_gone, stopped };
constexpr std::array<std::string_view, 9> stream_outcomes = {"bad_query", "known", "precomputed", "computed", "over_budget",
                                                            "address_budget", "busy", "client_gone", "stopped"};

int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "1.5 s", "44.1 ms", "900 us": a duration for a message (integers only).
std::string shown(int64_t ns) {
    auto tenths = [](int64_t v, int64_t unit, const char* name) {
        const int64_t t = (v * 10 + unit / 2) / unit;
        return std::to_string(t / 10) + (t % 10 != 0 ? "." + std::to_string(t % 10) : "") + " " + name;
    };
    if (ns >= 1'000'000'000) return tenths(ns, 1'000'000'000, "s");
    if (ns >= 1'000'000) return tenths(ns, 1'000'000, "ms");
    return std::to_string(std::max<int64_t>(1, ns / 1000)) + " us";
}

std::optional<std::string> read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    // The largest a 3600-tick stream file is (about 90 KB), with room: nothing larger is read.
    if (text.str().size() > (uint64_t{1} << 20)) return std::nullopt;
    return text.str();
}

// A whole number of milliseconds in 1..10 min, for the route's flags.
std::optional<std::string> read_ms(std::string_view flag, std::string_view value, int64_t& out) {
    const auto v = whole(value, 1, 600'000);
    if (!v) return std::string(flag) + " expects a whole number of milliseconds in 1..600000 (got '" + std::string(value.substr(0, 40)) + "')";
    out = static_cast<int64_t>(*v) * 1'000'000;
    return std::nullopt;
}

}  // namespace

HttpRoute native_stream_route(std::string game, uint32_t simulation_version, std::vector<std::string> listed,
                              ComputeDigests compute, StartDigest start_digest, NativeStreamLimits limits,
                              std::function<int64_t()> cpu_clock, std::function<int64_t()> clock) {
    // Shared by the handler, the worker's completion and the stop hook; the worker is stopped
    // and joined by either the stop hook or the last copy of the route going away.
    struct State {
        State(std::string g, uint32_t v, std::vector<std::string> l, ComputeDigests c, std::function<int64_t()> cpu,
              NativeStreamLimits lim)
            : game(std::move(g)), version(v), listed(std::move(l)), limits(lim),
              budgets(lim.address_cpu_ns_per_minute, lim.max_addresses), streams(std::move(c), std::move(cpu)) {}
        std::string game;
        uint32_t version;
        std::vector<std::string> listed;
        NativeStreamLimits limits;
        std::mutex budgets_mutex;   // the handler (server thread) and the completion (worker) charge it
        AddressBudgets budgets;
        NativeStreams streams;
        // What /metrics shows: requests by how they ended, and the worker's CPU. Counted from
        // both threads.
        std::array<std::atomic<uint64_t>, stream_outcomes.size()> outcomes{};
        std::atomic<int64_t> cpu_ns{0};
        void count(StreamOutcome o) { outcomes[static_cast<size_t>(o)].fetch_add(1, std::memory_order_relaxed); }
    };
    if (!clock) clock = steady_ns;
    auto state = std::make_shared<State>(std::move(game), simulation_version, std::move(listed), std::move(compute),
                                         std::move(cpu_clock), limits);
    HttpRoute route;
    route.path = "/native/stream";
    route.usage = {"/native/stream?scenario=NAME&ticks=N[&every=K]",
                   "                       a listed scenario's digest stream as this build computes it",
                   "                       (ticks 1.." + std::to_string(max_native_stream_ticks) +
                       "; every 1..N, default 1): '#' comment,",
                   "                       simulation_version, 'TICK DIGEST' lines; 400 for a bad query.",
                   "                       The page's own streams (DIR/native/NAME.txt) are served as",
                   "                       they are, computing nothing; any other is computed off the",
                   "                       tick loop, one at a time (503 while another is), within",
                   "                       --stream-cpu-ms of CPU (else 400 over_budget, at once when",
                   "                       its cost is known), --stream-address-cpu-ms per address per",
                   "                       minute (else 429 address_budget), and stops when its client",
                   "                       goes away: an anonymous request costs at most its budget",
                   "                       plus one step, on the one worker thread"};
    route.flags = {
        {"--stream-cpu-ms", "MS",
         "the most CPU one /native/stream request may cost, 1..600000 ms\n(default " +
             std::to_string(limits.request_cpu_ns / 1'000'000) + ")",
         ""},
        {"--stream-address-cpu-ms", "MS",
         "the CPU one address's /native/stream requests may cost per\nminute, 1..600000 ms (default " +
             std::to_string(limits.address_cpu_ns_per_minute / 1'000'000) + ")",
         ""},
    };
    const std::weak_ptr<State> configured = state;
    route.configure = [configured, start_digest](const ServeOptions& options) -> std::optional<std::string> {
        const auto held = configured.lock();
        if (!held) return std::nullopt;
        for (const auto& [flag, value] : options.game_values) {
            int64_t* slot = flag == "--stream-cpu-ms"           ? &held->limits.request_cpu_ns
                            : flag == "--stream-address-cpu-ms" ? &held->limits.address_cpu_ns_per_minute
                                                                : nullptr;
            if (slot == nullptr) continue;
            if (auto problem = read_ms(flag, value, *slot)) return problem;
        }
        {
            const std::lock_guard lock(held->budgets_mutex);
            held->budgets = AddressBudgets(held->limits.address_cpu_ns_per_minute, held->limits.max_addresses);
        }
        // The page's own streams: its files, when they are this simulation's and start where
        // this build starts (a cheap check that they are this game's and not stale).
        for (const std::string& name : held->listed) {
            const auto text = read_text(options.web_dir + "/native/" + name + ".txt");
            if (!text) continue;
            auto digests = parse_stream_file(*text, held->version);
            if (!digests) continue;
            if (start_digest && start_digest(name) != digests->front()) continue;
            held->streams.preload(name, std::move(*digests));
        }
        return std::nullopt;
    };
    route.stop = [state] { state->streams.stop(); };
    route.handle = [state, clock](const HttpRequest& request, HttpReply reply) {
        auto text = [](uint16_t status, std::string body, std::optional<int64_t> retry_after_s = std::nullopt) {
            HttpResponse response;
            response.status = status;
            response.body = std::move(body);
            if (status == 503) response.headers.emplace_back("Retry-After", "2");
            if (retry_after_s) response.headers.emplace_back("Retry-After", std::to_string(*retry_after_s));
            return response;
        };
        const auto parsed = parse_native_stream_query(request.query(), state->listed);
        if (!parsed) {
            state->count(StreamOutcome::bad_query);
            return reply(text(400, std::string(parsed.message()) + "\n"));
        }
        const NativeStreamRequest wanted = parsed.value();
        // The state is passed in, not captured: the worker's completion holds these lambdas and
        // must not keep the worker's owner alive.
        const auto stream_text = [wanted](const State& st, const NativeStreams::Known& known) {
            return native_stream_text(st.game, st.version, wanted, known.digests,
                                      known.precomputed ? "precomputed: the page's native/" + wanted.scenario +
                                                              ".txt, which this server loaded and did not compute"
                                                        : "this server's native build");
        };
        if (auto known = state->streams.digests(wanted)) {
            state->count(known->precomputed ? StreamOutcome::precomputed : StreamOutcome::known);
            return reply(text(200, stream_text(*state, *known)));
        }

        const int64_t budget = state->limits.request_cpu_ns;
        int64_t allowance = budget;
        {
            const std::lock_guard lock(state->budgets_mutex);
            const int64_t now = clock();
            const int64_t left = state->budgets.available(request.peer, now);
            if (const int64_t wait = state->budgets.wait_ns(request.peer, now); wait > 0) {
                const int64_t wait_s = (wait + 999'999'999) / 1'000'000'000;
                state->count(StreamOutcome::address_budget);
                return reply(text(429,
                                  "address_budget: this address has spent the " + shown(state->limits.address_cpu_ns_per_minute) +
                                      " of CPU per minute its native streams may cost; retry after " + std::to_string(wait_s) + " s\n",
                                  wait_s));
            }
            allowance = std::min(allowance, left);
        }
        // The most ticks of this scenario that fit the allowance, at its measured cost.
        const auto fitting = [](int64_t allowance_ns, int64_t per_tick_ns) {
            return static_cast<uint64_t>(std::max<int64_t>(0, allowance_ns / std::max<int64_t>(1, per_tick_ns)));
        };
        const auto over_budget = [wanted, fitting, budget](int64_t allowance_ns, int64_t per_tick_ns) {
            return "over_budget: " + std::to_string(wanted.ticks) + " ticks of " + wanted.scenario + " cost about " +
                   shown(per_tick_ns * static_cast<int64_t>(wanted.ticks)) + " of CPU here (" + shown(per_tick_ns) +
                   " a tick), over the " + shown(allowance_ns) + " this request may cost (" + shown(budget) +
                   " per request, less what this address spent in the last minute); at most " +
                   std::to_string(fitting(allowance_ns, per_tick_ns)) + " ticks fit\n";
        };
        if (const auto cost = state->streams.cost_per_tick_ns(wanted.scenario);
            cost && *cost * static_cast<int64_t>(wanted.ticks) > allowance) {
            state->count(StreamOutcome::over_budget);
            return reply(text(400, over_budget(allowance, *cost)));
        }
        // The completion runs on the worker's thread; the reply carries the answer to the server's.
        // A weak reference: the worker's own callback must not keep the worker's owner alive.
        const std::weak_ptr<State> weak = state;
        const std::string peer = request.peer;
        const bool started = state->streams.start(
            wanted, allowance, request.gone,
            [weak, wanted, reply, text, stream_text, over_budget, peer, clock, allowance](const NativeStreams::Finished& f) {
                const auto held = weak.lock();
                if (!held) return;
                {
                    const std::lock_guard lock(held->budgets_mutex);
                    held->budgets.charge(peer, f.spent_ns, clock());
                }
                held->cpu_ns.fetch_add(f.spent_ns, std::memory_order_relaxed);
                switch (f.outcome) {
                case NativeStreams::Outcome::computed:
                    held->count(StreamOutcome::computed);
                    if (auto known = held->streams.digests(wanted)) return reply(text(200, stream_text(*held, *known)));
                    return reply(text(503, "the stream was not computed; ask again\n"));
                case NativeStreams::Outcome::over_budget:
                    held->count(StreamOutcome::over_budget);
                    return reply(text(400, over_budget(allowance, held->streams.cost_per_tick_ns(wanted.scenario).value_or(f.spent_ns))));
                case NativeStreams::Outcome::client_gone:
                    held->count(StreamOutcome::client_gone);
                    return;   // nobody to answer
                case NativeStreams::Outcome::stopped:
                    held->count(StreamOutcome::stopped);
                    return reply(text(503, "the stream was not computed; ask again\n"));
                }
            });
        if (!started) {
            state->count(StreamOutcome::busy);
            reply(text(503, "another native stream is being computed; ask again in a moment\n"));
        }
    };
    route.metrics = [weak_state = std::weak_ptr<State>(state)] {
        const auto held = weak_state.lock();
        if (!held) return std::string();
        std::string out =
            "# HELP tandem_native_stream_requests_total /native/stream requests by how they were answered: bad_query, "
            "known (computed before), precomputed (the page's file), computed, over_budget, address_budget, busy (503), "
            "client_gone (stopped, nobody answered), stopped (the server stopping)\n"
            "# TYPE tandem_native_stream_requests_total counter\n";
        for (size_t i = 0; i < stream_outcomes.size(); ++i) {
            out += "tandem_native_stream_requests_total{outcome=\"" + std::string(stream_outcomes[i]) + "\"} " +
                   std::to_string(held->outcomes[i].load(std::memory_order_relaxed)) + "\n";
        }
        const int64_t ns = held->cpu_ns.load(std::memory_order_relaxed);
        out += "# HELP tandem_native_stream_cpu_seconds_total CPU the /native/stream worker spent computing streams\n"
               "# TYPE tandem_native_stream_cpu_seconds_total counter\n"
               "tandem_native_stream_cpu_seconds_total " + std::to_string(ns / 1'000'000'000) + "." +
               std::to_string(1'000'000'000 + ns % 1'000'000'000).substr(1) + "\n";
        return out;
    };
    return route;
}

}  // namespace tandem::server
