#!/usr/bin/env bash
# describe_topology launches itself as 4 ranks on 2 emulated nodes and prints the INFO block, the counters of every
# rank and (--json) the JSON description.
set -euo pipefail
binary="$1"
# As tests/mpi_launch.sh: a session directory and shared-memory files of this test's own.
export TMPDIR="${TEST_TMPDIR:-${TMPDIR:-/tmp}}" PMIX_MCA_gds=hash OMPI_MCA_btl_vader_backing_directory="${TEST_TMPDIR:-/tmp}"
unset KCOLL_DEBUG KCOLL_DEBUG_FILE
# Two channels (the MPI transport builds one by default), to check both rings.
export KCOLL_NCHANNELS=2
# The ring explicitly: auto picks by the cost model, which may prefer another algorithm at this size.
"$binary" --ranks 4 --ranks_per_node 2 --count 1000 --algo ring --json >"$TMPDIR/out.json" 2>"$TMPDIR/err.log"
cat "$TMPDIR/err.log"
fail() { echo "FAIL: $*"; exit 1; }
grep -q '\[0\] KCOLL INFO comm 0x[0-9a-f]\{16\} nranks 4 nnodes 2 ranks_per_node 2 (emulated on 1 host) nchannels 2' \
  "$TMPDIR/err.log" || fail "no summary line"
grep -q 'channel 00/02 ring 0 1 2 3 inter-node 1->2 3->0' "$TMPDIR/err.log" || fail "no channel 0 line"
grep -q 'paths intra-node shm inter-node mpi: shm: 2 ranks, 32 slots x ' "$TMPDIR/err.log" || fail "no paths line"
grep -q 'tree double_binary/1 root 3' "$TMPDIR/err.log" || fail "no double binary tree line"
for r in 0 1 2 3; do
  grep -q "\[$r\] KCOLL INFO comm 0x[0-9a-f]* counters all_reduce/ring calls 1 bytes 4000 " "$TMPDIR/err.log" ||
    fail "no counters from rank $r"
done
# One communicator id on every line.
[ "$(grep -o 'comm 0x[0-9a-f]*' "$TMPDIR/err.log" | sort -u | wc -l)" = 1 ] || fail "several communicator ids"
python3 - "$TMPDIR/out.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["nranks"] == 4 and j["nnodes"] == 2, j
assert [c["ring"] for c in j["channels"]] == [[0, 1, 2, 3], [1, 0, 3, 2]], j["channels"]
assert j["counters"]["collectives"][0]["primitives"]["send"]["bytes"] == 6000, j["counters"]
PY
echo PASS
