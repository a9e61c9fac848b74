#!/usr/bin/env bash
# Faults of a network, not only of a process, on real hosts (tools/cluster.sh: network-namespace hosts, Open MPI over
# TCP between them). In each case rank 0 starts the fault on host n1 while every rank is in an AllReduce loop
# (network_fault_job), with KCOLL_TIMEOUT=1s:
#   down   n1's link down for 4 s          drop   n1's packets dropped for 4 s (nftables)
#   stop   n1's ranks stopped (SIGSTOP) 4 s kill   n1's ranks killed (Open MPI's recovery on, so the job goes on)
#   abort  n1's link down, KCOLL_ON_TIMEOUT=abort   create  n1's link down before the communicator is created
# Checks: every rank off n1 returns DeadlineExceeded within timeout + 1 s naming each of n1's ranks as the cause (not
# the neighbour it waited for), no receive buffer changes after its call returned, nothing hangs (each job ends within
# its bound, and once the fault is over the ranks meet again); with abort the job ends with the timeout's exit status;
# Create fails on every rank within timeout + 1 s instead of hanging.
#
#   network_fault_test.sh CLUSTER_SH NETWORK_FAULT_JOB [LAYOUT...]   (LAYOUT: HxR, default 3x1)
# KCOLL_FAULT_ROUNDS (default 1) repeats every case. Without root or network namespaces it prints why and passes.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cluster_up.sh"
cluster="$(realpath "$1")"
job="$(realpath "$2")"
shift 2
layouts=("${@:-3x1}")
rounds="${KCOLL_FAULT_ROUNDS:-1}"
export KCOLL_CLUSTER="knf$$"
export TMPDIR="${TEST_TMPDIR:-/tmp}"
out="$TMPDIR/network_fault.out"
failures=0
trap '"$cluster" down > /dev/null 2>&1' EXIT
trap 'exit 143' TERM INT

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
  # What the job printed, for the diagnosis.
  grep -a "network_fault_job\|kcoll:\|cluster\]" "$out" 2> /dev/null | cut -c1-400 | sed 's/^/    | /' | head -20
}

# check_reports CASE: what the ranks printed, against the rules above (python: the lines carry the numbers).
check_reports() {
  python3 - "$1" "$out" "$timeout_s" "$hosts" "$ranks" << 'EOF'
import re, sys
case, path, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
hosts, ranks = int(sys.argv[4]), int(sys.argv[5])
text = open(path, errors="replace").read()
problems = []
if case == "create":
    lines = re.findall(r"network_fault_job: rank (\d+) on (\S+): Create returned after ([\d.]+) s: (.*)", text)
    if len({rank for rank, *_ in lines}) != hosts * ranks:
        problems.append(f"{len(lines)} of the {hosts * ranks} ranks reported their Create")
    for rank, host, seconds, status in lines:
        if not status.startswith("DEADLINE_EXCEEDED: Create: "):
            problems.append(f"rank {rank} on {host}: Create returned {status[:120]}")
        if float(seconds) > timeout + 1:
            problems.append(f"rank {rank} on {host}: Create took {seconds} s (> timeout + 1 s)")
else:
    lines = re.findall(r"network_fault_job: rank (\d+) on (\S+): call \d+ returned after ([\d.]+) s: (.*); late writes: (\S+)",
                       text)
    for rank, host, seconds, status, late in lines:
        if late != "none":
            problems.append(f"rank {rank} on {host}: its receive buffer changed after the call returned")
        if host == "n1":
            continue
        if not status.startswith("DEADLINE_EXCEEDED"):
            problems.append(f"rank {rank} on {host}: {status[:160]}")
            continue
        if float(seconds) > timeout + 1:
            problems.append(f"rank {rank} on {host}: the error came after {seconds} s (> timeout + 1 s)")
        causes = re.search(r"the causes? (?:is|are) (.*)", status)
        named = set(int(r) for r in re.findall(r"rank (\d+) \(host n1\)", causes.group(1))) if causes else set()
        if not named:
            problems.append(f"rank {rank} on {host}: names no rank of n1 as the cause: {status[-300:]}")
        if causes and re.search(r"rank \d+ \(host n(?!1\))", causes.group(1)):
            problems.append(f"rank {rank} on {host}: blames a rank off n1: {causes.group(1)[:300]}")
    off_n1 = {rank for rank, host, *_ in lines if host != "n1"}
    if len(off_n1) != (hosts - 1) * ranks:
        problems.append(f"{len(off_n1)} of the {(hosts - 1) * ranks} ranks off n1 reported")
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
EOF
}

