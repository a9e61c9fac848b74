#!/usr/bin/env bash
# Points `bazel build --config=cuda` at a CUDA-enabled Kokkos install. Writes .kcoll_cuda.bazelrc (machine-specific,
# not committed; .bazelrc imports it) with the Kokkos install, its nvcc_wrapper as the C++ compiler, the CUDA
# toolkit and NCCL. Run once per machine, and again after moving an install.
#
#   tools/configure_cuda.sh [KOKKOS_ROOT]      (default: $KOKKOS_ROOT)
#   environment: CUDA_PATH (default: CUDA_HOME, else the toolkit of the nvcc on PATH, else /usr/local/cuda),
#                NCCL_HOME (optional)
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

source tools/cuda_toolkit.sh
cuda="$(cuda_toolkit_root)" || die "no CUDA toolkit (bin/nvcc and include/cuda_runtime.h) at '${CUDA_PATH:-${CUDA_HOME:-the nvcc on PATH, or /usr/local/cuda}}': set CUDA_PATH to the CUDA toolkit"

# The GPU architecture Kokkos was configured for: passed to nvcc when the Kokkos flags do not name one, so that
# nvcc_wrapper never falls back to its own default (sm_35 in Kokkos 3.x, which CUDA 12 and later reject).
arch="$(grep -o -- '-arch=sm_[0-9]*' "$kokkos"/lib*/cmake/Kokkos/KokkosTargets.cmake 2> /dev/null | head -n1 | cut -d= -f2 || true)"

# The C++ compiler Bazel runs (.kcoll_cuda/cc). Translation units that include the CUDA Kokkos go to nvcc_wrapper;
# all other C++ and every link go to the host compiler, which is faster and spares plain C++ from nvcc's front end
# (objects without relocatable device code link with the host compiler; the CUDA runtime comes from -lcudart). Every
# kcoll target carries KCOLL_COPTS (which then define KCOLL_KOKKOS_CUDA), but most of its files never include Kokkos:
# for those the host compiler's dependency scan (-M, a preprocessing pass of well under a second) decides, and only
# a file whose headers reach Kokkos_Macros.hpp, or whose scan fails, is compiled by nvcc (tools/check_cuda_build.sh's
# build on 2 cores: 464 s against 525 s when nvcc compiled every kcoll file). Bazel's probe of the compiler's
# built-in include directories ("-E -x c++ - -v") is answered by the host compiler, with the CUDA include directories
# nvcc adds by itself listed under every name they are reached by, so Bazel accepts the CUDA headers a compilation
# reads.
mkdir -p .kcoll_cuda
cc=.kcoll_cuda/cc
cuda_includes=""
for d in "$cuda/include" "$(readlink -f "$cuda/include")" "$cuda"/targets/*/include "$(readlink -f "$cuda")"/targets/*/include; do
  [[ -d "$d" ]] && cuda_includes="$cuda_includes $(printf '%q' "$d")"
done
# Every name the toolkit is reached by: this one, its real path, and the toolkit of the nvcc on PATH (the one
# nvcc_wrapper runs), which may be reached through another link.
cuda_roots=""
nvcc_root="$(unset CUDA_PATH CUDA_HOME; cuda_toolkit_root || true)"
for d in "$cuda" "$(readlink -f "$cuda")" ${nvcc_root:+"$nvcc_root" "$(readlink -f "$nvcc_root")"}; do
  [[ -d "$d" && " $cuda_roots " != *" $(printf '%q' "$d") "* ]] && cuda_roots="$cuda_roots $(printf '%q' "$d")"
done
{
  echo '#!/usr/bin/env bash'
  echo '# Written by tools/configure_cuda.sh: the C++ compiler of bazel --config=cuda (see there).'
  printf 'nvcc_wrapper=%q\n' "$wrapper"
  printf 'arch=%q\n' "$arch"
  echo "cuda_includes=($cuda_includes)"
  echo "cuda_roots=($cuda_roots)"
  cat << 'SCRIPT'
host="${NVCC_WRAPPER_DEFAULT_COMPILER:-g++}"
# Bazel passes long command lines in a parameter file (@file, one argument per line).
args=()
for arg in "$@"; do
  if [[ "$arg" == @* && -f "${arg#@}" ]]; then
    mapfile -t lines < "${arg#@}"
    args+=("${lines[@]}")
  else
    args+=("$arg")
  fi
done
probe=0 compile=0 device=0
for arg in "${args[@]}"; do
  case "$arg" in
    -v) probe=1 ;;
    -c) compile=1 ;;
    -DKCOLL_KOKKOS_CUDA | -DKCOLL_KOKKOS_CUDA=*) device=1 ;;
  esac
done
if [[ $probe == 1 && " ${args[*]} " == *" -E "* ]]; then
  "$host" "${args[@]}" 2>&1 > /dev/null | while IFS= read -r line; do
    echo "$line"
    if [[ "$line" == "#include <...> search starts here:" ]]; then
      for d in "${cuda_includes[@]}"; do echo " $d"; done
    fi
  done >&2
  exit "${PIPESTATUS[0]}"
