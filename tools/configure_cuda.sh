#!/usr/bin/env bash
# Points `bazel build --config=cuda` at a CUDA-enabled Kokkos install. Writes .kcoll_cuda.bazelrc (machine-specific,
# not committed; .bazelrc imports it) with the Kokkos install, its nvcc_wrapper as the C++ compiler, the CUDA
# toolkit and NCCL. Run once per machine, and again after moving an install.
#
#   tools/configure_cuda.sh [KOKKOS_ROOT]      (default: $KOKKOS_ROOT)
#   environment: CUDA_PATH (default: the toolkit holding nvcc on PATH, else /usr/local/cuda), NCCL_HOME (optional)
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
  echo "configure_cuda: $*" >&2
  exit 1
}

kokkos="${1:-${KOKKOS_ROOT:-}}"
[[ -n "$kokkos" ]] || die "no Kokkos given: pass the install prefix of a CUDA-enabled Kokkos, or set KOKKOS_ROOT (docs/gpu.md shows how to build one)"
kokkos="$(cd "$kokkos" && pwd)"
config="$kokkos/include/KokkosCore_config.h"
[[ -f "$config" ]] || die "$kokkos is not a Kokkos install (no include/KokkosCore_config.h)"
grep -q '^#define KOKKOS_ENABLE_CUDA$\|^#define KOKKOS_ENABLE_CUDA ' "$config" ||
  die "the Kokkos at $kokkos was built without CUDA (configure it with -DKokkos_ENABLE_CUDA=ON)"
wrapper="$kokkos/bin/nvcc_wrapper"
[[ -x "$wrapper" ]] || die "$wrapper is missing: --config=cuda compiles with the nvcc_wrapper of the Kokkos install"

cuda="${CUDA_PATH:-}"
if [[ -z "$cuda" ]]; then
  if command -v nvcc > /dev/null; then cuda="$(cd "$(dirname "$(command -v nvcc)")/.." && pwd)"; else cuda=/usr/local/cuda; fi
fi
[[ -x "$cuda/bin/nvcc" ]] || die "no nvcc at $cuda/bin/nvcc: set CUDA_PATH to the CUDA toolkit"

# The GPU architecture Kokkos was configured for (nvcc_wrapper's own default may be older than the toolkit allows).
arch="$(grep -o -- '-arch=sm_[0-9]*' "$kokkos"/lib*/cmake/Kokkos/KokkosTargets.cmake 2> /dev/null | head -n1 | cut -d= -f2 || true)"

# The C++ compiler Bazel runs: nvcc_wrapper, except for Bazel's probe of the compiler's built-in include directories
# ("-E -x c++ - -v"), which nvcc_wrapper does not answer the way gcc does. The probe goes to the host compiler, and
# the CUDA include directories nvcc adds by itself are listed too, under every name they are reached by, so that
# Bazel accepts the CUDA headers a compilation reads.
mkdir -p .kcoll_cuda
cc=.kcoll_cuda/cc
cuda_includes=""
for d in "$cuda/include" "$(readlink -f "$cuda/include")" "$cuda"/targets/*/include "$(readlink -f "$cuda")"/targets/*/include; do
  [[ -d "$d" ]] && cuda_includes="$cuda_includes $d"
done
cat > "$cc" << SCRIPT
#!/usr/bin/env bash
# Written by tools/configure_cuda.sh: the C++ compiler of bazel --config=cuda.
probe=0
for arg in "\$@"; do [[ "\$arg" == "-v" ]] && probe=1; done
if [[ \$probe == 1 && " \$* " == *" -E "* ]]; then
  "\${NVCC_WRAPPER_DEFAULT_COMPILER:-g++}" "\$@" 2>&1 > /dev/null | while IFS= read -r line; do
    echo "\$line"
    if [[ "\$line" == "#include <...> search starts here:" ]]; then
      for d in$cuda_includes; do echo " \$d"; done
    fi
  done >&2
  exit "\${PIPESTATUS[0]}"
fi
# Bazel passes long link lines in a parameter file (@file, one argument per line); nvcc_wrapper wants them inline.
# nvcc takes one language standard: keep the last -std= of the command line (Bazel's own and kcoll's).
args=()
std=""
for arg in "\$@"; do
  if [[ "\$arg" == @* && -f "\${arg#@}" ]]; then
    mapfile -t lines < "\${arg#@}"
    args+=("\${lines[@]}")
  elif [[ "\$arg" == -std=* ]]; then
    std="\$arg"
  else
    args+=("\$arg")
  fi
done
exec "$wrapper" \${std:+"\$std"} "\${args[@]}"
SCRIPT
chmod +x "$cc"
cc="$(pwd)/$cc"

out=.kcoll_cuda.bazelrc
{
  echo "# Written by tools/configure_cuda.sh on $(date -u +%Y-%m-%d); machine-specific, not committed."
  echo "build:cuda --repo_env=KOKKOS_ROOT=$kokkos"
  echo "build:cuda --repo_env=CC=$cc"
  # Bazel's generated toolchain adds -std=c++0x, which nvcc_wrapper would hand to the host compiler: replace it.
  echo "build:cuda --repo_env=BAZEL_CXXOPTS=-std=c++17"
  echo "build:cuda --repo_env=CUDA_PATH=$cuda"
  echo "build:cuda --repo_env=PATH=$cuda/bin:$PATH"
  echo "build:cuda --action_env=PATH=$cuda/bin:$PATH"
  if [[ -n "$arch" ]]; then
    # Every compile and link names the architecture, so nvcc_wrapper never falls back to its own default (sm_35 in
    # Kokkos 3.x, which CUDA 12 and later reject).
    echo "build:cuda --copt=-arch=$arch --linkopt=-arch=$arch"
  fi
  if [[ -n "${NCCL_HOME:-}" ]]; then echo "build:cuda --repo_env=NCCL_HOME=$NCCL_HOME"; fi
} > "$out"
echo "configure_cuda: wrote $out (Kokkos $kokkos, CUDA $cuda${arch:+, $arch}${NCCL_HOME:+, NCCL $NCCL_HOME})"
echo "configure_cuda: now run: bazel build --config=cuda //..."
