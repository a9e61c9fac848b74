#!/usr/bin/env bash
# The MPI drop-in library on a plain MPI program:
#   drop_in_test.sh MPI_LAUNCH LIBKCOLL_MPI DROP_IN_CHECK [DROP_IN_CHECK_F90 [DROP_IN_NUMERICS [DROP_IN_CHECK_F08]]]
# On 2, 3 and 4 ranks: the program passes without the library, with it preloaded (and every call it makes with a
# type and op kcoll has, on a communicator of two or more ranks, runs on kcoll: KCOLL_DEBUG=INFO's lines at
# MPI_Finalize), and with it preloaded under KCOLL_MPI=off (every call forwarded). On 3 and 4 ranks, under
# KCOLL_NUMERICS=deterministic, the reductions of doubles that rounding changes have the rank-order fold's bits, all
# of them on kcoll; under KCOLL_NUMERICS=exact their bits are the same whichever ranks hold the terms (which plain MPI's
# are not). Then the Fortran programs (mpif.h, and `use mpi_f08`), built here with $MPIFORT (default mpifort, Open
# MPI's; mpifort.mpich for a library built against MPICH, with a launcher of MPICH's), with the library.
set -euo pipefail
launch="$1"
library="$(readlink -f "$2")"
check="$(readlink -f "$3")"
check_f90="${4:+$(readlink -f "$4")}"
numerics="${5:+$(readlink -f "$5")}"
check_f08="${6:+$(readlink -f "$6")}"
out="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "drop_in_test: $*" >&2; exit 1; }

for n in 2 3 4; do
  "$launch" "$n" "$check" >"$out/plain.txt" 2>&1 || { cat "$out/plain.txt"; fail "$n ranks without the library"; }
  grep -q "drop_in_check on $n ranks: PASSED" "$out/plain.txt" || fail "$n ranks without the library: no PASSED line"

  # kcoll's INFO lines, the library's among them (rank 0's), go to a file per rank.
  rm -f "$out"/kcoll.*.log
  KCOLL_DEBUG=INFO KCOLL_DEBUG_FILE="$out/kcoll.%r.log" "$launch" "$n" env LD_PRELOAD="$library" "$check" --expect-kcoll >"$out/kcoll.txt" 2>&1 \
    || { cat "$out/kcoll.txt"; fail "$n ranks with the library"; }
  grep -q "drop_in_check on $n ranks: PASSED" "$out/kcoll.txt" || { cat "$out/kcoll.txt"; fail "$n ranks: no PASSED line"; }
  grep -o "kcoll_mpi: .*" "$out/kcoll.0.log"
  for f in MPI_Allreduce MPI_Reduce MPI_Scan MPI_Exscan MPI_Reduce_scatter_block MPI_Bcast MPI_Allgather \
           MPI_Alltoall MPI_Gather MPI_Scatter MPI_Barrier MPI_Allgatherv MPI_Alltoallv MPI_Gatherv MPI_Scatterv \
           MPI_Reduce_scatter MPI_Iallreduce MPI_Ireduce MPI_Iscan MPI_Iexscan MPI_Ibcast MPI_Iallgather \
           MPI_Ialltoall MPI_Igather MPI_Iscatter MPI_Ireduce_scatter_block MPI_Iallgatherv MPI_Ialltoallv \
           MPI_Igatherv MPI_Iscatterv MPI_Ireduce_scatter MPI_Ibarrier; do
    line="$(grep -o "kcoll_mpi: $f: .*" "$out/kcoll.0.log")" || fail "$n ranks: no line for $f"
    taken="$(sed -E 's/.* calls, ([0-9]+) on kcoll.*/\1/' <<<"$line")"
    [[ "$taken" -gt 0 ]] || fail "$n ranks: $f never ran on kcoll: $line"
  done
  # The forwarded calls, each with its reason.
  reduce_line="$(grep -o "kcoll_mpi: MPI_Allreduce: .*" "$out/kcoll.0.log")"
  for reason in "type MPI_SHORT" "op MPI_BAND" "a user op" "type MPI_DOUBLE_INT" "one rank"; do
    [[ "$reduce_line" == *"$reason"* ]] || fail "$n ranks: MPI_Allreduce's line lacks the reason '$reason': $reduce_line"
  done
  grep -q "MPI_Bcast with an invalid root: .*kcoll.*root" "$out/kcoll.txt" || fail "$n ranks: no kcoll error string"

  rm -f "$out"/kcoll.*.log
  KCOLL_MPI=off KCOLL_DEBUG=INFO KCOLL_DEBUG_FILE="$out/kcoll.%r.log" "$launch" "$n" env LD_PRELOAD="$library" "$check" >"$out/off.txt" 2>&1 \
    || { cat "$out/off.txt"; fail "$n ranks with KCOLL_MPI=off"; }
  grep -q "drop_in_check on $n ranks: PASSED" "$out/off.txt" || fail "$n ranks with KCOLL_MPI=off: no PASSED line"
  grep -q "kcoll_mpi: MPI_Allreduce: .* 0 on kcoll" "$out/kcoll.0.log" || fail "$n ranks with KCOLL_MPI=off: no line"
  if grep -o "kcoll_mpi: .*" "$out/kcoll.0.log" | grep -v " 0 on kcoll" >/dev/null; then
    grep -o "kcoll_mpi: .*" "$out/kcoll.0.log"
    fail "$n ranks with KCOLL_MPI=off: some call ran on kcoll"
  fi
  echo "drop_in_test: $n ranks: passed without the library, with it, and with KCOLL_MPI=off"
