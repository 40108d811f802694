// The Room (room.hpp): admission, input scheduling, the frame ring, per-client flow control
// and refusals. Everything here is decided by the order of calls and their arguments; the
// clock set by set_clock only times the stats.
#include "tandem/net/room.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "tandem/core/digest.hpp"  // hex64: the one spelling of a digest
#include "tandem/net/link_arith.hpp"
#include "tandem/net/replay.hpp"

namespace tandem::net {

namespace {

using Bytes = std::shared_ptr<const std::vector<uint8_t>>;

template <class Message>
Bytes encoded(const Message& m) {
    auto out = std::make_shared<std::vector<uint8_t>>();
    encode(*out, m);
    return out;
}

size_t reason_index(CloseReason r) { return static_cast<size_t>(r); }

}  // namespace

std::string_view error_name(const RoomConfigError& e) {
    switch (e.code) {
        case RoomConfigCode::world_config: return world::error_name(e.world);
        case RoomConfigCode::input_delay_out_of_range: return "input_delay_out_of_range";
        case RoomConfigCode::max_players_out_of_range: return "max_players_out_of_range";
        case RoomConfigCode::max_watchers_out_of_range: return "max_watchers_out_of_range";
        case RoomConfigCode::idle_timeout_out_of_range: return "idle_timeout_out_of_range";
    }
    return "unknown";
}

std::string_view describe(const RoomConfigError& e) {
    switch (e.code) {
        case RoomConfigCode::world_config: return world::describe(e.world);
        case RoomConfigCode::input_delay_out_of_range: return "the input delay must be at most 600 ticks";
        case RoomConfigCode::max_players_out_of_range:
            return "the room's max_players must be at most the world's max_players (a well for every seat)";
        case RoomConfigCode::max_watchers_out_of_range: return "max_watchers must be at most 65536";
        case RoomConfigCode::idle_timeout_out_of_range: return "the idle timeout must be at least one second";
    }
    return "unknown room config error";
}

// ---- Per-client state: fixed size, nothing that grows with time --------------------------
struct Room::Client {
    enum class Stage : uint8_t { awaiting_hello, admitted, closed };
    uint32_t id = 0;
    Stage stage = Stage::awaiting_hello;
    bool admitted = false;  // its hello was accepted (it stays true once closed)
    Role role = Role::watch;
    uint32_t player = watcher_id;
    int64_t last_heard_ns = 0;
    uint32_t last_sequence = 0;  // 0: none yet (sequences start at 1)
    // Rate limit in units of 1 / tick_hz input: an input costs tick_hz units, a tick refills
    // max_inputs_per_second units, so a second refills max_inputs_per_second inputs exactly.
    int64_t tokens = 0;
    int64_t flood_debt = 0;  // same units
    uint64_t sent_tick = 0;
    uint64_t base_tick = 0;
    uint64_t unacked_bytes = 0;
    uint64_t last_baseline_tick = 0;
    bool baseline_unacked = false;
    bool wants_baseline = false;
    bool paused = false;
};

// One tick the ring holds: its frame (none for the tick the room started at), the digest
// and section digests after it, and the cumulative frame bytes up to and including it, so a
// client's unacknowledged frame bytes are one subtraction.
struct Room::RingEntry {
    uint64_t tick = UINT64_MAX;
    Bytes frame;
    uint64_t digest = 0;
    world::SectionDigests sections;
    uint64_t bytes_through = 0;
};

Room::Room(const RoomConfig& config, world::World world) : config_(config), world_(std::move(world)) {
    const uint32_t hz = config_.world.tick_hz;
    ring_ticks_ = ring_seconds * hz;
    window_ticks_ = flow_window_seconds * hz;
    baseline_repeat_ticks_ = baseline_repeat_seconds * hz;
    ring_.resize(ring_ticks_);
    pending_.resize(size_t{config_.input_delay_ticks} + 1);
    seats_.assign(config_.max_players, 0);
    seat_free_at_.assign(config_.max_players, 0);
    RingEntry& start = ring_[world_.tick % ring_ticks_];
    start.tick = world_.tick;
    start.sections = world::section_digests(world_);
    start.digest = world::digest(world_.tick, start.sections);
    stats_.tick = world_.tick;
}

Room::Room(Room&&) noexcept = default;
Room& Room::operator=(Room&&) noexcept = default;
Room::~Room() = default;

Result<Room, RoomConfigError> Room::create(const RoomConfig& config) {
    if (const auto valid = world::validate(config.world); !valid.ok()) {
        return RoomConfigError{RoomConfigCode::world_config, valid.error()};
    }
    if (config.input_delay_ticks > max_input_delay_ticks) return RoomConfigError{RoomConfigCode::input_delay_out_of_range};
    if (config.max_players > config.world.max_players) return RoomConfigError{RoomConfigCode::max_players_out_of_range};
    if (config.max_watchers > max_watcher_limit) return RoomConfigError{RoomConfigCode::max_watchers_out_of_range};
    if (config.idle_timeout_ns < min_idle_timeout_ns) return RoomConfigError{RoomConfigCode::idle_timeout_out_of_range};
    auto world = world::make_world(config.world);
    if (!world.ok()) return RoomConfigError{RoomConfigCode::world_config, world.error()};
    return Room(config, std::move(world).value());
}

void Room::set_clock(int64_t (*now_ns)()) { clock_ = now_ns; }

Room::Client* Room::find(uint32_t id) {
    auto it = std::lower_bound(clients_.begin(), clients_.end(), id, [](const Client& c, uint32_t v) { return c.id < v; });
    return it != clients_.end() && it->id == id ? &*it : nullptr;
}
const Room::Client* Room::find(uint32_t id) const { return const_cast<Room*>(this)->find(id); }

const Room::RingEntry* Room::held(uint64_t tick) const {
    const RingEntry& e = ring_[tick % ring_ticks_];
    return e.tick == tick ? &e : nullptr;
}

// ---- Connections --------------------------------------------------------------------------
uint32_t Room::connect(int64_t now_ns) {
    // Ids increase; after 2^32 connections they wrap, skipping 0 and any still in use.
    while (next_id_ == 0 || find(next_id_) != nullptr) ++next_id_;
    Client c;
    c.id = next_id_++;
    c.last_heard_ns = now_ns;
    c.tokens = int64_t{input_burst} * config_.world.tick_hz;
    auto at = std::lower_bound(clients_.begin(), clients_.end(), c.id, [](const Client& x, uint32_t v) { return x.id < v; });
    clients_.insert(at, c);
    return c.id;
}

void Room::disconnect(uint32_t id, int64_t) {
    Client* c = find(id);
    if (c == nullptr) return;
    release(*c);
    clients_.erase(clients_.begin() + (c - clients_.data()));
}

// Gives up whatever an admitted client holds: a player's seat (its leave is scheduled now and
// the seat is free once that leave has been stepped) and its place in the counts.
void Room::release(Client& c) {
    if (c.stage == Client::Stage::admitted) {
        if (c.role == Role::play) {
            --stats_.players;
            const uint64_t lands = world_.tick + 1 + config_.input_delay_ticks;
            schedule(AppliedInput{world::Input{c.player, world::InputKind::leave, {}}, 0});
            seats_[c.player - 1] = 2;
            seat_free_at_[c.player - 1] = lands;
        } else {
            --stats_.watchers;
        }
    }
    c.stage = Client::Stage::closed;
}

void Room::refuse(Client& c, ErrorCode code, std::string_view text, CloseReason reason) {
    // The explanation goes out whatever the flow window: it is the last message.
    send(c, encoded(ErrorMsg{code, std::string(text)}));
    closes_.push_back(CloseRequest{c.id, reason});
    ++stats_.closes[reason_index(reason)];
    release(c);
}

void Room::shut_down(int64_t) {
    shutting_down_ = true;
    for (Client& c : clients_) {
        if (c.stage != Client::Stage::closed) refuse(c, ErrorCode::shutting_down, "the server is stopping", CloseReason::shutting_down);
    }
}

// ---- Messages -----------------------------------------------------------------------------
void Room::receive(uint32_t id, std::span<const uint8_t> message, int64_t now_ns) {
    Client* c = find(id);
    if (c == nullptr || c->stage == Client::Stage::closed) return;  // closing: nothing more counts
    ++stats_.messages_received;
    stats_.bytes_received += message.size();
    c->last_heard_ns = now_ns;
    auto decoded = decode_client(message);
    if (!decoded.ok()) {
        refuse(*c, ErrorCode::malformed, std::string("the message does not decode: ") + std::string(describe(decoded.error())),
               CloseReason::protocol_error);
        return;
    }
    const ClientMessage& m = decoded.value();
    if (const auto* hello = std::get_if<Hello>(&m)) {
        if (c->stage != Client::Stage::awaiting_hello) {
            refuse(*c, ErrorCode::unexpected, "a second hello on one connection", CloseReason::protocol_error);
            return;
        }
        on_hello(*c, *hello);
        return;
    }
    if (c->stage != Client::Stage::admitted) {
        refuse(*c, ErrorCode::unexpected, "a message before hello", CloseReason::protocol_error);
        return;
    }
    if (const auto* input = std::get_if<InputMsg>(&m)) {
        on_input(*c, *input);
    } else if (const auto* ack = std::get_if<Ack>(&m)) {
        on_ack(*c, *ack);
    } else if (const auto* ping = std::get_if<Ping>(&m)) {
        std::vector<uint8_t> out;
        encode(out, Pong{ping->client_time_ns, now_ns, world_.tick});
        reply(*c, std::move(out));
    } else if (const auto* desync = std::get_if<Desync>(&m)) {
        ++stats_.desync_reports;
        Sections answer{desync->tick, false, {}};
        if (const RingEntry* e = held(desync->tick)) {
            answer.held = true;
            answer.sections = e->sections;
        }
        std::vector<uint8_t> out;
        encode(out, answer);
        reply(*c, std::move(out));
    }
}

void Room::on_hello(Client& c, const Hello& hello) {
    if (hello.version != protocol_version) {
        refuse(c, ErrorCode::version_mismatch,
               "protocol version " + std::to_string(hello.version) + ", this server speaks " + std::to_string(protocol_version),
               CloseReason::protocol_error);
        return;
    }
    if (hello.fingerprint != world::fingerprint_hash()) {
        refuse(c, ErrorCode::fingerprint_mismatch,
               "simulation fingerprint " + hex64(hello.fingerprint) + ", this server runs " + hex64(world::fingerprint_hash()) +
                   " (" + world::fingerprint() + ")",
               CloseReason::protocol_error);
        return;
    }
    if (shutting_down_) {
        refuse(c, ErrorCode::shutting_down, "the server is stopping", CloseReason::shutting_down);
        return;
    }
    uint32_t player = watcher_id;
    if (hello.role == Role::play) {
        for (uint32_t i = 0; i < seats_.size(); ++i) {
            if (seats_[i] == 2 && seat_free_at_[i] <= world_.tick) seats_[i] = 0;
            if (seats_[i] == 0) {
                player = i + 1;
                break;
            }
        }
        if (player == watcher_id) {
            refuse(c, ErrorCode::room_full, "all " + std::to_string(config_.max_players) + " player seats are taken",
                   CloseReason::room_full);
            return;
        }
        seats_[player - 1] = 1;
        ++stats_.players;
        // The join is the room's: it lands like an input received now, aimed at the centre.
        const Fx centre = Fx::from_raw(config_.world.arena_size.raw() / 2);
        schedule(AppliedInput{world::Input{player, world::InputKind::join, {centre, centre}}, 0});
    } else {
        if (stats_.watchers >= config_.max_watchers) {
            refuse(c, ErrorCode::room_full, "all " + std::to_string(config_.max_watchers) + " watcher places are taken",
                   CloseReason::room_full);
            return;
        }
        ++stats_.watchers;
    }
    c.stage = Client::Stage::admitted;
    c.admitted = true;
    c.role = hello.role;
    c.player = player;
    send(c, encoded(Welcome{hello.role, player, config_.input_delay_ticks, world_.tick, config_.max_players, config_.world}));
    send_baseline(c);
}

void Room::on_input(Client& c, const InputMsg& input) {
    if (c.role != Role::play) {
        refuse(c, ErrorCode::unexpected, "input from a watcher", CloseReason::protocol_error);
        return;
    }
    const int64_t cost = config_.world.tick_hz;
    if (c.tokens < cost) {
        ++stats_.inputs_dropped;
        c.flood_debt += cost;
        if (c.flood_debt > int64_t{flood_threshold_inputs} * cost) {
            refuse(c, ErrorCode::rate_limited,
                   "more than " + std::to_string(max_inputs_per_second) + " inputs per second for too long",
                   CloseReason::rate_limited);
        }
        return;
    }
    c.tokens -= cost;
    if (c.last_sequence != 0 && input.sequence <= c.last_sequence) {
        ++stats_.inputs_stale;
        return;
    }
    c.last_sequence = input.sequence;
    ++stats_.inputs_accepted;
    schedule(AppliedInput{world::Input{c.player, world::InputKind::steer, input.target}, input.sequence});
}

// Every input lands on the tick after the next step's, delayed by input_delay_ticks: the
// timeline is the room's, never the arrival time's.
void Room::schedule(const AppliedInput& input) {
    const uint64_t lands = world_.tick + 1 + config_.input_delay_ticks;
    std::vector<AppliedInput>& slot = pending_[lands % pending_.size()];
    if (input.input.kind == world::InputKind::steer) {
        for (AppliedInput& held_input : slot) {
            if (held_input.input.player == input.input.player && held_input.input.kind == world::InputKind::steer) {
                held_input = input;  // the newest sequence wins
                return;
            }
        }
    }
    slot.push_back(input);
}

void Room::on_ack(Client& c, const Ack& ack) {
    if (!ack.holds) {
        // The client dropped its world: a baseline, unless one sent within the last second is
        // still unanswered, which most likely answers this too (it was on its way).
        if (c.baseline_unacked && world_.tick - c.last_baseline_tick < baseline_repeat_ticks_) {
            c.wants_baseline = true;
        } else {
            send_baseline(c);
        }
        return;
    }
    if (ack.tick > c.sent_tick) {
        refuse(c, ErrorCode::unexpected, "an ack of tick " + std::to_string(ack.tick) + ", which this room never sent",
               CloseReason::protocol_error);
        return;
    }
    if (ack.tick < c.base_tick) return;  // older than its baseline or a newer ack: says nothing new
    const RingEntry* at = held(ack.tick);
    if (at != nullptr && at->digest != ack.digest) ++stats_.ack_mismatches;
    // What is still unacknowledged: the frames after the acked tick. The count is exact while
    // both ends of that span are in the ring; otherwise (a client that stalled past the ring)
    // the old count is kept, an over-estimate, and the baseline it gets next resets it.
    if (const RingEntry* last = held(c.sent_tick); at != nullptr && last != nullptr) {
        c.unacked_bytes = last->bytes_through - at->bytes_through;
    }
    c.base_tick = ack.tick;
    if (ack.tick >= c.last_baseline_tick) {
        c.baseline_unacked = false;
        c.wants_baseline = false;
    }
    stream(c);
}

// ---- Sending ------------------------------------------------------------------------------
void Room::send(Client& c, const Bytes& bytes) {
    outbox_.push_back(Outgoing{c.id, bytes});
    ++stats_.messages_sent;
    stats_.bytes_sent += bytes->size();
}

// A pong or sections answer: dropped when it would overfill the client's window, so a client
// that sends pings and reads nothing cannot grow what the transport holds for it.
void Room::reply(Client& c, std::vector<uint8_t> bytes) {
    if (c.unacked_bytes + bytes.size() > flow_window_bytes) {
        ++stats_.replies_dropped;
        return;
    }
    c.unacked_bytes += bytes.size();
    send(c, std::make_shared<const std::vector<uint8_t>>(std::move(bytes)));
}

const Bytes& Room::baseline_now() {
    if (!baseline_ || baseline_tick_ != world_.tick) {
        baseline_tick_ = world_.tick;
        baseline_ = encoded(Baseline{world_.tick, world::encode(world_)});
    }
    return baseline_;
}

void Room::send_baseline(Client& c) {
    const Bytes& bytes = baseline_now();
    send(c, bytes);
    ++stats_.baselines_sent;
    c.sent_tick = world_.tick;
    c.base_tick = world_.tick;
    c.unacked_bytes += bytes->size();  // what was in flight before is still in flight
    c.last_baseline_tick = world_.tick;
    c.baseline_unacked = true;
    c.wants_baseline = false;
    c.paused = false;
}

// Sends the client every tick after the last one it was sent, in order, while its window
// allows: from the ring, or a baseline when the next tick has left it.
void Room::stream(Client& c) {
    while (c.sent_tick < world_.tick) {
        const uint64_t next = c.sent_tick + 1;
        if (next - c.base_tick > window_ticks_) {
            if (!c.paused) ++stats_.flow_pauses;
            c.paused = true;
            return;
        }
        const RingEntry* e = held(next);
        if (e == nullptr || !e->frame) {
            send_baseline(c);
            return;
        }
        if (c.unacked_bytes + e->frame->size() > flow_window_bytes) {
            if (!c.paused) ++stats_.flow_pauses;
            c.paused = true;
            return;
        }
        send(c, e->frame);
        c.unacked_bytes += e->frame->size();
        c.sent_tick = next;
        c.paused = false;
    }
}

// ---- The tick -----------------------------------------------------------------------------
void Room::tick(int64_t now_ns) {
    const int64_t tick_start = clock_ ? clock_() : 0;
    const uint64_t next = world_.tick + 1;
    std::vector<AppliedInput>& slot = pending_[next % pending_.size()];
    // Canonical order: the order step applies them and the order the frame must carry. The
    // keys are unique (one join, leave and steer per player per tick), so no ties.
    std::sort(slot.begin(), slot.end(),
              [](const AppliedInput& a, const AppliedInput& b) { return world::canonical_less(a.input, b.input); });
    inputs_.clear();
    for (const AppliedInput& a : slot) inputs_.push_back(a.input);

    const int64_t step_start = clock_ ? clock_() : 0;
    stepper_.step(world_, inputs_);
    if (clock_) stats_.last_step_ns = clock_() - step_start;

    RingEntry& entry = ring_[world_.tick % ring_ticks_];
    entry.tick = world_.tick;
    entry.sections = world::section_digests(world_);
    entry.digest = world::digest(world_.tick, entry.sections);
    frame_.tick = world_.tick;
    frame_.digest = entry.digest;
    frame_.inputs.swap(slot);
    slot.clear();
    entry.frame = encoded(frame_);
    frame_bytes_total_ += entry.frame->size();
    entry.bytes_through = frame_bytes_total_;
    ++stats_.frames_encoded;
    stats_.tick = world_.tick;

    if (recording_) {
        append_replay_record(recorded_, *entry.frame);
        std::vector<uint8_t> sections;
        encode(sections, Sections{world_.tick, true, entry.sections});
        append_replay_record(recorded_, sections);
    }

    const int64_t refill = max_inputs_per_second;
    const int64_t bucket = int64_t{input_burst} * config_.world.tick_hz;
    for (Client& c : clients_) {
        if (c.stage == Client::Stage::closed) continue;
        if (sat_sub(now_ns, c.last_heard_ns) >= config_.idle_timeout_ns) {  // times are the caller's: no overflow
            refuse(c, ErrorCode::idle,
                   "nothing received for " + std::to_string(config_.idle_timeout_ns / 1'000'000'000) + " s",
                   CloseReason::idle);
            continue;
        }
        if (c.stage != Client::Stage::admitted) continue;
        c.tokens = std::min(bucket, c.tokens + refill);
        c.flood_debt = std::max<int64_t>(0, c.flood_debt - refill);
        if (c.wants_baseline && world_.tick - c.last_baseline_tick >= baseline_repeat_ticks_) {
            send_baseline(c);
        } else {
            stream(c);
        }
    }
    if (clock_) stats_.last_tick_ns = clock_() - tick_start;
}

void Room::take_outbox(std::vector<Outgoing>& sends, std::vector<CloseRequest>& closes) {
    sends.insert(sends.end(), std::make_move_iterator(outbox_.begin()), std::make_move_iterator(outbox_.end()));
    closes.insert(closes.end(), closes_.begin(), closes_.end());
    outbox_.clear();
    closes_.clear();
}

std::optional<ClientFigures> Room::client(uint32_t id) const {
    const Client* c = find(id);
    if (c == nullptr) return std::nullopt;
    ClientFigures f;
    f.admitted = c->admitted;
    f.closed = c->stage == Client::Stage::closed;
    f.role = c->role;
    f.player = c->player;
    f.paused = c->paused;
    f.sent_tick = c->sent_tick;
    f.base_tick = c->base_tick;
    f.unacked_bytes = c->unacked_bytes;
    f.held_bytes = sizeof(Client);
    for (const Outgoing& o : outbox_) {
        if (o.to == id) f.held_bytes += o.bytes->size();
    }
    return f;
}

// ---- Recording ----------------------------------------------------------------------------
void Room::start_recording() {
    if (recording_) return;
    recording_ = true;
    append_replay_header(recorded_);
    std::vector<uint8_t> welcome;
    encode(welcome, Welcome{Role::watch, watcher_id, config_.input_delay_ticks, world_.tick, config_.max_players, config_.world});
    append_replay_record(recorded_, welcome);
    append_replay_record(recorded_, *baseline_now());
}

void Room::take_recording(std::vector<uint8_t>& out) {
    out.insert(out.end(), recorded_.begin(), recorded_.end());
    recorded_.clear();
}

}  // namespace tandem::net
