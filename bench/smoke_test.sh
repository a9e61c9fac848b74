#!/usr/bin/env bash
# Runs the benchmark binaries for real on 2 ranks over a few small sizes, as a user would (they launch their own
# mpirun), and checks what a user relies on: exit status 0 and no wrong element with -c 1, a JSON file that parses
# with nccl-tests' keys, skipped (not failed) implementations, non-zero exits for wrong results and bad options.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/shell_test_env.sh"
bin="$TEST_SRCDIR/$TEST_WORKSPACE/bench"
json="$TMPDIR/ar.json"
small=(--ranks 2 -b 8 -e 64K -f 8 -n 3 -w 1 -c 1)

# 1. AllReduce, every implementation, checked: exit 0, every #wrong 0, JSON complete.
"$bin/all_reduce" "${small[@]}" --json "$json" >"$out" 2>"$err" || fail "all_reduce exited $?"
grep -q "^# Out of bounds values : 0 OK" "$out" || fail "no OK footer"
grep -q "^# all_reduce: MPI_Allreduce (mpi peer)" "$out" || fail "no MPI block"
grep -q "^# all_reduce: ring (kcoll algorithm)" "$out" || fail "no ring block"
rows=$(grep -c '^ *[0-9]' "$out")
[[ $rows -ge 6 ]] || fail "expected data rows, got $rows"
# Column 9 and 13 are #wrong (out of place, in place).
awk '/^ *[0-9]/ { if ($9 != "0" || $13 != "0") { print "wrong: " $0; bad = 1 } } END { exit bad }' "$out" \
  || fail "a row has #wrong != 0"
python3 - "$json" <<'PY' || fail "JSON check"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["version"] == 3
for key in ("config", "results", "out_of_bounds", "average_bus_bandwidth"):
    assert key in doc, key
assert doc["out_of_bounds"]["count"] == 0
assert doc["kcoll"]["complete"] is True
algos = {r["algorithm"] for r in doc["results"]}
assert "MPI_Allreduce" in algos and "ring" in algos, algos
for r in doc["results"]:
    for half in ("out_of_place", "in_place"):
        assert r[half]["nwrong"] == 0, r
        assert r[half]["bus_bw"] > 0, r
PY

