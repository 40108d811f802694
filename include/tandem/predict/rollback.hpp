// Predict and roll back over a deterministic step: run ahead of the confirmed frame with the
// inputs known so far (unknown ones held at their last value), and when a confirmed input
// contradicts a prediction, restore the state before that frame and re-simulate. The session
// only copies, steps and compares the caller's state; it never adds a float or any other
// value of its own to it, and digests are the caller's u64.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tandem/core/result.hpp"

namespace tandem::predict {

// A frame number: the state at frame f is the state after f frames were stepped (from
// config.first_frame); frame f's inputs take it to frame f + 1.
using Frame = uint64_t;

struct RollbackConfig {
    // How many frames the current frame may run ahead of the confirmed one (the first frame
    // with an input still unconfirmed). 0 is lockstep: advance only on confirmed inputs.
    uint32_t prediction_window = 8;
    // Local inputs land this many frames after the current frame.
    uint32_t input_delay = 0;
    // SyncTest: when N > 0, every advance rolls back N frames (as far as retained), re-runs
    // them with the same inputs and compares each digest with the first simulation's. A
    // mismatch means the step is not deterministic (hidden state, uninitialised memory, an
    // order a library chose) and is reported with the frame whose state differed.
    uint32_t sync_test_frames = 0;
    // Fully confirmed frames kept readable through state_at behind the confirmed frame.
    uint32_t confirmed_history = 8;
    // How far past the current frame an input may be confirmed (a peer running ahead).
    uint32_t max_frames_ahead = 64;
    Frame first_frame = 0;
    // An unconfirmed input without a hint is the player's input at the frame before (held, the
    // default); with hold_inputs off it is the player's default input, and a hint covers its
    // own frame only. Off suits inputs that are events of one frame (the list of a tick's
    // inputs a server applied), which holding would apply again on every predicted frame.
    bool hold_inputs = true;
};

// Limits a config must respect, so that memory stays bounded by the config.
inline constexpr uint32_t max_rollback_frames = 1024;    // window, delay, SyncTest depth, history
inline constexpr uint32_t max_rollback_players = 1024;

enum class RollbackErrorCode : uint8_t {
    no_players,               // create: the default inputs name no player
    too_many_players,         // create: more players than max_rollback_players
    missing_callable,         // create: the step or the digest is empty
    config_out_of_range,      // create: a window, delay, depth or history above the limits
    unknown_player,           // a player index past the default inputs
    frame_too_old,            // the frame is no longer retained
    frame_too_far_ahead,      // more than max_frames_ahead past the current frame
    input_conflict,           // a different input for a player and frame already confirmed
    input_already_queued,     // a second local input for the same player and frame
    prediction_window_full,   // advancing would run more than prediction_window frames ahead
    frame_not_confirmed,      // state_at: an input before that frame is still unconfirmed
    frame_not_simulated,      // state_at: that frame has not been reached yet
    sync_test_mismatch,       // SyncTest: re-simulating gave another digest
};

struct RollbackError {
    RollbackErrorCode code = RollbackErrorCode::no_players;
    Frame frame = 0;                // the frame concerned (for a mismatch: whose state differed)
    uint64_t expected_digest = 0;   // sync_test_mismatch: the first simulation's digest
    uint64_t actual_digest = 0;     // sync_test_mismatch: the re-simulation's digest
};

std::string_view error_name(RollbackErrorCode code);
std::string_view error_name(const RollbackError& error);
std::string_view describe(const RollbackError& error);

// What one advance_frame did: the frame it stepped and how many earlier frames it first had
// to re-simulate because a confirmation contradicted their prediction.
struct FrameReport {
    Frame frame = 0;
    uint32_t resimulated = 0;
};

// State: the caller's whole simulation, a copyable value. Input: one player's input for one
// frame, comparable with ==. The step receives every player's input for the frame, in player
// order, and must be deterministic: shared code that both ends run over the same state.
//
// Inputs per player and frame are either confirmed (queue_local_input, confirm_remote_input)
// or predicted: a hint given with predict_input, else the player's input at the frame
// before, else its default input. Confirmations are applied lazily: the re-simulation they
// cause runs once, at the next advance_frame, state() or state_at(), however many arrived.
template <class State, std::equality_comparable Input>
    requires std::copy_constructible<State> && std::copy_constructible<Input>
class RollbackSession {
public:
    using Step = std::function<void(State&, std::span<const Input>)>;
    using Digest = std::function<uint64_t(const State&)>;

