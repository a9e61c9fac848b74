#!/usr/bin/env bash
# //bench:all_reduce's fingerprint column (--fingerprint, on with several --numerics): on 3 ranks and doubles whose
# sums depend on the order, ring and tree (fast) show different fingerprints at some size (the data can show an
# order); every row of a size that promises its bits shows the same value in two runs; integer rows show none.
source "${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/shell_test_env.sh"
bench="$1"
again="$TMPDIR/again.txt"
run() { "$bench" --ranks 3 --algo ring,tree,auto --numerics fast,deterministic,exact -d double -b 1K -e 64K -f 8 \
  -n 2 -w 1 "$@"; }
run >"$out" 2>"$err" || fail "exited $?"
run >"$again" 2>>"$err" || fail "second run exited $?"
grep -q "result" "$out" || fail "no result column"
# The fingerprint of each (block, size): the block header names the row; the last field of a row is its fingerprint.
table() { awk '/^# all_reduce: /{block=$3" "$4} /^ +[0-9]+ /{print block, $1, $NF}' "$1"; }
table "$out" >"$TMPDIR/fp1"
table "$again" >"$TMPDIR/fp2"
[[ $(grep -cE ' [0-9a-f]{16}$' "$TMPDIR/fp1") -ge 12 ]] || fail "fewer than 12 fingerprinted rows"
for row in "auto numerics=deterministic" "auto numerics=exact"; do
  diff <(grep "^$row " "$TMPDIR/fp1") <(grep "^$row " "$TMPDIR/fp2") >/dev/null || fail "$row changed between runs"
done
differ=0
for size in $(awk '{print $(NF-1)}' "$TMPDIR/fp1" | sort -u); do
  r=$(awk -v s="$size" '$1=="ring" && $(NF-1)==s {print $NF}' "$TMPDIR/fp1")
  t=$(awk -v s="$size" '$1=="tree" && $(NF-1)==s {print $NF}' "$TMPDIR/fp1")
  [[ -n "$r" && -n "$t" && "$r" != "$t" ]] && differ=$((differ + 1))
done
[[ $differ -ge 1 ]] || fail "ring and tree have the same fingerprint at every size: the data cannot show an order"
"$bench" --ranks 2 --algo auto --fingerprint 1 -d int32 -b 1K -e 1K -n 2 -w 1 >"$out" 2>"$err" || fail "int32 exited $?"
grep -E '^ +1024 ' "$out" | grep -qE ' -$' || fail "an integer row has a fingerprint"
echo "fingerprint test passed"
