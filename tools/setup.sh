#!/usr/bin/env bash
# Installs everything kcoll builds with, idempotently: Debian packages, and Kokkos 3.4.01 (Serial + OpenMP) built
# from Debian's trilinos source package into a cache outside the repository. Quick when all is there.
#
#   tools/setup.sh            # install what is missing
#   KOKKOS_ROOT=/opt/kokkos tools/setup.sh   # use your own Kokkos: skips the Kokkos build
#
# The Kokkos cache: ${KCOLL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcoll}/kokkos-3.4.01 (Bazel reads the same path).
set -euo pipefail

say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

PACKAGES=(
  bazel-bootstrap bazel-rules-java bazel-platforms  # Bazel 4.2.3 and the rule sets it loads offline
  g++ cmake make                                    # compilers; CMake builds Kokkos
  gfortran pkg-config                               # the install check: a Fortran + C++ CMake client, pkg-config
  openmpi-bin libopenmpi-dev                        # MPI (the default: Debian's alternatives keep mpicc Open MPI's)
  mpich libmpich-dev                                # MPICH, the other MPI kcoll builds against (MPICC=mpicc.mpich)
  libgtest-dev libgmock-dev libbenchmark-dev libabsl-dev nlohmann-json3-dev
  python3 python3-matplotlib                        # tools/plot
  libgloo-dev                                       # Gloo, a peer in the AllReduce benchmark
  xz-utils                                          # unpacking Debian source packages
  iproute2 iputils-ping nftables                    # tools/cluster.sh: namespaces, shaping, dropped packets
)

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root (or sudo) to run: $*"
  fi
}

apt_updated=0
apt_update_once() {
  if [[ $apt_updated -eq 0 ]]; then
    say "apt-get update"
    as_root apt-get update -qq || die "apt-get update failed: check the machine's apt sources"
    apt_updated=1
  fi
}

# --- Debian packages -------------------------------------------------------------------------------------------------
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  apt_update_once
  say "installing: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null \
    || die "apt-get install failed for: ${missing[*]}"
else
  say "Debian packages: all present"
fi

# --- Kokkos ----------------------------------------------------------------------------------------------------------
KOKKOS_VERSION=3.4.01
cache="${KCOLL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcoll}"
if [[ -n "${KOKKOS_ROOT:-}" ]]; then
  [[ -f "$KOKKOS_ROOT/include/KokkosCore_config.h" ]] \
    || die "KOKKOS_ROOT=$KOKKOS_ROOT has no include/KokkosCore_config.h: not a Kokkos install"
  say "Kokkos: using KOKKOS_ROOT=$KOKKOS_ROOT"
  exit 0
fi
prefix="$cache/kokkos-$KOKKOS_VERSION"
if [[ -f "$prefix/include/KokkosCore_config.h" ]] && grep -q "KOKKOS_ENABLE_OPENMP" "$prefix/include/KokkosCore_config.h"; then
  say "Kokkos $KOKKOS_VERSION: present in $prefix"
  exit 0
fi

say "Kokkos $KOKKOS_VERSION: building from Debian's trilinos source package into $prefix"
# A deb-src entry made from the machine's own apt sources (no host name is written here).
srcfile=/etc/apt/sources.list.d/kcoll-deb-src.sources
if ! grep -rqs "^Types:.*deb-src\|^deb-src " /etc/apt/sources.list /etc/apt/sources.list.d/; then
  if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | as_root tee "$srcfile" >/dev/null
  elif [[ -s /etc/apt/sources.list ]]; then
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
      | as_root tee /etc/apt/sources.list.d/kcoll-deb-src.list >/dev/null
  else
    die "no apt sources found to derive a deb-src entry from"
  fi
  apt_updated=0
fi
apt_update_once

work="$(mktemp -d "${TMPDIR:-/tmp}/kcoll-kokkos.XXXXXX")"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get source --download-only trilinos >/dev/null 2>&1) \
  || die "apt-get source --download-only trilinos failed (is a deb-src entry reachable?)"
tarball="$(ls "$work"/trilinos_*.orig.tar.* 2>/dev/null | head -n 1)"
[[ -n "$tarball" ]] || die "trilinos source tarball not found after download"
say "unpacking packages/kokkos from $(basename "$tarball")"
tar -xf "$tarball" -C "$work" --wildcards '*/packages/kokkos/*'
src="$(ls -d "$work"/*/packages/kokkos | head -n 1)"
grep -q "set(Kokkos_VERSION_MINOR 4)" "$src/CMakeLists.txt" || die "the trilinos source does not carry Kokkos 3.4"

say "configuring and building Kokkos (Serial + OpenMP)"
cmake -S "$src" -B "$work/build" -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_STANDARD=17 -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON >"$work/cmake.log" 2>&1 \
  || { tail -n 30 "$work/cmake.log"; die "Kokkos CMake configure failed"; }
cmake --build "$work/build" -j "$(nproc)" >"$work/build.log" 2>&1 \
  || { tail -n 30 "$work/build.log"; die "Kokkos build failed"; }
rm -rf "$prefix"
cmake --install "$work/build" >/dev/null || die "Kokkos install into $prefix failed"
say "Kokkos $KOKKOS_VERSION installed in $prefix"
