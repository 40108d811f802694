// The client session's rules: what a received message does, when a frame is applied, when the
// world is dropped for a baseline, when acks, pings and steers go out. Time is always passed
// in; the optional clock only measures step cost, which the resume rule weighs.
#include "tandem/net/client_session.hpp"

#include <algorithm>
#include <utility>

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

ClientSession::ClientSession(Role role, int64_t now) : role_(role), last_advance_at_(now) {
    figures_.role = role;
    append_replay_header(replay_);
    in_rate_.elapsed(now);
    out_rate_.elapsed(now);
}

void ClientSession::set_clock(int64_t (*now_ns)()) { clock_ = now_ns; }

int64_t ClientSession::tick_ns() const {
    const int64_t hz = config_.tick_hz == 0 ? 1 : static_cast<int64_t>(config_.tick_hz);
    return 1'000'000'000 / hz;
}

void ClientSession::queue(std::vector<uint8_t> bytes) {
    figures_.bytes_out += bytes.size();
    out_rate_.add(bytes.size());
    outgoing_.push_back(std::move(bytes));
}

template <class M>
void ClientSession::send(const M& message) {
    std::vector<uint8_t> bytes;
    encode(bytes, message);
    queue(std::move(bytes));
}

void ClientSession::take_outgoing(std::vector<std::vector<uint8_t>>& out) {
    for (auto& bytes : outgoing_) out.push_back(std::move(bytes));
    outgoing_.clear();
}

// ---- Connection ----------------------------------------------------------------------------

void ClientSession::on_connected(int64_t now) {
    (void)now;
    if (connected_) return;
    // A new socket: probes sent on the old one measure the gap, not the link.
    if (pinged_once_) timeline_.on_reconnect();
    probes_.clear();
    connected_ = true;
    welcomed_ = false;
    awaiting_baseline_ = true;
    frames_.clear();
    send(Hello{protocol_version, world::fingerprint_hash(), role_});
}

void ClientSession::on_disconnected(int64_t now) {
    (void)now;
    if (!connected_) return;
    connected_ = false;
    welcomed_ = false;
    // Whatever was in flight is lost with the socket; the world stays drawable until the next
    // connection's baseline replaces it, but no frame applies to it before that.
    awaiting_baseline_ = true;
    catching_up_ = false;
    frames_.clear();
    probes_.clear();
    outgoing_.clear();
    pending_steer_.reset();
    ++reconnect_attempts_;
}

bool ClientSession::should_reconnect() const { return !refused_for_good_; }

int64_t ClientSession::reconnect_delay_ns() const {
    // attempts counts closes since the last verified tick: the first retry is immediate.
    if (reconnect_attempts_ <= 1) return 0;
    const uint32_t doublings = reconnect_attempts_ - 2;
    int64_t delay = reconnect_first_backoff_ns;
    for (uint32_t i = 0; i < doublings && delay < reconnect_max_backoff_ns; ++i) delay *= 2;
    return std::min(delay, reconnect_max_backoff_ns);
}

// ---- Receiving -------------------------------------------------------------------------------

void ClientSession::record(std::span<const uint8_t> bytes) {
    if (replay_full_) return;
    if (replay_.size() + 4 + bytes.size() > max_replay_bytes) {
        replay_full_ = true;
        return;
    }
    append_replay_record(replay_, bytes);
}

