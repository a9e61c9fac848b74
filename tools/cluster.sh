#!/usr/bin/env bash
# A cluster of hosts on this machine: network namespaces joined by a bridge, each host with its own address, its own
# hostname (a UTS namespace per process started on it) and its own cores, and Open MPI over TCP between them.
# Nothing leaves the machine: the bridge lives in a namespace of its own, the hosts have no default route, and every
# address is in the private subnet below. Needs root (ip netns, tc, nft); without it, or without a kernel feature,
# each command says why and exits 0 ("skipped"), so scripts and tests that use it skip instead of failing.
#
#   tools/cluster.sh up H R          # H hosts (2-8) of R ranks each
#   tools/cluster.sh run CMD...      # an MPI job across the hosts: mpirun -np H*R, R per host, then CMD
#   tools/cluster.sh shape RATE      # limit every host's link to RATE (tc tbf; 100mbit, 1gbit, ...; off); before run
#   tools/cluster.sh fault down|drop HOST SECONDS   # take host HOST's link down, or drop its packets, for SECONDS
#   tools/cluster.sh fault stop HOST SECONDS        # stop host HOST's ranks (SIGSTOP), continue them after SECONDS
#   tools/cluster.sh fault kill HOST                # kill host HOST's ranks (SIGKILL)
#   tools/cluster.sh heal            # end every fault now
#   tools/cluster.sh status          # the hosts, their addresses, cores and shaping
#   tools/cluster.sh down            # remove everything (also after a failure; idempotent)
#
# KCOLL_CLUSTER (default kc) prefixes every name, so several clusters (concurrent tests) can coexist; the subnet is
# 10.X.0.0/24 with X derived from that prefix. The state (hosts, ranks, agent) is kept in /run/kcoll-cluster-PREFIX.
set -uo pipefail

prefix="${KCOLL_CLUSTER:-kc}"
state="/run/kcoll-cluster-$prefix"
octet=$((100 + $(printf '%s' "$prefix" | cksum | cut -d' ' -f1) % 100))
subnet="10.$octet.0"

say() { printf '[cluster] %s\n' "$*"; }
skip() {
  say "skipped: $*"
  exit 0
}
die() {
  say "error: $*" >&2
  exit 1
}

can_run() {  # root, network namespaces, veth and a bridge; "skipped" otherwise
  [[ $(id -u) -eq 0 ]] || skip "needs root (network namespaces)"
  command -v ip > /dev/null || skip "no ip command (Debian's iproute2)"
  ip netns add "${prefix}-probe" 2> /dev/null || skip "cannot create a network namespace here"
  local ok=0
  ip -n "${prefix}-probe" link add "${prefix}p0" type veth peer name "${prefix}p1" 2> /dev/null && ok=1
  ip -n "${prefix}-probe" link add "${prefix}pb" type bridge 2> /dev/null || ok=0
  ip netns delete "${prefix}-probe"
  [[ $ok -eq 1 ]] || skip "the kernel has no veth or bridge devices"
}

host_ns() { echo "${prefix}-n$1"; }
host_ip() { echo "$subnet.$(($1 + 1))"; }

# make_link H [segmented]: host H's link, eth0 in its namespace and port pH of the bridge, up, with its address
# (replacing the one it had). A segmented link sends packets of at most one Ethernet frame (no segmentation offload:
# a veth otherwise hands TCP segments of up to 64 KiB to the qdisc), so that a shaper's bucket can be small.
make_link() {
  local h="$1" ns sw="${prefix}-sw" gso=()
  ns="$(host_ns "$h")"
  [[ "${2:-}" == segmented ]] && gso=(gso_max_size 1514 gso_max_segs 1)
  ip -n "$sw" link del "p$h" 2> /dev/null
  ip -n "$sw" link add name "p$h" "${gso[@]}" type veth peer name eth0 netns "$ns" "${gso[@]}" &&
    ip -n "$sw" link set "p$h" master br0 up && ip -n "$ns" link set eth0 up &&
    ip -n "$ns" addr add "$(host_ip "$h")/24" dev eth0
}

