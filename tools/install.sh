#!/usr/bin/env bash
# Installs kcoll for applications that build with CMake or pkg-config:
#
#   tools/install.sh --prefix DIR [--no-setup] [--mode opt|fastbuild]
#
# Builds kcoll with -c opt (after tools/setup.sh, unless --no-setup) and installs into DIR (--mode fastbuild installs
# an unoptimized build, as fast to make as the tests' own build: for checking the packaging, not for use):
#   include/collectives/, include/base/ the public API (communicator.h, options.h, counters.h, views.h,
#                                      bucket_fusion.h, kcoll.h) and the base headers they include (names.h,
#                                      types.h, topology.h, ...), at the same paths as in the repository
#   lib/libkcoll.a, lib/libkcoll.so*   the library (static, and shared with its soname)
#   bin/kcoll-verify                   the cross-backend correctness matrix (docs/verify.md): mpirun -np 4 kcoll-verify
#   lib/libkcoll_mpi.so                the MPI drop-in library (mpi_drop_in/README.md): MPI's collectives on kcoll
#                                      for unchanged MPI programs (LD_PRELOAD, or linked before the MPI library);
#                                      it carries kcoll and Kokkos inside, and forwards to the MPI it was built with
#   lib/cmake/kcoll/                   kcollConfig.cmake + kcollConfigVersion.cmake: find_package(kcoll) imports
#                                      kcoll::kcoll (shared) and kcoll::kcoll_static, with their dependencies
#   lib/pkgconfig/kcoll.pc             for pkg-config --cflags --libs kcoll
#   share/kcoll/profiles/*.json        the built-in profiles `auto` prices with, read at run time from beside lib/
#                                      (a program linked with libkcoll.a sets KCOLL_PROFILE_DIR to this directory)
#
# The Kokkos kcoll is built with (KOKKOS_ROOT, else tools/setup.sh's) is the one the installed package asks for:
# an application must use the same Kokkos. Nothing of Bazel or of the source tree is needed afterwards.
set -euo pipefail

say() { printf '[install] %s\n' "$*"; }
die() { printf '[install] error: %s\n' "$*" >&2; exit 1; }

prefix=""
setup=1
mode=opt
while [[ $# -gt 0 ]]; do
  case "$1" in
    --prefix) [[ $# -ge 2 ]] || die "--prefix needs a directory"; prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --no-setup) setup=0; shift ;;
    --mode) [[ $# -ge 2 ]] || die "--mode needs opt or fastbuild"; mode="$2"; shift 2 ;;
    --mode=*) mode="${1#--mode=}"; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (usage: tools/install.sh --prefix DIR [--no-setup] [--mode opt|fastbuild])" ;;
  esac
done
[[ "$mode" == opt || "$mode" == fastbuild ]] || die "--mode '$mode' must be opt or fastbuild"
[[ -n "$prefix" ]] || die "--prefix DIR is required"
mkdir -p "$prefix" || die "cannot create --prefix '$prefix'"
prefix="$(cd "$prefix" && pwd)"

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
[[ $setup -eq 0 ]] || tools/setup.sh
version="$(tr -d '[:space:]' < VERSION)"
major="${version%%.*}"

# --- Build, and read what the library is made of from a link against it ---------------------------------------------
say "building kcoll (-c $mode, position-independent)"
# --symlink_prefix=/: the workspace's bazel-bin and bazel-testlogs links keep pointing where they did.
bazel build -c "$mode" --force_pic --symlink_prefix=/ //:kcoll //tools:kcoll_link_line //mpi_drop_in:libkcoll_mpi.so \
  //tools/verify || die "the build failed"
bin="$(bazel info -c "$mode" --force_pic bazel-bin 2>/dev/null)"
execroot="$(bazel info -c "$mode" --force_pic execution_root 2>/dev/null)"
params="$bin/tools/kcoll_link_line-2.params"
[[ -f "$params" ]] || die "no link parameters at $params"

objects=()
kokkos_archives=()
flags=()
while IFS= read -r line; do
  case "$line" in
    *kcoll_link_line/*.o) ;;  # the probe's own object
    *.pic.o|*.o) objects+=("$execroot/$line") ;;
    *kcoll_kokkos/*.a) kokkos_archives+=("$(readlink -f "$execroot/$line")") ;;
    -l*|-L*|-Wl,-rpath,*|-fopenmp|-pthread) flags+=("$line") ;;
  esac
done < "$params"
[[ ${#objects[@]} -gt 0 ]] || die "no kcoll objects in $params"

absl_libs=() absl_targets=() mpi_flags=() other_flags=()
for f in "${flags[@]}"; do
  case "$f" in
    -labsl_*) absl_libs+=("$f"); absl_targets+=("absl::${f#-labsl_}") ;;
    -lmpi|*openmpi*|*/mpi*) mpi_flags+=("$f") ;;
    -lstdc++|-lm) ;;
    *) other_flags+=("$f") ;;  # CUDA, NCCL, -fopenmp, -ldl, -lpthread
  esac
