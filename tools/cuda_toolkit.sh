# Sourced by the CUDA scripts (setup_cuda.sh, configure_cuda.sh, check_cuda_build.sh): where the CUDA toolkit is.
#
# cuda_toolkit_root prints the toolkit's root directory: CUDA_PATH, else CUDA_HOME, else the toolkit of the nvcc on
# PATH, else /usr/local/cuda; nothing (and status 1) when that directory has no bin/nvcc or no
# include/cuda_runtime.h. The toolkit of the nvcc on PATH is asked of nvcc itself (its TOP in a dry run): the nvcc
# on PATH may be a wrapper script outside the toolkit (/usr/local/bin/nvcc running /usr/local/cuda-13.0/bin/nvcc),
# where the directory above it holds no CUDA libraries.
cuda_toolkit_root() {
  local root="${CUDA_PATH:-${CUDA_HOME:-}}"
  if [[ -z "$root" ]] && command -v nvcc > /dev/null; then
    root="$(nvcc -dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n1)"
    [[ -n "$root" ]] || root="$(dirname "$(command -v nvcc)")/.."
  fi
  root="${root:-/usr/local/cuda}"
  [[ -x "$root/bin/nvcc" && -f "$root/include/cuda_runtime.h" ]] || return 1
  (cd "$root" && pwd)
}