fi
# Whether the translation unit reaches Kokkos: the host compiler lists its headers (-M), without its outputs.
reaches_kokkos() {
  local scan=() skip=0 arg
  for arg in "${args[@]}"; do
    if [[ $skip == 1 ]]; then
      skip=0
      continue
    fi
    case "$arg" in
      -arch=* | -extended-lambda | --extended-lambda | -expt-extended-lambda | --expt-extended-lambda) ;;
      -expt-relaxed-constexpr | --expt-relaxed-constexpr | -Wext-lambda-captures-this | -c | -MD | -MMD) ;;
      -Xcudafe | -Xcompiler | -o | -MF | -MT | -MQ) skip=1 ;;
      *) scan+=("$arg") ;;
    esac
  done
  local deps
  deps="$("$host" "${scan[@]}" -M 2> /dev/null)" || return 0
  [[ "$deps" == *Kokkos_Macros.hpp* ]]
}
if [[ $compile == 1 && $device == 1 ]] && ! reaches_kokkos; then
  device=0
fi
if [[ $compile == 1 && $device == 1 ]]; then
  # nvcc takes one language standard (the last one given) and needs the GPU architecture.
  nvcc_args=()
  std=""
  has_arch=0
  for arg in "${args[@]}"; do
    case "$arg" in
      -std=*) std="$arg" ;;
      -arch=*) has_arch=1; nvcc_args+=("$arg") ;;
      *) nvcc_args+=("$arg") ;;
    esac
  done
  if [[ $has_arch == 0 && -n "$arch" ]]; then nvcc_args+=("-arch=$arch"); fi
  depfile=""
  for ((i = 0; i + 1 < ${#nvcc_args[@]}; i++)); do
    [[ "${nvcc_args[i]}" == -MF ]] && depfile="${nvcc_args[i + 1]}"
  done
  "$nvcc_wrapper" ${std:+"$std"} "${nvcc_args[@]}"
  status=$?
  if [[ $status == 0 && -n "$depfile" && -f "$depfile" ]]; then
    # nvcc includes cuda_runtime.h by itself and lists it, and what it includes, under the path it reached the
    # toolkit by (".../cuda-13.0/bin/../targets/..."); Bazel rejects a header it cannot place under a built-in
    # directory of the toolchain. They are system headers, as they are to the host compiler: left out of the list.
    awk -v roots="${cuda_roots[*]}" '
      BEGIN { n = split(roots, root, " ") }
      NR == 1 { line[++m] = $0; next }
      {
        keep = 1
        for (j = 1; j <= n; j++) if (index($1, root[j] "/") == 1) keep = 0
        if (keep) line[++m] = $0
      }
      END {
        for (i = 1; i < m; i++) print line[i]
        last = line[m]
        sub(/[ \t]*\\$/, "", last)
        print last
      }' "$depfile" > "$depfile.kept" && mv "$depfile.kept" "$depfile"
    status=$?
  fi
  exit "$status"
fi
host_args=()
skip=0
for arg in "${args[@]}"; do
  if [[ $skip == 1 ]]; then
    skip=0
    continue
  fi
  case "$arg" in
    -arch=* | -extended-lambda | --extended-lambda | -expt-extended-lambda | --expt-extended-lambda) ;;
    -expt-relaxed-constexpr | --expt-relaxed-constexpr | -Wext-lambda-captures-this) ;;
    -Xcudafe | -Xcompiler) skip=1 ;;
    *) host_args+=("$arg") ;;
  esac
done
# A C source is compiled as C (g++ would compile it as C++, and mangle the names a C file defines).
if [[ $compile == 1 ]]; then
  for arg in "${host_args[@]}"; do
    if [[ "$arg" == *.c ]]; then exec "${CC_FOR_C_SOURCES:-gcc}" "${host_args[@]}"; fi
  done
fi
exec "$host" "${host_args[@]}"
SCRIPT
} > "$cc"
chmod +x "$cc"
cc="$(pwd)/$cc"

out=.kcoll_cuda.bazelrc
path="$cuda/bin:${PATH#"$cuda/bin:"}"  # the toolkit's nvcc first, once
{
  echo "# Written by tools/configure_cuda.sh on $(date -u +%Y-%m-%d); machine-specific, not committed."
  echo "build:cuda --repo_env=KOKKOS_ROOT=$kokkos"
  echo "build:cuda --repo_env=CC=$cc"
  # Bazel's generated toolchain adds -std=c++0x, which nvcc would take over kcoll's -std=c++17: replace it.
  echo "build:cuda --repo_env=BAZEL_CXXOPTS=-std=c++17"
  echo "build:cuda --repo_env=CUDA_PATH=$cuda"
  echo "build:cuda --repo_env=PATH=$path"
  echo "build:cuda --action_env=PATH=$path"
  # One object per source: with -c opt Bazel would compile every file twice (PIC for the tests' shared libraries,
  # non-PIC for the binaries), and a compile through nvcc costs tens of seconds.
  echo "build:cuda --force_pic"
  if [[ -n "${NCCL_HOME:-}" ]]; then echo "build:cuda --repo_env=NCCL_HOME=$NCCL_HOME"; fi
} > "$out"
echo "configure_cuda: wrote $out (Kokkos $kokkos, CUDA $cuda${arch:+, $arch}${NCCL_HOME:+, NCCL $NCCL_HOME})"
echo "configure_cuda: now run: bazel build --config=cuda //..."
