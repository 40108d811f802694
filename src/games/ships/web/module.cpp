// ships as an ES module (tandem_add_game_module in ../CMakeLists.txt): how its events read in
// JavaScript, and that a rollback's correction of a ship's position is eased, not jumped.
#include "ships/sim.hpp"
#include "tandem/bindings/module.hpp"

namespace {
struct Web {
    template <class Out>
    static void event(Out& out, const ships::Event& e) {
        out.kind(ships::event_name(e.kind));
        out.field("player", e.player);
        out.field("key", e.key);
        out.field("other", e.other);
    }
    static constexpr tandem::client::EasedField eased{"ships", "pos"};
};
}  // namespace

TANDEM_GAME_MODULE(ships::Sim, Web)