done

# KCOLL_NUMERICS=deterministic and exact reach the applications' calls through the library.
if [[ -n "$numerics" ]]; then
  for n in 3 4; do
    rm -f "$out"/kcoll.*.log
    KCOLL_NUMERICS=deterministic KCOLL_DEBUG=INFO KCOLL_DEBUG_FILE="$out/kcoll.%r.log" "$launch" "$n" \
      env LD_PRELOAD="$library" "$numerics" >"$out/numerics.txt" 2>&1 || { cat "$out/numerics.txt"; fail "numerics on $n ranks"; }
    grep -q "drop_in_numerics on $n ranks: PASSED" "$out/numerics.txt" || { cat "$out/numerics.txt"; fail "numerics on $n ranks"; }
    for f in MPI_Allreduce MPI_Reduce MPI_Scan MPI_Exscan MPI_Reduce_scatter_block MPI_Reduce_scatter; do
      line="$(grep -o "kcoll_mpi: $f: .*" "$out/kcoll.0.log")" || fail "numerics on $n ranks: no line for $f"
      calls="$(sed -E 's/.*: ([0-9]+) calls.*/\1/' <<<"$line")"
      taken="$(sed -E 's/.* calls, ([0-9]+) on kcoll.*/\1/' <<<"$line")"
      [[ "$taken" -gt 0 && "$taken" == "$calls" ]] || fail "numerics on $n ranks: not every $f ran on kcoll: $line"
    done
    echo "drop_in_test: numerics=deterministic on $n ranks: the rank-order fold's bits, every call on kcoll"
    # KCOLL_NUMERICS=exact: the bits of the terms alone, whichever ranks hold them.
    rm -f "$out"/kcoll.*.log
    KCOLL_NUMERICS=exact KCOLL_DEBUG=INFO KCOLL_DEBUG_FILE="$out/kcoll.%r.log" "$launch" "$n" \
      env LD_PRELOAD="$library" "$numerics" exact >"$out/exact.txt" 2>&1 || { cat "$out/exact.txt"; fail "exact on $n ranks"; }
    grep -q "drop_in_numerics on $n ranks: PASSED (exact" "$out/exact.txt" || { cat "$out/exact.txt"; fail "exact on $n ranks"; }
    for f in MPI_Allreduce MPI_Reduce MPI_Reduce_scatter_block MPI_Reduce_scatter; do
      line="$(grep -o "kcoll_mpi: $f: .*" "$out/kcoll.0.log")" || fail "exact on $n ranks: no line for $f"
      calls="$(sed -E 's/.*: ([0-9]+) calls.*/\1/' <<<"$line")"
      taken="$(sed -E 's/.* calls, ([0-9]+) on kcoll.*/\1/' <<<"$line")"
      [[ "$taken" -gt 0 && "$taken" == "$calls" ]] || fail "exact on $n ranks: not every $f ran on kcoll: $line"
    done
    # The negative control: plain MPI sums in an order of its own, and the check sees it.
    if "$launch" "$n" "$numerics" exact >"$out/exact_mpi.txt" 2>&1; then
      cat "$out/exact_mpi.txt"
      fail "exact on $n ranks: plain MPI passed the order-independence check, which cannot then fail"
    fi
    echo "drop_in_test: numerics=exact on $n ranks: the same bits whichever ranks hold the terms, every call on kcoll"
  done
