// The one header a game's registration file includes: TANDEM_GAME_MODULE(G, Web) makes the
// game G (a tandem::sim::Scripted traits struct) an ES module, binding its own surface
// (game.hpp) and the whole net layer over it (net.hpp) once, generically. Web says only what
// the seam cannot: how an event reads in JS and, optionally, what a rollback's correction eases:
//
//   struct Web {
//       template <class Out> static void event(Out& out, const G::Event& e);   // out.kind(name), out.field(name, v)
//       static constexpr tandem::client::EasedField eased{"wells", "pos"};     // optional
//       static constexpr std::string_view corrupt_field = "captures";         // optional (debug)
//   };
//   TANDEM_GAME_MODULE(my_game::Sim, Web)
//
// The core's part of the module (fixed point, time, noise, the frame budget) is compiled once,
// in the bindings' own library (bindings/src/core.cpp), and names no game.
#pragma once

#include <emscripten/bind.h>

#include "tandem/bindings/game.hpp"
#include "tandem/bindings/net.hpp"
#include "tandem/sim/scenario.hpp"

namespace tandem::bindings {

template <sim::Scripted G, class Web>
void bind_game_module() {
    GameBinding<G, Web>::bind();
    NetBinding<G, Web>::bind();
}

}  // namespace tandem::bindings

#define TANDEM_GAME_MODULE(G, Web) \
    EMSCRIPTEN_BINDINGS(tandem_game) { ::tandem::bindings::bind_game_module<G, Web>(); }
