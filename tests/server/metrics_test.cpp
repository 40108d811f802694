// Properties of src/server/metrics.*: the exposition carries every figure with the value
// it was given (counters mirrored across scrapes without double counting), histograms count
// every tick, and the lateness quantiles are nearest-rank over the recent window.
#include "server/metrics.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace tandem::server;

namespace {
// The text format read back line by line: "name{labels} value" (an independent reader).
std::map<std::string, double> read_exposition(const std::string& text) {
    std::map<std::string, double> values;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.empty() || line[0] == '#') continue;
        const size_t space = line.rfind(' ');
        values[line.substr(0, space)] = std::stod(line.substr(space + 1));
    }
    return values;
}
}  // namespace

TEST_CASE("every figure appears with the value it was given, and counters are not counted twice") {
    ServerMetrics metrics;
    TransportFigures t;
    t.frames_sent = 10;
    t.bytes_sent = 1000;
    t.frames_received = 3;
    t.bytes_received = 39;
    t.connections_accepted = 2;
    t.connections_open = 2;
    t.write_queue_bytes = 123;
    t.write_queue_peak_bytes = 456;
    t.write_queue_cap_bytes = 1 << 20;
    RoomFigures r;
    r.tick = 77;
    r.players = 2;
    r.watchers = 5;
    r.baselines_sent = 4;
    r.flow_control_pauses = 1;
    r.inputs_rate_limited = 9;
    r.desync_reports = 6;
    metrics.render(t, r);
    t.frames_sent = 15;  // grew by 5 since the last scrape
    const auto v = read_exposition(metrics.render(t, r));
    CHECK(v.at("tandem_ws_frames_sent_total") == 15);
    CHECK(v.at("tandem_ws_bytes_sent_total") == 1000);
    CHECK(v.at("tandem_ws_frames_received_total") == 3);
    CHECK(v.at("tandem_ws_bytes_received_total") == 39);
    CHECK(v.at("tandem_ws_connections_accepted_total") == 2);
    CHECK(v.at("tandem_ws_connections") == 2);
    CHECK(v.at("tandem_ws_write_queue_bytes") == 123);
    CHECK(v.at("tandem_ws_write_queue_peak_bytes") == 456);
    CHECK(v.at("tandem_ws_write_queue_cap_bytes") == 1 << 20);
    CHECK(v.at("tandem_room_tick") == 77);
    CHECK(v.at("tandem_room_players") == 2);
    CHECK(v.at("tandem_room_watchers") == 5);
    CHECK(v.at("tandem_room_baselines_sent_total") == 4);
    CHECK(v.at("tandem_room_flow_control_pauses_total") == 1);
    CHECK(v.at("tandem_room_inputs_rate_limited_total") == 9);
    CHECK(v.at("tandem_room_desync_reports_total") == 6);
    CHECK(v.at("process_resident_memory_bytes") > 0);
}

