#!/usr/bin/env python3
"""Compares two runs of MPICH's coll suite (runtests' XML reports) and sums the drop-in library's lines.

mpich_coll_suite.py MPI_ALONE.xml WITH_KCOLL.xml LOG_DIR

Prints the tests whose status differs between the runs (by position: runtests runs the list in order, and a name can
repeat with other arguments), the library's "kcoll_mpi: MPI_...: N calls, T on kcoll, F forwarded (reasons)" lines
summed over every log in LOG_DIR, and exits 1 when a test that passes with the MPI alone fails with the library.
"""
import collections
import glob
import re
import sys
import xml.etree.ElementTree as ET

LINE = re.compile(r"kcoll_mpi: (MPI_\w+): (\d+) calls, (\d+) on kcoll, (\d+) forwarded(?: \((.*)\))?")


def results(path):
    root = ET.parse(path).getroot()
    return [(t.findtext("NAME"), (t.findtext("ARGS") or "").strip(), t.findtext("NP"), t.findtext("STATUS"))
            for t in root.iter("MPITEST")]


def summed(log_dir):
    taken = collections.Counter()
    forwarded = collections.defaultdict(collections.Counter)
    for path in glob.glob(f"{log_dir}/*.log"):
        with open(path, errors="replace") as f:
            for line in f:
                m = LINE.search(line)
                if not m:
                    continue
                name = m.group(1)
                taken[name] += int(m.group(3))
                forwarded[name].update({})
                for part in (m.group(5) or "").split(", "):
                    if part:
                        reason, calls = part.rsplit(" ", 1)
                        forwarded[name][reason] += int(calls)
    lines = []
    for name in sorted(set(taken) | set(forwarded)):
        f = sum(forwarded[name].values())
        line = f"{name}: {taken[name] + f} calls, {taken[name]} on kcoll, {f} forwarded"
        if f:
            line += " (" + ", ".join(f"{r} {c}" for r, c in forwarded[name].most_common()) + ")"
        lines.append(line)
    return lines


def main():
    alone, with_kcoll = results(sys.argv[1]), results(sys.argv[2])
    if len(alone) != len(with_kcoll):
        print(f"mpich_coll_suite: the runs ran {len(alone)} and {len(with_kcoll)} tests")
        return 1
    regressions = 0
    for a, k in zip(alone, with_kcoll):
        if a[3] != k[3]:
            print(f"mpich_coll_suite: {a[0]} {a[1]} on {a[2]} ranks: {a[3]} with the MPI alone, {k[3]} with kcoll")
            regressions += a[3] == "pass"
    passed = lambda run: sum(t[3] == "pass" for t in run)
    print(f"mpich_coll_suite: {len(alone)} tests: {passed(alone)} pass with the MPI alone, {passed(with_kcoll)} with "
          f"kcoll; {regressions} fail with kcoll that pass without it")
    for line in summed(sys.argv[3]):
        print(f"mpich_coll_suite: {line}")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
