#!/usr/bin/env bash
# Writes web/native/NAME.txt: each listed scenario's digest at every tick 0..2000 as the native
# Release CLI prints it, the stream the page's "Check against native" compares with when no
# server is there. Their every-100th ticks are tests/games/arena/golden's (tests/e2e/native-streams.test.mjs
# checks both), so they change only with the golden files, after a deliberate simulation change.
#   web/native/generate.sh [path/to/tandem]   (default: build/native/src/cli/tandem)
set -euo pipefail
cd "$(dirname "$0")/../.."
cli=${1:-build/native/src/cli/tandem}
[[ -x $cli ]] || { echo "generate: no CLI at $cli (build-scripts/build native)" >&2; exit 2; }
version=$("$cli" version | sed -n 's/^simulation_version //p')
for name in orbits crowd chaos trig; do
  {
    echo "# tandem run --scenario $name --ticks 2000 --every 1 (native g++ Release), written by web/native/generate.sh"
    echo "simulation_version $version"
    "$cli" run --scenario "$name" --ticks 2000 --every 1
  } >"web/native/$name.txt"
  echo "wrote web/native/$name.txt"
done