# run_case CASE LIMIT_S ENV... -- JOB_ARGS...: one job on the cluster; sets status and elapsed.
run_case() {
  local name="$1" limit="$2"
  shift 2
  local envs=()
  while [[ "$1" != "--" ]]; do envs+=("$1"); shift; done
  shift
  local start=$SECONDS
  env KCOLL_TIMEOUT=1s "${envs[@]}" timeout -k 5 "$limit" "$cluster" run "$job" "$@" > "$out" 2>&1
  status=$?
  elapsed=$((SECONDS - start))
  "$cluster" heal > /dev/null 2>&1
  sleep 1  # a TCP connection that lost packets resumes before the next job's start
}

timeout_s=1
for layout in "${layouts[@]}"; do
  cluster_up "$layout" network_fault_test || { fail "cluster.sh up $hosts $ranks"; continue; }
  for ((round = 1; round <= rounds; round++)); do
    for fault in down drop stop; do
      run_case "$fault" 90 NETWORK_FAULT_CMD="$cluster fault $fault 1 4" -- during 4096 1
      label="$layout $fault (round $round)"
      echo "$label: job exit $status after $elapsed s"
      ((elapsed >= 85)) && fail "$label: the job hung (killed after 90 s)"
      grep -q "network_fault_job: done" "$out" || fail "$label: the ranks did not meet again after the fault"
      check_reports "$fault" || fail "$label: the reports above"
    done
    # Killed ranks: Open MPI ends the whole job at once unless told to recover; with recovery the others report.
    run_case kill 60 NETWORK_FAULT_CMD="$cluster fault kill 1" -- during 4096 1 exit
    echo "$layout kill, Open MPI's default (round $round): job exit $status after $elapsed s"
    # (mpirun passes on the killed rank's status, 137: the elapsed time tells it from the 60 s limit.)
    ((status != 0 && elapsed < 50)) || fail "$layout kill: the job did not end non-zero by itself"
    # With recovery on, each surviving rank reports and leaves (`exit`): a rank that hung would be missing from the
    # reports. Open MPI's mpirun itself may linger once the ranks are gone (2 hosts of 2: it waits for the dead host's
    # daemon), so the job is given 20 s and then ended.
    run_case kill 20 OMPI_MCA_orte_enable_recovery=1 NETWORK_FAULT_CMD="$cluster fault kill 1" -- during 4096 1 exit
    echo "$layout kill, recovery on (round $round): job exit $status after $elapsed s"
    check_reports kill || fail "$layout kill with recovery: the reports above"
    # KCOLL_ON_TIMEOUT=abort: the timeout's exit status (124), soon after the fault, the cause printed.
    run_case abort 60 KCOLL_ON_TIMEOUT=abort NETWORK_FAULT_CMD="$cluster fault down 1 4" -- during 4096 1
    echo "$layout abort (round $round): job exit $status after $elapsed s"
    ((status == 124)) || fail "$layout abort: exit $status, not the timeout's 124 from MPI_Abort"
    grep -q "KCOLL_ON_TIMEOUT=abort: ending the job" "$out" || fail "$layout abort: no rank said it ended the job"
    grep -q "the cause is rank [0-9]* (host n1)" "$out" || fail "$layout abort: the printed error names no rank of n1"
    ((elapsed <= 30)) || fail "$layout abort: the job took $elapsed s to end"
    # The link down before the communicator exists: Create returns within the timeout.
    run_case create 60 NETWORK_FAULT_CMD="$cluster fault down 1 4" -- create
    echo "$layout create (round $round): job exit $status after $elapsed s"
    ((elapsed >= 50)) && fail "$layout create: the job hung"
    check_reports create || fail "$layout create: the reports above"
  done
  "$cluster" down > /dev/null
done
((failures == 0)) && echo "network_fault_test: passed" || echo "network_fault_test: $failures failure(s)"
exit $((failures > 0))
