# Sourced first by kcoll's shell tests (kcoll_sh_test in tools/cc.bzl adds it to their data): strict mode, a
# directory of the test's own, MPI jobs kept apart, and fail(), which prints what the test captured in $out and $err.
set -euo pipefail
export TMPDIR="${TEST_TMPDIR:-$(mktemp -d)}"
# Several MPI jobs may run at once under bazel test: keep their PMIx and shared-memory files apart.
export PMIX_MCA_gds=hash OMPI_MCA_btl_vader_backing_directory="$TMPDIR"
out="$TMPDIR/out.txt" err="$TMPDIR/err.txt"
fail() {
  echo "FAIL: $*"
  echo "--- stdout"
  cat "$out" 2>/dev/null || true
  echo "--- stderr"
  cat "$err" 2>/dev/null || true
  exit 1
}
