#!/usr/bin/env bash
# Writes web/games/GAME/native/NAME.txt for each listed scenario of a game: its digest at every
# tick 0..2000 as the native Release CLI prints it, the stream the page's "Check against native"
# compares with when no server is there. Their every-100th ticks are tests/games/GAME/golden's
# (tests/e2e/native-streams.test.mjs checks both), so they change only with the golden files,
# after a deliberate simulation change.
#   web/games/native-streams.sh GAME [path/to/tandem]   (default: build/native/src/cli/tandem)
set -euo pipefail
cd "$(dirname "$0")/../.."
game=${1:-}
[[ -n $game ]] || { echo "usage: web/games/native-streams.sh GAME [path/to/tandem]" >&2; exit 2; }
cli=${2:-build/native/src/cli/tandem}
[[ -x $cli ]] || { echo "native-streams: no CLI at $cli (build-scripts/build native)" >&2; exit 2; }
[[ -d web/games/$game ]] || { echo "native-streams: no plugin folder web/games/$game" >&2; exit 2; }
version=$("$cli" version --game "$game" | sed -n 's/^simulation_version //p')
mkdir -p "web/games/$game/native"
for name in $("$cli" scenarios --game "$game" | awk '{print $1}'); do
  {
    echo "# tandem run --game $game --scenario $name --ticks 2000 --every 1 (native g++ Release), written by web/games/native-streams.sh"
    echo "simulation_version $version"
    "$cli" run --game "$game" --scenario "$name" --ticks 2000 --every 1
  } >"web/games/$game/native/$name.txt"
  echo "wrote web/games/$game/native/$name.txt"
done
