#!/usr/bin/env bash
# The first thing to run on a GPU node: builds kcoll for CUDA, runs the tests (the GPU ones included) and a short
# AllReduce bandwidth sweep, and prints the busbw table. Fails with the reason when there is no GPU or no
# CUDA-enabled Kokkos.
#
#   tools/gpu_check.sh [--ranks N] [--max-bytes SIZE] [--no-bench]
#
# Environment: KOKKOS_ROOT (a CUDA-enabled Kokkos install), else KOKKOS_SRC (a Kokkos 4.x source that
# tools/setup_cuda.sh builds for this GPU's architecture); CUDA_PATH, NCCL_HOME (optional).
# --ranks: MPI ranks for the tests and the sweep (default: the number of GPUs, at most 8).
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
  echo "gpu_check: $*" >&2
  exit 1
}

ranks=""
max_bytes="256M"
bench=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) ranks="$2"; shift 2 ;;
    --max-bytes) max_bytes="$2"; shift 2 ;;
    --no-bench) bench=0; shift ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

# 1. A GPU, seen by the driver.
command -v nvidia-smi > /dev/null || die "no GPU: nvidia-smi is not installed (no NVIDIA driver on this machine)"
gpus="$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ' || true)"
[[ "$gpus" -gt 0 ]] || die "no GPU: nvidia-smi lists no device ($(nvidia-smi -L 2>&1 | head -n1))"
echo "gpu_check: $gpus GPU(s):"
nvidia-smi -L | sed 's/^/  /'
if [[ -z "$ranks" ]]; then ranks=$((gpus < 8 ? gpus : 8)); fi
[[ "$ranks" -ge 1 ]] || die "--ranks must be at least 1"
((ranks <= gpus)) || echo "gpu_check: $ranks ranks but $gpus GPU(s): the GPU tests with more ranks than GPUs skip"

# 2. A CUDA-enabled Kokkos, and the Bazel config that compiles with its nvcc_wrapper: the one in KOKKOS_ROOT, or one
# built from KOKKOS_SRC for this GPU's architecture (compute capability 9.0: sm_90).
if [[ -n "${KOKKOS_ROOT:-}" ]]; then
  tools/configure_cuda.sh "$KOKKOS_ROOT"
else
  cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -n1 | tr -d ' .')"
  [[ "$cap" =~ ^[0-9]+$ ]] || die "cannot read the GPU's compute capability from nvidia-smi; set KOKKOS_ROOT"
  tools/setup_cuda.sh "sm_$cap" || die "no CUDA Kokkos: set KOKKOS_ROOT to an install or KOKKOS_SRC to a source"
fi

# 3. Build and test. The GPU tests print why they skip; a skip here means something is missing.
bazel build --config=cuda //...
bazel test --config=cuda --test_output=errors \
  --test_env=KCOLL_TIMEOUT=120 //... || die "tests failed (logs: bazel-testlogs/tests/<name>/test.log)"
echo "gpu_check: GPU tests:"
for t in nccl_host_test element_ops_on_device_test nccl_transport_test_np1 nccl_transport_test_np2 \
  nccl_transport_test_np4 gpu_collectives_test_np1 gpu_collectives_test_np2 gpu_collectives_test_np4; do
  log="bazel-testlogs/tests/$t/test.log"
  [[ -f "$log" ]] || continue
  skipped="$(grep -c '^\[  SKIPPED \] [A-Za-z]' "$log" || true)"
  passed="$(grep -c '^\[       OK \]' "$log" || true)"
  printf '  %-32s %3s passed, %3s skipped\n' "$t" "$passed" "$skipped"
  if [[ "$skipped" -gt 0 ]]; then grep -A1 'Skipped$' "$log" | grep -v -- '--\|Skipped$' | sort -u | sed 's/^/      /'; fi
done

# 4. A short AllReduce sweep on the GPUs: kcoll's algorithms over NCCL beside NCCL's own AllReduce, busbw as
# nccl-tests reports it.
if [[ "$bench" == 1 ]]; then
  echo "gpu_check: AllReduce sweep on $ranks rank(s), 8 B .. $max_bytes (KCOLL_TRANSPORT=nccl, cuda kernels)"
  KCOLL_TRANSPORT=nccl KCOLL_EXEC=cuda bazel run -c opt --config=cuda //bench:all_reduce -- \
    --ranks "$ranks" --exec cuda -b 8 -e "$max_bytes" -f 4 -n 20 -w 5 -c 1 ||
    die "the benchmark failed"
  echo "gpu_check: the reduce/copy kernels on the GPU against a device-to-device cudaMemcpy"
  bazel run -c opt --config=cuda //bench:kernels -- --exec cuda -b 64M -e 256M -f 4 -o sum \
    -d float32,float16,bfloat16 || die "the kernel benchmark failed"
fi
echo "gpu_check: done"