cmd_down() {
  [[ $(id -u) -eq 0 ]] || skip "needs root"
  local ns
  for ns in $(ip netns list 2> /dev/null | awk '{print $1}' | grep -E "^${prefix}-(n[0-9]+|sw|probe)$"); do
    # Anything still running in a host (a job that hung) goes with it.
    ip netns pids "$ns" 2> /dev/null | xargs -r kill -9 2> /dev/null
    ip netns delete "$ns" 2> /dev/null
  done
  rm -rf "$state"
  say "down: no ${prefix}-* namespaces left"
}

cmd_up() {
  local hosts="${1:-}" ranks="${2:-}"
  [[ "$hosts" =~ ^[0-9]+$ && $hosts -ge 2 && $hosts -le 8 ]] || die "up: hosts '$hosts': expected 2-8"
  [[ "$ranks" =~ ^[0-9]+$ && $ranks -ge 1 && $ranks -le 8 ]] || die "up: ranks per host '$ranks': expected 1-8"
  can_run
  cmd_down > /dev/null
  trap 'say "up failed: removing what it made"; cmd_down > /dev/null' EXIT
  mkdir -p "$state" || die "cannot create $state"
  local sw="${prefix}-sw"
  ip netns add "$sw" && ip -n "$sw" link add br0 type bridge && ip -n "$sw" link set br0 up &&
    ip -n "$sw" link set lo up || die "cannot create the switch namespace $sw"
  # Cores: each host its own, round-robin over the cores this process may use; a layout that needs more cores than
  # there are oversubscribes the machine, which is said here and in `status`.
  local cores=() c
  mapfile -t cores < <(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | while IFS=- read -r a b; do seq "$a" "${b:-$a}"; done)
  local ncores=${#cores[@]} next=0
  : > "$state/hosts"
  for ((h = 0; h < hosts; h++)); do
    local ns
    ns="$(host_ns "$h")"
    ip netns add "$ns" || die "cannot create $ns"
    ip -n "$ns" link set lo up || die "cannot configure $ns"
    make_link "$h" || die "cannot create the link of $ns"
    local mine=()
    for ((r = 0; r < ranks; r++)); do
      mine+=("${cores[$((next % ncores))]}")
      next=$((next + 1))
    done
    echo "$h $ns $(host_ip "$h") n$h $(IFS=,; echo "${mine[*]}")" >> "$state/hosts"
  done
  echo "$hosts $ranks $ncores" > "$state/layout"
  # The launcher's remote shell: runs a command "on" a host, i.e. in its namespace, with its hostname and its cores.
  cat > "$state/agent" << EOF
#!/usr/bin/env bash
# Open MPI's plm_rsh_agent for cluster $prefix: agent HOST COMMAND...
host="\$1"; shift
line="\$(awk -v h="\$host" '\$3 == h || \$4 == h' "$state/hosts")"
[[ -n "\$line" ]] || { echo "cluster agent: unknown host \$host" >&2; exit 1; }
read -r _ ns _ name cpus <<< "\$line"
# The launcher's command may begin with settings (OPAL_PREFIX=... orted ..., where Open MPI is relocated): the shell
# runs it as a command line, which exec would not.
exec ip netns exec "\$ns" unshare --uts taskset -c "\$cpus" sh -c "hostname \$name; \$*"
EOF
  chmod +x "$state/agent"
  # The first host reaches every other: a bounded ping each (3 s at most), where ping is installed.
  if command -v ping > /dev/null; then
    for ((h = 1; h < hosts; h++)); do
      ip netns exec "$(host_ns 0)" ping -c 1 -W 3 "$(host_ip "$h")" > /dev/null ||
        die "host n0 cannot reach n$h ($(host_ip "$h"))"
    done
  fi
  trap - EXIT
  say "up: $hosts hosts x $ranks ranks on $subnet.0/24 (${prefix}-n0..n$((hosts - 1)), bridge in ${prefix}-sw)"
  if ((hosts * ranks > ncores)); then
    say "note: $((hosts * ranks)) ranks on $ncores cores: the hosts share cores (oversubscribed; times are not a real cluster's)"
  fi
}

need_up() {
  [[ $(id -u) -eq 0 ]] || skip "needs root"
  [[ -f "$state/layout" ]] || die "no cluster '$prefix' is up (tools/cluster.sh up H R)"
}

cmd_run() {
  [[ $# -gt 0 ]] || die "run: no command"
  need_up
  local hosts ranks ncores
  read -r hosts ranks ncores < "$state/layout"
  local hostlist=""
  for ((h = 0; h < hosts; h++)); do hostlist+="${hostlist:+,}$(host_ip "$h"):$ranks"; done
  local mpirun="${KCOLL_MPIRUN:-mpirun}"
  # The first host starts the job (mpirun runs there, under its hostname); the agent starts the others' daemons.
  # TCP between the hosts on their links, shared memory within one; nothing bound by mpirun (the agent's taskset
  # gives each host its cores); idle ranks yield when the hosts share cores.
  # When the hosts share cores, idle ranks must give theirs away: Open MPI's yield, and kcoll's shared-memory waits,
  # which see only their own host's ranks and cores and would spin (a 4 KiB AllReduce on 2 hosts of 2 ranks on 2
  # cores: 0.8-1.8 ms per call spinning, 33-54 us yielding).
  local yield=0
  if ((hosts * ranks > ncores)); then
    yield=1
    export KCOLL_SHM_SPIN="${KCOLL_SHM_SPIN:-1}"
  fi
  local cpus0
  cpus0="$(awk '$1 == 0 {print $5}' "$state/hosts")"
  # The ranks on the other hosts see only what is exported to them: kcoll's and OpenMP's settings go along.
  local exports=() v
  for v in $(env | grep -oE '^(KCOLL|OMP)_[A-Za-z0-9_]*='); do exports+=(-x "${v%=}"); done
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=$yield \
    ip netns exec "$(host_ns 0)" unshare --uts taskset -c "$cpus0" sh -c 'hostname n0; exec "$@"' sh \
    "$mpirun" --oversubscribe --bind-to none -np $((hosts * ranks)) -H "$hostlist" \
    --mca plm_rsh_agent "$state/agent" --mca btl tcp,self,vader \
    --mca btl_tcp_if_include "$subnet.0/24" --mca oob_tcp_if_include "$subnet.0/24" \
    -x OMPI_ALLOW_RUN_AS_ROOT -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -x OMPI_MCA_mpi_yield_when_idle "${exports[@]}" "$@"
}

cmd_shape() {
  local rate="${1:-}"
  need_up
  command -v tc > /dev/null || skip "no tc command (Debian's iproute2)"
  local hosts ranks ncores burst=0
  read -r hosts ranks ncores < "$state/layout"
  if [[ "$rate" != off ]]; then
    [[ "$rate" =~ ^([0-9]+)(kbit|mbit|gbit)$ ]] || die "shape: rate '$rate': expected e.g. 100mbit, 1gbit, or off"
    # The bucket: 100 us at the rate, at least 16 KiB. Whatever fits in the bucket passes at the veth's own speed after
    # an idle moment, so a large bucket makes a link of two rates (a calibration then measures the bursts, not the
    # rate). The links are made anew, segmented (make_link): a packet larger than the bucket would be dropped.
    local bits_per_s="${BASH_REMATCH[1]}"
    case "${BASH_REMATCH[2]}" in kbit) bits_per_s=$((bits_per_s * 1000)) ;; mbit) bits_per_s=$((bits_per_s * 1000000)) ;;
      gbit) bits_per_s=$((bits_per_s * 1000000000)) ;; esac
    burst=$((bits_per_s / 8 / 10000))
    ((burst < 16384)) && burst=16384
  fi
  for ((h = 0; h < hosts; h++)); do
    make_link "$h" "$([[ "$rate" != off ]] && echo segmented)" || die "cannot remake n$h's link"
    if [[ "$rate" != off ]]; then
      tc -n "$(host_ns "$h")" qdisc add dev eth0 root tbf rate "$rate" burst "$burst" latency 50ms ||
        skip "the kernel has no tbf shaping"
    fi
  done
  echo "$rate" > "$state/shape"
  say "shape: every host's link ${rate/off/unshaped}"
}

