#!/usr/bin/env bash
# The cg binary as a user runs it: --ranks 2 starts the ranks under mpirun itself; both reductions, and pipelined CG,
# converge in the same number of iterations; the per-slab norms are printed; a bad flag is an error naming it.
set -uo pipefail
cg="$1"
fail() { echo "FAILED: $*"; exit 1; }
export TMPDIR="${TEST_TMPDIR:-/tmp}"
out_kcoll="$("$cg" --ranks 2 --n 24 --collectives kcoll 2>&1)" || fail "kcoll run exited $?: $out_kcoll"
out_mpi="$("$cg" --ranks 2 --n 24 --collectives mpi 2>&1)" || fail "mpi run exited $?: $out_mpi"
echo "$out_kcoll"
echo "$out_mpi"
iterations() { sed -n 's/^cg: \([0-9]*\) iterations.*/\1/p' <<<"$1"; }
[[ -n "$(iterations "$out_kcoll")" ]] || fail "no iteration count"
[[ "$(iterations "$out_kcoll")" == "$(iterations "$out_mpi")" ]] || fail "kcoll and mpi iterations differ"
grep -q "dot products summed with kcoll (auto)" <<<"$out_kcoll" || fail "kcoll run does not say what it reduced with"
grep -q "dot products summed with MPI_Allreduce" <<<"$out_mpi" || fail "mpi run does not say what it reduced with"
grep -Eq "ms per iteration, reductions [0-9.]+% of the time" <<<"$out_kcoll" || fail "no timing line"
out_pipelined="$("$cg" --ranks 2 --n 24 --collectives kcoll --variant pipelined 2>&1)" ||
  fail "pipelined run exited $?: $out_pipelined"
echo "$out_pipelined"
[[ "$(iterations "$out_pipelined")" == "$(iterations "$out_kcoll")" ]] || fail "pipelined and classic iterations differ"
grep -q "pipelined CG, dot products summed with kcoll (auto)" <<<"$out_pipelined" || fail "pipelined run unnamed"
grep -Eq "^cg: \|x\|\^2 per slab of ranks along x \(Split\): [0-9.e+-]+, [0-9.e+-]+$" <<<"$out_kcoll" ||
  fail "no per-slab norms (2 slabs on 2 ranks)"
bad="$("$cg" --collectives nccl 2>&1)" && fail "a bad flag was accepted"
grep -q "cg: --collectives 'nccl': not kcoll or mpi" <<<"$bad" || fail "the error does not name the flag: $bad"
echo "PASSED"
