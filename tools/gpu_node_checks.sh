#!/usr/bin/env bash
# Runs kcoll's GPU checks from an unpacked GPU bundle (tools/gpu_bundle.sh packs this file as run_checks.sh) on a
# node with an NVIDIA driver and nothing else, and writes one transcript per part into OUT_DIR:
#   node.txt        the GPU, driver, CUDA and NCCL versions, then one line per step (status, seconds)
#   kernels.txt     //bench:kernels --exec cuda: Kokkos sum of every type and Kokkos copy against cudaMemcpy
#   tests.txt       the GPU collective tests: 1 rank, then 2 and 4 MPI ranks sharing the node's GPUs
#   nccl.txt        the NCCL and CUDA IPC transport tests (1, 2, 4 ranks), the kernel and placement tests, the MPI
#                   drop-in library on device buffers
#   sanitizer.txt   compute-sanitizer memcheck on the collective tests, racecheck on the kernels
#   all_reduce.txt  the AllReduce sweep with device buffers: kcoll's rows over NCCL beside NCCL's own
#   cuda_ipc.txt    AllReduce on 2 and 4 ranks sharing the GPU over CUDA IPC beside MPI staging, without and with MPS,
#                   and `direct` on registered device memory
#   overlap.txt     //bench:overlap on the node's cores: IAllReduce against MPI_Iallreduce behind a computation
#   verify.txt      //tools:verify on 2 ranks: the correctness matrix, cuda columns included (and verify.json);
#                   on 4 ranks over cuda_ipc
#   cpu.txt         with --cpu, instead of the above: the node's CPU cores alone, AllReduce on host buffers on 2, 4,
#                   8 and 16 ranks (as many as it has cores), auto beside MPI_Allreduce, in and out of place, 8 B to
#                   64 MiB, one Serial rank per core, the latency floor's row beside them up to 32 B; then 8 B
#                   100 calls back to back beside the floor's row (and cpu_*.json)
#   cluster.txt     with --cluster (alone or after --cpu's sweep): hosts of ranks on the node's own cores, network
#                   namespaces joined by a bridge (cluster.sh; needs root, else skipped), each rank a core of its own:
#                   2 hosts of 2 unshaped and at 1 Gbit/s, calibrated in the run, every AllReduce algorithm against
#                   the model's price with 10 calls and with one call per timed iteration, beside MPI, then auto
#                   and hierarchical against MPI from 4 KiB to 64 MiB (16 MiB at 1 Gbit/s); 3 hosts of 2
#                   and 2 hosts of 4 unshaped, ring, both hierarchical schedules and auto against MPI (and
#                   cluster_*.json: the profiles it measured, and each run's results)
#
#   run_checks.sh OUT_DIR [--quick] [--cpu] [--cluster]
#       --quick: smaller sweeps (a minute, for a first look); --cpu: the CPU sweep alone, no GPU step (about 3
#       minutes on 16 cores; --quick: up to 1 MiB); --cluster: the hosts alone (under 8 minutes: 7.8 on 2 cores
#       that every host shared; --quick: 2 hosts of 2 unshaped up to 256 KiB, 1 minute); --cpu --cluster: both
#
# Every step runs under a time limit and the script goes on after a failure; it exits non-zero if any step failed.
# Timings are taken with nothing else on the GPU: the benchmarks run alone, the tests after them.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: run_checks.sh OUT_DIR [--quick] [--cpu] [--cluster]}"
quick=0
cpu_only=0
cluster=0
for arg in "${@:2}"; do
  case "$arg" in
    --quick) quick=1 ;;
    --cpu) cpu_only=1 ;;
    --cluster) cluster=1 ;;
    *) echo "run_checks.sh: unknown argument '$arg' (--quick, --cpu, --cluster)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
rm -f "$out/.failed"
# shellcheck disable=SC1091
source "$here/env.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# No binding (ranks share the node's cores with the GPU's threads); no single-copy (CMA is refused in some VMs).
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none GTEST_COLOR=no
mpirun=(mpirun --oversubscribe --bind-to none)
failed=0

log() { printf '%s\n' "$*" | tee -a "$out/node.txt"; }

