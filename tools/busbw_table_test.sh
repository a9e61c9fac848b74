#!/usr/bin/env bash
# tools/busbw_table on a small benchmark JSON file: the table, the ratio to MPI, the best algorithm in bold (reference
# rows apart), and the
# refusals (a size the file lacks, --stat p50 without per-iteration data).
set -euo pipefail
table="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-kcoll}/tools/busbw_table"
dir="${TEST_TMPDIR:-$(mktemp -d)}"
/usr/bin/python3 - "$dir/run.json" <<'PY'
import json, sys
results = []
for impl, kind, scale in (("MPI_Allreduce", "mpi", 1.0), ("peer_copy", "copy", 2.0), ("ring", "kcoll", 1.5),
                          ("tree", "kcoll", 0.5)):
    for size in (4096, 1 << 20):
        bw = scale * size / 4096
        half = {"time": 1.0, "alg_bw": bw, "bus_bw": bw, "nwrong": 0}
        results.append({"size": size, "count": size // 4, "type": "float", "redop": "sum", "root": "    -1",
                        "out_of_place": half, "in_place": half, "collective": "all_reduce", "algorithm": impl,
                        "implementation": kind})
json.dump({"version": 3, "results": results}, open(sys.argv[1], "w"))
PY
out=$("$table" "$dir/run.json" --sizes 4K,1M)
grep -q "| implementation | 4 KiB | 1 MiB |" <<<"$out" || { echo "FAIL: header"; echo "$out"; exit 1; }
grep -q '| `MPI_Allreduce` | 1.00 | 256.00 |' <<<"$out" || { echo "FAIL: MPI row"; echo "$out"; exit 1; }
grep -q '| `ring` | \*\*1.50 (1.50x)\*\* | \*\*384.00 (1.50x)\*\* |' <<<"$out" || { echo "FAIL: ring row"; echo "$out"; exit 1; }
grep -q '| `tree` | 0.50 (0.50x) | 128.00 (0.50x) |' <<<"$out" || { echo "FAIL: tree row"; echo "$out"; exit 1; }
# A reference row (--algo copy) is neither bold nor a ratio to MPI, though its busbw is the highest.
grep -q '| `peer_copy` | 2.00 | 512.00 |' <<<"$out" || { echo "FAIL: peer_copy row"; echo "$out"; exit 1; }
if "$table" "$dir/run.json" --sizes 64M 2>"$dir/err"; then echo "FAIL: missing size accepted"; exit 1; fi
grep -q -- "--sizes: 64 MiB not in" "$dir/err" || { echo "FAIL: size message"; cat "$dir/err"; exit 1; }
if "$table" "$dir/run.json" --stat p50 2>"$dir/err"; then echo "FAIL: p50 without -I data"; exit 1; fi
grep -q "needs a run with -I 1" "$dir/err" || { echo "FAIL: p50 message"; cat "$dir/err"; exit 1; }
if "$table" "$dir/run.json" --type double 2>"$dir/err"; then echo "FAIL: empty selection accepted"; exit 1; fi
grep -q "no all_reduce double sum rows" "$dir/err" || { echo "FAIL: selection message"; cat "$dir/err"; exit 1; }
echo "busbw_table test passed"
