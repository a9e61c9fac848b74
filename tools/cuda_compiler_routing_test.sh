#!/usr/bin/env bash
# The C++ compiler that tools/configure_cuda.sh writes for --config=cuda sends a translation unit to nvcc_wrapper only
# when its headers reach Kokkos (or its dependency scan fails), and everything else to the host compiler. Runs with
# a stand-in Kokkos install and CUDA toolkit (no GPU, no nvcc needed): the stand-in nvcc_wrapper records each call.
source tests/shell_test_env.sh
work="$TMPDIR/routing"
rm -rf "$work" && mkdir -p "$work/repo/tools" "$work/kokkos/bin" "$work/kokkos/include" "$work/cuda/bin" \
  "$work/cuda/include" "$work/src/inc"
cp tools/configure_cuda.sh tools/cuda_toolkit.sh "$work/repo/tools/"

# A CUDA-enabled Kokkos install: its config, a core header that reaches Kokkos_Macros.hpp, and an nvcc_wrapper that
# records its call and writes the object it was asked for.
echo '#define KOKKOS_ENABLE_CUDA' > "$work/kokkos/include/KokkosCore_config.h"
echo '#define KOKKOS_MACROS_SEEN 1' > "$work/kokkos/include/Kokkos_Macros.hpp"
echo '#include <Kokkos_Macros.hpp>' > "$work/kokkos/include/Kokkos_Core.hpp"
cat > "$work/kokkos/bin/nvcc_wrapper" << EOF
#!/usr/bin/env bash
out=""
while [[ \$# -gt 0 ]]; do [[ "\$1" == -o ]] && out="\$2"; shift; done
echo "nvcc_wrapper \$out" >> "$work/calls"
: > "\$out"
EOF
printf '#!/usr/bin/env bash\nexit 0\n' > "$work/cuda/bin/nvcc"
chmod +x "$work/kokkos/bin/nvcc_wrapper" "$work/cuda/bin/nvcc"
: > "$work/cuda/include/cuda_runtime.h"
(cd "$work/repo" && CUDA_PATH="$work/cuda" tools/configure_cuda.sh "$work/kokkos" > /dev/null)
cc="$work/repo/.kcoll_cuda/cc"

echo '#include <Kokkos_Core.hpp>
int direct() { return KOKKOS_MACROS_SEEN; }' > "$work/src/direct.cc"
echo '#include <Kokkos_Core.hpp>' > "$work/src/inc/views.h"
echo '#include "inc/views.h"
int through_a_header() { return KOKKOS_MACROS_SEEN; }' > "$work/src/transitive.cc"
echo '#include <vector>
int plain() { return static_cast<int>(std::vector<int>(3).size()); }' > "$work/src/plain.cc"
echo '#include "inc/not_there.h"' > "$work/src/unscannable.cc"

failures=0
expect() {  # expect SOURCE nvcc|host [EXTRA FLAGS...]: compiles SOURCE as Bazel would and checks who compiled it
  local source="$1" who="$2" object="$work/${1%.cc}.$RANDOM.o"
  shift 2
  rm -f "$work/calls"
  if ! (cd "$work/src" && "$cc" -std=c++17 -I. -isystem "$work/kokkos/include" "$@" -MD -MF "$object.d" -c \
    "$source" -o "$object"); then
    echo "FAIL: $source ${*}: the compile failed"
    failures=$((failures + 1))
    return
  fi
  local got=host
  grep -q "nvcc_wrapper $object" "$work/calls" 2> /dev/null && got=nvcc
  if [[ "$got" != "$who" ]]; then
    echo "FAIL: $source ${*}: compiled by $got, expected $who"
    failures=$((failures + 1))
  elif [[ "$who" == host ]] && ! nm "$object" > /dev/null 2>&1; then
    echo "FAIL: $source ${*}: the host compiler wrote no object"
    failures=$((failures + 1))
  else
    echo "ok: $source ${*}: $who"
  fi
}
# The flags a --config=cuda target carries (KOKKOS_COPTS), nvcc's among them: the host compiler must not see those.
device_flags=(-DKCOLL_KOKKOS_CUDA -Xcudafe --diag_suppress=2810 -extended-lambda -arch=sm_90)
expect direct.cc nvcc "${device_flags[@]}"
expect transitive.cc nvcc "${device_flags[@]}"
expect plain.cc host "${device_flags[@]}"
expect plain.cc host
# A scan that fails cannot say the file is plain: nvcc gets it (and reports the missing header itself).
expect unscannable.cc nvcc "${device_flags[@]}"
# The dependency scan writes nothing of its own: the host compile writes the dependency file Bazel asked for.
[[ -n "$(ls "$work"/plain.*.o.d 2> /dev/null)" ]] || {
  echo "FAIL: the host compiler wrote no dependency file"
  failures=$((failures + 1))
}
echo "cuda_compiler_routing_test: $failures failed"
[[ $failures -eq 0 ]]