done
kokkos_lib="$(dirname "${kokkos_archives[0]:-/nonexistent/lib/x}")"
kokkos_root="$(dirname "$kokkos_lib")"
[[ -f "$kokkos_root/include/KokkosCore_config.h" ]] || die "cannot tell the Kokkos kcoll was built with ($kokkos_root)"
kokkos_cmake_dir="$(dirname "$(find "$kokkos_root" -name KokkosConfig.cmake -print -quit)")"

# --- Libraries -------------------------------------------------------------------------------------------------------
mkdir -p "$prefix/lib" "$prefix/include" "$prefix/lib/cmake/kcoll" "$prefix/lib/pkgconfig"
say "lib/libkcoll.a (${#objects[@]} objects)"
rm -f "$prefix/lib/libkcoll.a"
ar rcs "$prefix/lib/libkcoll.a" "${objects[@]}"
say "lib/libkcoll.so.$version"
# Kokkos stays outside the shared library (an application links the one Kokkos it initialises).
g++ -shared -o "$prefix/lib/libkcoll.so.$version" -Wl,-soname,"libkcoll.so.$major" "${objects[@]}" \
  "${absl_libs[@]}" "${mpi_flags[@]}" "${other_flags[@]}"
ln -sf "libkcoll.so.$version" "$prefix/lib/libkcoll.so.$major"
ln -sf "libkcoll.so.$major" "$prefix/lib/libkcoll.so"
say "lib/libkcoll_mpi.so"
install -m 755 "$bin/mpi_drop_in/libkcoll_mpi.so" "$prefix/lib/libkcoll_mpi.so"
say "bin/kcoll-verify"
install -D -m 755 "$bin/tools/verify/verify" "$prefix/bin/kcoll-verify"

