// Local copies the schedules make around their transfers.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_LOCAL_COPY_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_LOCAL_COPY_H_

#include <cstddef>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

// Copies `bytes` from `src` to `dst` unless they are the same place (an in-place call).
inline absl::Status CopyUnlessSame(Kernels& kernels, void* dst, const void* src, size_t bytes) {
  return dst == src ? absl::OkStatus() : kernels.Copy(dst, src, bytes);
}

// The root of a rooted call copies its send buffer to its receive buffer, unless in place (send == recv).
inline absl::Status CopyOnRoot(const CollectiveArgs& args, Resources& res) {
  if (res.topology.rank != args.root || args.count == 0) return absl::OkStatus();
  return CopyUnlessSame(res.kernels, args.recv, args.send, args.count * DataTypeSize(args.type));
}

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_LOCAL_COPY_H_
