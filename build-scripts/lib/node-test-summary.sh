# Sourced by the test.d entries that run `node --test`: node_test_summary TAP STATUS prints
# the suite's "N passed, M failed" from the TAP file node's runner wrote (cancelled tests
# count as failed, and a non-zero exit with nothing failed counts as one failure) and
# returns non-zero when anything failed.
node_test_summary() {
  local tap=$1 status=$2 passed failed cancelled
  count() { sed -nE "s/^# $1 ([0-9]+)$/\\1/p" "$tap" | tail -1; }
  passed=$(count pass)
  failed=$(count fail)
  cancelled=$(count cancelled)
  if [[ -z "$passed" || -z "$failed" ]]; then
    echo "node --test printed no summary (exit $status)"
    echo "0 passed, 1 failed"
    return 1
  fi
  failed=$((failed + ${cancelled:-0}))
  if [[ $status -ne 0 && $failed -eq 0 ]]; then failed=1; fi
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
}
