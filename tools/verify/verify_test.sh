#!/usr/bin/env bash
# Runs verify as a user would (it launches its own mpirun) on 3 ranks over a few collectives, and checks what a user
# relies on: exit status 0 and a closing line with no failure, a matrix with the rows and columns, JSON that agrees
# with it, rounding data that fast algorithms sum differently (the data can show a difference) while deterministic
# and exact cells agree; then a result corrupted on purpose (verify_with_fault) fails its cells with the first
# mismatch named and exit status 1; and bad options exit 2 naming the option.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/shell_test_env.sh"
bin="$TEST_SRCDIR/$TEST_WORKSPACE/tools/verify"
json="$TMPDIR/verify.json"

# 1. A clean run: every cell passes or says why it does not apply.
"$bin/verify" --ranks 3 --collectives all_reduce,reduce_scatterv,broadcast,exscan --counts 1,33,700 \
  --json "$json" >"$out" 2>"$err" || fail "verify exited $?"
tail -1 "$out" | grep -Eq '^[1-9][0-9]* passed, 0 failed$' || fail "closing line"
grep -Eq '^row +fast +determ +exact' "$out" || fail "no header"
grep -Eq '^all_reduce/auto +pass +pass +pass +pass +pass +pass' "$out" || fail "all_reduce/auto row"
grep -Eq '^all_reduce/ring +pass +\(order\) +\(order\)' "$out" || fail "all_reduce/ring row"
grep -Eq '^broadcast/chain +pass +\(data\) +\(data\)' "$out" || fail "broadcast/chain row"
grep -Eq '^all_reduce/inline +pass +pass +pass' "$out" || fail "all_reduce/inline row"
grep -q 'MPI_Allreduce pass' "$out" || fail "vendor row"
# The negative control: on 3 ranks the fast algorithms do not all agree on rounding data; the modes that promise bits
# give one result.
grep -Eq 'different results: fast ([2-9]|[1-9][0-9]+) over [0-9]+ cells; deterministic 1 over [0-9]+ cells; exact 1 over' \
  "$out" || fail "negative control line"
python3 - "$json" "$out" <<'PY' || fail "JSON check"
import json, re, sys
doc = json.load(open(sys.argv[1]))
last = open(sys.argv[2]).read().strip().splitlines()[-1]
passed, failed = map(int, re.match(r"(\d+) passed, (\d+) failed", last).groups())
assert doc["passed"] == passed and doc["failed"] == failed == 0, (doc["passed"], doc["failed"], last)
assert doc["ranks"] == 3
assert len(doc["columns"]) >= 6, doc["columns"]
rows = {r["name"]: r for r in doc["rows"]}
for name in ("all_reduce/auto", "all_reduce/ring", "reduce_scatterv/linear", "broadcast/tree", "exscan/inline"):
    assert name in rows, name
for r in doc["rows"]:
    assert len(r["cells"]) == len(doc["columns"]), r["name"]
    for c in r["cells"]:
        assert c["state"] in ("pass", "n/a"), (r["name"], c)
        if c["state"] == "pass":
            assert c["calls"] > 0, (r["name"], c)
assert all(v["state"] == "pass" for v in doc["vendor"]), doc["vendor"]
PY

# 2. A corrupted result fails its cells, names the first mismatch and exits 1; the other rows still pass.
status=0
KCOLL_VERIFY_INJECT_WRONG=all_reduce/ring "$bin/verify_with_fault" --ranks 3 --collectives all_reduce --counts 33 \
  --exec serial --json "$json" >"$out" 2>"$err" || status=$?
[[ $status -eq 1 ]] || fail "a corrupted result exited $status, not 1"
grep -Eq '^all_reduce/ring +FAIL' "$out" || fail "the corrupted row does not fail"
grep -Eq '^all_reduce/tree +pass' "$out" || fail "a clean row failed"
grep -Eq '^  all_reduce/ring shm/serial/fast: rank 1: int8 sum count 33, exact data: index 16 expected -?[0-9]+ got -?[0-9]+$' \
  "$out" || fail "the first mismatch is not named"
tail -1 "$out" | grep -Eq '^[1-9][0-9]* passed, [1-9][0-9]* failed$' || fail "closing line of the failed run"
python3 - "$json" <<'PY' || fail "JSON of the failed run"
import json, sys
doc = json.load(open(sys.argv[1]))
ring = next(r for r in doc["rows"] if r["name"] == "all_reduce/ring")
assert ring["cells"][0]["state"] == "fail" and "index 16" in ring["cells"][0]["first_failure"], ring["cells"][0]
assert doc["failed"] >= 1
PY

# 3. Bad options: exit 2, naming the option and the value.
for bad in "--counts 0" "--collectives all_reduce,nope" "--numerics sloppy" "--ranks 0" "--frobnicate 1"; do
  status=0
  # shellcheck disable=SC2086
  "$bin/verify" $bad >"$out" 2>"$err" || status=$?
  [[ $status -eq 2 ]] || fail "'$bad' exited $status, not 2"
  first="${bad%% *}"
  grep -q -- "$first" "$err" || fail "'$bad': the message does not name $first"
done
echo "PASS"
