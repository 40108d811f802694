#!/usr/bin/env bash
# tests/fuzz/fuzz-long.sh [SECONDS] [decode|fields|client|server|replay|random|ships-decode|
# ships-fields|ships-inputs|ships-random]: the long run of
# one fuzzer (default one hour, the real snapshot decoder), outside the default test run.
# 'fields' fuzzes the snapshot decoder built without its trailing digest check
# (TANDEM_FUZZ_SKIP_SNAPSHOT_DIGEST), so that mutants reach the field checks; 'client' and
# 'server' the wire codec's decode_client and decode_server; 'replay' the replay reader and
# checker; 'random' steps random worlds with their invariants checked after every step
# (random_world_fuzz.cpp); the ships-* ones the same over ships (ships_*_fuzz.cpp, 'ships-inputs'
# its inputs on the wire). Builds the clang preset, seeds a corpus in
# build/clang/fuzz-corpus[-KIND] (kept between runs so coverage accumulates), and runs on all cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-3600}
which=${2:-decode}
seed=(build/clang/tests/fuzz/make_seed_corpus)
case $which in
  decode) fuzzer=fuzz_snapshot_decode; corpus=build/clang/fuzz-corpus ;;
  fields) fuzzer=fuzz_snapshot_decode_fields; corpus=build/clang/fuzz-corpus-fields ;;
  client | server | replay)
    fuzzer=fuzz_protocol_$which; corpus=build/clang/fuzz-corpus-$which
    [[ $which == replay ]] && fuzzer=fuzz_replay_read
    seed=(build/clang/tests/fuzz/make_net_seed_corpus) ;;
  random) fuzzer=fuzz_random_world; corpus=build/clang/fuzz-corpus-random; seed=() ;;
  ships-decode) fuzzer=fuzz_ships_snapshot_decode; corpus=build/clang/fuzz-corpus-ships; seed=(build/clang/tests/fuzz/make_ships_seed_corpus) ;;
  ships-fields) fuzzer=fuzz_ships_snapshot_decode_fields; corpus=build/clang/fuzz-corpus-ships-fields
    seed=(build/clang/tests/fuzz/make_ships_seed_corpus) ;;
  ships-inputs) fuzzer=fuzz_ships_inputs; corpus=build/clang/fuzz-corpus-ships-inputs; seed=() ;;
  ships-random) fuzzer=fuzz_ships_random_world; corpus=build/clang/fuzz-corpus-ships-random; seed=() ;;
  *) echo "fuzz-long: unknown fuzzer '$which' (accepted: decode, fields, client, server, replay, random, ships-decode, ships-fields, ships-inputs, ships-random)" >&2; exit 2 ;;
esac
[[ $seconds =~ ^[0-9]+$ ]] || { echo "fuzz-long: SECONDS must be a whole number (got '$seconds')" >&2; exit 2; }
cmake --preset clang >/dev/null
targets=("$fuzzer")
[[ ${#seed[@]} -eq 0 ]] || targets+=("$(basename "${seed[0]}")")
cmake --build --preset clang --target "${targets[@]}"
mkdir -p "$corpus"
# The decoders start from snapshots or messages; the random worlds from an empty corpus (any 13
# bytes name a world).
if [[ ${#seed[@]} -eq 0 ]]; then :
elif [[ ${seed[0]} == *make_net_seed_corpus ]]; then "${seed[0]}" "$corpus" "$which"; else "${seed[0]}" "$corpus"; fi
exec "build/clang/tests/fuzz/$fuzzer" "$corpus" -max_total_time="$seconds" \
  -malloc_limit_mb=256 -rss_limit_mb=2048 -jobs="$(nproc)" -workers="$(nproc)" -print_final_stats=1