void ClientSession::receive(std::span<const uint8_t> message, int64_t now) {
    figures_.bytes_in += message.size();
    in_rate_.add(message.size());
    auto decoded = decode_server(message);
    if (!decoded.ok()) {
        ++figures_.malformed_in;
        return;
    }
    ServerMessage& m = decoded.value();
    if (auto* w = std::get_if<Welcome>(&m)) {
        // Only the first welcome goes into the replay: a reconnect's baseline restarts the
        // stream the replay checks, under the same config.
        if (!welcome_recorded_) record(message);
        welcome_recorded_ = true;
        welcomed_ = true;
        player_ = w->player;
        figures_.player = w->player;
        config_ = w->config;
        figures_.server_tick = std::max(figures_.server_tick, w->server_tick);
        awaiting_baseline_ = true;
        frames_.clear();
    } else if (auto* f = std::get_if<Frame>(&m)) {
        on_frame(std::move(*f), message, now);
    } else if (auto* b = std::get_if<Baseline>(&m)) {
        on_baseline(*b, message, now);
    } else if (auto* p = std::get_if<Pong>(&m)) {
        figures_.server_tick = std::max(figures_.server_tick, p->server_tick);
        for (auto it = probes_.begin(); it != probes_.end(); ++it) {
            if (it->sent_at != p->client_time_ns) continue;
            timeline_.complete(*it, now, p->server_time_ns);
            probes_.erase(probes_.begin(), it + 1);   // older probes were overtaken: forget them
            break;
        }
    } else if (auto* s = std::get_if<Sections>(&m)) {
        on_sections(*s, message);
    } else if (auto* e = std::get_if<ErrorMsg>(&m)) {
        figures_.refused = e->code;
        figures_.refused_text = e->text;
        switch (e->code) {
            // Retrying repeats the same refusal (another build, a client bug, abuse).
            case ErrorCode::version_mismatch:
            case ErrorCode::fingerprint_mismatch:
            case ErrorCode::malformed:
            case ErrorCode::unexpected:
            case ErrorCode::rate_limited: refused_for_good_ = true; break;
            // Temporary: the room may have a seat or be back later.
            case ErrorCode::room_full:
            case ErrorCode::too_slow:
            case ErrorCode::shutting_down:
            case ErrorCode::idle: break;
        }
    }
}

void ClientSession::on_frame(Frame&& frame, std::span<const uint8_t> bytes, int64_t now) {
    figures_.server_tick = std::max(figures_.server_tick, frame.tick);
    if (awaiting_baseline_ || !world_ || frame.tick <= last_queued_tick_) {
        // Waiting for a baseline (frames for a world not held), or a frame already held
        // (the room replaying its ring after an ack).
        ++figures_.frames_ignored;
        return;
    }
    if (frame.tick != last_queued_tick_ + 1 || frames_.size() >= max_queued_frames) {
        // A hole in the stream cannot be stepped over, and a backlog past the bound is not
        // kept: either way the world goes and a baseline replaces it.
        figures_.last_resume = ResumeFigures{0, ResumePath::resync, frame.tick - last_queued_tick_, 0, 0, -1};
        resume_open_ = true;
        resume_decided_at_ = now;
        drop_world_and_resync(now);
        return;
    }
    for (const AppliedInput& a : frame.inputs) {
        if (a.input.player == player_ && a.sequence != 0)
            figures_.inputs_applied = std::max(figures_.inputs_applied, a.sequence);
    }
    record(bytes);
    last_queued_tick_ = frame.tick;
    frames_.push_back(PendingFrame{std::move(frame), bytes.size()});
}

void ClientSession::on_baseline(const Baseline& baseline, std::span<const uint8_t> bytes, int64_t now) {
    auto decoded = world::decode(baseline.snapshot);
    if (!decoded.ok() || decoded.value().tick != baseline.tick) {
        ++figures_.malformed_in;
        return;
    }
    record(bytes);
    // World time jumped over instead of stepped: from the newest verified tick to the
    // baseline's. A first join jumps over nothing, nor does a restarted room's lower tick.
    const uint64_t skipped = figures_.baselines > 0 && baseline.tick > figures_.verified_tick
                                 ? baseline.tick - figures_.verified_tick
                                 : 0;
    world_ = std::move(decoded.value());
    ++world_epoch_;
    verified_.clear();
    config_ = world_->config;
    const int64_t skipped_ns = mul_div_round(static_cast<int64_t>(std::min<uint64_t>(skipped, INT64_MAX)), tick_ns(), 1);
    figures_.dropped_ns = sat_add(figures_.dropped_ns, skipped_ns);
    awaiting_baseline_ = false;
    catching_up_ = false;
    frames_.clear();
    last_queued_tick_ = baseline.tick;
    figures_.verified_tick = baseline.tick;
    verified_digest_ = world::digest(*world_);
    ++figures_.baselines;
    figures_.last_baseline_tick = baseline.tick;
    pellets_prev_.clear();
    wells_prev_.clear();
    events_valid_ = false;
    last_step_at_ = now;
    if (resume_open_) {
        // A catch-up the room answered with a baseline (what was missed had left its ring)
        // ends as a resync: the baseline's bytes, verified again at the next tick.
        figures_.last_resume.path = ResumePath::resync;
        figures_.last_resume.bytes = bytes.size();
        figures_.last_resume.dropped_ns = skipped_ns;
    }
    // Tell the room at once which tick is held: its flow control counts from here.
    if (welcomed_ && connected_) send_ack(now);
}

