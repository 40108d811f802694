#!/usr/bin/env bash
# tests/fuzz/fuzz-long.sh [SECONDS] [decode|fields|random]: the long run of a fuzzer (default
# one hour, the real snapshot decoder), outside the default test run. 'random' steps random
# worlds with their invariants checked after every step (random_world_fuzz.cpp). 'fields' fuzzes the
# decoder built without its trailing digest check (TANDEM_FUZZ_SKIP_SNAPSHOT_DIGEST), so that
# mutants reach the field checks. Builds the clang preset, seeds a corpus in
# build/clang/fuzz-corpus[-fields] (kept between runs so coverage accumulates), and runs on all cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-3600}
which=${2:-decode}
case $which in
  decode) fuzzer=fuzz_snapshot_decode; corpus=build/clang/fuzz-corpus ;;
  fields) fuzzer=fuzz_snapshot_decode_fields; corpus=build/clang/fuzz-corpus-fields ;;
  random) fuzzer=fuzz_random_world; corpus=build/clang/fuzz-corpus-random ;;
  *) echo "fuzz-long: unknown fuzzer '$which' (accepted: decode, fields, random)" >&2; exit 2 ;;
esac
[[ $seconds =~ ^[0-9]+$ ]] || { echo "fuzz-long: SECONDS must be a whole number (got '$seconds')" >&2; exit 2; }
cmake --preset clang >/dev/null
cmake --build --preset clang --target "$fuzzer" make_seed_corpus
mkdir -p "$corpus"
# The decoders start from snapshots; the random worlds from an empty corpus (any 13 bytes name a world).
[[ $which == random ]] || build/clang/tests/fuzz/make_seed_corpus "$corpus"
exec "build/clang/tests/fuzz/$fuzzer" "$corpus" -max_total_time="$seconds" \
  -malloc_limit_mb=256 -rss_limit_mb=2048 -jobs="$(nproc)" -workers="$(nproc)" -print_final_stats=1
