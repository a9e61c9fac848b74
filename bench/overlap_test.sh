#!/usr/bin/env bash
# //bench:overlap as a user runs it (it launches its own mpirun): both progress modes on 2 ranks over two small sizes,
# every row exact and its columns present; thread progress over the MPI transport (MPI_THREAD_MULTIPLE); a bad option
# is an error naming it, exit 2.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/shell_test_env.sh"
overlap="$1"
for progress in thread eager; do
  "$overlap" --ranks 2 -b 8 -e 1K -f 128 -n 5 -w 1 --rounds 1 --progress "$progress" >"$out" 2>"$err" ||
    fail "--progress $progress exited $?"
  grep -q "^# overlap of a nonblocking AllReduce (float32 sum) on 2 ranks; kcoll: .*$progress" "$out" ||
    fail "no header naming progress $progress"
  rows=$(grep -cE '^ +0 +[0-9]+ .* yes$' "$out" || true)
  [[ "$rows" -eq 2 ]] || fail "expected 2 exact rows (8 B and 1 KiB), got $rows"
done
# A progress thread over the MPI transport calls MPI beside the main thread: the ranks must run MPI_THREAD_MULTIPLE.
KCOLL_TRANSPORT=mpi "$overlap" --ranks 2 -b 8 -e 8 -n 5 -w 1 --rounds 1 --progress thread >"$out" 2>"$err" ||
  fail "thread progress over the MPI transport exited $?"
grep -q "kcoll: mpi, .*thread" "$out" || fail "no header naming the MPI transport and thread progress"
set +e
"$overlap" --ranks 2 --compute_factor -1 >"$out" 2>"$err"
code=$?
set -e
[[ $code -eq 2 ]] || fail "a bad --compute_factor exited $code, not 2"
grep -q -- "--compute_factor: '-1' is not valid" "$err" || fail "the error does not name the option"
echo "overlap test passed"