    static Result<RollbackSession, RollbackError> create(State initial, std::vector<Input> default_inputs,
                                                         RollbackConfig config, Step step, Digest digest) {
        if (default_inputs.empty()) return RollbackError{RollbackErrorCode::no_players};
        if (default_inputs.size() > max_rollback_players) return RollbackError{RollbackErrorCode::too_many_players};
        if (!step || !digest) return RollbackError{RollbackErrorCode::missing_callable};
        if (config.prediction_window > max_rollback_frames || config.input_delay > max_rollback_frames ||
            config.sync_test_frames > max_rollback_frames || config.confirmed_history > max_rollback_frames ||
            config.max_frames_ahead > max_rollback_frames || config.input_delay > config.max_frames_ahead)
            return RollbackError{RollbackErrorCode::config_out_of_range};
        return RollbackSession(std::move(initial), std::move(default_inputs), config, std::move(step),
                               std::move(digest));
    }

    // Confirms this player's input for frame current_frame() + input_delay and returns that
    // frame: send it to the peers with the input. One input per local player per frame: a
    // second one for the same frame is refused (input_already_queued; send nothing), and a
    // frame left without one is predicted but never confirmed, which holds the confirmed frame
    // back until confirm_remote_input supplies it. The first input_delay frames need none:
    // every player holds its default input there, on every peer alike.
    Result<Frame, RollbackError> queue_local_input(uint32_t player, Input input) {
        if (player >= players_) return RollbackError{RollbackErrorCode::unknown_player, current_};
        const Frame target = current_ + config_.input_delay;
        if (target < end_frame() && record(target).confirmed[player])
            return RollbackError{RollbackErrorCode::input_already_queued, target};
        auto landed = confirm_at(player, target, std::move(input));
        if (!landed) return landed.error();
        return target;
    }

    // Confirms a player's input for `frame`: a past one, the current one or one up to
    // max_frames_ahead ahead. When a past frame was simulated with another input, the next
    // advance (or state read) rolls back to the earliest such frame and re-simulates.
    Result<void, RollbackError> confirm_remote_input(uint32_t player, Frame frame, Input input) {
        if (player >= players_) return RollbackError{RollbackErrorCode::unknown_player, frame};
        return confirm_at(player, frame, std::move(input));
    }

    // A guess, not a confirmation: the player's unconfirmed frames from the current one on
    // are predicted with `input` until a confirmed input says otherwise. For a client whose
    // own inputs are stamped onto frames by a server, this applies them at once.
    Result<void, RollbackError> predict_input(uint32_t player, Input input) {
        if (player >= players_) return RollbackError{RollbackErrorCode::unknown_player, current_};
        ensure_record(current_).hint[player] = std::move(input);
        return {};
    }
    // The same guess for one given frame (up to max_frames_ahead ahead): where a client expects
    // its input to land. A guess for a frame already simulated with another input (and not
    // confirmed) re-simulates from it, as a confirmation would.
    Result<void, RollbackError> predict_input_at(uint32_t player, Frame frame, Input input) {
        if (player >= players_) return RollbackError{RollbackErrorCode::unknown_player, frame};
        if (frame < base_) return RollbackError{RollbackErrorCode::frame_too_old, frame};
        if (frame > current_ + config_.max_frames_ahead) return RollbackError{RollbackErrorCode::frame_too_far_ahead, frame};
        Record& r = ensure_record(frame);
        const bool contradicts = frame < current_ && !r.confirmed[player] && !(r.used[player] == input);
        r.hint[player] = std::move(input);
        if (contradicts && (!pending_from_ || frame < *pending_from_)) pending_from_ = frame;
        return {};
    }

