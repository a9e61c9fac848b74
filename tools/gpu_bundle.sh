#!/usr/bin/env bash
# Packs kcoll's GPU binaries with what they need to run on a node that has an NVIDIA driver and nothing else: the
# benchmarks and the GPU tests built here with --config=cuda, every shared library they load (abseil, the CUDA
# runtime, the C++ runtime, ...) except glibc's and the driver's, and Open MPI's launcher, daemon, libraries,
# components and help files under a prefix of their own, so that mpirun works from wherever the bundle is unpacked.
# NCCL is not packed (the installed libnccl.so.2 alone is over 200 MB): the node's own is used (env.sh finds it).
#
#   tools/gpu_bundle.sh [--out FILE.tar.gz] [--host] [--mode MODE]
#     --out   where the tarball goes (default: kcoll-gpu-bundle.tar.gz in the current directory)
#     --host  pack a build without --config=cuda (the same layout; how the bundle itself is tested on machines
#             without a GPU)
#     --mode  Bazel's compilation mode (default opt: the bundle's benchmarks are for timing); a check of the
#             packing alone may take the mode a build already made (fastbuild after `bazel test //...`)
#
# On the node:  tar xzf kcoll-gpu-bundle.tar.gz && kcoll-gpu/run_checks.sh OUT_DIR   (every check; or by hand:)
#               source kcoll-gpu/env.sh
#               all_reduce --ranks 1 --exec cuda -b 8 -e 256M        (KCOLL_TRANSPORT=nccl for the NCCL transport)
#               mpirun -np 2 gpu_collectives_test_bin
# Fails, saying why, if a library a binary needs cannot be found here or the tarball would exceed 64 MiB.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

say() { printf '[gpu_bundle] %s\n' "$*"; }
die() {
  printf '[gpu_bundle] error: %s\n' "$*" >&2
  exit 1
}

out="$PWD/kcoll-gpu-bundle.tar.gz"
config=(--config=cuda)
mode=opt
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$(realpath -m "$2")"; shift 2 ;;
    --host) config=(); shift ;;
    --mode) mode="$2"; shift 2 ;;
    -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
readonly max_bytes=$((64 << 20))

benches=(all_reduce all_gather reduce_scatter broadcast reduce alltoall gather scatter sendrecv kernels overlap)
tests=(gpu_collectives_test_bin nccl_transport_test_bin cuda_ipc_transport_test_bin nccl_host_test kernels_test
  gpu_placement_test drop_in_device_check)
targets=()
for b in "${benches[@]}"; do targets+=("//bench:$b"); done
targets+=("//tools/verify:verify")  # the correctness matrix, with the cuda columns on the node
targets+=("//mpi_drop_in:libkcoll_mpi.so")  # the MPI drop-in library, for drop_in_device_check
for t in "${tests[@]}"; do
  # A test exists only where its dependencies do (NCCL, the CUDA runtime): pack those this build has.
  if bazel query "//tests:$t" > /dev/null 2>&1; then targets+=("//tests:$t"); fi
done
say "building ${#targets[@]} targets (-c $mode ${config[*]:-without --config=cuda})"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bazel build -c "$mode" "${config[@]}" "${targets[@]}" > "$work/build.log" 2>&1 ||
  { grep -v "^INFO\|^Loading\|^Analyzing" "$work/build.log" | tail -40 >&2; die "the build failed"; }
bin_dir="$(bazel info -c "$mode" "${config[@]}" bazel-bin 2> /dev/null)"
stage="$work/kcoll-gpu"
mkdir -p "$stage/bin" "$stage/lib"

# glibc's libraries and the driver's are the node's; NCCL is the node's by choice.
is_node_library() {
  case "$(basename "$1")" in
    libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | libutil.so* | ld-linux*.so* | libresolv.so*) return 0 ;;
    libcuda.so* | libnvidia-*.so* | libnccl.so*) return 0 ;;
  esac
  return 1
}