fi

# Fortran (mpif.h): Open MPI's Fortran bindings call PMPI_ directly, and the library defines the Fortran names too;
# MPICH's call the C names, which the library defines.
if [[ -z "$check_f90" ]]; then
  echo "drop_in_test: Fortran skipped: no Fortran program given"
  exit 0
fi
mpifort="${MPIFORT:-mpifort}"
if ! command -v "$mpifort" >/dev/null; then
  echo "drop_in_test: Fortran skipped: no $mpifort here"
  exit 0
fi
# mpif.h declares no interfaces: one routine takes buffers of several types, which gfortran 10 and later refuse
# without this flag.
"$mpifort" -fallow-argument-mismatch -o "$out/drop_in_check_f" "$check_f90" || fail "mpifort cannot build $check_f90"
for n in 2 4; do
  rm -f "$out"/kcoll.*.log
  KCOLL_DEBUG=INFO KCOLL_DEBUG_FILE="$out/kcoll.%r.log" "$launch" "$n" env LD_PRELOAD="$library" \
    "$out/drop_in_check_f" >"$out/f.txt" 2>&1 || { cat "$out/f.txt"; fail "Fortran on $n ranks with the library"; }
  grep -q "drop_in_check.f90 on $n ranks: PASSED" "$out/f.txt" || { cat "$out/f.txt"; fail "Fortran on $n ranks"; }
  grep -o "kcoll_mpi: .*" "$out/kcoll.0.log"
  for f in MPI_Allreduce MPI_Reduce MPI_Bcast MPI_Allgather MPI_Scan MPI_Barrier MPI_Iallreduce MPI_Iallgatherv \
           MPI_Ireduce_scatter_block MPI_Ibarrier; do
    line="$(grep -o "kcoll_mpi: $f: .*" "$out/kcoll.0.log")" || fail "Fortran on $n ranks: no line for $f"
    if [[ "$line" == *" 0 on kcoll"* ]]; then fail "Fortran on $n ranks: $f never ran on kcoll: $line"; fi
  done
  echo "drop_in_test: Fortran on $n ranks: passed with the library, every call on kcoll"
done

# `use mpi_f08`: Open MPI's f08 bindings call its ompi_*_f functions, MPICH's the C names or (without a buffer) their
# PMPI_ names under f08 names of their own; the library defines each.
if [[ -z "$check_f08" ]]; then
  echo "drop_in_test: mpi_f08 skipped: no f08 program given"
  exit 0
fi
"$mpifort" -o "$out/drop_in_check_f08" "$check_f08" || fail "mpifort cannot build $check_f08"
for n in 2 4; do
  rm -f "$out"/kcoll.*.log
  KCOLL_DEBUG=INFO KCOLL_DEBUG_FILE="$out/kcoll.%r.log" "$launch" "$n" env LD_PRELOAD="$library" \
    "$out/drop_in_check_f08" >"$out/f08.txt" 2>&1 || { cat "$out/f08.txt"; fail "mpi_f08 on $n ranks with the library"; }
  grep -q "drop_in_check_f08 on $n ranks: PASSED" "$out/f08.txt" || { cat "$out/f08.txt"; fail "mpi_f08 on $n ranks"; }
  for f in MPI_Allreduce MPI_Bcast MPI_Allgather MPI_Barrier MPI_Iallreduce MPI_Ibarrier; do
    line="$(grep -o "kcoll_mpi: $f: .*" "$out/kcoll.0.log")" || fail "mpi_f08 on $n ranks: no line for $f"
    if [[ "$line" == *" 0 on kcoll"* ]]; then fail "mpi_f08 on $n ranks: $f never ran on kcoll: $line"; fi
  done
  echo "drop_in_test: mpi_f08 on $n ranks: passed with the library, every call on kcoll"
done
