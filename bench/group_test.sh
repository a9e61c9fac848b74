#!/usr/bin/env bash
# //bench:group as a user runs it (it launches its own mpirun): 2 ranks, two rounds, every set exact and its columns
# present; a bad option is an error naming it, exit 2.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/shell_test_env.sh"
group="$1"
"$group" --ranks 2 --calls 5 -b 24 -n 20 --rounds 2 >"$out" 2>"$err" || fail "exited $?"
grep -q "^# 5 AllReduces of 24 B (float32 sum) per set on 2 ranks; kcoll: " "$out" || fail "no header"
grep -q "kcoll_us *group_us *mpi_us" "$out" || fail "no column names"
rows=$(grep -cE '^ +[01] +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +yes$' "$out" || true)
[[ "$rows" -eq 2 ]] || fail "expected 2 exact rounds, got $rows"
set +e
"$group" --ranks 2 --calls 0 >"$out" 2>"$err"
code=$?
set -e
[[ $code -eq 2 ]] || fail "a bad --calls exited $code, not 2"
grep -q -- "--calls: '0' is not valid" "$err" || fail "the error does not name the option"
echo "group test passed"