# Copies every library `file` loads (ldd's resolution here) into lib/, failing on one ldd cannot find.
pack_libraries() {
  local file="$1" missing
  missing="$(ldd "$file" 2> /dev/null | awk '/not found/ {print $1}' | grep -v '^libcuda\.so\|^libnccl\.so' || true)"
  [[ -z "$missing" ]] || die "$(basename "$file") needs $(echo "$missing" | tr '\n' ' ')which this machine does not have"
  ldd "$file" 2> /dev/null | awk '/=> \// {print $3}' | while read -r lib; do
    is_node_library "$lib" && continue
    [[ -e "$stage/lib/$(basename "$lib")" ]] || cp -L "$lib" "$stage/lib/"
  done
}

for t in "${targets[@]}"; do
  name="${t#//}"
  file="$bin_dir/${name/://}"
  [[ -x "$file" ]] || die "no binary at $file"
  cp -L "$file" "$stage/bin/"
  pack_libraries "$file"
done

# The checks to run on the node (every GPU test and benchmark, transcripts into one folder).
cp "$root/tools/gpu_node_checks.sh" "$stage/run_checks.sh"
# Hosts on the node's own cores, for run_checks.sh --cluster (network namespaces; root on the node), with iproute2's
# ip and tc for a node whose image has none (env.sh puts them last on PATH: the node's own come first).
cp "$root/tools/cluster.sh" "$stage/cluster.sh"
mkdir -p "$stage/sbin"
for tool in ip tc; do
  src="$(command -v "$tool")" || die "no $tool here (Debian's iproute2), which the bundle carries for cluster.sh"
  cp -L "$src" "$stage/sbin/"
  pack_libraries "$src"
done