# The MPI ranks running on host HOST: the processes in its namespace that its launcher daemon (or mpirun, on the
# first host) started, the daemon itself left out.
rank_pids() {
  local pid parent
  for pid in $(ip netns pids "$(host_ns "$1")" 2> /dev/null); do
    parent="$(ps -o ppid= -p "$pid" 2> /dev/null | tr -d ' ')"
    [[ -n "$parent" ]] || continue
    # (A host's daemon is a child of mpirun, through the agent's shell, which runs the launcher's command line.)
    case "$(ps -o comm= -p "$pid" 2> /dev/null)" in orted | mpirun | orterun | prterun | sleep) continue ;; esac
    [[ "$(ps -o args= -p "$pid" 2> /dev/null)" == "sh -c hostname "* ]] && continue
    case "$(ps -o comm= -p "$parent" 2> /dev/null)" in orted | mpirun | orterun | prterun) echo "$pid" ;; esac
  done
}

# later SECONDS CMD...: runs CMD after SECONDS in a session of its own, so that it outlives the job that asked for the
# fault (a launcher ending a job kills its ranks' process groups, and a fault started from a rank would stay).
later() {
  local seconds="$1"
  shift
  setsid sh -c 'sleep "$0"; "$@"' "$seconds" "$@" < /dev/null > /dev/null 2>&1 &
}