    // The state at a confirmed frame, known from elsewhere (a server's verified state at that
    // frame): a re-simulation pending from before it starts from it instead, so the confirmed
    // frames before it are not stepped again. Returns whether it was used (a re-simulation was
    // pending from before `frame`); nothing changes otherwise. Refused for a frame not retained,
    // not confirmed, or past the current one.
    Result<bool, RollbackError> adopt_confirmed_state(Frame frame, const State& state) {
        if (frame < base_) return RollbackError{RollbackErrorCode::frame_too_old, frame};
        if (frame > confirmed_front_) return RollbackError{RollbackErrorCode::frame_not_confirmed, frame};
        if (frame > current_) return RollbackError{RollbackErrorCode::frame_not_simulated, frame};
        if (!pending_from_ || *pending_from_ >= frame) return false;
        for (Frame f = *pending_from_; f < frame; ++f) record(f).used = inputs_for(f);
        record(frame).state = state;
        if (sync_testing()) {
            record(frame).first_digest = digest_(state);
            sync_floor_ = frame;   // the frames before hold states of the old prediction
        }
        if (frame < current_) pending_from_ = frame;
        else pending_from_.reset(), resimulating_ = false;
        return true;
    }

    // Re-simulates what confirmations invalidated, then steps the current frame. Refuses with
    // prediction_window_full (and changes nothing) when that would run more than
    // prediction_window frames past the confirmed frame; with sync_test_mismatch when SyncTest
    // finds the step non-deterministic (the frame was stepped; the error names the state).
    Result<FrameReport, RollbackError> advance_frame() {
        const uint32_t resimulated = resimulate();
        if (current_ + 1 > confirmed_front_ + config_.prediction_window)
            return RollbackError{RollbackErrorCode::prediction_window_full, current_};
        const Frame frame = current_;
        std::vector<Input> inputs = inputs_for(frame);
        State next = *record(frame).state;
        step_(next, inputs);
        record(frame).used = std::move(inputs);
        Record& after = ensure_record(frame + 1);
        if (sync_testing()) after.first_digest = digest_(next);
        after.state = std::move(next);
        current_ = frame + 1;
        advance_confirmed_front();
        if (sync_testing()) {
            auto checked = sync_test();
            if (!checked) return checked.error();
        }
        trim();
        return FrameReport{frame, resimulated};
    }

    // Re-simulates now whatever confirmations invalidated; returns how many frames it ran.
    // advance_frame, state and state_at call it; call it yourself to control when it runs.
    // With max_frames, at most that many: the rest stays pending (pending_rollback() says from
    // where), so a caller can spread a long re-simulation over several of its frames; frames
    // past that point keep the old prediction meanwhile (retained_state reads them). One
    // rollback is counted per re-simulation, however many calls it takes.
    uint32_t resimulate(uint32_t max_frames = UINT32_MAX) {
        if (!pending_from_) return 0;
        const Frame from = *pending_from_;
        if (from >= current_) {
            pending_from_.reset();
            resimulating_ = false;
            return 0;
        }
        if (!resimulating_) ++rollbacks_;
        resimulating_ = true;
        const Frame to = std::min<Frame>(current_, from + max_frames);
        State s = *record(from).state;
        for (Frame f = from; f < to; ++f) {
            std::vector<Input> inputs = inputs_for(f);
            step_(s, inputs);
            record(f).used = std::move(inputs);
            Record& after = record(f + 1);
            if (sync_testing()) after.first_digest = digest_(s);   // new inputs: a new first run
            after.state = s;
        }
        if (to == current_) {
            pending_from_.reset();
            resimulating_ = false;
        } else {
            pending_from_ = to;
        }
        const auto count = static_cast<uint32_t>(to - from);
        resimulated_ += count;
        return count;
    }

    // The state held at a frame as last simulated, without re-simulating: past
    // pending_rollback() that is still the old prediction. nullptr for a frame not retained or
    // not reached.
    const State* retained_state(Frame frame) const {
        if (frame < base_ || frame > current_ || frame >= end_frame()) return nullptr;
        const Record& r = record(frame);
        return r.state ? &*r.state : nullptr;
    }