void ClientSession::on_sections(const Sections& sections, std::span<const uint8_t> bytes) {
    record(bytes);
    if (!pending_desync_ || pending_desync_->tick != sections.tick) return;
    if (sections.held) {
        figures_.last_mismatch_sections = differing_sections(pending_desync_->sections, sections.sections);
        figures_.last_mismatch_sections_known = true;
    }
    pending_desync_.reset();
}

void ClientSession::drop_world_and_resync(int64_t now) {
    world_.reset();
    ++world_epoch_;
    verified_.clear();
    frames_.clear();
    awaiting_baseline_ = true;
    catching_up_ = false;
    events_valid_ = false;
    ++figures_.resyncs;
    send(Ack{false, 0, 0});
    last_ack_at_ = now;
    acked_once_ = true;
    last_ack_held_ = false;
}

// ---- Stepping ---------------------------------------------------------------------------------

bool ClientSession::step_one(int64_t now) {
    const Frame& frame = frames_.front().frame;
    std::vector<world::Input> inputs;
    inputs.reserve(frame.inputs.size());
    for (const AppliedInput& a : frame.inputs) inputs.push_back(a.input);

    const int64_t t0 = clock_ ? clock_() : 0;
    stepper_.step(*world_, inputs);
    if (clock_) {
        const int64_t sample = std::max<int64_t>(1, sat_sub(clock_(), t0));
        // A smoothed mean, 1/8 per sample: one slow step (a GC pause) barely moves it.
        // A smoothed mean moving 1/8 of the way to each sample (rounded toward zero): one
        // slow step (a GC pause) barely moves it. The first sample sets it.
        step_cost_ns_ = cost_measured_ ? std::max<int64_t>(1, sat_add(step_cost_ns_, sat_sub(sample, step_cost_ns_) / 8)) : sample;
        cost_measured_ = true;
    }
    events_valid_ = true;
    last_step_at_ = now;

    const uint64_t tick = frame.tick;
    if (world::digest(*world_) != frame.digest) {
        ++figures_.mismatches;
        figures_.last_mismatch_tick = tick;
        figures_.last_mismatch_sections.clear();
        figures_.last_mismatch_sections_known = false;
        pending_desync_ = Desync{tick, world::section_digests(*world_)};
        send(*pending_desync_);
        drop_world_and_resync(now);
        return false;
    }
    ++figures_.verified_ticks;
    figures_.verified_tick = tick;
    verified_digest_ = frame.digest;
    reconnect_attempts_ = 0;
    if (catching_up_) ++figures_.last_resume.ticks;
    // A resync is over at the first tick verified on its baseline (a catch-up when it ends).
    if (resume_open_ && figures_.last_resume.path == ResumePath::resync) close_resume(now);
    if (keep_verified_) verified_.push_back(VerifiedTick{tick, std::move(frames_.front().frame.inputs)});
    frames_.pop_front();
    return true;
}

void ClientSession::decide_resume(int64_t now, int64_t away_ns, uint64_t missed_estimate) {
    const uint64_t behind = std::max<uint64_t>(frames_.size(), missed_estimate);
    ResumeFigures r;
    r.away_ns = away_ns;
    r.behind_ticks = behind;
    if (!world_ || awaiting_baseline_ || behind == 0) {
        r.path = ResumePath::idle;
        figures_.last_resume = r;
        return;
    }
    // behind x cost <= budget, in integers without overflow: behind <= floor(budget / cost).
    const uint64_t affordable = static_cast<uint64_t>(catch_up_budget_ns / step_cost_ns_);
    resume_open_ = true;
    resume_decided_at_ = now;
    if (behind <= affordable) {
        r.path = ResumePath::caught_up;
        figures_.last_resume = r;
        ++figures_.catch_ups;
        catching_up_ = true;
        // Caught up once the ticks the room ran meanwhile are verified: from what it had sent
        // when the page went away (a suspend) or what has arrived (a gap), plus the estimate.
        catch_up_target_tick_ = (missed_estimate > 0 ? suspend_server_tick_ : last_queued_tick_) + missed_estimate;
    } else {
        r.path = ResumePath::resync;
        figures_.last_resume = r;
        drop_world_and_resync(now);
    }
}

