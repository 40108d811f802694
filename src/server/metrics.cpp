// ServerMetrics (see metrics.hpp). Names follow Prometheus conventions: base units
// (seconds, bytes), _total on counters, one family per figure and labels for reasons.
#include "server/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>

namespace tandem::server {

namespace {

double seconds(int64_t ns) { return static_cast<double>(ns) * 1e-9; }

// A counter that mirrors a plain integer kept elsewhere: each scrape adds what it grew by.
struct MirroredCounter {
    prometheus::Counter* counter = nullptr;
    uint64_t seen = 0;
    void sync(uint64_t now) {
        if (now > seen) counter->Increment(static_cast<double>(now - seen));
        seen = now;
    }
};

}  // namespace

struct ServerMetrics::Impl {
    prometheus::Registry registry;

    prometheus::Counter* ticks = nullptr;
    prometheus::Counter* late_ticks = nullptr;
    prometheus::Counter* dropped_ticks = nullptr;
    prometheus::Counter* clock_rollbacks = nullptr;
    prometheus::Histogram* lateness = nullptr;
    prometheus::Histogram* room_cost = nullptr;
    prometheus::Histogram* send_cost = nullptr;
    prometheus::Histogram* step_cost = nullptr;
    prometheus::Family<prometheus::Gauge>* lateness_window = nullptr;
    prometheus::Family<prometheus::Counter>* closed = nullptr;
    prometheus::Family<prometheus::Counter>* refused = nullptr;
    prometheus::Family<prometheus::Counter>* http = nullptr;
    prometheus::Family<prometheus::Counter>* connections_refused = nullptr;
    prometheus::Family<prometheus::Counter>* http_closed = nullptr;
    prometheus::Counter* rooms_created = nullptr;
    prometheus::Counter* rooms_adopted = nullptr;
    prometheus::Counter* rooms_lost = nullptr;
    prometheus::Counter* rooms_closed = nullptr;
    prometheus::Family<prometheus::Counter>* room_requests_refused = nullptr;
    prometheus::Gauge* rooms_open = nullptr;
    prometheus::Family<prometheus::Gauge>* room_players = nullptr;
    prometheus::Family<prometheus::Gauge>* room_watchers = nullptr;
    prometheus::Family<prometheus::Gauge>* room_ticks_now = nullptr;
    prometheus::Family<prometheus::Counter>* room_ticks = nullptr;
    prometheus::Family<prometheus::Counter>* room_late_ticks = nullptr;
    // Each room's label, and the series of each label in use (removed with its room).
    struct Labelled {
        prometheus::Gauge* players = nullptr;
        prometheus::Gauge* watchers = nullptr;
        prometheus::Gauge* tick = nullptr;   // none for "(other)": the ticks of several rooms are no one tick
        prometheus::Counter* ticks = nullptr;
        prometheus::Counter* late = nullptr;
    };
    std::map<std::string, std::string, std::less<>> label_of;   // room id -> its label
    std::map<std::string, Labelled, std::less<>> series;        // label -> its series
    uint32_t own_labels = 0;

    MirroredCounter frames_sent, bytes_sent, frames_received, bytes_received, accepted, reads_held;
    MirroredCounter frames_built, baselines, pauses, rate_limited, desyncs;
    MirroredCounter resumes, resumes_refused, seats_expired, seats_refused, watchers_refused;
    prometheus::Family<prometheus::Counter>* room_refusals = nullptr;
    std::map<std::string, MirroredCounter, std::less<>> room_refusals_by_code;
    prometheus::Gauge* held_seats = nullptr;
    prometheus::Gauge* connections = nullptr;
    prometheus::Gauge* players = nullptr;
    prometheus::Gauge* watchers = nullptr;
    prometheus::Gauge* room_tick = nullptr;
    prometheus::Gauge* queue_bytes = nullptr;
    prometheus::Gauge* queue_peak = nullptr;
    prometheus::Gauge* queue_cap = nullptr;
    prometheus::Gauge* resident = nullptr;

    std::vector<int64_t> lateness_ring;
    uint32_t next_slot = 0;
    std::map<std::string, prometheus::Counter*, std::less<>> http_by_status;