TEST_CASE("ticks, late ticks, drops and closes by reason are counted") {
    ServerMetrics metrics;
    const int64_t ms = 1'000'000;
    metrics.tick_ran(1 * ms, false, 2 * ms, 1 * ms, ms / 2);
    metrics.tick_ran(20 * ms, true, 2 * ms, 1 * ms, ms / 2);
    metrics.ticks_dropped(3);
    metrics.clock_rolled_back();
    metrics.connection_closed(1008, "policy");
    metrics.connection_closed(1008, "policy");
    metrics.connection_closed(1009, "message_too_big");
    metrics.handshake_refused("origin");
    metrics.http_response(404);
    const auto v = read_exposition(metrics.render({}, {}));
    CHECK(v.at("tandem_ticks_total") == 2);
    CHECK(v.at("tandem_late_ticks_total") == 1);
    CHECK(v.at("tandem_dropped_ticks_total") == 3);
    CHECK(v.at("tandem_clock_rollbacks_total") == 1);
    CHECK(v.at("tandem_tick_lateness_seconds_count") == 2);
    CHECK(v.at("tandem_tick_lateness_seconds_sum") == Approx(0.021));
    CHECK(v.at("tandem_tick_lateness_seconds_bucket{le=\"0.001\"}") == 1);  // 1 ms is in the 1 ms bucket
    CHECK(v.at("tandem_tick_lateness_seconds_bucket{le=\"0.016\"}") == 1);
    CHECK(v.at("tandem_tick_lateness_seconds_bucket{le=\"0.033\"}") == 2);
    CHECK(v.at("tandem_tick_room_seconds_count") == 2);
    CHECK(v.at("tandem_tick_step_seconds_count") == 2);
    CHECK(v.at("tandem_tick_send_seconds_count") == 2);
    CHECK(v.at("tandem_ws_closed_total{code=\"1008\",reason=\"policy\"}") == 2);
    CHECK(v.at("tandem_ws_closed_total{code=\"1009\",reason=\"message_too_big\"}") == 1);
    CHECK(v.at("tandem_ws_handshakes_refused_total{reason=\"origin\"}") == 1);
    CHECK(v.at("tandem_http_responses_total{status=\"404\"}") == 1);
}

TEST_CASE("the room's resume and refusal figures appear, refusals by error code and the per-address ones by place") {
    ServerMetrics metrics;
    RoomFigures r;
    r.held_seats = 3;
    r.resumes = 5;
    r.resumes_refused = 2;
    r.seats_expired = 1;
    r.seats_refused_per_address = 7;
    r.watchers_refused_per_address = 8;
    r.refusals = {{"address_limit", 15}, {"ticket_forged", 4}};
    metrics.render({}, r);
    r.refusals = {{"address_limit", 16}, {"ticket_forged", 4}, {"room_full", 1}};
    const auto v = read_exposition(metrics.render({}, r));
    CHECK(v.at("tandem_room_held_seats") == 3);
    CHECK(v.at("tandem_room_resumes_total") == 5);
    CHECK(v.at("tandem_room_resumes_refused_total") == 2);
    CHECK(v.at("tandem_room_seats_expired_total") == 1);
    CHECK(v.at("tandem_room_address_limit_refusals_total{place=\"seat\"}") == 7);
    CHECK(v.at("tandem_room_address_limit_refusals_total{place=\"watcher\"}") == 8);
    CHECK(v.at("tandem_room_refusals_total{code=\"address_limit\"}") == 16);
    CHECK(v.at("tandem_room_refusals_total{code=\"ticket_forged\"}") == 4);
    CHECK(v.at("tandem_room_refusals_total{code=\"room_full\"}") == 1);
}

TEST_CASE("a close code a peer chooses is counted under its range, so no client can add series") {
    ServerMetrics metrics;
    for (uint16_t code = 3000; code < 5000; code += 7) metrics.connection_closed(code, "peer_closed");
    metrics.connection_closed(1000, "peer_closed");
    metrics.connection_closed(1015, "peer_closed");
    metrics.connection_closed(999, "peer_closed");
    metrics.connection_closed(6000, "peer_closed");
    const std::string text = metrics.render({}, {});
    const auto v = read_exposition(text);
    size_t series = 0;
    for (const auto& [name, value] : v) series += name.starts_with("tandem_ws_closed_total{") ? 1 : 0;
    CHECK(series == 5);
    CHECK(v.at("tandem_ws_closed_total{code=\"3000-3999\",reason=\"peer_closed\"}") == 143);
    CHECK(v.at("tandem_ws_closed_total{code=\"4000-4999\",reason=\"peer_closed\"}") == 143);
    CHECK(v.at("tandem_ws_closed_total{code=\"other\",reason=\"peer_closed\"}") == 2);
    CHECK(close_code_label(1008) == "1008");
    CHECK(close_code_label(1016) == "other");
}