# step NAME LIMIT_S TRANSCRIPT COMMAND...: runs COMMAND under a limit, appends its output to TRANSCRIPT. With
# SKIP_IF set, a failure whose output contains that text is a skip (a node that cannot run the step), not a failure.
step() {
  local name="$1" limit="$2" file="$3" start rc
  shift 3
  start=$(date +%s.%N)
  printf '\n### %s\n$ %s\n' "$name" "$*" >> "$out/$file"
  local part
  part="$(mktemp)"
  timeout -k 10 "$limit" "$@" > "$part" 2>&1
  rc=$?
  cat "$part" >> "$out/$file"
  local took
  took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
  local verdict=ok
  if ((rc == 124 || rc == 137)); then
    verdict="TIMEOUT after ${limit}s"
  elif ((rc != 0)) && [[ -n "${SKIP_IF:-}" ]] && grep -qF "$SKIP_IF" "$part"; then
    verdict="skipped: $SKIP_IF"
    rc=0
  elif ((rc != 0)); then
    verdict="FAILED rc=$rc"
  fi
  rm -f "$part"
  ((rc == 0)) || { failed=1; touch "$out/.failed"; }
  printf '%-58s %-22s %7ss\n' "$name" "$verdict" "$took" | tee -a "$out/node.txt"
  return 0
}

