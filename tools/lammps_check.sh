#!/usr/bin/env bash
# LAMMPS judging the MPI drop-in library: Debian's lmp (built against Open MPI), unchanged, on its own examples.
#
#   tools/lammps_check.sh --library PATH/libkcoll_mpi.so [--ranks "2 4"] [--rounds 3]
#                         [--examples "melt crack flow.couette flow.pois"]
#
# Installs lammps and lammps-examples from the package archive when lmp is missing. For each example and rank count,
# runs lmp with Open MPI alone and with the library preloaded, --rounds times each, interleaved; prints the median
# loop time of each and their ratio, and the library's lines (KCOLL_DEBUG=INFO) of the first run with it. The thermo
# lines (the table from "Step" to "Loop time") are compared with and without the library. Where they differ, a sum
# of doubles rounded in another order is the suspect: the example is run again with each of Open MPI's own AllReduce
# algorithms (coll/tuned 1-6), and the largest relative difference of a thermo value is printed for kcoll and for
# those. Exits 1 when kcoll's output differs while every Open MPI algorithm gives the same output as its default
# (a difference that no summation order explains).
set -uo pipefail

say() { printf 'lammps_check: %s\n' "$*"; }
die() { printf 'lammps_check: error: %s\n' "$*" >&2; exit 2; }

library="" ranks="2 4" rounds=3 examples="melt crack flow.couette flow.pois"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --library | --ranks | --rounds | --examples)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      printf -v "${1#--}" '%s' "$2"
      shift 2
      ;;
    *) die "unknown argument '$1'" ;;
  esac
done
[[ -f "$library" ]] || die "--library '$library' is not a file"
library="$(readlink -f "$library")"
if ! command -v lmp >/dev/null || [[ ! -d /usr/share/lammps/examples ]]; then
  say "installing lammps and lammps-examples"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q lammps lammps-examples >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q lammps lammps-examples \
      >/dev/null 2>&1; } || die "cannot install lammps"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
differences=0

thermo() { sed -n '/^ *Step /,/^Loop time/p' "$1" | grep -v '^Loop time'; }
# The largest relative difference between the thermo values of two runs (0 when identical).
max_relative_difference() {
  python3 - "$1" "$2" <<'PY'
import sys
def values(path):
    rows, on = [], False
    for line in open(path, errors="replace"):
        if line.strip().startswith("Step"):
            on = True
        elif line.startswith("Loop time"):
            on = False
        elif on:
            rows.append([float(v) for v in line.split()])
    return rows
a, b = values(sys.argv[1]), values(sys.argv[2])
worst = 0.0 if len(a) == len(b) else float("inf")
for ra, rb in zip(a, b):
    for x, y in zip(ra, rb):
        scale = max(abs(x), abs(y))
        if scale > 0:
            worst = max(worst, abs(x - y) / scale)
print(f"{worst:.2g}")
PY
}
loop_time() { sed -n 's/^Loop time of \([0-9.e+-]*\) .*/\1/p' "$1" | tail -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-14s %5s %16s %16s %8s  %s\n' example ranks "MPI alone (s)" "with kcoll (s)" ratio thermo
for example in $examples; do
  input="/usr/share/lammps/examples/${example%%.*}/in.$example"
  [[ -f "$input" ]] || die "no example input $input"
  for n in $ranks; do
    dir="$work/$example.$n" && mkdir -p "$dir" && cp "$input" "$dir/" && cd "$dir" || die "cannot prepare $dir"
    : >alone.times && : >kcoll.times
    for round in $(seq "$rounds"); do
      mpirun --oversubscribe --bind-to none -np "$n" lmp -in "in.$example" -log none -screen "alone.$round.txt" \
        >/dev/null 2>&1 || die "$example on $n ranks failed with Open MPI alone"
      KCOLL_DEBUG=INFO KCOLL_DEBUG_FILE="$dir/kcoll.$round.%r.log" mpirun --oversubscribe --bind-to none -np "$n" \
        env LD_PRELOAD="$library" lmp -in "in.$example" -log none -screen "kcoll.$round.txt" >/dev/null 2>&1 ||
        die "$example on $n ranks failed with the library"
      loop_time "alone.$round.txt" >>alone.times
      loop_time "kcoll.$round.txt" >>kcoll.times
    done
    alone="$(median <alone.times)" kcoll="$(median <kcoll.times)"
    same="identical"
    if ! diff <(thermo alone.1.txt) <(thermo kcoll.1.txt) >thermo.diff; then
      same="DIFFERENT"
      differences=$((differences + 1))
    fi
    printf '%-14s %5s %16s %16s %8.3f  %s\n' "$example" "$n" "$alone" "$kcoll" \
      "$(awk -v a="$alone" -v k="$kcoll" 'BEGIN { print k / a }')" "$same ($(thermo alone.1.txt | wc -l) lines)"
    if [[ "$same" != identical ]]; then
      sed 's/^/    /' thermo.diff | head -6
      ompi_spread=0
      for algorithm in 1 2 3 4 5 6; do
        OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=$algorithm \
          mpirun --oversubscribe --bind-to none -np "$n" lmp -in "in.$example" -log none \
          -screen "ompi.$algorithm.txt" >/dev/null 2>&1 || die "$example with Open MPI's algorithm $algorithm failed"
        d="$(max_relative_difference alone.1.txt "ompi.$algorithm.txt")"
        ompi_spread="$(python3 -c "print(f'{max(float(\"$ompi_spread\"), float(\"$d\")):.2g}')")"
      done
      echo "    largest relative difference of a thermo value from Open MPI's default: with kcoll" \
        "$(max_relative_difference alone.1.txt kcoll.1.txt), with Open MPI's own AllReduce algorithms 1-6 $ompi_spread"
      if [[ "$ompi_spread" == 0 ]]; then
        echo "    Open MPI's algorithms all agree with its default: kcoll's difference is not a summation order's"
      else
        differences=$((differences - 1))  # explained: the output depends on the summation order, Open MPI's too
      fi
    fi
    grep -ho "kcoll_mpi: .*" kcoll.1.0.log | sed "s/^/    $example, $n ranks: /"
  done
done
say "$differences example(s) whose thermo output differs where Open MPI's own algorithms agree"
exit $((differences > 0))
