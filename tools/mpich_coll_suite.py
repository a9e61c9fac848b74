#!/usr/bin/env python3
"""Compares two runs of MPICH's coll suite (runtests' XML reports) and sums the drop-in library's lines.

mpich_coll_suite.py MPI_ALONE.xml WITH_KCOLL.xml LOG_DIR [--failed-only]
mpich_coll_suite.py --select-failed TESTLIST WITH_KCOLL.xml MAXNP > FAILED_TESTLIST

Prints the tests whose status differs between the runs, the library's "kcoll_mpi: MPI_...: N calls, T on kcoll,
F forwarded (reasons)" lines summed over every log in LOG_DIR, and exits 1 when a test that passes with the MPI alone
fails with the library. Both runs whole: compared by position (runtests runs the list in order, and a name can repeat
with other arguments). --failed-only: the MPI alone ran only the tests that failed with the library (the list that
--select-failed writes: the lines of TESTLIST whose program, arguments and rank count, capped at MAXNP as runtests caps
it, name a failed test), compared by those three; a test whose program did not build fails alike without the library
and is not run again.
"""
import collections
import glob
import re
import sys
import xml.etree.ElementTree as ET

LINE = re.compile(r"kcoll_mpi: (MPI_\w+): (\d+) calls, (\d+) on kcoll, (\d+) forwarded(?: \((.*)\))?")


def results(path):
    root = ET.parse(path).getroot()
    return [(t.findtext("NAME"), (t.findtext("ARGS") or "").strip(), t.findtext("NP") or "", t.findtext("STATUS"))
            for t in root.iter("MPITEST")]


def rerun_without_library(test):
    """A test that failed with the library and ran: one whose program did not build (runtests reports it with no rank
    count) fails alike without it, whatever the library does."""
    return test[3] != "pass" and bool(test[2])


def listed_test(line, maxnp):
    """(program, arguments, ranks) of a testlist line as runtests reads it, or None for a blank or comment line."""
    words = line.split("#", 1)[0].split()
    if not words:
        return None
    np = words[1] if len(words) > 1 and "=" not in words[1] else "2"  # runtests' default rank count
    if maxnp > 0 and np.isdigit() and int(np) > maxnp:
        np = str(maxnp)
    args = " ".join(w[len("arg="):] for w in words[2:] if w.startswith("arg="))
    return words[0], args, np


def select_failed(testlist, with_kcoll, maxnp):
    failed = {t[:3] for t in results(with_kcoll) if rerun_without_library(t)}
    with open(testlist) as f:
        for line in f:
            if listed_test(line, maxnp) in failed:
                sys.stdout.write(line)
    return 0


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


def differs(a, k):
    print(f"mpich_coll_suite: {a[0]} {a[1]} on {a[2]} ranks: {a[3]} with the MPI alone, {k[3]} with kcoll")
    return a[3] == "pass"


def compare_whole(alone, with_kcoll):
    if len(alone) != len(with_kcoll):
        print(f"mpich_coll_suite: the runs ran {len(alone)} and {len(with_kcoll)} tests")
        return 1
    regressions = sum(differs(a, k) for a, k in zip(alone, with_kcoll) if a[3] != k[3])
    passed = lambda run: sum(t[3] == "pass" for t in run)
    print(f"mpich_coll_suite: {len(alone)} tests: {passed(alone)} pass with the MPI alone, {passed(with_kcoll)} with "
          f"kcoll; {regressions} fail with kcoll that pass without it")
    return regressions


def compare_failed(alone, with_kcoll):
    reruns = collections.defaultdict(list)  # (program, arguments, ranks) -> statuses with the MPI alone, in order
    for a in alone:
        reruns[a[:3]].append(a)
    failed = [k for k in with_kcoll if rerun_without_library(k)]
    regressions = missing = 0
    for k in failed:
        if not reruns[k[:3]]:
            print(f"mpich_coll_suite: {k[0]} {k[1]} on {k[2]} ranks: {k[3]} with kcoll, not run with the MPI alone")
            missing += 1
            continue
        a = reruns[k[:3]].pop(0)
        regressions += a[3] != k[3] and differs(a, k)
    passed = sum(k[3] == "pass" for k in with_kcoll)
    print(f"mpich_coll_suite: {len(with_kcoll)} tests: {passed} pass with kcoll, "
          f"{len(with_kcoll) - passed - len(failed)} did not build; of the {len(failed)} that fail with it, "
          f"{regressions} pass with the MPI alone")
    return regressions + missing


def main():
    if sys.argv[1] == "--select-failed":
        return select_failed(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    alone, with_kcoll = results(sys.argv[1]), results(sys.argv[2])
    compare = compare_failed if "--failed-only" in sys.argv[4:] else compare_whole
    failures = compare(alone, with_kcoll)
    for line in summed(sys.argv[3]):
        print(f"mpich_coll_suite: {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