# 2. Started by an outside mpirun, with one algorithm and per-iteration timing.
mpirun="$(grep -o '"/[^"]*"' "$bin/../external/kcoll_mpi/kcoll_mpi_paths.h" 2>/dev/null | tr -d '"' || true)"
mpirun="${KCOLL_MPIRUN:-${mpirun:-mpirun}}"
oversubscribe=--oversubscribe
[[ "$("$mpirun" --version 2>&1 || true)" == *HYDRA* ]] && oversubscribe=""  # MPICH's Hydra oversubscribes untold
# shellcheck disable=SC2086
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$mpirun" $oversubscribe -np 2 \
  "$bin/all_reduce" -b 1K -e 1K -n 3 -w 1 -c 1 --algo ring -I 1 >"$out" 2>"$err" || fail "outside mpirun exited $?"
grep -q "i_p99" "$out" || fail "no per-iteration columns"
grep -q "started by an outside mpirun" "$out" || fail "launch not reported"
grep -q "^# Out of bounds values : 0 OK" "$out" || fail "no OK footer (outside mpirun)"

# 2a. --transport: rows of the same algorithm over shared memory and over MPI, each exact, the header saying which.
"$bin/all_reduce" --ranks 2 -b 8 -e 64K -f 64 -n 3 -w 1 -c 1 --algo ring --transport shm,mpi >"$out" 2>"$err" ||
  fail "--transport exited $?"
grep -q "^# Transport: kcoll rows: shm: 2 ranks" "$out" || fail "no shm transport line"
grep -q "^# Transport: rows '<algorithm> transport=mpi': mpi, serial kernels" "$out" || fail "no mpi transport line"
grep -q "^# all_reduce: ring transport=mpi (kcoll algorithm)" "$out" || fail "no transport=mpi rows"
# One node, no --intra_bw or profile: the ideal column is the memory-bound limit measured in the run.
grep -q "^# Ideal busbw: [0-9.]* GB/s (memory-bound: [0-9.]* GB/s per rank" "$out" || fail "no memory-bound ideal"
[ "$(grep -c "^# Out of bounds values : 0 OK" "$out")" -ge 2 ] || fail "a transport's rows were not exact"

# 2a''. --algo floor: the latency floor's exchange as a row, exact, its sizes up to one cache line's payload, its
# types the integers, float and double (16-bit floats skipped); on emulated nodes it is left out, saying why, and the
# run fails.
"$bin/all_reduce" --ranks 2 -b 8 -e 64 -f 2 -n 20 -w 1 -c 1 --algo auto,floor -d all --json "$json" \
  >"$out" 2>"$err" || fail "--algo floor exited $?"
grep -q "^# all_reduce: latency_floor (floor peer)" "$out" || fail "no latency_floor block"
grep -q "the latency_floor row has sizes up to 56 bytes only" "$out" || fail "no note on the floor row's sizes"
python3 - "$json" <<'PY' || fail "floor rows"
import json, sys
doc = json.load(open(sys.argv[1]))
sizes = sorted({(r["type"], r["size"]) for r in doc["results"] if r["algorithm"] == "latency_floor"})
types = ("double", "float", "int32", "int64", "int8", "uint32", "uint64", "uint8")
assert sizes == [(t, s) for t in types for s in (8, 16, 32)], sizes
for r in doc["results"]:
    assert r["out_of_place"]["nwrong"] == 0 and r["in_place"]["nwrong"] == 0, r
PY
if "$bin/all_reduce" --ranks 2 --ranks_per_node 1 -b 8 -e 8 -n 3 -w 1 --algo floor >"$out" 2>"$err"; then
  fail "--algo floor on emulated nodes exited 0"
fi
grep -q "latency_floor row skipped: it is an all_reduce of host memory on the ranks of one node" "$out" "$err" ||
  fail "no reason for the floor row left out"

# 2a'''. --algo copy: the peer_copy row, its #wrong N/A (it reduces nothing), the kcoll rows beside it still checked; on
# emulated nodes it is left out, saying why, and the run fails.
"$bin/all_reduce" --ranks 2 -b 8 -e 64K -f 64 -n 5 -w 1 -c 1 --algo auto,copy --json "$json" >"$out" 2>"$err" ||
  fail "--algo copy exited $?"
grep -q "^# all_reduce: peer_copy (copy peer)" "$out" || fail "no peer_copy block"
python3 - "$json" <<'PY' || fail "peer_copy rows"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {(r["algorithm"], r["size"]): r for r in doc["results"]}
assert sorted(s for a, s in rows if a == "peer_copy") == [8, 512, 32768], rows.keys()
for (a, s), r in rows.items():
    wrong = (r["out_of_place"].get("nwrong"), r["in_place"].get("nwrong"))
    assert wrong == ((None, None) if a == "peer_copy" else (0, 0)), (a, s, wrong)
    assert r["out_of_place"]["time"] > 0 and r["in_place"]["time"] > 0, (a, s)
PY
if "$bin/all_reduce" --ranks 2 --ranks_per_node 1 -b 8 -e 8 -n 3 -w 1 --algo copy >"$out" 2>"$err"; then
  fail "--algo copy on emulated nodes exited 0"
fi
grep -q "peer_copy row skipped: it moves an all_reduce's bytes between the ranks of one node" "$out" "$err" ||
  fail "no reason for the peer_copy row left out"

# 2a'. --nonblocking: kcoll's nonblocking rows and MPI's (MPI_Iallreduce, MPI_Ialltoallv) timed issue-compute-wait,
# each checked exactly; the header says what the time column is; with --model it is refused.
for collective in all_reduce alltoallv; do
  "$bin/$collective" --ranks 2 -b 8 -e 64K -f 64 -n 3 -w 1 -c 1 --algo auto,mpi --nonblocking 150 >"$out" 2>"$err" ||
    fail "--nonblocking $collective exited $?"
  grep -q "^# Timing: --nonblocking 150: each iteration starts the nonblocking call" "$out" || fail "no timing line"
  grep -q "^# $collective: auto (kcoll algorithm)" "$out" || fail "no kcoll rows ($collective, --nonblocking)"
  grep -q "^# $collective: MPI_[A-Za-z]* (mpi peer)" "$out" || fail "no MPI rows ($collective, --nonblocking)"
  grep -q "^# Out of bounds values : 0 OK" "$out" || fail "--nonblocking $collective: not exact"
done
if "$bin/all_reduce" --ranks 2 -b 8 -e 8 --nonblocking 150 --model >"$out" 2>"$err"; then fail "--nonblocking --model accepted"; fi
grep -q "\-\-nonblocking and --model both given" "$out" "$err" || fail "no --nonblocking --model error"

# 2a''. --start aligned: every rank starts each timed iteration at one agreed instant; the header says so, the rows
# are exact and each measurement counts its late starts (each at most its iterations: 5 per round, 2 rounds).
"$bin/all_reduce" --ranks 3 -b 8 -e 64K -f 64 -n 5 -w 1 -c 1 --algo auto,mpi --rounds 2 --start aligned \
  --json "$json" >"$out" 2>"$err" || fail "--start aligned exited $?"
grep -q "^# Timing: --start aligned: every rank begins each timed iteration at one agreed instant" "$out" ||
  fail "no --start aligned timing line"
[ "$(grep -c "^# Out of bounds values : 0 OK" "$out")" -eq 3 ] || fail "--start aligned rows not exact"
python3 - "$json" <<'PY' || fail "--start aligned JSON check"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["results"]
assert len(rows) == 6, len(rows)
for r in rows:
    for half in ("out_of_place", "in_place"):
        late = r[half]["late_starts"]
        assert 0 <= late <= 10, (r["algorithm"], r["size"], half, late)
PY

# 2b. --model: the cost model's time and error per kcoll row, what auto ran, the per-algorithm footer, the JSON.
# With --rounds 2 every case runs twice, case after case, and its row pools the 2 x 3 iterations.
# Small AllReduces run inline by the communicator's own rule, which the model does not price: off here, so that
# every kcoll row has a model time.
KCOLL_INLINE_MAX_BYTES=0 "$bin/all_reduce" --ranks 2 -b 1K -e 64K -f 64 -n 3 -w 1 -c 1 --algo ring,auto --model \
  --rounds 2 --json "$json" >"$out" 2>"$err" || fail "--model exited $?"
grep -q "the table shows the mean over 6 iterations (2 rounds of 3: the sweep ran 2 times, size by size)" "$out" ||
  fail "no rounds in the header"
# The rounds run size-major; the report still has one block per implementation, sizes in order.
[ "$(grep -c "^# all_reduce: ring (kcoll algorithm)" "$out")" = 1 ] || fail "the ring block is split"
grep -q "^# Model: alpha-beta" "$out" || fail "no model header"
grep -q "^# Model against measurement: median |error|" "$out" || fail "no model footer"
grep -Eq "^#     all_reduce  ring +[0-9.]+%  over [0-9]+ size" "$out" || fail "no ring model summary"
# When auto ran in the calibrated state, it is compared only with rows that did too: on a loaded machine, a size
# whose ring rounds all ran outside it has no comparison.
grep -q "^# auto against the fastest other kcoll algorithm" "$out" || python3 - "$json" <<'PY' || fail "no auto comparison"
import json, sys
doc = json.load(open(sys.argv[1]))
rounds = {(r["algorithm"], r["size"]): r["calibrated_state_rounds"] for r in doc["results"]}
for (algorithm, size), n in rounds.items():
    if algorithm == "auto":
        assert n > 0 and rounds[("ring", size)] == 0, ("a comparison was possible", size, rounds)
print("note: no auto comparison: auto ran in the calibrated state, ring never did")
PY
awk '/^ *[0-9]/ { if ($19 !~ /^[+-][0-9]+%$/) { print "no model error: " $0; bad = 1 } } END { exit bad }' "$out" \
  || fail "a kcoll row has no model error"
python3 - "$json" <<'PY' || fail "--model JSON check"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["config"]["rounds"] == 2, doc["config"]
order = [(r["algorithm"], r["size"]) for r in doc["results"]]
assert order == [("ring", 1024), ("ring", 65536), ("auto", 1024), ("auto", 65536)], order
for r in doc["results"]:
    assert r["actual_iterations"] == 6, r
    assert 0 <= r["calibrated_state_rounds"] <= 2 and "calibrated_state_p50_us" in r, r
    assert r["model_time"] > 0 and "model_error_pct" in r and r["model_algorithm"], r
    assert r["link_probe_ratio"] > 0, r
    assert len(r["out_of_place_round_p50_us"]) == 2 and min(r["out_of_place_round_p50_us"]) > 0, r
assert doc["kcoll"]["model_errors"], doc["kcoll"]
for a in doc["kcoll"]["auto_vs_fastest"]:  # round by round against ring, the one other algorithm
    assert a["paired_against"] == "ring" and a["paired_ratio"] > 0 and a["paired_rounds"] == 2, a
assert "model_errors_calibrated_state" in doc["kcoll"], doc["kcoll"]
assert [a["fastest"] for a in doc["kcoll"]["auto_vs_fastest"]] and all(
    a["ratio"] > 0 for a in doc["kcoll"]["auto_vs_fastest"]), doc["kcoll"]
PY

# 2c. --calibrate: the profile is measured in the run, saved, and is the one the ideal busbw and the model use.
profile="$TMPDIR/measured_profile.json"
"$bin/all_reduce" --ranks 2 -b 64K -e 64K -n 3 -w 1 -c 1 --algo ring --model --calibrate "$profile" --touch_input 0 \
  --calibrate_ms 10 --calibrate_max 1M >"$out" 2>"$err" || fail "--calibrate exited $?"
grep -q "^# Ideal busbw: [0-9.]* GB/s (profile measured in this run in [0-9.]* s" "$out" || fail "no measured profile"
grep -q "profile profile_path=$profile" "$out" || fail "the model does not use the measured profile"
# --calibrate_max 1M: the sweep, and so the profile's link curve, ends at 1 MiB.
python3 -c 'import json, sys; p = json.load(open(sys.argv[1])); assert p["intra"]["curve"][-1][0] == 1 << 20, p' \
  "$profile" || fail "measured profile has no link curve ending at --calibrate_max"
if "$bin/all_reduce" --ranks 2 --calibrate_max 1M >"$out" 2>"$err"; then fail "--calibrate_max without --calibrate"; fi
grep -q -- "--calibrate_ms and --calibrate_max need --calibrate FILE" "$err" || fail "no --calibrate_max message"

# 2d. --recalibrate: a probe that reads 3x slower than the start's profile (injected) makes the run measure a second
# profile before its first case; the footer and the JSON list both states, and every round says which priced it.
rm -f "$TMPDIR/recal.state2.json"
KCOLL_BENCH_INJECT_PROBE_SCALE=3 "$bin/all_reduce_with_faults" --ranks 2 -b 64K -e 64K -n 3 -w 1 -c 1 --algo ring --model \
  --rounds 2 --calibrate "$TMPDIR/recal.json" --calibrate_ms 10 --calibrate_max 1M --recalibrate 1 --json "$json" \
  >"$out" 2>"$err" ||
  fail "--recalibrate exited $?"
grep -q "^\[kcoll bench\] --recalibrate: link probe [0-9.]*x the nearest profile's before all_reduce ring" "$err" ||
  fail "no recalibration on stderr"
grep -q "^#   state 2: $TMPDIR/recal.state2.json (link probe exchange [0-9.]* us), measured before all_reduce ring" \
  "$out" || fail "no second state in the footer"
python3 - "$json" "$TMPDIR/recal.state2.json" <<'PY' || fail "--recalibrate JSON check"
import json, sys
doc = json.load(open(sys.argv[1]))
assert [s["measured"] for s in doc["kcoll"]["model_states"]][0] == "at the start", doc["kcoll"]
assert doc["kcoll"]["model_states"][1]["profile"] == sys.argv[2], doc["kcoll"]
for r in doc["results"]:
    assert len(r["model_round_states"]) == 2 and set(r["model_round_states"]) <= {1, 2}, r
    assert r["model_time"] > 0, r
assert json.load(open(sys.argv[2]))["intra"]["curve"]
PY

# 2e. --recalibrate makes auto follow the state: an injected second profile (latency only: 0.5 s a message) and a
# probe that reads nearest to it make every round of every row run in state 2, and auto choose with its profile: what
# auto ran is the algorithm whose row that profile prices lowest.
latency="$TMPDIR/latency_profile.json"
python3 -c 'import json, sys
link = {"alpha_s": 0.5, "beta_s_per_byte": 1e-15}
json.dump({"schema_version": 1, "gamma_s_per_byte": 1e-15, "memcpy_bytes_per_s": 1e10, "intra": link,
           "inter": link}, open(sys.argv[1], "w"))' "$latency"
KCOLL_BENCH_INJECT_PROBE_SCALE=1e5 KCOLL_BENCH_INJECT_CALIBRATION="$latency" "$bin/all_reduce_with_faults" --ranks 2 -b 64K \
  -e 64K -n 3 -w 1 -c 1 --algo all,auto --model --rounds 2 --calibrate "$TMPDIR/follow.json" --calibrate_ms 10 \
  --calibrate_max 1M --recalibrate 1 --json "$json" >"$out" 2>"$err" || fail "--recalibrate (auto) exited $?"
grep -q "^\[kcoll bench\] --recalibrate: auto now chooses with state 2's profile ($latency)" "$err" ||
  fail "auto did not switch to state 2's profile"
python3 - "$json" <<'PY' || fail "--recalibrate auto JSON check"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {r["algorithm"]: r for r in doc["results"] if not r["peer"]}
auto = rows.pop("auto")
# --algo all's rows that the model does not price (base/algorithm_list.h's NotPriced) carry no model.
unpriced = {a for a, r in rows.items() if "model_time" not in r}
assert unpriced == {"linear", "ordered_halving_doubling"}, unpriced
for a in unpriced:
    rows.pop(a)
assert auto["model_round_states"] == [2, 2], auto
ran = auto["model_round_algorithms"]
assert len(ran) == 2 and ran[0] == ran[1] == auto["model_algorithm"], auto
for r in rows.values():
    assert r["model_round_states"] == [2, 2], r
cheapest = min(r["model_time"] for r in rows.values())
assert rows[ran[0]]["model_time"] == cheapest, (ran, {a: r["model_time"] for a, r in rows.items()})
assert auto["model_time"] == cheapest, auto
PY

# 3. A collective whose kcoll algorithms may not exist yet: skipped with a reason, MPI rows still measured, exit 0.
"$bin/all_gather" "${small[@]}" >"$out" 2>"$err" || fail "all_gather exited $?"
grep -q "^# all_gather: MPI_Allgather (mpi peer)" "$out" || fail "no MPI_Allgather block"
grep -q "^# Out of bounds values : 0 OK" "$out" || fail "all_gather footer"

# 4. A wrong element makes the exit status non-zero and the footer FAILED.
if KCOLL_BENCH_INJECT_WRONG=1 "$bin/all_reduce_with_faults" --ranks 2 -b 64 -e 64 -n 2 -w 0 -c 1 --algo ring >"$out" 2>"$err"; then
  fail "a wrong element did not fail the run"
fi
grep -q "FAILED" "$out" || fail "no FAILED footer"
# The benchmark users run has no injected faults: the same environment changes nothing there.
KCOLL_BENCH_INJECT_WRONG=1 "$bin/all_reduce" --ranks 2 -b 64 -e 64 -n 2 -w 0 -c 1 --algo ring >"$out" 2>"$err" ||
  fail "//bench:all_reduce took an injected fault"

# 5. -T: a rank that stops making progress ends the job with a message instead of hanging it.
start=$SECONDS
if KCOLL_BENCH_INJECT_HANG=1 timeout 60 "$bin/all_reduce_with_faults" --ranks 2 -T 1 -b 8 -e 8 -n 1 -w 0 --algo ring \
    >"$out" 2>"$err"; then
  fail "a hung rank did not fail the run"
fi
grep -q "timeout (-T 1): no call finished for 1 s" "$err" || fail "no timeout message"
[[ $((SECONDS - start)) -lt 30 ]] || fail "the timeout took $((SECONDS - start)) s"

# 6. The kernel benchmark: every space, a small size, the summary against STREAM.
"$bin/kernels" -b 64K -e 64K -n 2 -w 0 -d float32,bfloat16 -o sum,max >"$out" 2>"$err" || fail "kernels exited $?"
grep -q "kokkos/reduce/serial/bfloat16/max/65536" "$out" || fail "no bfloat16 max kernel row"
grep -q "stream/add/serial/float32/65536" "$out" || fail "no STREAM row"
grep -Eq "^ +serial +65536 " "$out" || fail "no Kokkos vs STREAM summary"
if "$bin/kernels" -d nosuch >"$out" 2>"$err"; then fail "kernels accepted -d nosuch"; fi
grep -q -- "-d 'nosuch'" "$err" || fail "kernels: message does not name -d"
if ! "$bin/kernels" --exec cuda -b 64K -e 64K -n 1 -w 0 -d float32 -o sum >"$out" 2>"$err"; then
  # A build without CUDA Kokkos names the spaces it has; with one (and no GPU), Kokkos or CUDA says why.
  grep -q -- "--exec 'cuda': not an execution space of this build (serial" "$err" || grep -qi "cuda" "$err" ||
    fail "kernels --exec cuda failed without saying why: $(cat "$err")"
else
  grep -q "cudamemcpy/copy/cuda/bytes/65536" "$out" || fail "kernels --exec cuda: no cudaMemcpy baseline row"
  grep -Eq "^ +sum float32 +65536 " "$out" || fail "kernels --exec cuda: no summary against cudaMemcpy"
fi

# The inline lane's fold alone: every row ran and reports a rate.
"$bin/host_fold" --benchmark_filter='BM_HostFold/bytes:512/inputs:2|BM_Memcpy/bytes:512' --benchmark_min_time=0.01 \
  >"$out" 2>"$err" || fail "host_fold exited $?"
grep -Eq "^BM_HostFold/bytes:512/inputs:2 .*bytes_per_second=" "$out" || fail "host_fold: no fold row with a rate"
grep -Eq "^BM_Memcpy/bytes:512 .*bytes_per_second=" "$out" || fail "host_fold: no memcpy row with a rate"

# The NCCL peer runs on device buffers: asked for on host buffers, the run says so and fails; without NCCL in the
# build, the option is refused.
set +e
"$bin/all_reduce" --ranks 2 -b 8 -e 8 -n 1 -w 0 --algo ring,nccl >"$out" 2>"$err"
code=$?
set -e
[[ $code -ne 0 ]] || fail "--algo nccl on host buffers exited 0"
grep -q "nccl rows skipped: they run on device buffers, with --exec cuda" "$out" ||
  grep -q "this build has no NCCL" "$err" || fail "--algo nccl on host buffers did not say why it ran no nccl row"

# 7. Bad options: a message naming the flag and value, exit 2, no rank started.
for args in "-b 12Q" "-r 5" "--algo nosuch" "--benchmark_format=xml" "--benchmark_nonsense=1"; do
  set +e
  # shellcheck disable=SC2086
  "$bin/all_reduce" --ranks 2 $args >"$out" 2>"$err"
  code=$?
  set -e
  [[ $code -eq 2 ]] || fail "'$args' exited $code, not 2"
  flag="${args%% *}"
  flag="${flag%%=*}"
  grep -q -- "$flag" "$err" || fail "'$args': message does not name $flag"
done
echo "smoke test passed"
