#!/usr/bin/env bash
# tools/cuda_toolkit.sh finds the toolkit the way the CUDA scripts and the repository rules need it: CUDA_PATH first,
# then CUDA_HOME, then the toolkit of the nvcc on PATH, asked of nvcc itself where that nvcc is a wrapper outside
# the toolkit; no answer (status 1) where a candidate lacks bin/nvcc or include/cuda_runtime.h. Fake toolkits.
set -uo pipefail
source tools/cuda_toolkit.sh
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
expect() {  # expect WHAT EXPECTED ACTUAL
  if [[ "$2" == "$3" ]]; then echo "ok: $1"; else echo "FAILED: $1: expected '$2', got '$3'"; failures=$((failures + 1)); fi
}

fake_toolkit() {  # fake_toolkit DIR: bin/nvcc answering a dry run with its TOP, include/cuda_runtime.h
  mkdir -p "$1/bin" "$1/include"
  touch "$1/include/cuda_runtime.h"
  printf '#!/bin/sh\necho "#\\$ _HERE_=%s/bin" >&2\necho "#\\$ TOP=%s/bin/.." >&2\n' "$1" "$1" > "$1/bin/nvcc"
  chmod +x "$1/bin/nvcc"
}
fake_toolkit "$work/cuda-a"
fake_toolkit "$work/cuda-b"
mkdir -p "$work/wrappers/bin"
printf '#!/bin/sh\nexec %s/cuda-b/bin/nvcc "$@"\n' "$work" > "$work/wrappers/bin/nvcc"
chmod +x "$work/wrappers/bin/nvcc"
mkdir -p "$work/incomplete/bin"
cp "$work/cuda-a/bin/nvcc" "$work/incomplete/bin/nvcc"

expect "CUDA_PATH comes first" "$work/cuda-a" \
  "$(CUDA_PATH="$work/cuda-a" CUDA_HOME="$work/cuda-b" PATH="$work/wrappers/bin:$PATH" cuda_toolkit_root)"
expect "then CUDA_HOME" "$work/cuda-b" "$(unset CUDA_PATH; CUDA_HOME="$work/cuda-b" cuda_toolkit_root)"
expect "then the toolkit of the nvcc on PATH, through a wrapper outside it" "$work/cuda-b" \
  "$(unset CUDA_PATH CUDA_HOME; PATH="$work/wrappers/bin:$PATH" cuda_toolkit_root)"
expect "the nvcc on PATH inside its toolkit" "$work/cuda-a" \
  "$(unset CUDA_PATH CUDA_HOME; PATH="$work/cuda-a/bin:$PATH" cuda_toolkit_root)"
CUDA_PATH="$work/incomplete" cuda_toolkit_root > "$work/out"
expect "no toolkit without include/cuda_runtime.h: status" 1 "$?"
expect "no toolkit without include/cuda_runtime.h: output" "" "$(cat "$work/out")"
CUDA_PATH="$work/missing" cuda_toolkit_root > "$work/out"
expect "no toolkit at a missing CUDA_PATH" 1 "$?"
exit $((failures > 0))
