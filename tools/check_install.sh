#!/usr/bin/env bash
# Checks kcoll the way applications adopt it, from a checkout where tools/setup.sh has run:
#   1. tools/install.sh (--mode fastbuild) into a temporary prefix, and each public header compiled alone against it;
#   2. examples/ built with CMake against that install (find_package(kcoll)), and the CG example run on 2 ranks with
#      kcoll and with MPI_Allreduce (same iterations); a client in CMake projects of C++ alone and of Fortran and C++;
#   3. a C program (tests/c_api_test.c) built with pkg-config against the install, run on 2 ranks;
#   4. the separate Bazel workspace examples/bazel_client, exactly as docs/embedding.md shows it, built and run on 2 ranks;
#      against MPICH where it is installed (MPICC=mpicc.mpich, run by its mpirun.mpich): CI's one build of kcoll
#      against the other MPI, at no extra cost (the client workspace compiles kcoll anyway), and a few of kcoll's own
#      multi-rank tests run there under MPICH, and the MPI drop-in library built there for MPICH;
#   5. MPICH's own collective test suite (tools/mpich_coll_suite.sh) with the installed MPI drop-in library preloaded:
#      no test may fail with it that passes with Open MPI alone (the tests that fail with it run again without it:
#      --baseline failed); and, where MPICH is installed, the library of step 4 under MPICH: the drop-in test
#      (tests/drop_in_test.sh) and the suite.
# Prints one "[check] ok: ..." or "[check] FAILED: ..." line per step (with the step's output when it fails) and
# exits non-zero if any failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
failures=0

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false  # two ranks fill the two cores: one thread each
mpirun=(mpirun --oversubscribe -np 2)

check() {  # check NAME COMMAND...
  local name="$1"
  shift
  local start=$SECONDS
  if "$@" >"$work/step.log" 2>&1; then
    echo "[check] ok: $name ($((SECONDS - start)) s)"
  else
    echo "[check] FAILED: $name ($((SECONDS - start)) s); its output:"
    grep -av "linux-sandbox" "$work/step.log" | tail -40 | sed 's/^/    /'
    failures=$((failures + 1))
  fi
  grep -a "^cg: \|^drop_in_test: \|^drop_in_device_test: \|^allreduce_client\|^c_api_test\|^all_reduce/auto\|passed, \|^//\|^@kcoll//.*PASSED\|^mpich_coll_suite: " "$work/step.log" |
    cut -c1-300 | sed 's/^/    /'
}

same_iterations() {
  local kcoll mpi
  kcoll="$("${mpirun[@]}" "$work/build/cg" --n 32 --collectives kcoll)" || return 1
  mpi="$("${mpirun[@]}" "$work/build/cg" --n 32 --collectives mpi)" || return 1
  echo "$kcoll"
  echo "$mpi"
  [[ "$(sed -n 's/^cg: \([0-9]*\) iterations.*/\1/p' <<<"$kcoll")" == \
     "$(sed -n 's/^cg: \([0-9]*\) iterations.*/\1/p' <<<"$mpi")" ]]
}

pkg_config_c_program() {
  local flags
  flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs kcoll)" || return 1
  # shellcheck disable=SC2086
  gcc -o "$work/c_api_test" tests/c_api_test.c $flags -Wl,-rpath,"$prefix/lib" && "${mpirun[@]}" "$work/c_api_test"
}

