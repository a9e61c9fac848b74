# Sourced by the tests that run on tools/cluster.sh's hosts (cluster_test.sh, network_fault_test.sh).
#   cluster_up HxR TEST_NAME   brings up H hosts of R ranks with "$cluster" and sets `hosts` and `ranks`; returns 1
#                              when cluster.sh up failed. Where hosts cannot be made here (no root, no namespaces) it
#                              prints "TEST_NAME: skipped (why)" and ends the test, which then passes.
cluster_up() {
  local layout="$1" test_name="$2" up
  hosts="${layout%x*}"
  ranks="${layout#*x}"
  up="$("$cluster" up "$hosts" "$ranks" 2>&1)"
  echo "$up"
  if grep -q "skipped" <<< "$up"; then
    echo "$test_name: skipped ($(sed -n 's/.*skipped: //p' <<< "$up"))"
    exit 0
  fi
  grep -q "^\[cluster\] up:" <<< "$up"
}