# --- Profiles: the built-in ones `auto` reads at run time, found from lib/ (choice/shipped_profiles.h) -----------
mkdir -p "$prefix/share/kcoll/profiles"
cp models/profiles/*.json "$prefix/share/kcoll/profiles/"
say "share/kcoll/profiles ($(ls models/profiles/*.json | wc -l) profiles)"

# --- Headers: the public API and the base headers it includes, nothing else ------------------------------------------
# //collectives:public_headers and //base:public_headers list them; //tests:public_headers_test fails to build when a
# public header includes any other kcoll header.
headers="$(bazel query --noshow_progress 'labels(hdrs, //collectives:public_headers) + labels(hdrs, //base:public_headers)' \
  2>/dev/null | sed -n 's#^//\([^:]*\):\(.*\)$#\1/\2#p' | sort -u)"
[[ -n "$headers" ]] || die "cannot list the public headers (bazel query of //collectives:public_headers)"
count=0
for h in $headers; do
  install -D -m 644 "$root/$h" "$prefix/include/$h"
  count=$((count + 1))
done
say "include/: $count headers"

# --- CMake package ---------------------------------------------------------------------------------------------------
join() { local IFS=";"; echo "$*"; }
cat > "$prefix/lib/cmake/kcoll/kcollConfig.cmake" <<EOF
# kcoll $version, installed by tools/install.sh. find_package(kcoll REQUIRED) imports:
#   kcoll::kcoll         the shared library   (target_link_libraries(app PRIVATE kcoll::kcoll))
#   kcoll::kcoll_static  the static library
# Both bring kcoll's headers, C++17, and its dependencies: the Kokkos it was built with, MPI and abseil.
get_filename_component(_kcoll_prefix "\${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
include(CMakeFindDependencyMacro)
if(NOT Kokkos_DIR)
  set(Kokkos_DIR "$kokkos_cmake_dir" CACHE PATH "The Kokkos kcoll was built with")
endif()
find_dependency(Kokkos)
# kcoll calls MPI's C bindings. A project without C (project(app CXX), Fortran and C++) reaches them through its C++
# compiler; MPI's C++ bindings stay out either way.
get_property(_kcoll_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if("C" IN_LIST _kcoll_languages)
  find_dependency(MPI COMPONENTS C)
  set(_kcoll_mpi MPI::MPI_C)
else()
  set(MPI_CXX_SKIP_MPICXX ON CACHE BOOL "kcoll uses MPI's C bindings only")
  find_dependency(MPI COMPONENTS CXX)
  set(_kcoll_mpi MPI::MPI_CXX)
endif()
find_dependency(absl)
set(_kcoll_interface Kokkos::kokkos \${_kcoll_mpi} $(join "${absl_targets[@]}") $(join "${other_flags[@]}"))
if(NOT TARGET kcoll::kcoll)
  add_library(kcoll::kcoll SHARED IMPORTED)
  set_target_properties(kcoll::kcoll PROPERTIES
    IMPORTED_LOCATION "\${_kcoll_prefix}/lib/libkcoll.so.$version"
    IMPORTED_SONAME "libkcoll.so.$major")
  add_library(kcoll::kcoll_static STATIC IMPORTED)
  set_target_properties(kcoll::kcoll_static PROPERTIES IMPORTED_LOCATION "\${_kcoll_prefix}/lib/libkcoll.a")
  foreach(_kcoll_target kcoll::kcoll kcoll::kcoll_static)
    set_target_properties(\${_kcoll_target} PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "\${_kcoll_prefix}/include"
      INTERFACE_COMPILE_DEFINITIONS "OMPI_SKIP_MPICXX"
      INTERFACE_COMPILE_FEATURES "cxx_std_17"
      INTERFACE_LINK_LIBRARIES "\${_kcoll_interface}")
  endforeach()
endif()
set(kcoll_VERSION "$version")
EOF
version_script="$(mktemp --suffix=.cmake)"
cat > "$version_script" <<'EOF'
include(CMakePackageConfigHelpers)
write_basic_package_version_file("${OUT}" VERSION "${VERSION}" COMPATIBILITY SameMajorVersion)
EOF
cmake -DOUT="$prefix/lib/cmake/kcoll/kcollConfigVersion.cmake" -DVERSION="$version" -P "$version_script"
rm -f "$version_script"
say "lib/cmake/kcoll/kcollConfig.cmake, kcollConfigVersion.cmake"

# --- pkg-config ------------------------------------------------------------------------------------------------------
kokkos_cflags="$(grep -q '#define KOKKOS_ENABLE_OPENMP' "$kokkos_root/include/KokkosCore_config.h" && echo -fopenmp || true)"
kokkos_libs="-L$kokkos_lib"
for a in "${kokkos_archives[@]}"; do kokkos_libs+=" -l$(basename "$a" .a | sed 's/^lib//')"; done
cat > "$prefix/lib/pkgconfig/kcoll.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: kcoll
Description: Collective-communication algorithms with Kokkos kernels, over MPI and NCCL
Version: $version
Requires: ompi-c
Cflags: -I\${includedir} -I$kokkos_root/include -DOMPI_SKIP_MPICXX $kokkos_cflags
Libs: -L\${libdir} -lkcoll $kokkos_libs ${absl_libs[*]} ${other_flags[*]} -lstdc++ -lm
EOF
say "lib/pkgconfig/kcoll.pc"
say "kcoll $version installed in $prefix"
