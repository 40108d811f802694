#!/usr/bin/env bash
# Rewrites the golden digest streams (tests/world/golden/NAME.txt) from a native Release CLI.
# Only after a deliberate change of the simulation: the streams are what every build must
# reproduce, so regenerating them to make a failing test pass hides exactly the bug they catch.
#   tests/world/golden/regenerate.sh [path/to/tandem]     (default: build/native/src/cli/tandem)
# Then check the other builds against the new files: build-scripts/test, check-determinism.
set -euo pipefail
cd "$(dirname "$0")/../../.."
cli=${1:-build/native/src/cli/tandem}
[[ -x $cli ]] || { echo "regenerate: no CLI at $cli (build-scripts/build native)" >&2; exit 2; }
for name in $("$cli" scenarios | cut -d' ' -f1); do
  out=tests/world/golden/$name.txt
  {
    echo "# tandem run --scenario $name --ticks 2000 --every 100 (native g++ Release); regenerate only on a deliberate simulation change (tests/world/golden/regenerate.sh)"
    "$cli" run --scenario "$name" --ticks 2000 --every 100
  } >"$out.tmp"
  mv "$out.tmp" "$out"
  echo "wrote $out"
done
