#!/usr/bin/env bash
# The kit names no game: outside each game's own folder (src/games/<game>) and the one list of
# the games the `tandem` command ships (src/cli/games.cpp), nothing in src/ or include/ may
# mention a game's namespace or headers; nothing in bindings/ or web/'s shell names one at all. The games are the folders of src/games, so a new game
# is covered without editing this test. Prints each offending line; exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/../.."
games=$(find src/games -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
[[ -n "$games" ]] || { echo "no games under src/games: nothing to check against"; exit 1; }
pattern=$(printf '%s\n' $games | sed -E 's/(.*)/\\b\1::|[<"]\1\//' | paste -sd'|')
found=$(grep -rnE "$pattern" src include --include='*.hpp' --include='*.cpp' --include='*.h' \
  | grep -vE '^src/games/|^src/cli/games\.cpp:' || true)
# The ES module's generic half (bindings/: its templates, sources, JS layer, typings and CMake)
# and the page's shell (web/ but web/games/<game>/, each game's plugin) name no game either,
# not even in a comment: a game is a plugin and a registration, never a case of the shell.
words=$(printf '%s\n' $games | paste -sd'|')
shell=$(grep -rnwE "$words" bindings web --include='*.mjs' --include='*.js' --include='*.html' --include='*.css' \
  --include='*.hpp' --include='*.cpp' --include='*.cmake' --include='*.ts' --include='*.in' --include='CMakeLists.txt' \
  | grep -vE '^web/games/|/node_modules/' || true)
if [[ -n "$found" || -n "$shell" ]]; then
  echo "generic code names a game (games: $(echo $games)):"
  [[ -n "$found" ]] && echo "$found"
  [[ -n "$shell" ]] && echo "$shell"
  exit 1
fi
echo "no file outside src/games and src/cli/games.cpp names a game, nor bindings/ nor web/'s shell ($(echo $games))"
