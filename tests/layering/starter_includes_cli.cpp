// Must not build: a game's library never sees the command line that instantiates it (only
// its generated main, which tandem_add_game links to tandem::cli, does).
#include "tandem/cli/game_main.hpp"
