#!/usr/bin/env bash
# MPICH's own collective tests (test/mpi/coll of Debian's mpich source package) judging the MPI drop-in library:
#
#   tools/mpich_coll_suite.sh --library PATH/libkcoll_mpi.so [--maxnp 4] [--out DIR] [--baseline all|failed]
#
# Obtains the source package from the machine's apt sources (the deb-src entry tools/setup.sh makes), configures its
# test/mpi against the MPI that `mpicc` (or $MPICC) wraps and builds coll/ once into $KCOLL_CACHE (default
# ~/.cache/kcoll). Then runs the whole directory with MPICH's own runner (runtests, up to --maxnp ranks) with the
# library preloaded into every rank (KCOLL_DEBUG=INFO, logs in DIR/logs), and with the MPI alone: the whole directory
# (--baseline all, the default) or only the tests that failed with the library (--baseline failed: the same verdict
# from a second run of a few tests, without the count of tests that only the library passes). Prints each run's summary, every test whose
# result differs, and the library's lines summed over the suite (calls on kcoll and forwarded, with the reasons);
# exits 1 when a test fails with the library that passes without it.
# Nothing of MPICH's code is kept in this repository.
set -uo pipefail

say() { printf 'mpich_coll_suite: %s\n' "$*"; }
die() { printf 'mpich_coll_suite: error: %s\n' "$*" >&2; exit 2; }

library="" maxnp=4 out="" baseline=all
while [[ $# -gt 0 ]]; do
  case "$1" in
    --library | --maxnp | --out | --baseline)
      [[ $# -ge 2 ]] && printf -v "${1#--}" '%s' "$2" && shift 2 || die "$1 needs a value" ;;
    *) die "unknown argument '$1' (usage: --library PATH [--maxnp N] [--out DIR] [--baseline all|failed])" ;;
  esac
done
[[ -f "$library" ]] || die "--library '$library' is not a file"
[[ "$maxnp" =~ ^[1-9][0-9]*$ ]] || die "--maxnp '$maxnp' is not a positive rank count"
[[ "$baseline" == all || "$baseline" == failed ]] || die "--baseline '$baseline' is neither all nor failed"
library="$(readlink -f "$library")"
out="${out:-$(mktemp -d)}"
mkdir -p "$out/logs" && rm -f "$out"/logs/*
root="$(cd "$(dirname "$0")/.." && pwd)"

mpicc="${MPICC:-mpicc}"
mpi_id="$("$mpicc" -show 2>/dev/null | md5sum | cut -c1-8)"
if "$mpicc" -show 2>/dev/null | grep -q mpich; then
  launcher=(mpiexec.mpich)
else
  launcher=(mpirun --oversubscribe --bind-to none)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
fi
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false

# --- The suite, built once per MPI -----------------------------------------------------------------------------------
cache="${KCOLL_CACHE:-$HOME/.cache/kcoll}/mpich-coll-suite-$mpi_id"
suite="$cache/test/mpi"
if [[ ! -f "$cache/.built" ]]; then
  rm -rf "$cache" && mkdir -p "$cache" || die "cannot create $cache"
  fetch="$(mktemp -d)"
  say "obtaining Debian's mpich source package"
  (cd "$fetch" && apt-get source --download-only mpich >/dev/null 2>&1) ||
    die "apt-get source --download-only mpich failed (tools/setup.sh makes the deb-src entry)"
  tarball="$(ls "$fetch"/mpich_*.orig.tar.* | head -1)"
  tar -C "$cache" --strip-components=1 -xf "$tarball" --wildcards '*/test/mpi' || die "cannot unpack $tarball"
  rm -rf "$fetch"
  say "configuring test/mpi with CC=$mpicc and building coll/ (about 2 minutes)"
  # Open MPI hides the MPI-1 names that MPICH's datatype pools use unless told; the MPI-4 tests that do not link
  # against an MPI-3 library are skipped by make -k (and fail to run, alike with and without the library).
  (cd "$suite" && CC="$mpicc" CFLAGS="-DOMPI_OMIT_MPI1_COMPAT_DECLS=0 -O1" ./configure --disable-fortran \
    --disable-cxx --disable-romio --disable-spawn --disable-ft-tests >"$cache/configure.log" 2>&1) ||
    { tail -20 "$cache/configure.log"; die "configure failed"; }
  (cd "$suite" && make -C util -j2 && make -C dtpools -j2 && make -k -C coll -j2) >"$cache/make.log" 2>&1
  touch "$cache/.built"
fi

# --- Two runs: with the library, then the MPI alone --------------------------------------------------------------------
cd "$suite/coll" || die "no coll/ in $suite"
run() {  # run NAME TESTLIST [WRAPPER]
  local start=$SECONDS
  MPITEST_CLEANUP=0 MPITEST_PROGRAM_WRAPPER="${3:-}" ../runtests -srcdir=. -tests="$2" -maxnp="$maxnp" \
    -mpiexec="$(command -v "${launcher[0]}")" -xmlfile="$out/$1.xml" >"$out/$1.txt" 2>&1
  say "$1: $(grep -a "tests failed out of\|All .* tests passed" "$out/$1.txt" | tail -1) ($((SECONDS - start)) s)"
}
if [[ "${launcher[0]}" == mpirun ]]; then
  # runtests names one program as the launcher: Open MPI's options go in through the environment.
  export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
fi
run with_kcoll testlist "env LD_PRELOAD=$library KCOLL_DEBUG=INFO KCOLL_DEBUG_FILE=$out/logs/kcoll.%p.log"
compare=()
if [[ "$baseline" == all ]]; then
  run mpi_alone testlist
else
  compare=(--failed-only)
  python3 "$root/tools/mpich_coll_suite.py" --select-failed testlist "$out/with_kcoll.xml" "$maxnp" \
    >"$out/failed.testlist" || die "cannot read $out/with_kcoll.xml"
  if [[ -s "$out/failed.testlist" ]]; then
    run mpi_alone "$out/failed.testlist"
  else
    echo "<MPITESTRESULTS></MPITESTRESULTS>" >"$out/mpi_alone.xml"
  fi
fi
python3 "$root/tools/mpich_coll_suite.py" "$out/mpi_alone.xml" "$out/with_kcoll.xml" "$out/logs" "${compare[@]}"