void ClientSession::close_resume(int64_t now) {
    figures_.last_resume.until_verified_ns = sat_sub(now, resume_decided_at_);
    resume_open_ = false;
}

void ClientSession::on_suspend(int64_t now) {
    if (suspended_) return;
    suspended_ = true;
    suspended_at_ = now;
    suspend_server_tick_ = std::max(figures_.server_tick, last_queued_tick_);
}

void ClientSession::on_resume(int64_t now) {
    if (!suspended_) return;
    suspended_ = false;
    const int64_t away = std::max<int64_t>(0, sat_sub(now, suspended_at_));
    timeline_.on_resume();
    probes_.clear();
    // The room kept ticking while the page was away: that many frames are due, whether or
    // not they have arrived yet.
    const uint64_t missed = static_cast<uint64_t>(mul_div_round(away, static_cast<int64_t>(config_.tick_hz), 1'000'000'000));
    decide_resume(now, away, missed);
    last_advance_at_ = now;
}

uint32_t ClientSession::advance(int64_t now, int64_t budget_ns) {
    in_rate_.elapsed(now);
    out_rate_.elapsed(now);
    if (suspended_) return 0;
    const int64_t since_last = std::max<int64_t>(0, sat_sub(now, last_advance_at_));
    last_advance_at_ = now;
    if (world_ && !awaiting_baseline_ && !catching_up_ && frames_.size() > gap_threshold_ticks) {
        if (resume_open_ && frames_.size() <= static_cast<uint64_t>(catch_up_budget_ns / step_cost_ns_)) {
            // The backlog behind a resync's baseline (the room's baseline may be up to
            // baseline_repeat_seconds old, and it streams the ticks since at once): part of the
            // same resume, caught up within it. A new decision here would replace the resync in
            // the figures before its first verified tick closed it.
            catching_up_ = true;
            catch_up_target_tick_ = last_queued_tick_;
        } else {
            decide_resume(now, since_last, 0);
        }
    }

    uint32_t applied = 0;
    if (world_ && !awaiting_baseline_ && !frames_.empty()) {
        const int64_t limit = catching_up_ ? std::clamp(budget_ns, catch_up_slice_ns, catch_up_call_max_ns) : std::max<int64_t>(0, budget_ns);
        uint64_t allowed = static_cast<uint64_t>(limit / step_cost_ns_);
        if (allowed == 0) allowed = 1;   // progress on every call, however small the budget
        const uint64_t n = std::min<uint64_t>(allowed, frames_.size());
        for (uint64_t i = 0; i < n; ++i) {
            if (i + 1 == n) {
                // The positions before the last step of this call: what the render view
                // interpolates from.
                pellets_prev_.clear();
                for (const world::Pellet& p : world_->pellets) pellets_prev_.push_back(p.pos);
                wells_prev_.clear();
                for (const world::Well& w : world_->wells) wells_prev_.push_back({w.player, w.pos});
            }
            if (!step_one(now)) break;
            ++applied;
        }
        if (catching_up_ && frames_.size() <= caught_up_ticks && figures_.verified_tick >= catch_up_target_tick_) {
            catching_up_ = false;
            if (resume_open_) close_resume(now);
        }
    }
    maybe_send_steer(now);
    maybe_ack(now);
    maybe_ping(now);
    return applied;
}

// ---- Sending ------------------------------------------------------------------------------------

void ClientSession::send_ack(int64_t now) {
    send(Ack{true, figures_.verified_tick, verified_digest_});
    last_ack_at_ = now;
    acked_once_ = true;
    last_acked_tick_ = figures_.verified_tick;
    last_ack_held_ = true;
}

void ClientSession::maybe_ack(int64_t now) {
    // Without a world the "nothing held" ack was sent when it was dropped; a baseline answers
    // it (the socket is ordered and lossless, so it is not repeated).
    if (!connected_ || !welcomed_ || !world_ || awaiting_baseline_) return;
    const int64_t since = sat_sub(now, last_ack_at_);
    const bool progress = !last_ack_held_ || figures_.verified_tick != last_acked_tick_;
    if (!acked_once_ || (progress && since >= ack_interval_ns) || since >= ack_keepalive_ns) send_ack(now);
}

void ClientSession::maybe_ping(int64_t now) {
    if (!connected_ || !welcomed_) return;
    if (pinged_once_ && sat_sub(now, last_ping_at_) < ping_interval_ns) return;
    const Probe probe = timeline_.begin(now);
    send(Ping{probe.sent_at});
    probes_.push_back(probe);
    if (probes_.size() > max_probes_in_flight) probes_.pop_front();
    pinged_once_ = true;
    last_ping_at_ = now;
}

void ClientSession::steer(Vec2 target, int64_t now) {
    if (role_ != Role::play || !welcomed_ || !connected_) return;
    pending_steer_ = target;
    maybe_send_steer(now);
}

void ClientSession::maybe_send_steer(int64_t now) {
    if (!pending_steer_ || !connected_ || !welcomed_) return;
    if (last_sent_steer_ && *last_sent_steer_ == *pending_steer_) {
        pending_steer_.reset();
        return;
    }
    if (steered_once_ && sat_sub(now, last_steer_sent_at_) < tick_ns() * steer_interval_ticks) return;
    last_input_sent_ = InputMsg{next_sequence_++, *pending_steer_};
    send(*last_input_sent_);
    ++figures_.inputs_sent;
    last_sent_steer_ = pending_steer_;
    pending_steer_.reset();
    steered_once_ = true;
    last_steer_sent_at_ = now;
}

// ---- Reading ------------------------------------------------------------------------------------

RenderView ClientSession::render_view(int64_t now) const {
    RenderView v;
    if (!world_) return v;
    v.has_world = true;
    v.tick = world_->tick;
    v.arena_size = world_->config.arena_size;
    for (const world::Pellet& p : world_->pellets) v.pellets.push_back(p.pos);
    for (const world::Well& w : world_->wells) v.wells.push_back({w.player, w.pos});
    // Before any step (a fresh baseline) there is no previous tick: draw this one twice.
    v.pellets_prev = pellets_prev_.size() == v.pellets.size() ? pellets_prev_ : v.pellets;
    v.wells_prev = wells_prev_.empty() ? v.wells : wells_prev_;
    const int64_t since = std::max<int64_t>(0, sat_sub(now, last_step_at_));
    const int64_t raw = std::min<int64_t>(Fx::one_raw, mul_div_round(since, Fx::one_raw, tick_ns()));
    v.fraction = Fx::from_raw(static_cast<int32_t>(raw));
    if (events_valid_) {
        const auto events = stepper_.events();
        v.events.assign(events.begin(), events.end());
    }
    return v;
}

SessionFigures ClientSession::figures() const {
    SessionFigures f = figures_;
    f.connected = connected_;
    f.has_world = world_.has_value();
    f.queued_frames = frames_.size();
    f.lag_ticks = f.server_tick > f.verified_tick ? f.server_tick - f.verified_tick : 0;
    f.rtt_ns = timeline_.rtt().value_or(-1);
    f.jitter_ns = timeline_.jitter().value_or(-1);
    f.step_cost_ns = step_cost_ns_;
    f.bytes_in_per_sec = in_rate_.per_sec();
    f.bytes_out_per_sec = out_rate_.per_sec();
    return f;
}

std::vector<uint8_t> ClientSession::export_replay() const { return replay_; }

void ClientSession::keep_verified(bool on) {
    keep_verified_ = on;
    if (!on) verified_.clear();
}

void ClientSession::take_verified(std::vector<VerifiedTick>& out) {
    for (auto& v : verified_) out.push_back(std::move(v));
    verified_.clear();
}

void ClientSession::corrupt_once_for_testing() {
    if (world_) world_->captures ^= 1;
}

}  // namespace tandem::net
