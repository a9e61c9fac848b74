#!/usr/bin/env bash
# No tracked file is over 256 KiB: measurements are kept as the tables they print (the raw samples are what the
# command in a table's header writes), in the source tree this test's runfiles point into.
set -euo pipefail
root="$(dirname "$(readlink -f "${TEST_SRCDIR}/${TEST_WORKSPACE}/README.md")")"
if ! git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  echo "tracked_sizes_test: skipped: $root is not a git checkout"
  exit 0
fi
large="$(cd "$root" && git ls-files -z | xargs -0 stat -c '%s %n' 2>/dev/null | awk '$1 > 262144')"
if [[ -n "$large" ]]; then
  echo "tracked_sizes_test: tracked files over 256 KiB (bytes, path):"
  echo "$large"
  exit 1
fi
echo "tracked_sizes_test: $(cd "$root" && git ls-files | wc -l) tracked files, none over 256 KiB"