    Impl() {
        auto counter = [&](const char* name, const char* help) {
            return &prometheus::BuildCounter().Name(name).Help(help).Register(registry).Add({});
        };
        auto gauge = [&](const char* name, const char* help) {
            return &prometheus::BuildGauge().Name(name).Help(help).Register(registry).Add({});
        };
        auto histogram = [&](const char* name, const char* help, const prometheus::Histogram::BucketBoundaries& b) {
            return &prometheus::BuildHistogram().Name(name).Help(help).Register(registry).Add({}, b);
        };
        // From well under timer jitter to beyond the /healthz bound at 60 Hz.
        const prometheus::Histogram::BucketBoundaries lateness_buckets = {
            0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.033, 0.067, 0.133, 0.5};
        const prometheus::Histogram::BucketBoundaries cost_buckets = {
            0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.033};

        ticks = counter("tandem_ticks_total", "Simulation ticks run by the tick loop.");
        late_ticks = counter("tandem_late_ticks_total", "Ticks that started a whole step or more after their boundary.");
        dropped_ticks = counter("tandem_dropped_ticks_total",
                                "Due ticks skipped by the catch-up cap after a stall (the grid is kept).");
        clock_rollbacks = counter("tandem_clock_rollbacks_total", "Times the clock was seen to go backwards.");
        lateness = histogram("tandem_tick_lateness_seconds", "From a tick's boundary to the start of its work.",
                             lateness_buckets);
        room_cost = histogram("tandem_tick_room_seconds", "The room's whole tick (world step included), per tick.",
                              cost_buckets);
        step_cost = histogram("tandem_tick_step_seconds", "The world step alone, per tick, as the room measured it.",
                              cost_buckets);
        send_cost = histogram("tandem_tick_send_seconds",
                              "Handing one tick's outbox to the connections' write queues and sending its first "
                              "slice (at most 0.5 ms; the rest goes out in later slices), per tick.", cost_buckets);
        lateness_window = &prometheus::BuildGauge()
                               .Name("tandem_tick_lateness_window_seconds")
                               .Help("Tick lateness quantiles (nearest rank) over the last 1024 ticks.")
                               .Register(registry);
        closed = &prometheus::BuildCounter()
                      .Name("tandem_ws_closed_total")
                      .Help("WebSocket connections closed, by close code and reason.")
                      .Register(registry);
        refused = &prometheus::BuildCounter()
                       .Name("tandem_ws_handshakes_refused_total")
                       .Help("WebSocket upgrade requests refused before a connection existed, by reason.")
                       .Register(registry);
        http = &prometheus::BuildCounter()
                    .Name("tandem_http_responses_total")
                    .Help("HTTP responses sent, by status code.")
                    .Register(registry);
        connections_refused = &prometheus::BuildCounter()
                                   .Name("tandem_connections_refused_total")
                                   .Help("Connections refused at accept by a per-address budget, by reason.")
                                   .Register(registry);
        http_closed = &prometheus::BuildCounter()
                           .Name("tandem_http_closed_total")
                           .Help("HTTP connections closed by a deadline (request_timeout, idle_timeout).")
                           .Register(registry);

        rooms_created = counter("tandem_rooms_created_total", "Rooms made by POST /rooms.");
        rooms_adopted = counter("tandem_rooms_adopted_total", "Rooms of a dead or stopped process restored here from the store (--store).");
        rooms_lost = counter("tandem_rooms_lost_total", "Rooms stopped here because the store refused their lease or a write.");
        rooms_closed = counter("tandem_rooms_closed_total", "Created rooms closed after --room-idle-close without a connection.");
        room_requests_refused = &prometheus::BuildCounter()
                                     .Name("tandem_room_requests_refused_total")
                                     .Help("Requests to /rooms refused, by error (a fixed set of names).")
                                     .Register(registry);
        rooms_open = gauge("tandem_rooms", "Rooms hosted now, the default room included.");
        auto per_room_gauge = [&](const char* name, const char* help) {
            return &prometheus::BuildGauge().Name(name).Help(help).Register(registry);
        };
        auto per_room_counter = [&](const char* name, const char* help) {
            return &prometheus::BuildCounter().Name(name).Help(help).Register(registry);
        };
        room_players = per_room_gauge("tandem_rooms_players",
                                      "Connected players per room (the first 16 rooms by id, the rest as room=\"(other)\").");
        room_watchers = per_room_gauge("tandem_rooms_watchers", "Connected watchers per room (labelled as tandem_rooms_players).");
        room_ticks_now = per_room_gauge("tandem_rooms_tick", "Each labelled room's current tick.");
        room_ticks = per_room_counter("tandem_rooms_ticks_total", "Ticks run per room (labelled as tandem_rooms_players).");
        room_late_ticks = per_room_counter("tandem_rooms_late_ticks_total",
                                           "Ticks per room that started a whole step or more after their boundary.");
        frames_sent.counter = counter("tandem_ws_frames_sent_total", "WebSocket messages written to clients.");
        bytes_sent.counter = counter("tandem_ws_bytes_sent_total", "Payload bytes of the messages written to clients.");
        frames_received.counter = counter("tandem_ws_frames_received_total", "WebSocket messages read from clients.");
        bytes_received.counter =
            counter("tandem_ws_bytes_received_total", "Payload bytes of the messages read from clients.");
        accepted.counter = counter("tandem_ws_connections_accepted_total", "WebSocket handshakes accepted.");
        reads_held.counter = counter("tandem_ws_reads_held_total",
                                     "Reads held back from a peer whose write queue could not take the pongs of one "
                                     "more read (resumed once it drains).");
        frames_built.counter = counter("tandem_room_frames_built_total", "Tick frames the room encoded (once each).");
        baselines.counter = counter("tandem_room_baselines_sent_total", "Baseline snapshots the room sent.");
        pauses.counter = counter("tandem_room_flow_control_pauses_total",
                                 "Times the room stopped streaming to a client that was not reading.");
        rate_limited.counter =
            counter("tandem_room_inputs_rate_limited_total", "Client inputs dropped by the room's rate limit.");
        desyncs.counter = counter("tandem_room_desync_reports_total", "Desync reports received from clients.");
        resumes.counter = counter("tandem_room_resumes_total", "Hellos that took a kept seat back with its resume token.");
        resumes_refused.counter = counter("tandem_room_resumes_refused_total",
                                          "Hellos whose resume token was unknown, expired or used.");
        seats_expired.counter = counter("tandem_room_seats_expired_total",
                                        "Kept seats whose resume grace ended (the room authored the leave).");
        auto& by_place = prometheus::BuildCounter()
                             .Name("tandem_room_address_limit_refusals_total")
                             .Help("Hellos refused because their address held its share of seats or watcher places.")
                             .Register(registry);
        seats_refused.counter = &by_place.Add({{"place", "seat"}});
        watchers_refused.counter = &by_place.Add({{"place", "watcher"}});
        room_refusals = &prometheus::BuildCounter()
                             .Name("tandem_room_refusals_total")
                             .Help("Refusals the room sent (an error message, then a close), by error code; the codes are "
                                   "a fixed set.")
                             .Register(registry);
        held_seats = gauge("tandem_room_held_seats", "Seats kept for a dropped player's resume token.");
        connections = gauge("tandem_ws_connections", "Open WebSocket connections.");
        players = gauge("tandem_room_players", "Connected players.");
        watchers = gauge("tandem_room_watchers", "Connected watchers.");
        room_tick = gauge("tandem_room_tick", "The room's current tick.");
        queue_bytes = gauge("tandem_ws_write_queue_bytes", "Bytes queued for writing, all connections together.");
        queue_peak = gauge("tandem_ws_write_queue_peak_bytes", "The most bytes one connection ever had queued.");
        queue_cap = gauge("tandem_ws_write_queue_cap_bytes",
                          "The per-connection write queue bound; a connection over it is closed.");
        resident = gauge("process_resident_memory_bytes", "Resident memory size in bytes.");
        lateness_ring.reserve(lateness_window_ticks);
    }
};

ServerMetrics::ServerMetrics() : impl_(std::make_unique<Impl>()) {}
ServerMetrics::~ServerMetrics() = default;

void ServerMetrics::tick_ran(int64_t lateness_ns, bool late, int64_t room_ns, int64_t step_ns, int64_t send_ns) {
    Impl& m = *impl_;
    m.ticks->Increment();
    if (late) m.late_ticks->Increment();
    m.lateness->Observe(seconds(lateness_ns));
    m.room_cost->Observe(seconds(room_ns));
    m.step_cost->Observe(seconds(step_ns));
    m.send_cost->Observe(seconds(send_ns));
    if (m.lateness_ring.size() < lateness_window_ticks) {
        m.lateness_ring.push_back(lateness_ns);
    } else {
        m.lateness_ring[m.next_slot] = lateness_ns;
    }
    m.next_slot = (m.next_slot + 1) % lateness_window_ticks;
}

void ServerMetrics::ticks_dropped(uint64_t count) { impl_->dropped_ticks->Increment(static_cast<double>(count)); }
void ServerMetrics::clock_rolled_back() { impl_->clock_rollbacks->Increment(); }

std::string close_code_label(uint16_t code) {
    // A peer chooses its close code (any of 3000-4999 is legal): labelled one by one, those
    // would be series a stranger creates at will. The codes the RFC registers are few.
    if (code >= 3000 && code <= 3999) return "3000-3999";
    if (code >= 4000 && code <= 4999) return "4000-4999";
    if (code >= 1000 && code <= 1015) return std::to_string(code);
    return "other";
}

void ServerMetrics::connection_closed(uint16_t code, std::string_view reason) {
    impl_->closed->Add({{"code", close_code_label(code)}, {"reason", std::string(reason)}}).Increment();
}

void ServerMetrics::handshake_refused(std::string_view reason) {
    impl_->refused->Add({{"reason", std::string(reason)}}).Increment();
}

void ServerMetrics::connection_refused(std::string_view reason) {
    impl_->connections_refused->Add({{"reason", std::string(reason)}}).Increment();
}

void ServerMetrics::http_closed(std::string_view reason) {
    impl_->http_closed->Add({{"reason", std::string(reason)}}).Increment();
}

void ServerMetrics::room_created() { impl_->rooms_created->Increment(); }
void ServerMetrics::room_adopted() { impl_->rooms_adopted->Increment(); }
void ServerMetrics::room_lost() { impl_->rooms_lost->Increment(); }

void ServerMetrics::room_opened(std::string_view id) {
    Impl& m = *impl_;
    if (m.label_of.find(id) != m.label_of.end()) return;
    const bool own = m.own_labels < most_labelled_rooms;
    const std::string label = own ? std::string(id) : std::string(other_rooms_label);
    m.label_of.emplace(std::string(id), label);
    if (own) ++m.own_labels;
    if (m.series.find(label) != m.series.end()) return;   // "(other)" already has its series
    const prometheus::Labels labels{{"room", label}};
    Impl::Labelled s;
    s.players = &m.room_players->Add(labels);
    s.watchers = &m.room_watchers->Add(labels);
    if (own) s.tick = &m.room_ticks_now->Add(labels);
    s.ticks = &m.room_ticks->Add(labels);
    s.late = &m.room_late_ticks->Add(labels);
    m.series.emplace(label, s);
}

void ServerMetrics::room_closed(std::string_view id) {
    Impl& m = *impl_;
    m.rooms_closed->Increment();
    const auto found = m.label_of.find(id);
    if (found == m.label_of.end()) return;
    const std::string label = found->second;
    m.label_of.erase(found);
    // "(other)" keeps its series: its counters hold the closed rooms' ticks too.
    if (label == other_rooms_label) return;
    --m.own_labels;
    const auto s = m.series.find(label);
    if (s == m.series.end()) return;
    m.room_players->Remove(s->second.players);
    m.room_watchers->Remove(s->second.watchers);
    m.room_ticks_now->Remove(s->second.tick);
    m.room_ticks->Remove(s->second.ticks);
    m.room_late_ticks->Remove(s->second.late);
    m.series.erase(s);
}

void ServerMetrics::room_ticked(std::string_view id, uint64_t steps, uint64_t late) {
    Impl& m = *impl_;
    const auto found = m.label_of.find(id);
    if (found == m.label_of.end()) return;
    const Impl::Labelled& s = m.series.at(found->second);
    s.ticks->Increment(static_cast<double>(steps));
    if (late > 0) s.late->Increment(static_cast<double>(late));
}

std::string_view ServerMetrics::room_label(std::string_view id) const {
    const auto found = impl_->label_of.find(id);
    return found == impl_->label_of.end() ? std::string_view() : std::string_view(found->second);
}
void ServerMetrics::room_request_refused(std::string_view error) {
    impl_->room_requests_refused->Add({{"error", std::string(error)}}).Increment();
}

void ServerMetrics::http_response(unsigned status) {
    const std::string key = std::to_string(status);
    auto found = impl_->http_by_status.find(key);
    if (found == impl_->http_by_status.end()) {
        found = impl_->http_by_status.emplace(key, &impl_->http->Add({{"status", key}})).first;
    }
    found->second->Increment();
}

int64_t ServerMetrics::lateness_quantile_ns(uint32_t per_mille) const {
    std::vector<int64_t> sorted = impl_->lateness_ring;
    if (sorted.empty()) return 0;
    std::sort(sorted.begin(), sorted.end());
    const uint64_t n = sorted.size();
    const uint64_t rank = std::max<uint64_t>(1, (per_mille * n + 999) / 1000);
    return sorted[static_cast<size_t>(std::min(rank, n) - 1)];
}

std::string ServerMetrics::render(const TransportFigures& t, const RoomFigures& room, const std::vector<RoomSeries>& rooms) {
    Impl& m = *impl_;
    uint32_t other_players = 0;
    uint32_t other_watchers = 0;
    for (const RoomSeries& r : rooms) {
        const auto found = m.label_of.find(r.id);
        if (found == m.label_of.end()) continue;
        const Impl::Labelled& s = m.series.at(found->second);
        if (found->second == other_rooms_label) {
            other_players += r.players;
            other_watchers += r.watchers;
            continue;
        }
        s.players->Set(r.players);
        s.watchers->Set(r.watchers);
        s.tick->Set(static_cast<double>(r.tick));
    }
    if (const auto other = m.series.find(other_rooms_label); other != m.series.end()) {
        other->second.players->Set(other_players);
        other->second.watchers->Set(other_watchers);
    }
    m.frames_sent.sync(t.frames_sent);
    m.bytes_sent.sync(t.bytes_sent);
    m.frames_received.sync(t.frames_received);
    m.bytes_received.sync(t.bytes_received);
    m.accepted.sync(t.connections_accepted);
    m.reads_held.sync(t.reads_held);
    m.frames_built.sync(room.frames_built);
    m.baselines.sync(room.baselines_sent);
    m.pauses.sync(room.flow_control_pauses);
    m.rate_limited.sync(room.inputs_rate_limited);
    m.desyncs.sync(room.desync_reports);
    m.resumes.sync(room.resumes);
    m.resumes_refused.sync(room.resumes_refused);
    m.seats_expired.sync(room.seats_expired);
    m.seats_refused.sync(room.seats_refused_per_address);
    m.watchers_refused.sync(room.watchers_refused_per_address);
    m.held_seats->Set(room.held_seats);
    for (const auto& [code, count] : room.refusals) {
        auto found = m.room_refusals_by_code.find(code);
        if (found == m.room_refusals_by_code.end()) {
            found = m.room_refusals_by_code.emplace(code, MirroredCounter{&m.room_refusals->Add({{"code", code}}), 0}).first;
        }
        found->second.sync(count);
    }
    m.connections->Set(t.connections_open);
    m.rooms_open->Set(t.rooms_open);
    m.players->Set(room.players);
    m.watchers->Set(room.watchers);
    m.room_tick->Set(static_cast<double>(room.tick));
    m.queue_bytes->Set(static_cast<double>(t.write_queue_bytes));
    m.queue_peak->Set(static_cast<double>(t.write_queue_peak_bytes));
    m.queue_cap->Set(static_cast<double>(t.write_queue_cap_bytes));
    m.resident->Set(static_cast<double>(resident_memory_bytes()));
    for (const auto& [label, per_mille] : {std::pair{"0.5", 500u}, std::pair{"0.99", 990u}, std::pair{"1", 1000u}}) {
        m.lateness_window->Add({{"quantile", label}}).Set(seconds(lateness_quantile_ns(per_mille)));
    }
    return prometheus::TextSerializer().Serialize(m.registry.Collect());
}

uint64_t resident_memory_bytes() {
    std::ifstream statm("/proc/self/statm");
    uint64_t size_pages = 0;
    uint64_t resident_pages = 0;
    if (!(statm >> size_pages >> resident_pages)) return 0;
    return resident_pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace tandem::server
