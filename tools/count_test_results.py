#!/usr/bin/env python3
"""Counts test cases from a `bazel test` log and the test.xml reports it points to.

Reads the log on stdin (or the file named as the first argument), finds the summary line of every test target
("//pkg:name  PASSED in 1.2s", "(cached) PASSED", "FAILED", "TIMEOUT", "NO STATUS", ...), opens its test.xml under
bazel-testlogs/, and counts GoogleTest cases: passed, failed, skipped. A target without a readable report counts as
one case with its target status. A second file, if named, is tools/check_install.sh's output: each
"[check] ok:" line counts as a passed case and each "[check] FAILED:" line as a failed one. Prints one line:
`N passed, M failed, K skipped`, after the last lines of every failed target's log (its own output, without the
sandbox's debug lines), so that a CI transcript that keeps only its tail still says what failed and why.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

SANDBOX_DEBUG = re.compile(r"^\d+\.\d+: src/main/tools/")
# "(cached)", or "(1/2 cached)" for a flaky target some of whose attempts came from the cache.
SUMMARY = re.compile(
    r"^(//\S+)\s+(?:\((?:\d+/\d+ )?cached\)\s+)?(PASSED|FAILED|FLAKY|TIMEOUT|NO STATUS|INCOMPLETE|SKIPPED)\b")


def count_report(path):
    root = ET.parse(path).getroot()
    passed = failed = skipped = 0
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None or case.get("result") == "skipped" or case.get("status") == "notrun":
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def log_tail(path, lines=30):
    try:
        text = open(path, errors="replace").read().splitlines()
    except OSError as e:
        return [f"(no log: {e})"]
    own = [line for line in text if not SANDBOX_DEBUG.match(line)]
    return own[-lines:]


def main():
    text = open(sys.argv[1]).read() if len(sys.argv) > 1 else sys.stdin.read()
    testlogs = os.environ.get("BAZEL_TESTLOGS", "bazel-testlogs")
    totals = [0, 0, 0]
    failed_targets = []
    for line in text.splitlines():
        m = SUMMARY.match(line.strip())
        if not m:
            continue
        target, status = m.groups()
        package, _, name = target[2:].partition(":")
        report = os.path.join(testlogs, package, name, "test.xml")
        counts = None
        if status in ("PASSED", "FAILED", "FLAKY") and os.path.exists(report):
            try:
                counts = count_report(report)
            except ET.ParseError:
                counts = None
            if counts is not None and status == "FAILED" and counts[1] == 0:
                counts = (counts[0], counts[1] + 1, counts[2])  # the target failed outside any test case
            if counts is not None and sum(counts) == 0:
                counts = None
        if status not in ("PASSED", "SKIPPED", "FLAKY"):
            failed_targets.append((target, status, os.path.join(testlogs, package, name, "test.log")))
        if counts is None:
            counts = (1, 0, 0) if status == "PASSED" else (0, 0, 1) if status == "SKIPPED" else (0, 1, 0)
        for i in range(3):
            totals[i] += counts[i]
    if len(sys.argv) > 2 and os.path.exists(sys.argv[2]):
        for line in open(sys.argv[2]).read().splitlines():
            if line.startswith("[check] ok:"):
                totals[0] += 1
            elif line.startswith("[check] FAILED:"):
                totals[1] += 1
    for target, status, log in failed_targets:
        print(f"==== {status}: {target}, the end of {log}:")
        for line in log_tail(log):
            print(f"    {line}")
    print(f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")


if __name__ == "__main__":
    main()
