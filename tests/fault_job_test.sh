#!/usr/bin/env bash
# Faults that end the job, through the test launcher: fault_job_test.sh LAUNCHER FAULT_JOB
#   1. KCOLL_ON_TIMEOUT=abort: a stalled rank ends the job, non-zero, within timeout + 5 s, with the error printed.
#   2. A rank killed (SIGKILL) in the middle of a collective ends the job, non-zero, with no timeout set (the
#      launcher terminates the others) and with one (the others also report the failure).
set -uo pipefail
launcher="$1"
job="$2"
failures=0
out="${TEST_TMPDIR:-/tmp}/fault_job.out"

# [VAR=VALUE...] run LIMIT_S NAME ARGS...: runs the job on 3 ranks under a hard limit, with the variables given before
# `run` in its environment; sets status and elapsed.
run() {
  local limit="$1" name="$2" start end
  shift 2
  start=$(date +%s.%N)
  timeout -k 5 "$limit" "$launcher" 3 "$job" "$@" >"$out" 2>&1
  status=$?
  end=$(date +%s.%N)
  elapsed=$(python3 -c "print(round($end - $start, 2))")
  echo "--- $name: exit $status after ${elapsed} s"
  sed 's/^/    /' "$out" | grep -v "^    *$" | head -20
}

check() {  # check DESCRIPTION CONDITION...
  local what="$1"
  shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; failures=$((failures + 1)); fi
}

under() { python3 -c "import sys; sys.exit(0 if $1 < $2 else 1)"; }

# 1. Abort on timeout: rank 1 would sleep 60 s; the others give up after 1 s and end the job.
KCOLL_TIMEOUT=1s KCOLL_ON_TIMEOUT=abort run 60 "stalled rank, KCOLL_TIMEOUT=1s KCOLL_ON_TIMEOUT=abort" stall 60
check "the job ends non-zero" test "$status" -ne 0
check "within timeout + 5 s (${elapsed} s)" under "$elapsed" 6
check "the error is printed" grep -q "DEADLINE_EXCEEDED: all_reduce (ring) on rank" "$out"
check "and says why the job ended" grep -q "KCOLL_ON_TIMEOUT=abort: ending the job" "$out"
check "no rank got through" bash -c "! grep -q 'fault_job: done' '$out'"

# 2. A killed rank, with and without a timeout.
KCOLL_TIMEOUT=0 run 60 "rank 1 killed mid-collective, no timeout" kill
check "the job ends non-zero" test "$status" -ne 0
check "the launcher ended it, not the 60 s limit (${elapsed} s)" under "$elapsed" 30
check "no rank got through" bash -c "! grep -q 'fault_job: done' '$out'"

KCOLL_TIMEOUT=2s run 60 "rank 1 killed mid-collective, KCOLL_TIMEOUT=2s" kill
check "the job ends non-zero" test "$status" -ne 0
check "within the timeout + 5 s (${elapsed} s)" under "$elapsed" 20
check "no rank got through" bash -c "! grep -q 'fault_job: done' '$out'"

echo "$failures check(s) failed"
exit $((failures > 0))
