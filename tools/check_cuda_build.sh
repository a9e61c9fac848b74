#!/usr/bin/env bash
# Compiles kcoll's GPU path where the CUDA toolkit and a Kokkos 4.x source are on the machine (no GPU needed):
# tools/setup_cuda.sh builds a Serial + CUDA Kokkos for sm_90 (cached) and configures --config=cuda, then the
# library, the examples, the benchmark code that touches the device and the GPU tests are built with it.
# Prints "[check] ok: ...", "[check] FAILED: ..." or, without nvcc or a Kokkos source, "[check] skipped: ..." with
# the reason; exits non-zero if a step failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
log="$(mktemp)"
trap 'rm -rf "$log"' EXIT

source tools/cuda_toolkit.sh
cuda_toolkit_root > /dev/null || {
  echo "[check] skipped: the CUDA build (no CUDA toolkit: no nvcc on PATH, and none in CUDA_PATH, CUDA_HOME or /usr/local/cuda)"
  exit 0
}
source="${KOKKOS_SRC:-$(ls "$root"/../shared/third_party/kokkos-4*.tar.gz 2> /dev/null | sort | tail -n1)}"
[[ -n "$source" ]] || {
  echo "[check] skipped: the CUDA build (no Kokkos source: set KOKKOS_SRC)"
  exit 0
}

failures=0
step() {  # step NAME COMMAND...
  local name="$1" start=$SECONDS
  shift
  if KOKKOS_SRC="$source" "$@" > "$log" 2>&1; then
    echo "[check] ok: $name ($((SECONDS - start)) s)"
  else
    echo "[check] FAILED: $name ($((SECONDS - start)) s); its output:"
    grep -av "linux-sandbox" "$log" | grep -a -B2 -A8 "error\|ERROR" | tail -60 | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}
step "a Serial + CUDA Kokkos for sm_90 (tools/setup_cuda.sh)" tools/setup_cuda.sh sm_90
# What the CUDA build changes: the library (every kernel and transport, the NCCL path), the examples, the benchmark
# code that touches device memory or NCCL (device buffers, the NCCL peer, the kernel benchmark), the tests that run on
# a GPU and verify (its cuda columns run on device buffers), compiled and linked unoptimized (what nvcc accepts does
# not depend on -O, and fastbuild takes 15% less time than -c opt; tools/gpu_bundle.sh builds -c opt for the node).
# The rest of the benchmarks (driver, reports, calibration) is host code that the main build compiles and tests;
# tools/gpu_bundle.sh builds it with --config=cuda when it packs a bundle for a GPU node, and check_install.sh checks
# the packing (--host).
gpu_targets=(//collectives/... //examples/... //bench/data:device_memory //bench/implementations:implementations
  //bench/implementations:nccl_collectives //bench:kernels //tests:gpu_collectives_test_bin
  //tests:nccl_transport_test_bin //tests:cuda_ipc_transport_test_bin //tests:nccl_host_test //tests:kernels_test //tests:gpu_placement_test
  //tools/verify:verify //mpi_drop_in:libkcoll_mpi.so)
[[ $failures -eq 0 ]] && step "the library, examples, device benchmark code and GPU tests with --config=cuda" \
  bazel build --config=cuda "${gpu_targets[@]}"
exit $((failures > 0))
