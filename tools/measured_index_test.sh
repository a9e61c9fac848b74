#!/usr/bin/env bash
# docs/measured/README.md indexes every transcript and names no missing one (tools/measured_index_check.py), checked in
# the source tree this test's runfiles point into.
set -euo pipefail
readme="${TEST_SRCDIR}/${TEST_WORKSPACE}/README.md"
root="$(dirname "$(readlink -f "$readme")")"
[[ -d "$root/docs/measured" ]] || { echo "measured_index_test: cannot find docs/measured from $readme"; exit 1; }
python3 "${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/measured_index_check.py" "$root/docs/measured"
