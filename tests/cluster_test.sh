#!/usr/bin/env bash
# kcoll on real hosts: tools/cluster.sh makes network-namespace hosts on this machine (own hostname, address and
# cores; Open MPI over TCP between them), and kcoll's own multi-rank test binaries run across them, each checking
# every collective and algorithm bit for bit against the local reference and against MPI's collective.
#
#   cluster_test.sh CLUSTER_SH DESCRIBE_TOPOLOGY LAYOUT:BINARY,BINARY... [LAYOUT:...]
#
# LAYOUT is HxR (H hosts of R ranks). Per layout it first checks what kcoll sees: as many nodes as hosts, each rank's
# host by name, inter-node byte counters that the hosts' links carried (each host's transmitted TCP bytes at least what
# its ranks counted as sent to other nodes, and not far above), and the link between hosts probed for `auto` (no
# profile of them). Without root or network namespaces the test prints why and passes as skipped.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cluster_up.sh"
# Absolute paths: the ranks on the other hosts start wherever their launcher puts them.
cluster="$(realpath "$1")"
describe="$(realpath "$2")"
shift 2
export KCOLL_CLUSTER="kct$$"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export KCOLL_TEST_MPI_THREADS=multiple  # nonblocking_test's progress thread calls MPI
# `auto` prices with the built-in profile, whatever this machine keeps (the probe's check below needs it).
export KCOLL_MACHINE_PROFILES=off
unset KCOLL_PROFILE KCOLL_LINK_PROBE
# Within a host ranks share memory as on one machine; its session files stay in the test's own directory.
export TMPDIR="${TEST_TMPDIR:-/tmp}"
failures=0
trap '"$cluster" down > /dev/null 2>&1' EXIT
trap 'exit 143' TERM INT  # a test timeout still removes the hosts (through the EXIT trap)

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

tx_bytes() {  # tx_bytes HOST: bytes host HOST's link has sent
  ip -n "${KCOLL_CLUSTER}-n$1" -s -j link show eth0 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["bytes"])'
}

check_topology() {  # check_topology HOSTS RANKS
  local hosts="$1" ranks="$2" out before=() h
  for ((h = 0; h < hosts; h++)); do before[h]="$(tx_bytes "$h")"; done
  # The probe of the link between hosts (link_probe.h) sends bytes no counter counts: off for the byte check.
  out="$(KCOLL_LINK_PROBE=off KCOLL_DEBUG=INFO timeout 120 "$cluster" run "$describe" 2>&1)" || { fail "describe_topology on ${hosts}x$ranks: $(tail -5 <<< "$out")"; return; }
  grep -q "nranks $((hosts * ranks)) nnodes $hosts ranks_per_node $ranks" <<< "$out" ||
    fail "${hosts}x$ranks: kcoll did not find $hosts nodes of $ranks: $(grep -m1 nnodes <<< "$out")"
  for ((h = 0; h < hosts; h++)); do
    grep -q " node $h local_rank 0 host n$h " <<< "$out" || fail "${hosts}x$ranks: no rank of node $h on host n$h"
    # What this host's ranks counted as sent to other nodes, against what its link sent (MPI's own messages, TCP
    # and IP headers on top: at most a tenth more, plus 256 KiB).
    local counted sent
    counted="$(grep "^n$h:.*counters total" <<< "$out" | sed -n 's/.*| send calls [0-9]* bytes [0-9]* intra [0-9]* inter \([0-9]*\).*/\1/p' |
      awk '{s += $1} END {print s + 0}')"
    sent=$(($(tx_bytes "$h") - before[h]))
    echo "host n$h: kcoll counted $counted bytes sent to other nodes, its link sent $sent"
    ((counted > 0)) || fail "${hosts}x$ranks: host n$h counted no inter-node bytes"
    ((sent >= counted)) || fail "${hosts}x$ranks: host n$h's link sent $sent bytes, fewer than the $counted kcoll counted"
    ((sent <= counted + counted / 10 + 262144)) ||
      fail "${hosts}x$ranks: host n$h's link sent $sent bytes, far more than the $counted kcoll counted"
  done
  # With no profile of these hosts, `auto` prices the link between them as measured at creation.
  out="$(KCOLL_DEBUG=INFO timeout 120 "$cluster" run "$describe" 2>&1)" || { fail "describe_topology (probe) on ${hosts}x$ranks: $(tail -5 <<< "$out")"; return; }
  grep -q "auto prices with: built-in.*, its link between nodes probed: [0-9.]* us at 8 B, [0-9.]* GB/s at 256 KiB" <<< "$out" ||
    fail "${hosts}x$ranks: the link between hosts was not probed: $(grep -m1 'auto prices with' <<< "$out")"
  echo "${hosts}x$ranks: $(grep -m1 -o 'its link between nodes probed: .*' <<< "$out")"
}

for spec in "$@"; do
  layout="${spec%%:*}"
  cluster_up "$layout" cluster_test || { fail "cluster.sh up $hosts $ranks"; continue; }
  check_topology "$hosts" "$ranks"
  IFS=, read -r -a binaries <<< "${spec#*:}"
  for binary in "${binaries[@]}"; do
    start=$SECONDS
    binary="$(realpath "$binary")"
    if out="$(timeout 600 "$cluster" run "$binary" 2>&1)"; then
      echo "${layout} $(basename "$binary"): $(grep -a -m1 "PASSED on" <<< "$out") ($((SECONDS - start)) s)"
    else
      fail "${layout} $(basename "$binary") exited $?: $(grep -a "FAILED\|Failure\|rror" <<< "$out" | head -20)"
    fi
  done
done
"$cluster" down
((failures == 0)) && echo "cluster_test: passed" || echo "cluster_test: $failures failure(s)"
exit $((failures > 0))
