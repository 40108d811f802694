// See activity_trace.hpp: which handler held the server's thread when a tick fell late.
#include "server/activity_trace.hpp"

#include <algorithm>
#include <cstdio>

namespace tandem::server {

const char* activity_name(Activity a) {
    switch (a) {
        case Activity::step: return "step";
        case Activity::build: return "build";
        case Activity::send: return "send";
        case Activity::writable: return "writable";
        case Activity::ws_read: return "ws_read";
        case Activity::handshake: return "handshake";
        case Activity::http: return "http";
        case Activity::metrics: return "metrics";
        case Activity::accept: return "accept";
        case Activity::count: break;
    }
    return "none";
}

void ActivityTrace::begin(Activity a, int64_t now_ns) {
    if (!open_.empty()) done_.push_back({open_.back(), open_since_ns_, now_ns});
    open_.push_back(a);
    open_since_ns_ = now_ns;
}

void ActivityTrace::end(int64_t now_ns) {
    if (open_.empty()) return;
    done_.push_back({open_.back(), open_since_ns_, now_ns});
    open_.pop_back();
    open_since_ns_ = now_ns;
}

ActivityTrace::Report ActivityTrace::explain(int64_t boundary_ns, int64_t start_ns) {
    Report r;
    r.boundary_ns = boundary_ns;
    r.start_ns = start_ns;
    int64_t marked = 0;
    // Consecutive segments of one kind (split by a nested mark) count as one handler run.
    for (size_t i = 0; i < done_.size(); ++i) {
        const Segment& s = done_[i];
        const int64_t from = std::max(s.begin_ns, boundary_ns);
        const int64_t to = std::min(s.end_ns, start_ns);
        if (to > from) {
            r.within_ns[static_cast<size_t>(s.kind)] += to - from;
            marked += to - from;
        }
        if (s.begin_ns <= boundary_ns && boundary_ns < s.end_ns) {
            r.at_boundary = s.kind;
            r.at_boundary_before_ns = boundary_ns - s.begin_ns;
            r.at_boundary_after_ns = s.end_ns - boundary_ns;
        }
    }
    r.unmarked_ns = std::max<int64_t>(0, start_ns - boundary_ns) - marked;
    std::erase_if(done_, [&](const Segment& s) { return s.end_ns < start_ns; });
    return r;
}

std::string ActivityTrace::Report::text() const {
    char line[512];
    int n = std::snprintf(line, sizeof line, "late_us=%lld at_boundary=%s ran_before_us=%lld ran_after_us=%lld",
                          static_cast<long long>((start_ns - boundary_ns) / 1000), activity_name(at_boundary),
                          static_cast<long long>(at_boundary_before_ns / 1000),
                          static_cast<long long>(at_boundary_after_ns / 1000));
    std::string out(line, static_cast<size_t>(n));
    for (size_t k = 0; k < within_ns.size(); ++k) {
        if (within_ns[k] == 0) continue;
        n = std::snprintf(line, sizeof line, " %s_us=%lld", activity_name(static_cast<Activity>(k)),
                          static_cast<long long>(within_ns[k] / 1000));
        out.append(line, static_cast<size_t>(n));
    }
    n = std::snprintf(line, sizeof line, " unmarked_us=%lld", static_cast<long long>(unmarked_ns / 1000));
    out.append(line, static_cast<size_t>(n));
    return out;
}

}  // namespace tandem::server
