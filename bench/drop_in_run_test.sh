#!/usr/bin/env bash
# //bench:drop_in on 2 ranks, tiny: a row per size with the four times and the difference.
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export TMPDIR="${TEST_TMPDIR:-/tmp}" PMIX_MCA_gds=hash OMPI_MCA_btl_vader_backing_directory="${TEST_TMPDIR:-/tmp}"
out="$("$1" --ranks 2 -b 8 -e 64K -f 64 -n 5 -w 1 --rounds 2)"
echo "$out"
rows="$(grep -cE '^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +-?[0-9.]+ +[0-9.]+$' <<<"$out")"
[[ "$rows" -eq 3 ]] || { echo "drop_in_run_test: expected 3 rows (8 B, 512 B, 32 KiB), got $rows"; exit 1; }

# The nonblocking forms: the same rows, the library's MPI_Iallreduce on kcoll (its line at MPI_Finalize).
out="$(KCOLL_DEBUG=INFO "$1" --ranks 2 -b 8 -e 64K -f 64 -n 5 -w 1 --rounds 2 --nonblocking 1 2>&1)"
grep -q "MPI_Iallreduce + MPI_Wait through the drop-in library" <<<"$out" || { echo "$out"; exit 1; }
rows="$(grep -cE '^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +-?[0-9.]+ +[0-9.]+$' <<<"$out")"
[[ "$rows" -eq 3 ]] || { echo "drop_in_run_test: --nonblocking 1: expected 3 rows, got $rows"; exit 1; }
grep -qE "kcoll_mpi: MPI_Iallreduce: ([0-9]+) calls, \1 on kcoll" <<<"$out" \
  || { grep "kcoll_mpi" <<<"$out"; echo "drop_in_run_test: not every MPI_Iallreduce ran on kcoll"; exit 1; }
# A value other than 0 or 1 is refused, naming the flag.
if bad="$("$1" --ranks 2 --nonblocking yes 2>&1)"; then echo "drop_in_run_test: --nonblocking yes accepted"; exit 1; fi
grep -q "nonblocking" <<<"$bad" || { echo "$bad"; echo "drop_in_run_test: the error does not name --nonblocking"; exit 1; }
echo "drop_in_run_test: passed"