bazel_client() {
  local mpicc="" run=("${mpirun[@]}") tests=() targets=(//:allreduce_client)
  if command -v mpicc.mpich > /dev/null && command -v mpirun.mpich > /dev/null; then
    mpicc=mpicc.mpich
    run=(mpirun.mpich -np 2)
    # kcoll's own tests under MPICH, checked against MPICH's MPI_Allreduce and MPI_Alltoallv: AllReduce's every
    # algorithm on the shared-memory and MPI transports, the V-collectives, and the launcher it picks. Two ranks:
    # Debian's MPICH (ch4:ucx) spins in its own calls, and ranks that outnumber the cores crawl (3 ranks on 2 cores:
    # all_reduce_test 200 s against 3 s with Open MPI, which yields).
    tests=(@kcoll//tests:all_reduce_test_np2 @kcoll//tests:all_reduce_test_mpi_np2 @kcoll//tests:v_collectives_test_np2
      @kcoll//bench/options:launcher_test)
    targets+=(@kcoll//mpi_drop_in:libkcoll_mpi.so)  # the MPI drop-in library for MPICH, judged by its suite below
  fi
  # "2 ranks" in the client's line: a binary of the other MPI would run as two singletons of 1 rank. The workspace
  # shares kcoll's disk cache (given here, not in the workspace, which stays as docs/embedding.md shows it): the
  # client builds kcoll against MPICH from source, 5 minutes on 2 cores, and again only for what changed.
  local cache=(--disk_cache="$HOME/.cache/kcoll/bazel-disk")  # .bazelrc's
  (cd examples/bazel_client && export MPICC="$mpicc" && bazel build "${cache[@]}" "${targets[@]}" &&
    "${run[@]}" bazel-bin/allreduce_client | tee /dev/stderr | grep "2 ranks" > /dev/null &&
    if [[ ${#tests[@]} -gt 0 ]]; then
      cp -L bazel-bin/external/kcoll/mpi_drop_in/libkcoll_mpi.so "$work/libkcoll_mpi_mpich.so" &&
        bazel test "${cache[@]}" --test_output=errors "${tests[@]}"
    fi)
  local status=$?
  (cd examples/bazel_client && bazel shutdown)
  return $status
}

# The bundle for a bare GPU node, packed from a host build: unpacked elsewhere and run with this machine's Open MPI
# and PMIx hidden (a mount namespace, where this user may make one), it must launch and pass on its own. Packed from
# the fastbuild binaries that `bazel test //...` built: what is checked is the packing, not the binaries' speed.
on_bare_node() {  # on_bare_node SCRIPT: runs SCRIPT in the unpacked bundle's environment, Open MPI hidden
  local hide=""
  if unshare -m true 2> /dev/null; then
    for d in "$(ompi_info --path libdir --parsable | cut -d: -f3-)" "$(ompi_info --path pkgdatadir --parsable | cut -d: -f3-)" \
      /usr/lib/x86_64-linux-gnu/pmix2 /etc/openmpi; do
      [[ -d "$d" ]] && hide+="mount --bind '$work/empty' '$d'; "
    done
  else
    echo "no mount namespace here: the bundle runs beside the installed Open MPI"
  fi
  local run="$hide cd '$work' && source '$work/node/kcoll-gpu/env.sh' && $1"
  if [[ -n "$hide" ]]; then unshare -m bash -c "$run"; else bash -c "$run"; fi
}
relocated_bundle() {
  tools/gpu_bundle.sh --host --mode fastbuild --out "$work/bundle.tar.gz" || return 1
  mkdir -p "$work/node" "$work/empty" && tar -C "$work/node" -xzf "$work/bundle.tar.gz" || return 1
  on_bare_node "command -v mpirun &&
    all_reduce --ranks 2 -b 8 -e 1K -f 32 -n 2 -w 1 --algo ring,mpi && mpirun -np 2 --oversubscribe gpu_placement_test &&
    KCOLL_DEBUG=INFO all_reduce --ranks 2 -b 8 -e 8 -n 1 -w 0 --algo auto 2>&1 | grep 'auto prices with: built-in'"
}
# The bundle's hosts (run_checks.sh --cluster): its cluster.sh starting the bundle's Open MPI on a host of its own,
# through the agent, with the installed one hidden (a relocated Open MPI hands the agent OPAL_PREFIX=... orted).
# Without root, cluster.sh says "skipped" and this passes.
bundle_cluster() {
  local cluster="$work/node/kcoll-gpu/cluster.sh"
  [[ -x "$cluster" ]] || { echo "no unpacked bundle (its check failed)"; return 1; }
  on_bare_node "export KCOLL_CLUSTER=kcb; '$cluster' up 2 1 &&
    '$cluster' run all_reduce -b 8 -e 1K -f 32 -n 2 -w 1 --algo ring,hierarchical,mpi; rc=\$?; '$cluster' down; exit \$rc"
}

# An unoptimized install: the package's layout, CMake and pkg-config files and links are what is checked, and its
# objects are those `bazel test //...` compiled already (-c opt would compile the library again, 270 s on 2 cores).
check "tools/install.sh --prefix $prefix --mode fastbuild" tools/install.sh --prefix "$prefix" --no-setup --mode fastbuild
# Each public header alone, with nothing on the include path but what pkg-config names: the install's include/, Kokkos
# and MPI. C++ for the C++ API, C and C++ for kcoll.h.
public_header_alone() {  # public_header_alone HEADER LANGUAGE
  local flags
  flags="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags kcoll)" || return 1
  local compiler=(g++ -std=c++17 -x c++)
  [[ "$2" == c ]] && compiler=(gcc -x c)
  # shellcheck disable=SC2086
  printf '#include "%s"\nint kcoll_probe;\n' "$1" | "${compiler[@]}" -fsyntax-only -Wall -Werror $flags -
}
for h in collectives/communicator.h collectives/request.h collectives/views.h collectives/bucket_fusion.h collectives/kcoll.h; do
  check "$h alone against the installed headers (C++)" public_header_alone "$h" c++
done
check "collectives/kcoll.h alone against the installed headers (C)" public_header_alone collectives/kcoll.h c
check "CMake build of examples/ against the install" \
  bash -c "cmake -S examples -B '$work/build' -DCMAKE_PREFIX_PATH='$prefix' -DCMAKE_BUILD_TYPE=Release &&
           cmake --build '$work/build' -j 2"
check "the CG example (CMake build) on 2 ranks, kcoll and MPI_Allreduce converging alike" same_iterations
installed_profiles() {  # the shared library finds the profiles installed beside it (share/kcoll/profiles)
  local log
  log="$(KCOLL_DEBUG=INFO "${mpirun[@]}" "$work/build/cg" --n 8 --collectives kcoll 2>&1)" || { echo "$log"; return 1; }
  grep "auto prices with" <<<"$log"
  grep -q "auto prices with: built-in" <<<"$log"
}
check "the installed library prices auto with the profiles installed beside it" installed_profiles
check "the smallest client, linked statically (kcoll::kcoll_static)" "${mpirun[@]}" "$work/build/allreduce_client"
# The smallest client in a CMake project of its own per set of languages: most C++ applications enable only CXX.
consumer_project() {  # consumer_project LANGUAGE...
  local dir="$work/consumer_$(IFS=_; echo "$*")"
  mkdir -p "$dir" && cp examples/bazel_client/allreduce_client.cc "$dir/" || return 1
  printf '%s\n' "cmake_minimum_required(VERSION 3.16)" "project(consumer LANGUAGES $*)" "find_package(kcoll REQUIRED)" \
    "add_executable(client allreduce_client.cc)" "target_link_libraries(client PRIVATE kcoll::kcoll)" > "$dir/CMakeLists.txt"
  cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix" && cmake --build "$dir/build" &&
    "${mpirun[@]}" "$dir/build/client"
}
check "a CMake project of C++ alone (project(app CXX)) linking kcoll::kcoll" consumer_project CXX
check "a CMake project of Fortran and C++ linking kcoll::kcoll" consumer_project Fortran CXX
check "a C program on the C API, built with pkg-config" pkg_config_c_program
installed_verify() {  # kcoll-verify as installed, started by mpirun: its matrix passes and closes with the count
  local log
  log="$("${mpirun[@]}" "$prefix/bin/kcoll-verify" --collectives all_reduce,alltoallv --counts 5,300 2>&1)" ||
    { echo "$log"; return 1; }
  grep -E "^all_reduce/auto|passed, " <<<"$log"
  grep -Eq "^[1-9][0-9]* passed, 0 failed$" <<<"$log"
}
check "kcoll-verify, installed, under mpirun" installed_verify
client_mpi="the default MPI"
command -v mpicc.mpich > /dev/null && client_mpi="MPICH (MPICC=mpicc.mpich), with kcoll's tests there"
check "the Bazel client workspace examples/bazel_client, against $client_mpi" bazel_client
check "MPICH's coll suite (test/mpi/coll, up to 4 ranks) with the installed libkcoll_mpi.so preloaded" \
  tools/mpich_coll_suite.sh --library "$prefix/lib/libkcoll_mpi.so" --out "$work/mpich_coll_suite" --baseline failed
# Under MPICH itself, the library the client workspace built against MPICH (MPIX_Grequest_start requests for the
# nonblocking calls; MPICH's f08 routines without a buffer): the drop-in test's programs built with MPICH's wrappers,
# then MPICH's suite. The suite runs up to MPICH_SUITE_MAXNP ranks (default 2): MPICH's ranks spin in its own waits,
# and with 4 ranks on 2 cores the suite takes about 6 minutes a run (docs/measured/drop_in_mpich_coll_suite_mpich.txt).
mpich_drop_in_test() {
  local launch="$work/mpiexec_mpich.sh"
  printf '#!/usr/bin/env bash\nn="$1"\nshift\nexec mpiexec.mpich -np "$n" "$@"\n' > "$launch" && chmod +x "$launch" &&
    mpicc.mpich -O1 -o "$work/drop_in_check_mpich" tests/drop_in_check.c &&
    mpicc.mpich -O1 -o "$work/drop_in_numerics_mpich" tests/drop_in_numerics.c -lm &&
    MPIFORT=mpifort.mpich tests/drop_in_test.sh "$launch" "$work/libkcoll_mpi_mpich.so" "$work/drop_in_check_mpich" \
      tests/drop_in_check.f90 "$work/drop_in_numerics_mpich" tests/drop_in_check_f08.f90 &&
    mpicc.mpich -O1 -o "$work/drop_in_device_check_mpich" tests/drop_in_device_check.c -ldl &&
    gcc -O1 -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$work/fake_cuda_driver.so" tests/fake_cuda_driver.c &&
    tests/drop_in_device_test.sh "$launch" "$work/libkcoll_mpi_mpich.so" "$work/drop_in_device_check_mpich" \
      "$work/fake_cuda_driver.so" "$work/drop_in_check_mpich"
}
if [[ -f "$work/libkcoll_mpi_mpich.so" ]]; then
  check "the drop-in tests under MPICH (C, mpif.h, mpi_f08, device buffers; 2-4 ranks), the library built for MPICH" \
    mpich_drop_in_test
  check "MPICH's coll suite under MPICH (up to ${MPICH_SUITE_MAXNP:-2} ranks) with libkcoll_mpi.so built against MPICH" \
    env MPICC=mpicc.mpich tools/mpich_coll_suite.sh --library "$work/libkcoll_mpi_mpich.so" \
    --maxnp "${MPICH_SUITE_MAXNP:-2}" --out "$work/mpich_coll_suite_mpich" --baseline failed
fi
check "the bare-GPU-node bundle (tools/gpu_bundle.sh --host), unpacked elsewhere, with Open MPI hidden" relocated_bundle
check "the bundle's cluster.sh: 2 hosts of 1 rank over the bundle's Open MPI, the installed one hidden" bundle_cluster
echo "[check] $failures step(s) failed"
exit $((failures > 0))
