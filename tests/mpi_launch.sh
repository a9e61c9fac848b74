#!/usr/bin/env bash
# Runs a test binary as N MPI ranks: mpi_launch.sh N BINARY [ARGS...]
# Used by the mpi_test() rule. Ranks may outnumber cores: ranks yield when idle instead of spinning, and each
# rank's OpenMP uses one thread unless OMP_NUM_THREADS says otherwise.
set -euo pipefail
nranks="$1"
shift
binary="$1"
shift
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
# The launcher of the MPI the test was built against (mpi_test sets KCOLL_BUILT_MPIRUN), unless KCOLL_MPIRUN says.
mpirun="${KCOLL_MPIRUN:-${KCOLL_BUILT_MPIRUN:-mpirun}}"
# Several jobs may run at once (bazel test runs tests in parallel): give each its own session directory, and keep
# PMIx's shared-memory data store out of the way of the others.
export TMPDIR="${TEST_TMPDIR:-${TMPDIR:-/tmp}}"
export PMIX_MCA_gds=hash
# Sandboxed jobs can get the same job id; shared-memory segments must not meet in /dev/shm.
export OMPI_MCA_btl_vader_backing_directory="$TMPDIR"
# Ranks start on this machine and inherit this environment (KCOLL_*, OMP_*). MPICH's Hydra runs more ranks than cores
# and leaves them unbound without being told (and knows no --oversubscribe).
# (Read whole: a grep -q that stops reading would fail the pipeline under pipefail.)
if [[ "$("$mpirun" --version 2>&1 || true)" == *HYDRA* ]]; then
  exec "$mpirun" -np "$nranks" "$binary" "$@"
fi
exec "$mpirun" --oversubscribe --bind-to none -np "$nranks" "$binary" "$@"
