#!/usr/bin/env bash
# Rewrites ships' golden digest streams (tests/games/ships/golden/NAME.txt) after a deliberate
# change of the simulation. The streams are what every build must reproduce, so regenerating
# them to make a failing test pass hides exactly the bug they catch; and a changed simulation
# under an unchanged simulation_version would let old and new builds accept each other's
# snapshots and then desync. So this script refuses to write a stream that differs from the
# file's under the version the file records: bump simulation_version in
# src/games/ships/include/ships/world.hpp first (docs/determinism.md, "The simulation version").
#   tests/games/ships/golden/regenerate.sh [path/to/tool [SCENARIO...]]
#     the tool: build/native/tests/tandem_ships_stream by default, or the `tandem` CLI (both
#     take `version|scenarios|run ... --game ships` and write byte-identical files); every
#     scenario it lists and random.txt unless SCENARIOs are named
#   TANDEM_GOLDEN_DIR=DIR  read and write the files there instead (the script's own test)
#   TANDEM_GOLDEN_BUILD=TEXT  the build named in the files' comment (default "native g++ Release")
# Exit status: 0 written, 1 refused (nothing written), 2 bad arguments or no tool.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
cli=${1:-build/native/tests/tandem_ships_stream}
build=${TANDEM_GOLDEN_BUILD:-native g++ Release}
shift || true
dir=${TANDEM_GOLDEN_DIR:-tests/games/ships/golden}
[[ -x $cli ]] || { echo "regenerate: no stream tool at $cli (build the native preset's tandem_ships_stream)" >&2; exit 2; }
version=$("$cli" version --game ships | sed -n 's/^simulation_version //p')
[[ $version =~ ^[0-9]+$ ]] || { echo "regenerate: '$cli version' printed no simulation_version line" >&2; exit 2; }
if (($# > 0)); then names=("$@"); else mapfile -t names < <("$cli" scenarios --game ships | cut -d' ' -f1); names+=(random); fi
# "random": one file, random.txt, of 'SPEC TICK DIGEST' lines for these random worlds
# (random_world_test replays them), ticks 0..200 every 50.
random_specs=(random:1 random:2 random:3 random:4 random:5 random:6 random:7 random:8 random:9 random:10
  random:11 random:12 random:0 random:18446744073709551615 random:7:rocks=5:players=2:without=bot+churn)
stream() {  # stream NAME: the comment, version and stream lines of NAME's golden file
  if [[ $1 == random ]]; then
    echo "# SPEC TICK DIGEST: tandem run --game ships --scenario SPEC --ticks 200 --every 50 ($build); regenerate only on a deliberate simulation change (tests/games/ships/golden/regenerate.sh)"
    echo "simulation_version $version"
    for spec in "${random_specs[@]}"; do
      "$cli" run --game ships --scenario "$spec" --ticks 200 --every 50 | grep -E '^(random:[^ ]+ )?[0-9]+ ' | sed "s/^/$spec /"
    done
  else
    echo "# tandem run --game ships --scenario $1 --ticks 2000 --every 100 ($build); regenerate only on a deliberate simulation change (tests/games/ships/golden/regenerate.sh)"
    echo "simulation_version $version"
    "$cli" run --game ships --scenario "$1" --ticks 2000 --every 100
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
refused=0
for name in "${names[@]}"; do
  out=$dir/$name.txt
  stream "$name" >"$tmp/$name.txt"
  [[ -f $out ]] || continue
  recorded=$(sed -n 's/^simulation_version //p' "$out")
  # The stream is the '[SPEC] TICK DIGEST' lines; the comment and the summary's wording may change.
  if ! diff -q <(grep -E '^(random:[^ ]+ )?[0-9]+ ' "$out") <(grep -E '^(random:[^ ]+ )?[0-9]+ ' "$tmp/$name.txt") >/dev/null; then
    if [[ -z $recorded || $recorded -ge $version ]]; then
      first=$(diff <(grep -E '^(random:[^ ]+ )?[0-9]+ ' "$out") <(grep -E '^(random:[^ ]+ )?[0-9]+ ' "$tmp/$name.txt") | grep -m1 '^[<>]' || true)
      echo "regenerate: refused: the $name stream changed (first difference: $first) but the simulation_version" \
        "is still ${recorded:-unrecorded} (the tool's is $version); bump simulation_version in" \
        "src/games/ships/include/ships/world.hpp, rebuild and run again" >&2
      refused=1
    fi
  elif [[ -n $recorded && $recorded -gt $version ]]; then
    echo "regenerate: refused: $out records simulation_version $recorded, newer than this tool's $version" >&2
    refused=1
  fi
done
((refused == 0)) || { echo "regenerate: nothing written" >&2; exit 1; }
for name in "${names[@]}"; do
  mv "$tmp/$name.txt" "$dir/$name.txt"
  echo "wrote $dir/$name.txt (simulation_version $version)"
done
