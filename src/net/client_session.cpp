// The client session's rules that do not depend on the game (tandem/net/client_session.hpp
// holds ClientSession<G> itself): the names of the resume paths, the reconnect schedule, where the
// next connection goes, which refusals are final, the budget rule's arithmetic and the median of
// recent wall times. Integers only; time is passed in.
#include "tandem/net/client_session.hpp"

#include <algorithm>

#include "tandem/net/link_arith.hpp"

namespace tandem::net {

std::string_view resume_path_name(ResumePath path) {
    switch (path) {
        case ResumePath::none: return "none";
        case ResumePath::caught_up: return "catch_up";
        case ResumePath::resync: return "resync";
        case ResumePath::idle: return "idle";
    }
    return "unknown";
}

namespace detail {

int64_t reconnect_delay(uint32_t attempts) {
    // attempts counts closes since the last verified tick: the first retry is immediate.
    if (attempts <= 1) return 0;
    const uint32_t doublings = attempts - 2;
    int64_t delay = reconnect_first_backoff_ns;
    for (uint32_t i = 0; i < doublings && delay < reconnect_max_backoff_ns; ++i) delay *= 2;
    return std::min(delay, reconnect_max_backoff_ns);
}

bool refusal_is_final(ErrorCode code) {
    switch (code) {
        // Retrying repeats the same refusal (another build, a client bug, abuse).
        case ErrorCode::version_mismatch:
        case ErrorCode::fingerprint_mismatch:
        case ErrorCode::game_mismatch:
        case ErrorCode::malformed:
        case ErrorCode::unexpected:
        case ErrorCode::rate_limited:
        case ErrorCode::resumed_elsewhere:
        // A ticket is what it is: a new one must come from the lobby.
        case ErrorCode::ticket_missing:
        case ErrorCode::ticket_forged:
        case ErrorCode::ticket_expired:
        case ErrorCode::ticket_replayed:
        case ErrorCode::ticket_invalid: return true;
        // Temporary: the room may have a seat or be back later.
        case ErrorCode::room_full:
        case ErrorCode::too_slow:
        case ErrorCode::shutting_down:
        case ErrorCode::idle:
        // The address's share may free up when one of its own leaves.
        case ErrorCode::address_limit:
        // The token is dropped; a new seat may be free.
        case ErrorCode::resume_unknown:
        case ErrorCode::resume_expired:
        case ErrorCode::resume_used:
        // Followed to where it went (ClientSession bounds how often).
        case ErrorCode::room_moved: return false;
    }
    return false;
}

bool is_websocket_url(std::string_view text) {
    if (text.size() > max_moved_url_bytes) return false;
    std::string_view rest;
    if (text.starts_with("ws://")) rest = text.substr(5);
    else if (text.starts_with("wss://")) rest = text.substr(6);
    else return false;
    if (rest.empty() || rest.front() == '/' || rest.front() == ':') return false;   // no host
    // RFC 3986's unreserved, sub-delims, ':', '/', '@', '[', ']', '%' and '?': no spaces, quotes
    // or controls a page could be made to misread.
    static constexpr std::string_view allowed = "-._~!$&'()*+,;=:/@[]%?";
    for (char c : rest) {
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && allowed.find(c) == std::string_view::npos) return false;
    }
    return true;
}

uint32_t Destinations::set_fleet(std::string_view own, std::span<const std::string> others) {
    own_ = is_websocket_url(own) ? std::string(own) : std::string();
    fleet_.clear();
    entry_ = 0;
    moved_.clear();
    last_failed_.reset();
    for (const std::string& url : others) {
        if (fleet_.size() == max_fleet_urls) break;
        if (!is_websocket_url(url) || url == own_ || std::find(fleet_.begin(), fleet_.end(), url) != fleet_.end()) continue;
        fleet_.push_back(url);
    }
    return static_cast<uint32_t>(fleet_.size());
}

void Destinations::moved(std::string_view url) { moved_ = std::string(url); }

bool Destinations::failed() {
    last_failed_ = next();
    // A moved-to process that does not answer: back to the entry that named it, which names
    // the room's next owner once a peer has adopted it.
    if (!moved_.empty()) {
        moved_.clear();
        return true;
    }
    entry_ = static_cast<uint32_t>((entry_ + 1) % (fleet_.size() + 1));
    return entry_ != 0;
}

Fx tick_fraction(int64_t since_step_ns, int64_t tick_ns) {
    const int64_t raw = std::min<int64_t>(Fx::one_raw, mul_div_round(since_step_ns, Fx::one_raw, tick_ns));
    return Fx::from_raw(static_cast<int32_t>(raw));
}

uint64_t steps_allowed(bool catching_up, int64_t budget_ns, int64_t step_cost_ns) {
    const int64_t limit = catching_up ? std::clamp(budget_ns, catch_up_slice_ns, catch_up_call_max_ns) : std::max<int64_t>(0, budget_ns);
    const uint64_t allowed = static_cast<uint64_t>(limit / step_cost_ns);
    return allowed == 0 ? 1 : allowed;   // progress on every call, however small the budget
}

void RecentMedian::add(int64_t sample) {
    samples_[next_] = sample;
    next_ = (next_ + 1) % window;
    held_ = std::min(held_ + 1, window);
    // The lower median of what is held: nth_element's value at that place is the same with any
    // library (equal values are equal), whatever order it leaves the rest in.
    std::array<int64_t, window> sorted = samples_;
    const auto middle = sorted.begin() + (held_ - 1) / 2;
    std::nth_element(sorted.begin(), middle, sorted.begin() + held_);
    value_ = *middle;
}

}  // namespace detail

}  // namespace tandem::net
