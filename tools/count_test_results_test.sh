#!/usr/bin/env bash
# tools/count_test_results.py on a made-up `bazel test` log and reports: passed, cached, flaky with some attempts
# from the cache ("(1/2 cached) FLAKY"), failed and skipped targets each counted by their test cases, a target
# without a report as one case, check_install's [check] lines, and the failed target's log tail printed.
set -euo pipefail
root="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-kcoll}"
tool="$root/tools/count_test_results.py"
dir="${TEST_TMPDIR:-$(mktemp -d)}"
report() {  # report TARGET PASSED FAILED SKIPPED
  mkdir -p "$dir/logs/tests/$1"
  {
    echo '<testsuites><testsuite>'
    for ((i = 0; i < $2; ++i)); do echo "<testcase name=\"p$i\"/>"; done
    for ((i = 0; i < $3; ++i)); do echo "<testcase name=\"f$i\"><failure/></testcase>"; done
    for ((i = 0; i < $4; ++i)); do echo "<testcase name=\"s$i\"><skipped/></testcase>"; done
    echo '</testsuite></testsuites>'
  } > "$dir/logs/tests/$1/test.xml"
}
report fresh 3 0 1
report cached 2 0 0
report flaky 10 0 0
report broken 4 1 0
echo "the broken test's own last words" > "$dir/logs/tests/broken/test.log"
cat > "$dir/bazel.log" <<'LOG'
//tests:fresh                                                  PASSED in 1.0s
//tests:cached                                        (cached) PASSED in 0.5s
//tests:flaky                                   (1/2 cached) FLAKY, failed in 1 out of 2 in 28.4s
//tests:broken                                                 FAILED in 2.0s
//tests:noreport                                               PASSED in 0.1s
LOG
printf '[check] ok: one\n[check] ok: two\n[check] FAILED: three\n' > "$dir/checks.log"
out=$(BAZEL_TESTLOGS="$dir/logs" python3 "$tool" "$dir/bazel.log" "$dir/checks.log")
last=$(tail -n 1 <<<"$out")
# passed: 3 + 2 + 10 + 4 + 1 (no report) + 2 checks; failed: 1 case + 1 check; skipped: 1.
[[ "$last" == "22 passed, 2 failed, 1 skipped" ]] || { echo "FAIL: got '$last' from:"; echo "$out"; exit 1; }
grep -qF "==== FAILED: //tests:broken" <<<"$out" || { echo "FAIL: the failed target is not named:"; echo "$out"; exit 1; }
grep -qF "the broken test's own last words" <<<"$out" || { echo "FAIL: no log tail:"; echo "$out"; exit 1; }
echo "PASS: $last"
