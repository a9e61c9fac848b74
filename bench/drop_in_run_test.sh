#!/usr/bin/env bash
# //bench:drop_in on 2 ranks, tiny: a row per size with the three times and the difference.
set -euo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export TMPDIR="${TEST_TMPDIR:-/tmp}" PMIX_MCA_gds=hash OMPI_MCA_btl_vader_backing_directory="${TEST_TMPDIR:-/tmp}"
out="$("$1" --ranks 2 -b 8 -e 64K -f 64 -n 5 -w 1 --rounds 2)"
echo "$out"
rows="$(grep -cE '^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +-?[0-9.]+ +[0-9.]+$' <<<"$out")"
[[ "$rows" -eq 3 ]] || { echo "drop_in_run_test: expected 3 rows (8 B, 512 B, 32 KiB), got $rows"; exit 1; }
