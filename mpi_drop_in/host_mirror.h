// A rank's own buffer as host memory for one call. When the buffer is device memory (device_memory.h), the call runs
// on a host copy of the span it touches, filled from the device when the call reads the span and copied back once it
// wrote it; otherwise on the buffer itself. The copies are the rank's alone: the route of the call, which every rank
// must take alike, does not depend on them.
#ifndef KCOLL_MPI_DROP_IN_HOST_MIRROR_H_
#define KCOLL_MPI_DROP_IN_HOST_MIRROR_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "mpi_drop_in/device_memory.h"

namespace kcoll::drop_in {

// Move-only; a move keeps the host copy where it is (a vector's heap storage).
class HostMirror {
 public:
  HostMirror() = default;
  HostMirror(HostMirror&&) = default;
  HostMirror& operator=(HostMirror&&) = default;
  HostMirror(const HostMirror&) = delete;
  HostMirror& operator=(const HostMirror&) = delete;

  // Mirrors the span [base + first, base + first + bytes) of the buffer at `base` (`first` is negative for a datatype
  // whose true lower bound is) when `base` is device memory. `read`: the call reads the span, so its contents are
  // copied in now; `write`: it writes the span, copied back by CopyBack. Call once. The copy's error when one fails.
  absl::Status Mirror(const void* base, std::ptrdiff_t first, size_t bytes, bool read, bool write);

  // Where the call finds `base`: base itself, or the address in the host copy that stands for it.
  char* base() const { return base_; }
  // After the call: the span, as the call left it, back to the device (once; nothing for a host buffer).
  absl::Status CopyBack();

 private:
  char* base_ = nullptr;
  char* device_first_ = nullptr;
  bool mirrored_ = false;
  bool write_ = false;
  std::vector<char> copy_;
};

// The buffers of a reduction (MPI_Allreduce, MPI_Reduce, MPI_Scan, the reduce-scatters, ...) as host memory: `send`
// of `in_bytes` read, `recv` of `out_bytes` written (null where this rank has no result); `send` == `recv` for a call
// in place, whose buffer of `in_bytes` is read and written.
struct ReductionMirror {
  HostMirror send, recv;

  absl::Status Mirror(const void* sendbuf, void* recvbuf, size_t in_bytes, size_t out_bytes);
  const void* send_host() const { return in_place_ ? recv.base() : send.base(); }
  void* recv_host() const { return recv.base(); }

 private:
  bool in_place_ = false;
};

// An elementwise reduction's kcoll call, `run(send, recv)` returning its status, on host memory: on the buffers
// themselves when none can be device memory (the common path: one check), else on their mirrors, the result copied
// back. `bytes`: each buffer's.
template <typename Run>
absl::Status RunOnHostMemory(const void* send, void* recv, size_t bytes, Run run) {
  if (!DeviceMemoryPossible()) return run(send, recv);
  ReductionMirror host;
  absl::Status status = host.Mirror(send, recv, bytes, bytes);
  if (status.ok()) status = run(host.send_host(), host.recv_host());
  if (status.ok()) status = host.recv.CopyBack();
  return status;
}

}  // namespace kcoll::drop_in

#endif  // KCOLL_MPI_DROP_IN_HOST_MIRROR_H_