# The node: GPU, driver, CUDA (the driver's and the bundle's runtime), NCCL (the library env.sh found).
nccl_version() {
  python3 - << 'EOF' 2> /dev/null || echo "unknown (libnccl.so.2 not loadable)"
import ctypes
lib = ctypes.CDLL("libnccl.so.2")
v = ctypes.c_int()
lib.ncclGetVersion(ctypes.byref(v))
c = v.value
print("%d.%d.%d" % (c // 10000, c // 100 % 100, c % 100) if c >= 20900 else c)
EOF
}
{
  echo "# kcoll GPU checks, $(date -u '+%Y-%m-%d %H:%M UTC'), bundle: $(head -n2 "$here/README" | tr '\n' ' ')"
  echo "gpu:     $(nvidia-smi --query-gpu=name,memory.total,compute_cap,pci.bus_id --format=csv,noheader 2>&1)"
  driver_cuda="$(nvidia-smi 2> /dev/null | sed -n 's/.*CUDA Version: \([0-9.]*\).*/\1/p')"
  echo "driver:  $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>&1), CUDA (driver) $driver_cuda"
  echo "runtime: $(ls "$here/lib" | sed -n 's/^libcudart\.so\.\([0-9.]*\)$/CUDA runtime \1 (bundled)/p' | head -n1)"
  echo "nccl:    $(nccl_version)"
  ompi_version="$(ompi_info --version 2> /dev/null | head -n1 | awk '{print $NF}')"
  echo "host:    $(nproc) cores, kernel $(uname -r), Open MPI $ompi_version (bundled)"
  echo "clocks:  $(nvidia-smi --query-gpu=clocks.sm,clocks.mem,clocks.max.sm,power.limit --format=csv,noheader 2>&1)"
  echo
} | tee "$out/node.txt"

# --cpu: the node as a CPU machine, a second memory system and a many-core node beside the 2-core VM. Each run
# measures its own bounds (the memory-bound copy rate and the latency floor, the floor also as a row up to 32 B) and
# prints auto against MPI per size; 8 bytes are timed back to back too, beside the floor's row.
# --cluster: hosts on the node's cores, a core per rank (a real node's ranks do not share cores, as the VM's
# oversubscribed hosts do): the model's error per algorithm and kcoll against MPI between hosts. Each layout is
# calibrated in its first run (--calibrate: the profile the model then prices with, kept beside the transcript).
# tools/cluster.sh from the bundle, for a cluster of this script's own (its namespaces are named kcg-*).
cluster_sh=(env KCOLL_CLUSTER=kcg "$here/cluster.sh")
cluster_layout() {  # cluster_layout HOSTS RANKS: brings the layout up; fails (saying why) where it cannot
  local up
  up="$("${cluster_sh[@]}" up "$1" "$2" 2>&1)"
  printf '\n### tools/cluster.sh up %s %s\n%s\n' "$1" "$2" "$up" >> "$out/cluster.txt"
  if grep -q 'skipped:' <<< "$up"; then
    log "cluster: $1 hosts of $2 skipped ($(sed -n 's/.*skipped: //p' <<< "$up" | head -n1))"
    return 1
  fi
  grep -q '^\[cluster\] up:' <<< "$up" && return 0
  log "cluster: $1 hosts of $2 did not come up (cluster.txt)"
  touch "$out/.failed"
  failed=1
  return 1
}
cluster_checks() {
  local cores rounds=2
  cores=$(nproc)
  ((quick)) && rounds=1
  local algos=ring,tree,hierarchical,double_binary_tree,halving_doubling,recursive_doubling,auto,mpi
  trap '"${cluster_sh[@]}" down > /dev/null 2>&1' EXIT
  if ((cores < 4)); then
    log "cluster: skipped (this node has $cores cores; 2 hosts of 2 take 4)"
  elif cluster_layout 2 2; then
    local link
    for link in off 1gbit; do
      ((quick)) && [[ "$link" == 1gbit ]] && continue
      # The largest sizes: of the calibration, of the model runs with 10 calls and with one call per iteration, and
      # of auto against MPI. At 1 Gbit/s everything stops lower: a 16 MiB AllReduce takes a quarter of a second.
      local cal_max=16M top10=2M top1=16M goal_top=64M cal="$out/cluster_2x2_$link.json"
      [[ "$link" == 1gbit ]] && cal_max=1M top10=256K top1=256K goal_top=16M
      ((quick)) && top10=256K top1=256K goal_top=256K
      # The links come up unshaped; a node without tbf shaping would run the 1 Gbit/s steps unshaped, under the wrong
      # name: they are left out.
      if [[ "$link" != off ]]; then
        local shaped
        shaped="$("${cluster_sh[@]}" shape "$link" 2>&1)"
        printf '%s\n' "$shaped" >> "$out/cluster.txt"
        grep -q '^\[cluster\] shape:' <<< "$shaped" || { log "cluster: links $link left out ($shaped)"; continue; }
      fi
      step "2 hosts of 2, links $link: calibrated, every algorithm against the model, 10 calls per iteration" 300 \
        cluster.txt "${cluster_sh[@]}" run "$here/bin/all_reduce" --calibrate "$cal" --calibrate_max "$cal_max" \
        --model -I 1 --algo "$algos" -b 8 -e "$top10" -f 8 -n 10 -w 2 -m 10 --rounds "$rounds" \
        --json "$out/cluster_2x2_${link}_10calls.json"
      [[ -s "$cal" ]] || { log "cluster: no profile at $cal; the runs after the calibration are left out"; continue; }
      step "2 hosts of 2, links $link: the same profile, one call per iteration" 150 cluster.txt \
        "${cluster_sh[@]}" run "$here/bin/all_reduce" --profile "$cal" --model -I 1 --algo "$algos" -b 8 -e "$top1" \
        -f 8 -n 20 -w 2 -m 1 --rounds "$rounds" --json "$out/cluster_2x2_${link}_1call.json"
      # The goal between hosts: auto at MPI's speed or better at every size from 4 KiB to 64 MiB.
      step "2 hosts of 2, links $link: auto and hierarchical against MPI, 4K..$goal_top" 150 cluster.txt \
        "${cluster_sh[@]}" run "$here/bin/all_reduce" --profile "$cal" -I 1 --algo auto,hierarchical,mpi -b 4K \
        -e "$goal_top" -f 4 -n 10 -w 2 --rounds "$rounds" --json "$out/cluster_2x2_${link}_auto_mpi.json"
    done
    "${cluster_sh[@]}" down >> "$out/cluster.txt" 2>&1
  fi
  local hosts ranks layout
  for layout in "3 2" "2 4"; do
    ((quick)) && break
    read -r hosts ranks <<< "$layout"
    if ((hosts * ranks > cores)); then
      log "cluster: $hosts hosts of $ranks skipped (this node has $cores cores)"
      continue
    fi
    cluster_layout "$hosts" "$ranks" || continue
    # hierarchical_ring_tree beside hierarchical: on 3 hosts of 2 sharing 2 cores, auto ran hierarchical at 64 KiB
    # at 0.81-1.00x MPI where hierarchical_ring_tree ran 1.17-1.45x (docs/cluster.md).
    step "$hosts hosts of $ranks, unshaped: calibrated, ring, hierarchical ones and auto against MPI" 180 cluster.txt \
      "${cluster_sh[@]}" run "$here/bin/all_reduce" --calibrate "$out/cluster_${hosts}x${ranks}_off.json" \
      --calibrate_max 16M --model -I 1 --algo ring,hierarchical,hierarchical_ring_tree,auto,mpi -b 4K -e 16M -f 8 \
      -n 10 -w 2 --rounds "$rounds" --json "$out/cluster_${hosts}x${ranks}_off_run.json"
    "${cluster_sh[@]}" down >> "$out/cluster.txt" 2>&1
  done
  trap - EXIT
  # The summary: each step's title, its best kcoll algorithm against MPI per size, the model's error per algorithm.
  [[ -f "$out/cluster.txt" ]] && awk '/^### / {print; next} /^# (Best kcoll|Model against)/ {on = 1; print; next}
    on && /^#     all_reduce / {print; next} on && /^#   / {next} {on = 0}' "$out/cluster.txt" |
    sed 's/^/  /' | tee -a "$out/node.txt"
  return 0
}

cpu_checks() {
  cores=$(nproc)
  largest=64M
  rounds=2
  ((quick)) && largest=1M && rounds=1
  for np in 2 4 8 16; do
    ((np <= cores)) || { log "cpu: $np ranks skipped (this node has $cores cores)"; continue; }
    step "all_reduce --exec serial $np ranks, auto and MPI, 8B..$largest" 240 cpu.txt \
      all_reduce --ranks "$np" --exec serial --algo auto,mpi,floor -b 8 -e "$largest" -f 2 -n 20 -w 5 \
      --rounds "$rounds" -I 1 --json "$out/cpu_${np}ranks.json"
    # 8 bytes 100 calls back to back, beside the latency floor's exchange timed the same way (--algo floor).
    step "all_reduce --exec serial $np ranks, 8B back to back" 60 cpu.txt \
      all_reduce --ranks "$np" --exec serial --algo auto,mpi,floor -b 8 -e 8 -n 300 -w 20 -m 100 \
      --rounds "$rounds" -I 1 --json "$out/cpu_${np}ranks_8b.json"
  done
  grep -E '^### |^#     all_reduce ' "$out/cpu.txt" | sed 's/^/  /' | tee -a "$out/node.txt"
}

if ((cpu_only || cluster)); then
  ((cpu_only)) && cpu_checks
  ((cluster)) && cluster_checks
  exit $failed
fi

# 1. The kernels alone on the GPU: every type's sum, and copy, against cudaMemcpy of the same run.
big=1G
((quick)) && big=256M
step "kernels --exec cuda sum, every type, 64M..$big" 75 kernels.txt \
  kernels --exec cuda -b 64M -e "$big" -f 4 -o sum -n 20 -w 3

# 2. AllReduce with device buffers on one rank: kcoll over NCCL beside NCCL's own AllReduce.
step "all_reduce --exec cuda 1 rank 8B..$big (nccl transport)" 75 all_reduce.txt \
  all_reduce --ranks 1 --exec cuda --transport nccl -b 8 -e "$big" -f 2 -n 20 -w 5 -c 1

# 3. Ranks sharing the GPU: over NCCL where it allows several ranks on one GPU.
# This NCCL may refuse two ranks on one GPU even when asked (NCCL 2.28: "Duplicate GPU detected"): a skip, not a failure.
SKIP_IF="Duplicate GPU detected" step "all_reduce --exec cuda 2 ranks, NCCL_MULTI_RANK_GPU_ENABLE=1" 75 all_reduce.txt \
  env NCCL_MULTI_RANK_GPU_ENABLE=1 all_reduce --ranks 2 --exec cuda --transport nccl -b 8 -e "$big" -f 4 -n 20 -w 5 -c 1
step "all_reduce --exec cuda 2 ranks, MPI staged" 60 all_reduce.txt \
  all_reduce --ranks 2 --exec cuda --transport mpi --algo ring,halving_doubling,auto -b 8 -e 64M -f 8 -n 10 -w 3 -c 1

# 3b. Ranks sharing the GPU over CUDA IPC (device memory end to end) beside MPI staging, 2 and 4 ranks, without MPS
# and then under MPS (its daemon started here with its pipes in OUT_DIR, and stopped after; no device setting
# changes). --registered adds the rows on registered device memory (`auto registered` and the zero-copy `direct`,
# whose kernels read the peers' buffers through CUDA IPC); the hierarchical route runs CUDA IPC within emulated
# nodes of 2 ranks and staged MPI between them; the last step prints what `auto` measured and chose.
ipc_sweep() {  # ipc_sweep LABEL
  for np in 2 4; do
    step "all_reduce --exec cuda $np ranks, cuda_ipc$1" 120 cuda_ipc.txt \
      all_reduce --ranks "$np" --exec cuda --transport cuda_ipc,mpi --algo ring,halving_doubling,auto --registered \
      -b 8 -e "$big" -f 8 -n 20 -w 5 -c 1
  done
  step "all_reduce --exec cuda 4 ranks, 2 per node, cuda_ipc within and mpi across$1" 120 cuda_ipc.txt \
    env KCOLL_RANKS_PER_NODE=2 all_reduce --ranks 4 --exec cuda --transport cuda_ipc,mpi \
    --algo hierarchical,ring,auto -b 8 -e 256M -f 8 -n 10 -w 3 -c 1
  step "auto transport on 2 ranks$1" 60 cuda_ipc.txt \
    env KCOLL_DEBUG=INFO all_reduce --ranks 2 --exec cuda -b 8 -e 1M -f 8 -n 10 -w 3 -c 1
}
ipc_sweep ""
if command -v nvidia-cuda-mps-control > /dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY="$out/mps/pipe" CUDA_MPS_LOG_DIRECTORY="$out/mps/log"
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  if nvidia-cuda-mps-control -d; then
    ipc_sweep " under MPS"
    echo quit | nvidia-cuda-mps-control
    sleep 2
  else
    log "MPS: nvidia-cuda-mps-control -d failed; the cuda_ipc sweep under MPS did not run"
  fi
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
else
  log "MPS: no nvidia-cuda-mps-control on this node; the cuda_ipc sweep under MPS did not run"
fi

# 4. The node's CPU cores (host buffers): how much of a nonblocking AllReduce a computation hides when the progress
# thread has a core of its own, kcoll's IAllReduce beside MPI_Iallreduce, with a progress thread and eagerly.
rounds=3
((quick)) && rounds=1
for progress in thread eager; do
  step "overlap 2 ranks, 8 B and 1 MiB, progress $progress" 90 overlap.txt \
    overlap --ranks 2 -b 8 -e 1M -f 131072 -n 300 -w 30 --rounds "$rounds" --compute_factor 2 --progress "$progress"
done

# The tests wait under a timeout, so that a hang fails with the step it hung in (the benchmarks above wait without
# one, as applications do by default: a timeout's polling costs latency).
export KCOLL_TIMEOUT=120

# 4. The tests, in three lanes at once (the GPU has room for all of them; timings are done): the collective tests
# over MPI staging and NCCL; the NCCL transport and the single-process tests; compute-sanitizer. The lanes together
# get `lanes_limit` seconds; a step still running then is stopped and reported.
collective_lane() {
  for np in 1 2 4; do
    step "gpu_collectives_test np$np" 120 tests.txt "${mpirun[@]}" -np "$np" gpu_collectives_test_bin
  done
  step "gpu_collectives_test np2 nccl, NCCL_MULTI_RANK_GPU_ENABLE=1" 90 tests.txt \
    "${mpirun[@]}" -x NCCL_MULTI_RANK_GPU_ENABLE=1 -np 2 gpu_collectives_test_bin --gtest_filter='*nccl*'
}
nccl_lane() {
  step "kernels_test (the cuda reductions among them)" 60 nccl.txt kernels_test
  step "gpu_placement_test" 15 nccl.txt gpu_placement_test
  [[ -x "$here/bin/nccl_host_test" ]] && step "nccl_host_test" 30 nccl.txt nccl_host_test
  for np in 1 2 4; do
    step "nccl_transport_test np$np" 45 nccl.txt "${mpirun[@]}" -np "$np" nccl_transport_test_bin
  done
  for np in 2 4; do
    step "nccl_transport_test np$np NCCL_MULTI_RANK_GPU_ENABLE=1" 60 nccl.txt \
      "${mpirun[@]}" -x NCCL_MULTI_RANK_GPU_ENABLE=1 -np "$np" nccl_transport_test_bin
  done
  for np in 1 2 4; do
    step "cuda_ipc_transport_test np$np" 60 nccl.txt "${mpirun[@]}" -np "$np" cuda_ipc_transport_test_bin
  done
  # A plain MPI program passing cuMemAlloc'd buffers to the collectives, through the drop-in library (the MPI here
  # is not CUDA-aware), with the node's driver: staged through host memory, then on the device route over each
  # transport (the INFO lines at the end count the calls that took it).
  for run in 4:stage 2:stage 2:mpi 2:cuda_ipc 2:nccl; do
    step "drop_in_device_check np${run%%:*} KCOLL_MPI_DEVICE=${run#*:}" 60 nccl.txt env KCOLL_MPI_DEVICE="${run#*:}" \
      KCOLL_DEBUG=INFO NCCL_MULTI_RANK_GPU_ENABLE=1 "${mpirun[@]}" -np "${run%%:*}" \
      -x LD_PRELOAD="$here/bin/libkcoll_mpi.so" drop_in_device_check
  done
}
sanitizer_lane() {
  if ! command -v compute-sanitizer > /dev/null; then
    log "compute-sanitizer: not on PATH, skipped"
    return
  fi
  local sanitize=(compute-sanitizer --error-exitcode 99 --print-limit 20 --report-api-errors no)
  step "memcheck gpu_collectives_test np1" 150 sanitizer.txt \
    "${mpirun[@]}" -np 1 "${sanitize[@]}" --tool memcheck "$here/bin/gpu_collectives_test_bin"
  step "racecheck kernels_test (cuda)" 90 sanitizer.txt \
    "${sanitize[@]}" --tool racecheck "$here/bin/kernels_test" --gtest_filter='*cuda*'
  step "memcheck gpu_collectives_test np2 (mpi_staged)" 120 sanitizer.txt \
    "${mpirun[@]}" -np 2 "${sanitize[@]}" --tool memcheck "$here/bin/gpu_collectives_test_bin" \
    --gtest_filter='*mpi_staged*'
  step "memcheck gpu_collectives_test np2 (cuda_ipc)" 120 sanitizer.txt \
    "${mpirun[@]}" -np 2 "${sanitize[@]}" --tool memcheck "$here/bin/gpu_collectives_test_bin" \
    --gtest_filter='*cuda_ipc*'
}
lanes_limit=280
((quick)) && lanes_limit=150
collective_lane &
nccl_lane &
sanitizer_lane &
lanes=$(jobs -p)
# Stopping a step's `timeout` stops its command too (timeout passes the signal on).
( sleep "$lanes_limit" && log "lanes: stopped after ${lanes_limit}s" && pkill -x timeout ) &
watchdog=$!
wait $lanes 2> /dev/null
kill "$watchdog" 2> /dev/null
[[ -e "$out/.failed" ]] && failed=1

# 5. The correctness matrix with the cuda columns (verify.txt, verify.json): every collective x algorithm on
# cuda over NCCL and MPI beside the host columns, on exact and rounding-sensitive data.
step "verify 2 ranks, every column this node has" 240 verify.txt \
  env NCCL_MULTI_RANK_GPU_ENABLE=1 verify --ranks 2 --json "$out/verify.json"
tail -n 1 "$out/verify.txt" | tee -a "$out/node.txt"
# 4 ranks sharing the GPU over CUDA IPC (no other column: NCCL refuses a shared GPU, MPI staging ran on 2 ranks).
step "verify 4 ranks, cuda_ipc" 180 verify.txt verify --ranks 4 --transports cuda_ipc --exec cuda
tail -n 1 "$out/verify.txt" | tee -a "$out/node.txt"

# What the tests said, per binary: passes, skips (with reasons) and failures.
{
  echo
  echo "# tests: passed / skipped / failed per run (tests.txt has the logs)"
  grep -E '^### |^\[  (PASSED|SKIPPED|FAILED) +\] [0-9]' "$out/tests.txt" "$out/nccl.txt" | sed 's/^/  /'
  echo "# skip reasons"
  cat "$out/tests.txt" "$out/nccl.txt" | grep -A1 'Skipped$' | grep -v -- '--\|Skipped$' | sort | uniq -c |
    sed 's/^/  /' | head -20
  echo "# the drop-in library on device buffers: MPI_Allreduce's line per run"
  grep -E '^### .*drop_in_device_check|kcoll_mpi: MPI_Allreduce:' "$out/nccl.txt" | sed 's/^.*\(kcoll_mpi:\)/\1/; s/^/  /'
  echo "# sanitizer summaries"
  grep -E '^### |ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.txt" 2> /dev/null | sed 's/^/  /'
} | tee -a "$out/node.txt"
exit $failed
