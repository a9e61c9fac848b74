#!/usr/bin/env bash
# collectives/algorithms/README.md's table says what base/algorithm_list.h and models/prices/ say
# (tools/algorithms_table.py --check).
set -euo pipefail
root="${TEST_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/${TEST_WORKSPACE:-kcoll}"
[[ -d "$root" ]] || root="$(cd "$(dirname "$0")/.." && pwd)"
python3 "$root/tools/algorithms_table.py" --root "$root" --check
