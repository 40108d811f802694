// Predicting clients through the whole in-process match (tests/net/match_harness: suspends, a
// client that stops reading, a rejoin, a corrupted state, intruders and a flooder), five of the
// sessions followed by a PredictedClient<arena::Sim> that Match drives: in the 300-tick quiet
// with nobody steering, every predicted tick from a second in is the room's at that tick (the
// room's states are the reference), and the match is the same match without them (every
// session's figures, final state and received bytes), so prediction never touches the wire or
// the confirmed state.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <vector>

#include "net/match_harness.hpp"
#include "tandem/client/predicted.hpp"

using namespace tandem;
using namespace tandem::net;
using namespace tandem::net::match;

namespace {
using Predicted = client::PredictedClient<arena::Sim>;
constexpr uint32_t predicting[] = {steady, short_suspend, non_reader, rejoiner, corrupted};
}  // namespace

TEST_CASE("predicting clients in the full match: in the quiet every predicted tick is the room's, and the match is the same without them", "[predicted][match]") {
    const MatchPlan plan;
    MatchGame<arena::Sim> followed = arena_match();
    std::map<uint64_t, uint64_t> room_digest;
    std::vector<std::map<uint64_t, uint64_t>> predicted(peer_count);
    std::vector<client::PredictionFigures> figures(peer_count);
    followed.on_start = [](Match<arena::Sim>& m) {
        for (uint32_t e : predicting) m.follow(e, Predicted::create().value());
    };
    followed.after_tick = [&](Match<arena::Sim>& m, uint64_t t) {
        room_digest[m.room().state().tick] = arena::digest(m.room().state());
        for (uint32_t e : predicting) {
            const Predicted* found = m.follower<Predicted>(e);
            REQUIRE(found);
            const Predicted& p = *found;
            figures[e] = p.figures();
            if (t < quiet_from || t >= quiet_from + quiet_ticks) continue;
            if (const arena::World* w = p.state()) predicted[e][w->tick] = arena::digest(*w);
        }
    };
    const MatchResult with = run_match<arena::Sim>(plan, followed);
    const MatchResult without = run_match(plan);

    for (uint32_t e : predicting) {
        INFO(peer_names[e] << ": rollbacks " << figures[e].rollbacks << ", resets " << figures[e].resets << ", depth "
                           << figures[e].depth_ticks);
        CHECK(figures[e].active);
        CHECK(figures[e].rollbacks > 0);
        CHECK(figures[e].depth_ticks <= client::PredictConfig{}.window_ticks);
        uint64_t compared = 0, equal = 0;
        for (const auto& [tick, digest] : predicted[e]) {
            // A second after the last steer was sent, and before anyone steers again.
            if (tick < quiet_from + 60 || tick >= quiet_from + quiet_ticks || !room_digest.count(tick)) continue;
            ++compared;
            if (digest == room_digest.at(tick)) ++equal;
        }
        // 240 ticks; with 15 ms of jitter a frame's predicted tick skips some.
        CHECK(compared > 150);
        CHECK(equal == compared);
    }

    CHECK(with.room_digest == without.room_digest);
    CHECK(with.room_tick == without.room_tick);
    CHECK(with.received_hash == without.received_hash);
    CHECK(with.final_digest == without.final_digest);
    CHECK(with.final_tick == without.final_tick);
    for (uint32_t i = 0; i < peer_count; ++i) {
        INFO(peer_names[i]);
        CHECK(with.figures[i].verified_ticks == without.figures[i].verified_ticks);
        CHECK(with.figures[i].mismatches == without.figures[i].mismatches);
        CHECK(with.figures[i].baselines == without.figures[i].baselines);
        CHECK(with.figures[i].bytes_out == without.figures[i].bytes_out);
    }
}