cmd_fault() {
  local kind="${1:-}" host="${2:-}" seconds="${3:-}"
  need_up
  [[ "$host" =~ ^[0-9]+$ && -n "$(awk -v h="$host" '$1 == h' "$state/hosts")" ]] || die "fault: host '$host' is not a host of this cluster"
  [[ "$kind" == kill ]] && seconds=1
  [[ "$seconds" =~ ^[0-9]+$ && $seconds -ge 1 && $seconds -le 600 ]] || die "fault: seconds '$seconds': expected 1-600"
  local ns
  ns="$(host_ns "$host")"
  case "$kind" in
    down)
      ip -n "$ns" link set eth0 down || die "cannot take n$host's link down"
      later "$seconds" ip -n "$ns" link set eth0 up
      say "fault: n$host's link down for $seconds s"
      ;;
    drop)
      command -v nft > /dev/null || skip "no nft command (Debian's nftables)"
      ip netns exec "$ns" nft -f - << EOF || skip "the kernel has no nftables"
table inet kcoll_fault {
  chain in { type filter hook input priority 0; iifname "eth0" drop; }
  chain out { type filter hook output priority 0; oifname "eth0" drop; }
}
EOF
      later "$seconds" ip netns exec "$ns" nft delete table inet kcoll_fault
      say "fault: n$host's packets dropped for $seconds s"
      ;;
    stop | kill)
      local pids
      pids="$(rank_pids "$host" | tr '\n' ' ')"
      [[ -n "${pids// /}" ]] || die "fault: no MPI ranks are running on n$host"
      if [[ "$kind" == kill ]]; then
        kill -KILL $pids 2> /dev/null
        say "fault: n$host's ranks killed (pids $pids)"
      else
        kill -STOP $pids 2> /dev/null
        later "$seconds" kill -CONT $pids
        say "fault: n$host's ranks stopped for $seconds s (pids $pids)"
      fi
      ;;
    *) die "fault: '$kind': expected down, drop, stop or kill" ;;
  esac
}

cmd_heal() {  # ends every fault now: links up, no packets dropped, stopped ranks continued
  need_up
  local hosts ranks ncores h
  read -r hosts ranks ncores < "$state/layout"
  for ((h = 0; h < hosts; h++)); do
    ip -n "$(host_ns "$h")" link set eth0 up
    ip netns exec "$(host_ns "$h")" nft delete table inet kcoll_fault 2> /dev/null
    rank_pids "$h" | xargs -r kill -CONT 2> /dev/null
  done
  say "heal: every link up, nothing dropped, no rank stopped"
}

cmd_status() {
  need_up
  local hosts ranks ncores
  read -r hosts ranks ncores < "$state/layout"
  local links
  links="$(cat "$state/shape" 2> /dev/null || echo unshaped)"
  say "$hosts hosts x $ranks ranks, $ncores cores$( ((hosts * ranks > ncores)) && echo ' (oversubscribed)'), links $links"
  while read -r h ns ip name cpus; do say "  $name ($ns) $ip cores $cpus"; done < "$state/hosts"
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  down) cmd_down ;;
  run) shift; cmd_run "$@" ;;
  shape) shift; cmd_shape "$@" ;;
  fault) shift; cmd_fault "$@" ;;
  heal) cmd_heal ;;
  status) cmd_status ;;
  *) die "usage: tools/cluster.sh up H R | run CMD... | shape RATE | fault down|drop|stop HOST SECONDS | fault kill HOST | heal | status | down" ;;
esac
