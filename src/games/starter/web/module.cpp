// starter as an ES module (tandem_add_game builds it in the wasm build): how its events read in
// JavaScript, and that a rollback's correction of a runner's position is eased, not jumped.
#include "starter/sim.hpp"
#include "tandem/bindings/module.hpp"

namespace {
struct Web {
    template <class Out>
    static void event(Out& out, const starter::Event& e) {
        out.kind(starter::event_name(e.kind));
        out.field("player", e.player);
        out.field("coin", e.coin);
    }
    static constexpr tandem::client::EasedField eased{"runners", "pos"};
};
}  // namespace

TANDEM_GAME_MODULE(starter::Sim, Web)
