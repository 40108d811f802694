#!/usr/bin/env bash
# tests/games/ships/golden/regenerate.sh must refuse to rewrite a golden stream that changed under
# an unchanged (or older) simulation_version, write nothing when it refuses, and accept a
# changed stream once the version is bumped. Driven with a stand-in CLI whose version and
# digests the test chooses, on copies of golden files in a temporary directory: it never
# touches tests/games/ships/golden. Run from the source root (CTest does).
set -uo pipefail
script=$PWD/tests/games/ships/golden/regenerate.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
check() {  # check DESCRIPTION COMMAND...
  if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; failed=1; fi
}

# The stand-in: FAKE_VERSION and FAKE_DIGEST decide what it prints.
cat >"$tmp/tandem" <<'EOF'
#!/usr/bin/env bash
[[ " $* " == *" --game ships "* ]] || exit 2   # the script always names the game
case $1 in
  version) printf 'tandem 0.0.0\nfingerprint fake sim/%s\nsimulation_version %s\n' "$FAKE_VERSION" "$FAKE_VERSION" ;;
  scenarios) printf 'alpha  first\nbeta  second\n' ;;
  run) printf '0 00000000000000aa\n100 %s\nsummary scenario=%s\n' "$FAKE_DIGEST" "$5" ;;
  *) exit 2 ;;
esac
EOF
chmod +x "$tmp/tandem"
golden=$tmp/golden
mkdir "$golden"
regenerate() { TANDEM_GOLDEN_DIR=$golden FAKE_VERSION=$1 FAKE_DIGEST=$2 "$script" "$tmp/tandem" >"$tmp/out" 2>&1; }

check "a first run writes every scenario's file with its version" regenerate 5 1111111111111111
check "  alpha records simulation_version 5" grep -qx 'simulation_version 5' "$golden/alpha.txt"
check "  beta holds the stream" grep -qx '100 1111111111111111' "$golden/beta.txt"
cp -r "$golden" "$tmp/before"

regenerate 5 2222222222222222; status=$?
check "a changed stream under the same version is refused with exit 1 (got $status)" test $status -eq 1
check "  the message says to bump simulation_version" grep -q 'bump simulation_version' "$tmp/out"
check "  nothing was written" diff -r "$tmp/before" "$golden"

regenerate 4 1111111111111111; status=$?
check "an older CLI is refused even with the same stream (got $status)" test $status -eq 1
check "  nothing was written" diff -r "$tmp/before" "$golden"

check "the same stream under the same version is rewritten identically" regenerate 5 1111111111111111
check "  byte for byte" diff -r "$tmp/before" "$golden"

check "a changed stream under a bumped version is written" regenerate 6 3333333333333333
check "  with the new version" grep -qx 'simulation_version 6' "$golden/alpha.txt"
check "  and the new stream" grep -qx '100 3333333333333333' "$golden/alpha.txt"

sed -i '/^simulation_version/d' "$golden/beta.txt"
regenerate 7 4444444444444444; status=$?
check "a file recording no version refuses a changed stream (got $status)" test $status -eq 1

exit $failed
