#!/bin/bash
# Runs //bench:calibrate for real (2 ranks, and 4 ranks as 2 emulated nodes, with a tiny sweep so it takes seconds)
# and checks the report and the saved profile: the predictor must load it. Also the launcher's refusals.
set -u

RUNFILES="${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-kcoll}"
CALIBRATE="${RUNFILES}/bench/calibrate"
PREDICT="${RUNFILES}/models/predict"
TMP="${TEST_TMPDIR:-/tmp}"
failed=0

fail() {
  echo "FAIL: $*"
  failed=1
}

# expect FILE: each line of stdin is "PATTERN | WHAT FAILS": PATTERN (grep) must occur in FILE.
expect() {
  local pattern message
  while IFS= read -r line; do
    pattern="${line%% | *}" message="${line#* | }"
    grep -q -- "$pattern" "$1" || fail "$message"
  done
}

# Few sizes, far apart, and the 10th percentile of the repetitions, so that the slope stays clear even on a busy
# machine (a rank descheduled for a few milliseconds would otherwise drown a microsecond).
QUICK=(--min_bytes=8 --max_bytes=1048576 --step_factor=16 --min_local_bytes=4096 --min_reps=20 --max_reps=400
  --seconds_per_size=0.005 --percentile=10)

# 2 ranks, one node: the inter class is not measured. --save also keeps it for this machine's 2-rank jobs.
export KCOLL_MACHINE_PROFILES="${TMP}/machine/profiles"
if ! "${CALIBRATE}" --ranks=2 --out="${TMP}/two.json" --save "${QUICK[@]}" >"${TMP}/two.out" 2>&1; then
  fail "2-rank calibration exited with an error"
  cat "${TMP}/two.out"
