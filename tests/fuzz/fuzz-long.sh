#!/usr/bin/env bash
# tests/fuzz/fuzz-long.sh [SECONDS]: the long run of the snapshot decode fuzzer (default one
# hour), outside the default test run. Builds the clang preset, seeds a corpus in
# build/clang/fuzz-corpus (kept between runs so coverage accumulates), and runs on all cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-3600}
cmake --preset clang >/dev/null
cmake --build --preset clang --target fuzz_snapshot_decode make_seed_corpus
corpus=build/clang/fuzz-corpus
mkdir -p "$corpus"
build/clang/tests/fuzz/make_seed_corpus "$corpus"
exec build/clang/tests/fuzz/fuzz_snapshot_decode "$corpus" -max_total_time="$seconds" \
  -malloc_limit_mb=256 -rss_limit_mb=2048 -jobs="$(nproc)" -workers="$(nproc)" -print_final_stats=1