    Frame current_frame() const { return current_; }
    // The first frame with an input still unconfirmed: every state up to it is confirmed.
    Frame confirmed_frame() const { return confirmed_front_; }
    // How many frames the current frame runs ahead of the confirmed one.
    uint32_t prediction_depth() const {
        return confirmed_front_ >= current_ ? 0 : static_cast<uint32_t>(current_ - confirmed_front_);
    }
    // The frame the next re-simulation starts from, if a confirmation contradicted one.
    std::optional<Frame> pending_rollback() const { return pending_from_; }

    // The predicted state at the current frame (after any pending re-simulation). The
    // reference, like state_at's pointer, is valid until the next call that changes the session.
    const State& state() {
        resimulate();
        return *record(current_).state;
    }

    // The state at a confirmed frame: one whose every earlier input is confirmed, so every
    // peer that agrees on the inputs holds the same state there.
    Result<const State*, RollbackError> state_at(Frame frame) {
        resimulate();
        if (frame < base_) return RollbackError{RollbackErrorCode::frame_too_old, frame};
        if (frame > confirmed_front_) return RollbackError{RollbackErrorCode::frame_not_confirmed, frame};
        if (frame > current_) return RollbackError{RollbackErrorCode::frame_not_simulated, frame};
        return &*record(frame).state;
    }

    // Rollbacks caused by contradicted predictions, and the frames they re-simulated. SyncTest
    // re-simulation is counted separately, in sync_test_checks (one per advance).
    uint64_t rollbacks() const { return rollbacks_; }
    uint64_t resimulated_frames() const { return resimulated_; }
    uint64_t sync_test_checks() const { return sync_test_checks_; }
    uint32_t players() const { return players_; }
    const RollbackConfig& config() const { return config_; }

private:
    struct Record {
        std::optional<State> state;                   // the state at this frame, once reached
        std::vector<std::optional<Input>> confirmed;  // per player
        std::vector<std::optional<Input>> hint;       // per player: predict_input's guesses
        std::vector<Input> used;                      // what the last simulation of the frame ran
        uint64_t first_digest = 0;                    // SyncTest: digest of `state` when first reached
    };

    RollbackSession(State initial, std::vector<Input> defaults, RollbackConfig config, Step step, Digest digest)
        : config_(config),
          step_(std::move(step)),
          digest_(std::move(digest)),
          players_(static_cast<uint32_t>(defaults.size())),
          defaults_(defaults),
          carried_(std::move(defaults)),
          base_(config.first_frame),
          current_(config.first_frame),
          confirmed_front_(config.first_frame) {
        Record& first = ensure_record(current_);
        if (sync_testing()) first.first_digest = digest_(initial);
        first.state = std::move(initial);
        // Nobody can have an input in the first input_delay frames: every peer confirms the
        // defaults there by the same rule, without a message.
        for (Frame f = current_; f < current_ + config_.input_delay; ++f) {
            Record& r = ensure_record(f);
            for (uint32_t p = 0; p < players_; ++p) r.confirmed[p] = carried_[p];
        }
        advance_confirmed_front();
    }

    bool sync_testing() const { return config_.sync_test_frames > 0; }
    Frame end_frame() const { return base_ + records_.size(); }
    Record& record(Frame f) { return records_[static_cast<size_t>(f - base_)]; }
    const Record& record(Frame f) const { return records_[static_cast<size_t>(f - base_)]; }
    Record& ensure_record(Frame f) {
        while (end_frame() <= f) {
            Record r;
            r.confirmed.resize(players_);
            r.hint.resize(players_);
            records_.push_back(std::move(r));
        }
        return record(f);
    }

