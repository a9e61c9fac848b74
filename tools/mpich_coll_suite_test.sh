#!/usr/bin/env bash
# tools/mpich_coll_suite.py on made-up runtests reports: the whole-run comparison by position, the list of the tests
# that failed with the library (comments, default and capped rank counts, arguments, a name repeated with other
# arguments), and the comparison against a rerun of only those: a test that passes without the library is a
# regression, one that fails alike is not, one the rerun left out is named.
set -euo pipefail
root="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-kcoll}"
tool="$root/tools/mpich_coll_suite.py"
dir="${TEST_TMPDIR:-$(mktemp -d)}"
mkdir -p "$dir/logs"
report() {  # report FILE NAME|ARGS|NP|STATUS...
  local file="$1" name args np status
  shift
  {
    echo '<MPITESTRESULTS>'
    for t in "$@"; do
      IFS='|' read -r name args np status <<<"$t"
      echo "<MPITEST><NAME>$name</NAME><NP>$np</NP><ARGS>$args</ARGS><STATUS>$status</STATUS></MPITEST>"
    done
    echo '</MPITESTRESULTS>'
  } > "$dir/$file"
}
fail() { echo "FAILED: $*"; exit 1; }
echo "kcoll_mpi: MPI_Allreduce: 5 calls, 3 on kcoll, 2 forwarded (op MPI_LAND 2)" > "$dir/logs/kcoll.1.log"

cat > "$dir/testlist" <<'LIST'
# a comment line
allred 4 arg=-count=10
allred 4 arg=-count=100
bcasttest 10
reduce_local
op_coll 4 timeLimit=300 arg=-a arg=-b  # a trailing comment
alltoall1 8
p_bcast 4 strict=false
LIST
report with_kcoll.xml "allred|-count=10|4|pass" "allred|-count=100|4|fail" "bcasttest||4|fail" \
  "reduce_local||2|fail" "op_coll|-a -b|4|fail" "alltoall1||4|pass" "p_bcast|||fail"

# The failed tests' lines, with rank counts capped at 4 as runtests caps them and 2 where a line names none.
python3 "$tool" --select-failed "$dir/testlist" "$dir/with_kcoll.xml" 4 > "$dir/failed.testlist"
expected=$'allred 4 arg=-count=100\nbcasttest 10\nreduce_local\nop_coll 4 timeLimit=300 arg=-a arg=-b  # a trailing comment'
[[ "$(cat "$dir/failed.testlist")" == "$expected" ]] || fail "selected: $(cat "$dir/failed.testlist")"
# Uncapped, bcasttest 10 is not the test that ran on 4 ranks.
python3 "$tool" --select-failed "$dir/testlist" "$dir/with_kcoll.xml" 0 | grep -q bcasttest && fail "uncapped bcasttest"

# The rerun: all four fail alike without the library; p_bcast, which did not build (no rank count), is not rerun.
report alone_same.xml "allred|-count=100|4|fail" "bcasttest||4|fail" "reduce_local||2|fail" "op_coll|-a -b|4|fail"
out="$(python3 "$tool" "$dir/alone_same.xml" "$dir/with_kcoll.xml" "$dir/logs" --failed-only)" || fail "alike: $out"
grep -q "7 tests: 2 pass with kcoll, 1 did not build; of the 4 that fail with it, 0 pass with the MPI alone" \
  <<<"$out" || fail "$out"
grep -q "MPI_Allreduce: 5 calls, 3 on kcoll, 2 forwarded (op MPI_LAND 2)" <<<"$out" || fail "no summed line: $out"

# One passes without the library: a regression, named.
report alone_regress.xml "allred|-count=100|4|pass" "bcasttest||4|fail" "reduce_local||2|fail" "op_coll|-a -b|4|fail"
out="$(python3 "$tool" "$dir/alone_regress.xml" "$dir/with_kcoll.xml" "$dir/logs" --failed-only)" && fail "passed: $out"
grep -q "allred -count=100 on 4 ranks: pass with the MPI alone, fail with kcoll" <<<"$out" || fail "$out"
grep -q "of the 4 that fail with it, 1 pass with the MPI alone" <<<"$out" || fail "$out"

# The rerun left one out: named, and the comparison fails.
report alone_short.xml "allred|-count=100|4|fail" "bcasttest||4|fail" "reduce_local||2|fail"
out="$(python3 "$tool" "$dir/alone_short.xml" "$dir/with_kcoll.xml" "$dir/logs" --failed-only)" && fail "passed: $out"
grep -q "op_coll -a -b on 4 ranks: fail with kcoll, not run with the MPI alone" <<<"$out" || fail "$out"

# Whole runs, by position: a test passing alone and failing with kcoll fails the comparison; one the other way does not.
report alone_whole.xml "allred|-count=10|4|pass" "allred|-count=100|4|fail" "bcasttest||4|fail" \
  "reduce_local||2|fail" "op_coll|-a -b|4|fail" "alltoall1||4|fail" "p_bcast|||fail"
out="$(python3 "$tool" "$dir/alone_whole.xml" "$dir/with_kcoll.xml" "$dir/logs")" || fail "whole: $out"
grep -q "7 tests: 1 pass with the MPI alone, 2 with kcoll; 0 fail with kcoll that pass without it" <<<"$out" || fail "$out"
out="$(python3 "$tool" "$dir/with_kcoll.xml" "$dir/alone_whole.xml" "$dir/logs")" && fail "reversed passed: $out"
grep -q "alltoall1  on 4 ranks: pass with the MPI alone, fail with kcoll" <<<"$out" || fail "$out"
report alone_fewer.xml "allred|-count=10|4|pass"
out="$(python3 "$tool" "$dir/alone_fewer.xml" "$dir/with_kcoll.xml" "$dir/logs")" && fail "fewer passed: $out"
grep -q "the runs ran 1 and 7 tests" <<<"$out" || fail "$out"
echo "mpich_coll_suite_test: passed"