# The built-in profiles, where the binaries look for them (bin/../share/kcoll/profiles).
mkdir -p "$stage/share/kcoll/profiles"
cp "$root"/models/profiles/*.json "$stage/share/kcoll/profiles/"

# Open MPI under its own prefix: OPAL_PREFIX makes it look for its libraries, components and help files below it,
# at the places the installed one has below its prefix.
ompi_path() { ompi_info --path "$1" --parsable | cut -d: -f3-; }
command -v ompi_info > /dev/null || die "no Open MPI here (ompi_info is not on PATH)"
prefix="$(ompi_path prefix)"
relative() { echo "${1#"$prefix"/}"; }
ompi="$stage/openmpi"
for d in bindir libdir pkglibdir pkgdatadir; do mkdir -p "$ompi/$(relative "$(ompi_path "$d")")"; done
bindir="$ompi/$(relative "$(ompi_path bindir)")"
for tool in mpirun mpiexec orterun orted ompi_info; do
  src="$(ompi_path bindir)/$tool"
  [[ -e "$src" ]] || continue
  cp -L "$src" "$bindir/"
  pack_libraries "$src"
done
cp -L "$(ompi_path libdir)"/lib{mpi,open-rte,open-pal}.so* "$ompi/$(relative "$(ompi_path libdir)")/" 2> /dev/null || true
cp -rL "$(ompi_path pkgdatadir)/." "$ompi/$(relative "$(ompi_path pkgdatadir)")/"

# Components, with the libraries they load, except those for fabrics (libfabric, UCX, RDMA, PSM, HCOLL), which
# would pull in their stacks: a node without a fabric runs over shared memory and TCP.
is_fabric_library() {
  case "$(basename "$1")" in
    libfabric.so* | libucp.so* | libucs.so* | libuct.so* | libucm.so* | librdmacm.so* | libpsm*.so* | libhcoll*.so* | libmlx*.so* | liboshmem.so*) return 0 ;;
  esac
  return 1
}
skipped=()
pack_components() {  # pack_components SOURCE_DIR DEST_DIR
  local src="$1" dest="$2" so lib ok
  mkdir -p "$dest"
  for so in "$src"/*.so; do
    ok=1
    while read -r lib; do
      [[ -n "$lib" ]] && is_fabric_library "$lib" && ok=0
    done < <(ldd "$so" 2> /dev/null | awk '/=> \// {print $3} /not found/ {ok = 0; print "libfabric.so"}')
    if [[ "$ok" == 1 ]]; then
      cp -L "$so" "$dest/"
      pack_libraries "$so"
    else
      skipped+=("$(basename "$so" .so)")
    fi
  done
}
pack_components "$(ompi_path pkglibdir)" "$ompi/$(relative "$(ompi_path pkglibdir)")"

# PMIx, when Open MPI uses an external one: its plugins, under a prefix of their own (PMIX_INSTALL_PREFIX).
pmix_lib="$(ldd "$(ompi_path bindir)/orterun" | awk '/libpmix\.so/ {print $3}')"
pmix_env=""
if [[ -n "$pmix_lib" && -d "$(dirname "$pmix_lib")/pmix" ]]; then
  pmix_prefix="$(dirname "$(dirname "$pmix_lib")")"
  mkdir -p "$stage/pmix/lib"
  pack_components "$(dirname "$pmix_lib")/pmix" "$stage/pmix/lib/pmix"
  [[ -d "$pmix_prefix/share" ]] && cp -rL "$pmix_prefix/share" "$stage/pmix/"
  pmix_env='export PMIX_INSTALL_PREFIX="$here/pmix"'
fi
[[ ${#skipped[@]} -eq 0 ]] || say "left out $(echo "${skipped[@]}" | wc -w) fabric components (${skipped[*]:0:6} ...)"

cat > "$stage/env.sh" << EOF
# Source this file: puts the bundle's binaries, libraries and Open MPI first, and finds the node's NCCL.
here="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
export PATH="\$here/bin:\$here/openmpi/$(relative "$(ompi_path bindir)"):\$PATH:\$here/sbin"
export OPAL_PREFIX="\$here/openmpi"
$pmix_env
export KCOLL_MPIRUN="\$here/openmpi/$(relative "$(ompi_path bindir)")/mpirun"
# The node's NCCL: NCCL_HOME, else the NVIDIA NCCL wheel of the python3 on PATH, else the loader's search path.
nccl_lib=""
if [[ -n "\${NCCL_HOME:-}" ]]; then
  nccl_lib="\$NCCL_HOME/lib"
elif command -v python3 > /dev/null; then
  nccl_lib="\$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2> /dev/null || true)"
fi
export LD_LIBRARY_PATH="\$here/lib:\$here/openmpi/$(relative "$(ompi_path libdir)")\${nccl_lib:+:\$nccl_lib}\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
unset nccl_lib
EOF
cat > "$stage/README" << EOF
kcoll GPU bundle, built $(date -u +%Y-%m-%d) from $(git -C "$root" rev-parse --short HEAD 2> /dev/null || echo "a checkout")
(${config[*]:-host build}). Needs on the node: an NVIDIA driver (libcuda) and NCCL (libnccl.so.2: NCCL_HOME, the
python3 nvidia-nccl wheel, or the loader's path). Then:

  source env.sh
  ./run_checks.sh OUT_DIR                                   # every GPU test and benchmark, transcripts in OUT_DIR
  ./run_checks.sh OUT_DIR --cpu --cluster                   # the node's cores: ranks, then hosts of ranks
  kernels --exec cuda -b 64M -e 256M -f 4 -o sum            # the kernels against a device-to-device cudaMemcpy
  all_reduce --ranks 1 --exec cuda -b 8 -e 256M             # kcoll's AllReduce rows beside NCCL's
  mpirun -np 2 --oversubscribe gpu_collectives_test_bin     # the GPU collective tests on 2 ranks

Binaries: $(ls "$stage/bin" | tr '\n' ' ')
EOF

tar -C "$work" -czf "$out" kcoll-gpu
size="$(stat -c %s "$out")"
((size <= max_bytes)) || die "the bundle is $((size >> 20)) MiB, over the 64 MiB it must fit in"
say "wrote $out: $((size >> 10)) KiB ($(ls "$stage/bin" | wc -l) binaries, $(ls "$stage/lib" | wc -l) libraries, Open MPI $(ompi_info --version 2> /dev/null | head -n1 | awk '{print $NF}'))"
