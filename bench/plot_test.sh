#!/usr/bin/env bash
# tools/plot on a small benchmark JSON file: writes a PNG, honours the selection flags, refuses empty selections.
set -euo pipefail
plot="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-kcoll}/tools/plot"
dir="${TEST_TMPDIR:-$(mktemp -d)}"
/usr/bin/python3 - "$dir/run.json" <<'PY'
import json, sys
results = []
for impl, kind, scale in (("MPI_Allreduce", "mpi", 1.0), ("ring", "kcoll", 1.5)):
    for i in range(3, 12):
        size = 1 << i
        bw = scale * size / 4096
        half = {"time": 1.0, "alg_bw": bw, "bus_bw": bw, "nwrong": 0}
        results.append({"size": size, "count": size // 4, "type": "float", "redop": "sum", "root": "    -1",
                        "out_of_place": half, "in_place": half, "collective": "all_reduce", "algorithm": impl,
                        "implementation": kind, "ideal_bus_bw": 2.0})
json.dump({"version": 3, "results": results, "kcoll": {"program": "all_reduce", "ranks": 2, "nodes": 1,
           "exec": "serial"}}, open(sys.argv[1], "w"))
PY
"$plot" "$dir/run.json" -o "$dir/out.png" --collective all_reduce --type float --op sum
head -c 8 "$dir/out.png" | od -An -c | grep -q "P   N   G" || { echo "FAIL: not a PNG"; exit 1; }
[[ $(stat -c %s "$dir/out.png") -gt 10000 ]] || { echo "FAIL: PNG too small"; exit 1; }
"$plot" "$dir/run.json" --in-place >/dev/null
# The time panel: a run with a latency floor and an auto row.
/usr/bin/python3 - "$dir/run.json" "$dir/floor.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["kcoll"]["latency_floor_us"] = 0.2
doc["results"] += [dict(r, algorithm="auto") for r in doc["results"] if r["algorithm"] == "ring"]
json.dump(doc, open(sys.argv[2], "w"))
PY
"$plot" "$dir/floor.json" -o "$dir/floor.png" --latency-panel 1K --linear >/dev/null
[[ $(stat -c %s "$dir/floor.png") -gt $(stat -c %s "$dir/out.png") ]] || { echo "FAIL: no second panel"; exit 1; }
if "$plot" "$dir/floor.json" --latency-panel 1Q 2>"$dir/err"; then echo "FAIL: bad size accepted"; exit 1; fi
grep -q "'1Q' is not a size" "$dir/err" || { echo "FAIL: size message"; cat "$dir/err"; exit 1; }
if "$plot" "$dir/run.json" --stat p50 -o "$dir/p50.png" 2>"$dir/err"; then echo "FAIL: p50 without -I data"; exit 1; fi
grep -q "needs a run with -I 1" "$dir/err" || { echo "FAIL: p50 message"; exit 1; }
[[ -s "$dir/run.png" ]] || { echo "FAIL: default output name"; exit 1; }
if "$plot" "$dir/run.json" --type double 2>"$dir/err"; then echo "FAIL: empty selection accepted"; exit 1; fi
grep -q "no rows match" "$dir/err" || { echo "FAIL: message"; cat "$dir/err"; exit 1; }
# nccl-tests' own JSON (no kcoll fields) plots too.
/usr/bin/python3 - "$dir/nccl.json" <<'PY'
import json, sys
half = lambda bw: {"time": 10.0, "alg_bw": bw, "bus_bw": bw, "nwrong": 0}
results = [{"size": 1 << i, "count": (1 << i) // 4, "type": "float", "redop": "sum", "root": "    -1",
            "out_of_place": half(i / 10), "in_place": half(i / 11), "actual_iterations": 20,
            "experiment_name": "all_reduce_perf"} for i in range(3, 20)]
json.dump({"version": 3, "config": {}, "results": results}, open(sys.argv[1], "w"))
PY
"$plot" "$dir/nccl.json" -o "$dir/nccl.png" >/dev/null
[[ -s "$dir/nccl.png" ]] || { echo "FAIL: nccl-tests JSON"; exit 1; }
echo "plot test passed"
