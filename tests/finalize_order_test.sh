#!/usr/bin/env bash
# Kokkos or MPI finalised before a kcoll communicator: the next collective is a FailedPrecondition that says which
# and what to do, and destroying the communicator afterwards neither crashes nor hangs.
set -uo pipefail
launcher="$1"
job="$2"
failures=0
for first in kokkos mpi; do
  out="$(timeout -k 5 60 "$launcher" 2 "$job" "$first" 2>&1)"
  status=$?
  echo "--- $first finalised first: exit $status"
  echo "$out" | grep "finalize_order\|rror" | sed 's/^/    /'
  want="FAILED_PRECONDITION: all_reduce: $( [[ $first == kokkos ]] && echo Kokkos || echo MPI) was finalized before the communicator"
  if [[ $status -eq 0 ]] && [[ "$(grep -c "$want" <<<"$out")" == 2 ]] && [[ "$(grep -c "communicator destroyed" <<<"$out")" == 2 ]]; then
    echo "ok: $first"
  else
    echo "FAILED: $first (want exit 0, '$want' and 'communicator destroyed' on both ranks)"
    failures=$((failures + 1))
  fi
done
exit $((failures > 0))
