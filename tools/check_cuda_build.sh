#!/usr/bin/env bash
# Compiles kcoll's GPU path where the CUDA toolkit and a Kokkos 4.x source are on the machine (no GPU needed):
# tools/setup_cuda.sh builds a Serial + CUDA Kokkos for sm_90 (cached) and configures --config=cuda, then the
# library, benchmarks, examples and GPU tests are built with it and packed as tools/gpu_bundle.sh packs them.
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
# The library, the benchmarks, calibration, the examples and the tests that run on a GPU, built -c opt as the bundle
# packs them, so that the bundle below reuses every object (the host-only tests add nothing a GPU build checks, and
# a second compilation mode would compile everything twice with nvcc).
gpu_targets=(//collectives/... //bench/... //calibration/... //examples/... //tests:gpu_collectives_test_bin
  //tests:nccl_transport_test_bin //tests:nccl_host_test //tests:kernels_test //tests:gpu_placement_test)
[[ $failures -eq 0 ]] && step "the library, benchmarks, examples and GPU tests with -c opt --config=cuda" \
  bazel build -c opt --config=cuda "${gpu_targets[@]}"
bundle="$(mktemp -d)"
[[ $failures -eq 0 ]] && step "the bundle for a bare GPU node (tools/gpu_bundle.sh, under 64 MiB)" \
  tools/gpu_bundle.sh --out "$bundle/kcoll-gpu-bundle.tar.gz"
[[ -f "$bundle/kcoll-gpu-bundle.tar.gz" ]] && echo "[check]     $(du -k "$bundle/kcoll-gpu-bundle.tar.gz" | cut -f1) KiB"
rm -rf "$bundle"
exit $((failures > 0))
