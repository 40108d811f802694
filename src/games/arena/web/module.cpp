// The arena as an ES module (tandem_add_game_module in ../CMakeLists.txt): how its events read
// in JavaScript, and that a rollback's correction of a well's position is eased, not jumped.
#include "arena/sim.hpp"
#include "tandem/bindings/module.hpp"

namespace {
struct Web {
    template <class Out>
    static void event(Out& out, const arena::Event& e) {
        out.kind(arena::event_name(e.kind));
        out.field("player", e.player);
        out.field("pellet", e.pellet);
    }
    static constexpr tandem::client::EasedField eased{"wells", "pos"};
};
}  // namespace

TANDEM_GAME_MODULE(arena::Sim, Web)
