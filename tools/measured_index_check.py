#!/usr/bin/env python3
"""docs/measured/README.md indexes every transcript beside it, and names no file that is not there.

measured_index_check.py DOCS_MEASURED_DIR: prints each transcript the index lacks and each entry whose file is missing;
exits 1 when there is any.
"""
import os
import re
import sys


def main():
    folder = sys.argv[1]
    index = open(os.path.join(folder, "README.md"), encoding="utf-8").read()
    named = set(re.findall(r"\]\(([^)/]+\.(?:txt|json|csv))\)", index))
    present = {f for f in os.listdir(folder) if f != "README.md" and os.path.isfile(os.path.join(folder, f))}
    problems = [f"not in the index: {f}" for f in sorted(present - named)]
    problems += [f"indexed but missing: {f}" for f in sorted(named - present)]
    summary = f"{len(present)} transcripts, {len(named)} entries, {len(problems)} problems"
    print("\n".join(f"measured_index_check: {line}" for line in problems + [summary]))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