TEST_CASE("lateness quantiles are nearest-rank over the last 1024 ticks") {
    ServerMetrics metrics;
    CHECK(metrics.lateness_quantile_ns(990) == 0);  // no tick yet
    for (int64_t i = 1; i <= 100; ++i) metrics.tick_ran(i, false, 0, 0, 0);
    CHECK(metrics.lateness_quantile_ns(500) == 50);
    CHECK(metrics.lateness_quantile_ns(990) == 99);
    CHECK(metrics.lateness_quantile_ns(1000) == 100);
    // 1024 more ticks of lateness 7 push every earlier one out of the window.
    for (uint32_t i = 0; i < lateness_window_ticks; ++i) metrics.tick_ran(7, false, 0, 0, 0);
    CHECK(metrics.lateness_quantile_ns(1000) == 7);
    const auto v = read_exposition(metrics.render({}, {}));
    CHECK(v.at("tandem_tick_lateness_window_seconds{quantile=\"1\"}") == Approx(7e-9));
}

TEST_CASE("per-room series carry the first 16 rooms' own ids and the rest as (other), and a closed room's series go") {
    ServerMetrics metrics;
    std::vector<RoomSeries> rooms;
    for (uint32_t i = 0; i < 20; ++i) {
        const std::string id = "r" + std::to_string(i);
        metrics.room_opened(id);
        rooms.push_back({id, 1, 2, 100 + i});
        metrics.room_ticked(id, 3, i == 3 ? 1 : 0);
    }
    auto count_labels = [](const std::map<std::string, double>& v) {
        size_t n = 0;
        for (const auto& [key, value] : v) n += key.starts_with("tandem_rooms_players{") ? 1 : 0;
        return n;
    };
    auto v = read_exposition(metrics.render({}, {}, rooms));
    CHECK(v["tandem_rooms_players{room=\"r0\"}"] == 1);
    CHECK(v["tandem_rooms_watchers{room=\"r15\"}"] == 2);
    CHECK(v["tandem_rooms_tick{room=\"r15\"}"] == 115);
    CHECK(v["tandem_rooms_ticks_total{room=\"r15\"}"] == 3);
    CHECK(v["tandem_rooms_late_ticks_total{room=\"r3\"}"] == 1);
    CHECK(v.count("tandem_rooms_players{room=\"r16\"}") == 0);
    CHECK(v["tandem_rooms_players{room=\"(other)\"}"] == 4);
    CHECK(v["tandem_rooms_watchers{room=\"(other)\"}"] == 8);
    CHECK(v["tandem_rooms_ticks_total{room=\"(other)\"}"] == 12);
    CHECK(v.count("tandem_rooms_tick{room=\"(other)\"}") == 0);   // several rooms' ticks are no one tick
    CHECK(count_labels(v) == most_labelled_rooms + 1);

    // A closed room's series go and its label is free for the next room made; a room counted
    // as (other) stays there for its life.
    metrics.room_closed("r0");
    rooms.erase(rooms.begin());
    metrics.room_opened("r20");
    rooms.push_back({"r20", 5, 0, 7});
    v = read_exposition(metrics.render({}, {}, rooms));
    CHECK(v.count("tandem_rooms_players{room=\"r0\"}") == 0);
    CHECK(v.count("tandem_rooms_ticks_total{room=\"r0\"}") == 0);
    CHECK(v["tandem_rooms_players{room=\"r20\"}"] == 5);
    CHECK(metrics.room_label("r16") == other_rooms_label);
    CHECK(metrics.room_label("r20") == "r20");

    // However many rooms are made and closed, the labels stay bounded.
    for (uint32_t i = 0; i < 1000; ++i) {
        const std::string id = "x" + std::to_string(i);
        metrics.room_opened(id);
        metrics.room_ticked(id, 1, 0);
        metrics.room_closed(id);
    }
    CHECK(count_labels(read_exposition(metrics.render({}, {}, rooms))) == most_labelled_rooms + 1);
}