fi
# Measured through the transport a communicator on these ranks runs on: shared memory on one node.
expect "${TMP}/two.out" <<'END'
intra-node link: ping-pong through kcoll's shm transport, pair(s) 0-1 | no intra report
inter-node link: no such pair | 2 ranks on one node should have no inter pair
fit on relative errors; saved: alpha = .*R^2 =  | no fit line
gamma =  | no gamma
collective step, pair(s) 0-1 at once (a 2-rank ring AllReduce on twice the size): its exchange | no collective step sweep
and its reduction (bytes reduced, one input; the profile's gamma curve) | no reduction inside the step
shared-memory settings: the ring's step | no shared-memory settings sweep
bytes    16K slots    32K slots    64K slots   128K slots   256K slots  single copy single/slots | not every slot size tried
        16384 \( *[0-9.]* [mun]*s\)\{6\}  *[0-9.]*x | the settings sweep does not start at 16 KiB
slot size: [0-9]*K (the | no slot size chosen
single copy threshold: \(from [0-9]*[KMG]* \|never\) | no single-copy threshold
shared-memory slots: [0-9]*K (KCOLL_SHM_SLOT_BYTES overrides it) | slot size not in the profile summary
shared-memory single copy: \(from [0-9]*[KMG]*\|never\) (KCOLL_SHM_SINGLE_COPY overrides it) | not in the profile summary
AllReduce: kcoll's auto against MPI_Allreduce | no sweep of auto against MPI
        2048 .*[0-9.]* *$ | the sweep against MPI has no 2 KiB row
handed to MPI's own AllReduce (MPI <= 0.95x kcoll's time in place and out of place): | no line naming the sizes handed to MPI
END
# The profile carries the sizes handed to MPI exactly when the report names some.
if grep -q "handed to MPI's own AllReduce .*: none$" "${TMP}/two.out"; then
  grep -q '"vendor_all_reduce_bytes"' "${TMP}/two.json" && fail "no size handed to MPI, yet the profile names some"
else
  grep -q '"vendor_all_reduce_bytes"' "${TMP}/two.json" || fail "sizes handed to MPI are not in the profile"
fi
expect "${TMP}/two.json" <<'END'
"schema_version": 1 | profile not saved
"curve_buffer_per_message": 2 | the link curve does not say it was measured in a step
"gamma_curve_buffer_per_message": 2 | the gamma curve is not the step's reduction
"curve": \[ | no link curve in the profile
"gamma_curve": \[ | no reduction curve in the profile
"transfers_use_cores": true | one node: the cores should move the data
"shm_single_copy_bytes": [0-9][0-9]* | the measured single-copy threshold is not in the profile
"shm_slot_bytes": [0-9][0-9]* | the measured slot size is not in the profile
END
"${PREDICT}" --nodes=1 --ranks_per_node=2 --profile="${TMP}/two.json" --bytes=1e6 >"${TMP}/predict.out" 2>&1 ||
  { fail "the saved profile does not load"; cat "${TMP}/predict.out"; }
# The machine's copy: named by the machine, the transport and the shape, the same bytes as --out.
saved=("${KCOLL_MACHINE_PROFILES}"/*-shm-1x2.json)
if [[ ! -f "${saved[0]}" ]]; then
  fail "--save wrote no *-shm-1x2.json under ${KCOLL_MACHINE_PROFILES}: $(ls -R "${TMP}/machine" 2>&1)"
else
  cmp -s "${saved[0]}" "${TMP}/two.json" || fail "the machine's copy differs from --out"
  grep -q "saved for this machine as ${saved[0]}: communicators of 2 ranks" "${TMP}/two.out" ||
    fail "no line saying where --save wrote"
fi

# 4 ranks as 2 emulated nodes: both classes, with the emulation note.
if ! "${CALIBRATE}" --ranks=4 --ranks_per_node=2 --out="${TMP}/four.json" --save "${QUICK[@]}" >"${TMP}/four.out" 2>&1; then
  fail "4-rank calibration exited with an error"
  cat "${TMP}/four.out"
fi
expect "${TMP}/four.out" <<'END'
pair(s) 0-2; one-way = 10th-percentile round trip / 2 | no inter-node pair 0-2
intra-node pairs talk through kcoll.s shared memory, inter-node pairs through MPI | no emulation note
collective step, pair(s) 0-2, 1-3 at once | no inter-node steps on pairs 0-2, 1-3
shared-memory settings: the ring's step | no shared-memory settings sweep on emulated nodes
handed to MPI's own AllReduce | no sweep against MPI on emulated nodes
END
expect "${TMP}/four.json" <<<"emulated nodes: shared memory, not a network | profile does not say emulated"
ls "${KCOLL_MACHINE_PROFILES}"/*-shm-2x2e.json >/dev/null 2>&1 || fail "--save wrote no *-shm-2x2e.json for 2 emulated nodes"

# Through MPI there is no shared-memory transport to set: no settings sweep, none in the profile.
# --vendor_sweep=false leaves the sweep against MPI out.
if ! KCOLL_TRANSPORT=mpi "${CALIBRATE}" --ranks=2 --out="${TMP}/mpi.json" --vendor_sweep=false "${QUICK[@]}" \
  >"${TMP}/mpi.out" 2>&1; then
  fail "2-rank calibration over MPI exited with an error"
  cat "${TMP}/mpi.out"
fi
expect "${TMP}/mpi.out" <<<"shared-memory settings: not measured (measured through mpi, not shared memory) | no reason"
grep -q "shm_single_copy_bytes\|shm_slot_bytes" "${TMP}/mpi.json" && fail "a profile measured over MPI carries shm settings"
grep -q "against MPI_Allreduce" "${TMP}/mpi.out" && fail "--vendor_sweep=false still ran the sweep against MPI"

# Refusals, before anything is launched (nothing measured: no mpirun line).
"${CALIBRATE}" --fit=median >"${TMP}/bad.out" 2>&1 && fail "--fit=median accepted"
grep -q "fit=median: must be relative or seconds" "${TMP}/bad.out" || fail "--fit message: $(cat "${TMP}/bad.out")"
"${CALIBRATE}" --ranks=1 >"${TMP}/bad.out" 2>&1 && fail "--ranks=1 accepted"
grep -q "at least 2 ranks" "${TMP}/bad.out" || fail "--ranks=1 message: $(cat "${TMP}/bad.out")"
"${CALIBRATE}" --ranks=4 --ranks_per_node=3 >"${TMP}/bad.out" 2>&1 && fail "--ranks_per_node=3 accepted"
grep -q "ranks_per_node=3 must be >= 0 and divide --ranks=4" "${TMP}/bad.out" || fail "rpn message: $(cat "${TMP}/bad.out")"
"${CALIBRATE}" --step_factor=1 >"${TMP}/bad.out" 2>&1 && fail "--step_factor=1 accepted"
grep -q "step_factor=1" "${TMP}/bad.out" || fail "step_factor message: $(cat "${TMP}/bad.out")"
for bad in --vendor_finest_factor=1 --vendor_finest_factor=nan --vendor_passes=0; do
  "${CALIBRATE}" --ranks=2 "${bad}" >"${TMP}/bad.out" 2>&1 && fail "${bad} accepted"
  grep -q -- "${bad%%=*}=$(sed 's/.*=//' <<<"${bad}") must be" "${TMP}/bad.out" || fail "${bad} message: $(cat "${TMP}/bad.out")"
  grep -q "mpirun" "${TMP}/bad.out" && fail "${bad} was only refused after launching"
done
# Started by an outside mpirun (as tools/cluster.sh runs it), each rank refuses them alike before measuring.
mpirun --oversubscribe -np 2 "${CALIBRATE}" --vendor_passes=0 >"${TMP}/bad.out" 2>&1 &&
  fail "--vendor_passes=0 accepted under mpirun"
grep -q -- "--vendor_passes=0 must be at least 1" "${TMP}/bad.out" || fail "under mpirun: $(cat "${TMP}/bad.out")"
grep -q "measuring" "${TMP}/bad.out" && fail "--vendor_passes=0 under mpirun was refused only after measuring"
"${CALIBRATE}" --ranks=2 --out=/nonexistent/dir/p.json "${QUICK[@]}" >"${TMP}/bad.out" 2>&1 && fail "bad --out accepted"
grep -q "profile path '/nonexistent/dir/p.json' cannot be written: directory '/nonexistent/dir'" "${TMP}/bad.out" ||
  fail "bad --out message: $(cat "${TMP}/bad.out")"
grep -q "mpirun" "${TMP}/bad.out" && fail "bad --out was only found after launching"
KCOLL_MACHINE_PROFILES=off "${CALIBRATE}" --ranks=2 --save "${QUICK[@]}" >"${TMP}/bad.out" 2>&1 &&
  fail "--save accepted with the machine's profiles turned off"
grep -q "save: KCOLL_MACHINE_PROFILES='off' turns the machine's saved profiles off" "${TMP}/bad.out" ||
  fail "--save message: $(cat "${TMP}/bad.out")"
grep -q "mpirun" "${TMP}/bad.out" && fail "--save's refusal came only after launching"

[[ ${failed} -eq 0 ]] && echo "PASSED"
exit ${failed}
