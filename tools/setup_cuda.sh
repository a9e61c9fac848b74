#!/usr/bin/env bash
# Builds a CUDA-enabled Kokkos 4.x (Serial + CUDA) for kcoll's --config=cuda, then points the build at it
# (tools/configure_cuda.sh). Idempotent: quick when the install is there.
#
#   tools/setup_cuda.sh [ARCH]          ARCH: the GPU architecture, sm_90 by default (H100); sm_80 A100, sm_89 L40S
#   environment: KOKKOS_SRC  a Kokkos source: a checkout or a release tarball (default: the tarball in
#                            ../shared/third_party/ when there is one)
#                CUDA_PATH   the CUDA toolkit (default: CUDA_HOME, else the toolkit of the nvcc on PATH)
#
# Installs into ${KCOLL_CACHE:-~/.cache/kcoll}/kokkos-<version>-cuda-<arch>. With CUDA 13 (which dropped sm_70 and
# changed two runtime calls), the source is adapted before building, as third_party/README.md says:
#   - bin/nvcc_wrapper: its default architecture (sm_70) becomes ARCH;
#   - core/src/Cuda/Kokkos_Cuda_Instance.hpp: cudaGraphAddDependencies gets its edge-data argument (nullptr),
#     cudaMemPrefetchAsync a cudaMemLocation of the device and a flags argument (0), and cudaMemAdvise a
#     cudaMemLocation instead of a device id.
# Each adaptation is applied only where the source has the old form; a Kokkos that already has the new one is used
# as it is.
set -euo pipefail

say() { printf '[setup_cuda] %s\n' "$*"; }
die() { printf '[setup_cuda] error: %s\n' "$*" >&2; exit 1; }

arch="${1:-sm_90}"
[[ "$arch" =~ ^sm_[0-9]+$ ]] || die "ARCH '$arch' is not an architecture like sm_90"
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${KCOLL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcoll}"

source "$root/tools/cuda_toolkit.sh"
cuda="$(cuda_toolkit_root)" || die "no CUDA toolkit (bin/nvcc and include/cuda_runtime.h) at '${CUDA_PATH:-${CUDA_HOME:-the nvcc on PATH, or /usr/local/cuda}}': set CUDA_PATH to the CUDA toolkit"
export PATH="$cuda/bin:$PATH"  # nvcc_wrapper runs the nvcc it finds on PATH
cuda_major="$("$cuda/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')"

src="${KOKKOS_SRC:-}"
if [[ -z "$src" ]]; then
  src="$(ls "$root"/../shared/third_party/kokkos-4*.tar.gz 2> /dev/null | sort | tail -n1 || true)"
  [[ -n "$src" ]] || die "no Kokkos source: set KOKKOS_SRC to a Kokkos 4.x checkout or release tarball"
fi
[[ -e "$src" ]] || die "KOKKOS_SRC=$src does not exist"

# The version, from the source's CMakeLists.txt (tarball or directory).
if [[ -d "$src" ]]; then
  cmakelists="$(cat "$src/CMakeLists.txt")"
else
  cmakelists="$(tar xzOf "$src" --wildcards '*/CMakeLists.txt' 2> /dev/null | head -c 20000 || true)"
fi
version="$(sed -n 's/^set(Kokkos_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)).*/\2/p' <<< "$cmakelists" | paste -sd. -)"
[[ "$version" =~ ^4\. ]] || die "KOKKOS_SRC=$src is not a Kokkos 4.x source (version '$version')"
# Position-independent, so that shared libraries (libkcoll_mpi.so) can carry it.
prefix="$cache/kokkos-$version-cuda-$arch-pic"

if [[ -f "$prefix/include/KokkosCore_config.h" && -x "$prefix/bin/nvcc_wrapper" ]]; then
  say "Kokkos $version (Serial + CUDA $arch): present in $prefix"
else
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  say "Kokkos $version (Serial + CUDA $arch) from $src into $prefix"
  if [[ -d "$src" ]]; then
    cp -r "$src" "$work/src"
  else
    mkdir "$work/src" && tar xzf "$src" -C "$work/src" --strip-components=1
  fi
  if [[ "$cuda_major" -ge 13 ]]; then
    say "adapting to CUDA $cuda_major"
    sed -i "s/^default_arch=\"sm_[0-9]*\"/default_arch=\"$arch\"/" "$work/src/bin/nvcc_wrapper"
    python3 - "$work/src/core/src/Cuda/Kokkos_Cuda_Instance.hpp" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
text = text.replace("cudaGraphAddDependencies(graph, from, to, numDependencies)",
                    "cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies)")
# A cudaMemLocation for a device id (cudaCpuDeviceId: the host), its fields assigned one by one (Kokkos notes
# that aggregate initialisation does not fill them in a defined order).
def location(var):
    return ("cudaMemLocation location; location.type = " + var + " == cudaCpuDeviceId ? cudaMemLocationTypeHost : "
            "cudaMemLocationTypeDevice; location.id = " + var + "; ")
text = re.sub(r"return cudaMemPrefetchAsync\(devPtr, count, dstDevice,\s*get_input_stream\(stream\)\);",
              location("dstDevice") + "return cudaMemPrefetchAsync(devPtr, count, location, 0, get_input_stream(stream));",
              text)
text = text.replace("return cudaMemAdvise(devPtr, count, advice, device);",
                    location("device") + "return cudaMemAdvise(devPtr, count, advice, location);")
open(path, "w").write(text)
PY
  fi
  kokkos_arch="$(tr '[:lower:]' '[:upper:]' <<< "$arch" | sed 's/^SM_//')"
  case "$kokkos_arch" in
    70) flag=Kokkos_ARCH_VOLTA70 ;; 75) flag=Kokkos_ARCH_TURING75 ;; 80) flag=Kokkos_ARCH_AMPERE80 ;;
    86) flag=Kokkos_ARCH_AMPERE86 ;; 89) flag=Kokkos_ARCH_ADA89 ;; 90) flag=Kokkos_ARCH_HOPPER90 ;;
    100) flag=Kokkos_ARCH_BLACKWELL100 ;; 120) flag=Kokkos_ARCH_BLACKWELL120 ;;
    *) die "no Kokkos architecture option known for $arch" ;;
  esac
  cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_CXX_COMPILER="$work/src/bin/nvcc_wrapper" -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -D"$flag"=ON \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF \
    -DCUDAToolkit_ROOT="$cuda" > "$work/configure.log" 2>&1 ||
    { tail -30 "$work/configure.log" >&2; die "Kokkos configure failed"; }
  cmake --build "$work/build" -j "$(nproc)" > "$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log" >&2; die "Kokkos build failed"; }
  cmake --install "$work/build" > /dev/null
  say "Kokkos $version installed in $prefix"
fi

cd "$root"
CUDA_PATH="$cuda" tools/configure_cuda.sh "$prefix"
say "done: bazel build --config=cuda //... builds the GPU path against $prefix"
