#!/bin/bash
# The predictor's command line: good flags print a report, bad ones a clear error and a non-zero exit.
set -u

PREDICT="${1:-}"
if [[ -z "${PREDICT}" ]]; then
  # The built binary, in the runfiles or the working directory (not a repository path).
  for candidate in "${TEST_SRCDIR:-}/${TEST_WORKSPACE:-kcoll}/models/predict" models/predict; do
    if [[ -x "${candidate}" ]]; then PREDICT="${candidate}"; break; fi
  done
fi
[[ -x "${PREDICT}" ]] || { echo "predict binary not found"; exit 1; }

passed=0
failed=0
OUT="${TEST_TMPDIR:-/tmp}/predict_cli_test.out"

# expect_ok NAME NEEDLE ARGS...: exit 0 and stdout contains NEEDLE.
expect_ok() {
  local name="$1" needle="$2"
  shift 2
  if "${PREDICT}" "$@" >"${OUT}" 2>&1 && grep -qF -- "${needle}" "${OUT}"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL ${name}: expected success with '${needle}'"
    cat "${OUT}"
  fi
}

# expect_error NAME NEEDLE ARGS...: non-zero exit (not a crash) and output contains NEEDLE.
expect_error() {
  local name="$1" needle="$2"
  shift 2
  "${PREDICT}" "$@" >"${OUT}" 2>&1
  local rc=$?
  if [[ ${rc} -ne 0 && ${rc} -lt 128 ]] && grep -qF -- "${needle}" "${OUT}"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL ${name}: expected an error with '${needle}', got exit ${rc}"
    cat "${OUT}"
  fi
}

MACHINE=(--nodes=8 --ranks_per_node=8 --intra_bw=600e9 --inter_bw=100e9 --intra_lat=1e-6 --inter_lat=5e-6)

expect_ok size "chosen: ring" "${MACHINE[@]}" --bytes=1e9
expect_ok size_ideal "ideal busbw: 112.50 GB/s" "${MACHINE[@]}" --bytes=1e9
expect_ok json '"chosen": "ring"' "${MACHINE[@]}" --bytes=1e9 --json
expect_ok sweep "where the choice changes" "${MACHINE[@]}" --min_bytes=1024 --max_bytes=1e8 --step_factor=10
expect_ok sweep_json '"rows"' "${MACHINE[@]}" --min_bytes=1024 --max_bytes=1e8 --json
expect_ok collective "broadcast on" "${MACHINE[@]}" --bytes=1e6 --collective=broadcast
expect_ok single_node "ideal busbw: 600.00 GB/s" --ranks_per_node=8 --intra_bw=600e9 --intra_lat=1e-6 --bytes=1e6
expect_ok rails "8 NICs per node" "${MACHINE[@]}" --nics_per_node=8 --bytes=1e9

PROFILE="${TEST_TMPDIR:-/tmp}/predict_cli_test_profile.json"
cat >"${PROFILE}" <<'JSON'
{"schema_version": 1, "intra": {"alpha_s": 1e-6, "beta_s_per_byte": 2e-12},
 "inter": {"alpha_s": 5e-6, "beta_s_per_byte": 1e-11}, "gamma_s_per_byte": 0, "memcpy_bytes_per_s": 0}
JSON
expect_ok profile "chosen:" --nodes=2 --ranks_per_node=4 --profile="${PROFILE}" --bytes=1e6

expect_error zero_nodes "nodes=0" "${MACHINE[@]}" --nodes=0 --bytes=1
expect_error zero_ranks "ranks_per_node=0" "${MACHINE[@]}" --ranks_per_node=0 --bytes=1
expect_error bad_collective "collective 'allreduce' is not one of" "${MACHINE[@]}" --collective=allreduce --bytes=1
expect_error missing_bw "--intra_bw is required" --nodes=2 --ranks_per_node=2 --bytes=1
expect_error missing_inter "--inter_bw is required" --nodes=2 --ranks_per_node=2 --intra_bw=1e9 --intra_lat=0 --bytes=1
expect_error zero_bw "--inter_bw=0" "${MACHINE[@]}" --inter_bw=0 --bytes=1
expect_error negative_bytes "--bytes=-5" "${MACHINE[@]}" --bytes=-5
expect_error bad_range "--max_bytes=10 must be > --min_bytes=100" "${MACHINE[@]}" --min_bytes=100 --max_bytes=10
expect_error bad_step "step_factor=1" "${MACHINE[@]}" --step_factor=1
expect_error unknown_flag "nosuchflag" "${MACHINE[@]}" --nosuchflag=3
expect_error not_a_number "bytes" "${MACHINE[@]}" --bytes=lots
expect_error positional "unexpected argument 'extra'" "${MACHINE[@]}" --bytes=1 extra
expect_error both_sources "exclude each other" "${MACHINE[@]}" --profile="${PROFILE}" --bytes=1
expect_error missing_profile "no_such_profile.json" --profile=/nonexistent/no_such_profile.json --bytes=1
expect_error bad_channels "channels=-2" "${MACHINE[@]}" --channels=-2 --bytes=1
expect_error bad_gamma "--gamma=-1" "${MACHINE[@]}" --gamma=-1 --bytes=1

echo "${passed} passed, ${failed} failed"
[[ ${failed} -eq 0 ]]
