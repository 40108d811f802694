// ships-serve: ships' server as a program of its own, the way a game outside this repository
// serves itself: one call into the kit's server library with the game's hooks. It takes the same
// flags as `tandem serve --game ships` (the kit's and ships' own; --help lists them).
#include "ships/serve.hpp"

int main(int argc, char** argv) {
    auto hooks = ships::serve_hooks();
    hooks.command = "ships-serve";
    hooks.program = "ships-serve";
    return tandem::server::serve_main<ships::Sim>(argc, argv, hooks);
}
