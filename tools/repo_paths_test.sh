#!/usr/bin/env bash
# Every repository path named in a comment, a doc or a script exists (tools/repo_paths_check.py), checked in the
# source tree this test's runfiles point into.
set -euo pipefail
readme="${TEST_SRCDIR}/${TEST_WORKSPACE}/README.md"
root="$(dirname "$(readlink -f "$readme")")"
[[ -f "$root/WORKSPACE" ]] || { echo "repo_paths_test: cannot find the source tree from $readme"; exit 1; }
python3 "${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/repo_paths_check.py" "$root"
