#!/usr/bin/env bash
# Kokkos or MPI finalised before a kcoll communicator: the next collective is a FailedPrecondition that says which
# and what to do, and destroying the communicator afterwards neither crashes nor hangs. And a communicator created
# before MPI_Init: a FailedPrecondition saying so, no crash (then the MPI case again).
set -uo pipefail
launcher="$1"
job="$2"
failures=0
for first in kokkos mpi init; do
  out="$(timeout -k 5 60 "$launcher" 2 "$job" "$first" 2>&1)"
  status=$?
  echo "--- $first: exit $status"
  echo "$out" | grep "finalize_order\|rror" | sed 's/^/    /'
  want="FAILED_PRECONDITION: all_reduce: $( [[ $first == kokkos ]] && echo Kokkos || echo MPI) was finalized before the communicator"
  early="before MPI_Init: FAILED_PRECONDITION: MPI is not initialized: call MPI_Init first"
  early_count=2
  [[ $first == init ]] || early_count=0
  if [[ $status -eq 0 ]] && [[ "$(grep -c "$want" <<<"$out")" == 2 ]] && [[ "$(grep -c "communicator destroyed" <<<"$out")" == 2 ]] &&
    [[ "$(grep -c "$early" <<<"$out")" == "$early_count" ]]; then
    echo "ok: $first"
  else
    echo "FAILED: $first (want exit 0, '$want' and 'communicator destroyed' on both ranks; for init also '$early')"
    failures=$((failures + 1))
  fi
done
exit $((failures > 0))