    // The input a player has at frame f: confirmed, else hinted, else held from the frame
    // before, else carried from before the retained frames (initially the default).
    const Input& value(Frame f, uint32_t player) const {
        if (!config_.hold_inputs) {
            if (f < base_ || f >= end_frame()) return defaults_[player];
            const Record& r = record(f);
            if (r.confirmed[player]) return *r.confirmed[player];
            if (r.hint[player]) return *r.hint[player];
            return defaults_[player];
        }
        if (f >= end_frame()) f = end_frame() - 1;
        for (;;) {
            if (f < base_) return carried_[player];
            const Record& r = record(f);
            if (r.confirmed[player]) return *r.confirmed[player];
            if (r.hint[player]) return *r.hint[player];
            if (f == base_) return carried_[player];
            --f;
        }
    }

    std::vector<Input> inputs_for(Frame f) const {
        std::vector<Input> inputs;
        inputs.reserve(players_);
        for (uint32_t p = 0; p < players_; ++p) inputs.push_back(value(f, p));
        return inputs;
    }

    Result<void, RollbackError> confirm_at(uint32_t player, Frame frame, Input input) {
        if (frame < base_) return RollbackError{RollbackErrorCode::frame_too_old, frame};
        if (frame > current_ + config_.max_frames_ahead) return RollbackError{RollbackErrorCode::frame_too_far_ahead, frame};
        Record& r = ensure_record(frame);
        if (r.confirmed[player]) {
            if (*r.confirmed[player] == input) return {};
            return RollbackError{RollbackErrorCode::input_conflict, frame};
        }
        const bool contradicts = frame < current_ && !(r.used[player] == input);
        r.confirmed[player] = std::move(input);
        if (contradicts && (!pending_from_ || frame < *pending_from_)) pending_from_ = frame;
        advance_confirmed_front();
        return {};
    }

    void advance_confirmed_front() {
        while (confirmed_front_ < end_frame()) {
            const Record& r = record(confirmed_front_);
            bool all = true;
            for (const auto& c : r.confirmed) all = all && c.has_value();
            if (!all) return;
            ++confirmed_front_;
        }
    }

    Result<void, RollbackError> sync_test() {
        const Frame back = std::min<Frame>(config_.sync_test_frames, current_ - std::max(base_, sync_floor_));
        if (back == 0) return {};
        ++sync_test_checks_;
        const Frame from = current_ - back;
        State s = *record(from).state;
        for (Frame f = from; f < current_; ++f) {
            step_(s, record(f).used);
            const uint64_t again = digest_(s);
            const uint64_t first = record(f + 1).first_digest;
            if (again != first) return RollbackError{RollbackErrorCode::sync_test_mismatch, f + 1, first, again};
        }
        return {};
    }

    // Drops frames nobody can roll back to or read any more: everything before the confirmed
    // history (and before the SyncTest depth), never the current frame.
    void trim() {
        Frame keep_from = std::min(confirmed_front_, current_);
        keep_from = keep_from - std::min<Frame>(keep_from - config_.first_frame, config_.confirmed_history);
        if (sync_testing()) {
            const Frame sync_from = current_ - std::min<Frame>(current_ - config_.first_frame, config_.sync_test_frames);
            keep_from = std::min(keep_from, sync_from);
        }
        while (base_ < keep_from) {
            Record& front = records_.front();
            for (uint32_t p = 0; p < players_; ++p)
                if (front.confirmed[p]) carried_[p] = *front.confirmed[p];
            records_.pop_front();
            ++base_;
        }
    }

    RollbackConfig config_;
    Step step_;
    Digest digest_;
    uint32_t players_;
    std::vector<Input> defaults_;   // each player's default input
    std::vector<Input> carried_;    // each player's input just before base_
    std::deque<Record> records_;    // frames base_ .. end_frame() - 1
    Frame base_;
    Frame current_;
    Frame confirmed_front_;
    std::optional<Frame> pending_from_;
    bool resimulating_ = false;     // a re-simulation spread over calls is under way
    Frame sync_floor_ = 0;          // SyncTest goes back no further (an adopted state's frame)
    uint64_t rollbacks_ = 0;
    uint64_t resimulated_ = 0;
    uint64_t sync_test_checks_ = 0;
};

}  // namespace tandem::predict
