#!/usr/bin/env bash
# The MPI drop-in library on device buffers:
#   drop_in_device_test.sh MPI_LAUNCH LIBKCOLL_MPI DROP_IN_DEVICE_CHECK FAKE_CUDA_DRIVER DROP_IN_CHECK
# drop_in_device_check passes device memory to the MPI collectives; here CUDA's driver is fake_cuda_driver.c's
# stand-in, whose device memory host code cannot touch. On 2, 3 and 4 ranks: with the library preloaded every result
# equals the MPI underneath's on host copies, every call on kcoll; without the library, and with it under
# KCOLL_MPI_DEVICE=off, the MPI underneath (not CUDA-aware) reads device memory as host memory and the program
# crashes, which is what the library spares an application. A KCOLL_MPI_DEVICE the library cannot honour sends
# every call to MPI, with a message naming it.
set -euo pipefail
launch="$1"
library="$(readlink -f "$2")"
check="$(readlink -f "$3")"
fake_driver="$(readlink -f "$4")"
host_check="$(readlink -f "$5")"
out="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "drop_in_device_test: $*" >&2; exit 1; }

# The stand-in under the driver's name, first on the ranks' library path.
mkdir -p "$out/driver"
ln -sf "$fake_driver" "$out/driver/libcuda.so.1"
with_driver=(env LD_LIBRARY_PATH="$out/driver${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")

for n in 2 3 4; do
  rm -f "$out"/kcoll.*.log
  KCOLL_DEBUG=INFO KCOLL_DEBUG_FILE="$out/kcoll.%r.log" timeout 300 "$launch" "$n" "${with_driver[@]}" \
    LD_PRELOAD="$library" "$check" >"$out/kcoll.txt" 2>&1 || { cat "$out/kcoll.txt"; fail "$n ranks with the library"; }
  grep -q "drop_in_device_check on $n ranks: PASSED" "$out/kcoll.txt" || { cat "$out/kcoll.txt"; fail "$n ranks: no PASSED line"; }
  for f in MPI_Allreduce MPI_Iallreduce MPI_Reduce MPI_Scan MPI_Bcast MPI_Ibcast MPI_Allgather MPI_Alltoall \
           MPI_Gatherv MPI_Reduce_scatter_block MPI_Reduce_scatter; do
    line="$(grep -o "kcoll_mpi: $f: .*" "$out/kcoll.0.log")" || fail "$n ranks: no line for $f"
    calls="$(sed -E 's/.*: ([0-9]+) calls.*/\1/' <<<"$line")"
    taken="$(sed -E 's/.* calls, ([0-9]+) on kcoll.*/\1/' <<<"$line")"
    [[ "$taken" -gt 0 && "$taken" == "$calls" ]] || fail "$n ranks: not every $f ran on kcoll: $line"
  done
  echo "drop_in_device_test: $n ranks: device buffers on kcoll, every result equal to MPI's on host copies"
done

# The negative controls: the same program crashes where nothing copies its device memory.
for what in "without the library" "with KCOLL_MPI_DEVICE=off"; do
  preload=()
  [[ "$what" == "without the library" ]] || preload=(LD_PRELOAD="$library")
  if KCOLL_MPI_DEVICE=off timeout 300 "$launch" 2 "${with_driver[@]}" "${preload[@]}" "$check" >"$out/crash.txt" 2>&1; then
    cat "$out/crash.txt"
    fail "$what the program passed: the stand-in's device memory was readable from the host"
  fi
  grep -q "PASSED" "$out/crash.txt" && fail "$what: a PASSED line"
  echo "drop_in_device_test: $what the program fails, as device memory read by host code does"
done

# A KCOLL_MPI_DEVICE that cannot be honoured (an unknown value; a transport for the device route, which this
# library, built without CUDA kernels, cannot take): every call goes to MPI, and the message names the variable and
# its value.
for value in bogus nccl; do
  case "$value" in
    bogus) message="KCOLL_MPI_DEVICE=bogus: expected stage" ;;
    nccl) message="KCOLL_MPI_DEVICE=nccl: the device route needs a libkcoll_mpi.so built with CUDA kernels" ;;
  esac
  rm -f "$out"/kcoll.*.log
  KCOLL_MPI_DEVICE="$value" KCOLL_DEBUG=INFO KCOLL_DEBUG_FILE="$out/kcoll.%r.log" timeout 300 "$launch" 2 \
    env LD_PRELOAD="$library" "$host_check" >"$out/refused.txt" 2>&1 || { cat "$out/refused.txt"; fail "KCOLL_MPI_DEVICE=$value"; }
  grep -q "drop_in_check on 2 ranks: PASSED" "$out/refused.txt" || { cat "$out/refused.txt"; fail "KCOLL_MPI_DEVICE=$value: no PASSED line"; }
  grep -q "$message" "$out/refused.txt" || { cat "$out/refused.txt"; fail "KCOLL_MPI_DEVICE=$value: no message '$message'"; }
  grep -q "kcoll_mpi: MPI_Allreduce: .* 0 on kcoll.*KCOLL_MPI_DEVICE not honoured" "$out/kcoll.0.log" \
    || { grep -o "kcoll_mpi: MPI_Allreduce.*" "$out/kcoll.0.log"; fail "KCOLL_MPI_DEVICE=$value: calls not forwarded with the reason"; }
  echo "drop_in_device_test: KCOLL_MPI_DEVICE=$value: every call to MPI, the value named"
done
