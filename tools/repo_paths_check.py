#!/usr/bin/env python3
"""Every repository path that a comment, a doc or a script names must exist.

repo_paths_check.py [ROOT]

Reads every tracked file (git ls-files; else every file under ROOT outside bazel-* and .git) except the measurement
transcripts in docs/measured/ (records of past runs, which quote the paths of their day), finds the words that start
with a top-level folder of the repository (`collectives/transport/shm/inline_exchange.h`, `docs/faults.md`,
`models/profiles/*.json`), and prints each one that names nothing: a file, a folder, or a glob that matches nothing.
Bazel labels (`//tests:foo`, `@kcoll//...`) are not paths and are skipped, and so are the words of a line that
says "not a repository path", or follows one that does (a file a command writes, a name looked up at run time). Exits 1 when any path
is missing.
"""
import glob
import os
import re
import subprocess
import sys


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout
        return [f for f in out.splitlines() if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith("bazel-") and d != ".git"]
            files += [os.path.relpath(os.path.join(dirpath, f), root) for f in filenames]
        return files


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    top = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and not d.startswith((".", "bazel-")))
    path = re.compile(r"(?<![\w./@:-])((?:%s)/[\w./*-]*[\w*])" % "|".join(map(re.escape, top)))
    missing = []
    checked = 0
    for name in tracked_files(root):
        if name.startswith("docs/measured/") or not os.path.isfile(os.path.join(root, name)):
            continue
        try:
            text = open(os.path.join(root, name), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        lines = text.splitlines()
        for number, line in enumerate(lines, 1):
            if "not a repository path" in line or (number > 1 and "not a repository path" in lines[number - 2]):
                continue
            for m in path.finditer(line):
                p = m.group(1)
                checked += 1
                full = os.path.join(root, p)
                exists = glob.glob(full) if "*" in p else os.path.exists(full)
                if not exists:
                    missing.append(f"{name}:{number}: {p}")
    for m in missing:
        print(f"repo_paths_check: no such path: {m}")
    print(f"repo_paths_check: {checked} paths named, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
