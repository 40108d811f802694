// The stable codes and sentences of RollbackSession's refusals (tandem/predict/rollback.hpp).
// The codes are what JavaScript sees as `.code`: never rename one, only add.
#include "tandem/predict/rollback.hpp"

namespace tandem::predict {

std::string_view error_name(RollbackErrorCode code) {
    switch (code) {
        case RollbackErrorCode::no_players: return "no_players";
        case RollbackErrorCode::too_many_players: return "too_many_players";
        case RollbackErrorCode::missing_callable: return "missing_callable";
        case RollbackErrorCode::config_out_of_range: return "config_out_of_range";
        case RollbackErrorCode::unknown_player: return "unknown_player";
        case RollbackErrorCode::frame_too_old: return "frame_too_old";
        case RollbackErrorCode::frame_too_far_ahead: return "frame_too_far_ahead";
        case RollbackErrorCode::input_conflict: return "input_conflict";
        case RollbackErrorCode::input_already_queued: return "input_already_queued";
        case RollbackErrorCode::prediction_window_full: return "prediction_window_full";
        case RollbackErrorCode::frame_not_confirmed: return "frame_not_confirmed";
        case RollbackErrorCode::frame_not_simulated: return "frame_not_simulated";
        case RollbackErrorCode::sync_test_mismatch: return "sync_test_mismatch";
    }
    return "unknown";
}

std::string_view error_name(const RollbackError& error) { return error_name(error.code); }

std::string_view describe(const RollbackError& error) {
    switch (error.code) {
        case RollbackErrorCode::no_players: return "a rollback session needs a default input for at least one player";
        case RollbackErrorCode::too_many_players: return "a rollback session takes at most max_rollback_players players";
        case RollbackErrorCode::missing_callable: return "a rollback session needs both a step and a digest function";
        case RollbackErrorCode::config_out_of_range:
            return "the prediction window, input delay, SyncTest depth, history and frames ahead must each be at most "
                   "max_rollback_frames, and the input delay at most max_frames_ahead";
        case RollbackErrorCode::unknown_player: return "the player index is past the players the session was created with";
        case RollbackErrorCode::frame_too_old: return "the frame is older than the frames the session still retains";
        case RollbackErrorCode::frame_too_far_ahead: return "the frame is more than max_frames_ahead past the current frame";
        case RollbackErrorCode::input_conflict:
            return "the player's input for that frame was already confirmed with a different value";
        case RollbackErrorCode::input_already_queued:
            return "the local player's input for that frame is already queued: one input per player per frame";
        case RollbackErrorCode::prediction_window_full:
            return "advancing would run more frames ahead of the confirmed frame than the prediction window allows";
        case RollbackErrorCode::frame_not_confirmed: return "an input before that frame is still unconfirmed";
        case RollbackErrorCode::frame_not_simulated: return "the session has not reached that frame yet";
        case RollbackErrorCode::sync_test_mismatch:
            return "re-simulating with the same inputs gave a different digest: the step is not deterministic";
    }
    return "unknown rollback error";
}

}  // namespace tandem::predict
