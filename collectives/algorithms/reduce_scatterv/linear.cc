// Linear ReduceScatterV (kLinear): every rank sends block j of its input straight to rank j and receives every
// rank's copy of its own block, all at once, then reduces the n copies in rank order into recv. One round: the fewest
// steps, for small buffers and few ranks; each rank receives n-1 copies of its block and reduces them all (the ring
// spreads the reductions). Rank order; separate buffers (no in place).
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

absl::Status LinearReduceScatterV(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t elem = DataTypeSize(args.type);
  const size_t* counts = args.recv_counts;
  std::vector<size_t> offset(n + 1, 0);
  for (int j = 0; j < n; ++j) offset[j + 1] = offset[j] + counts[j];
  const char* in = static_cast<const char*>(args.send);
  const size_t mine = counts[r], bytes = mine * elem;
  KCOLL_ASSIGN_OR_RETURN(void* copies_ptr, res.kernels.Scratch(0, std::max<size_t>(n * bytes, 1)));
  char* copies = static_cast<char*>(copies_ptr);  // rank j's copy of this rank's block at j * bytes
  for (int s = 1; s < n; ++s) {
    const int from = Mod(r - s, n);
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(from, copies + from * bytes, bytes, /*tag=*/0).status());
  }
  for (int s = 1; s < n; ++s) {
    const int to = Mod(r + s, n);
    KCOLL_RETURN_IF_ERROR(res.transport.Send(to, in + offset[to] * elem, counts[to] * elem, /*tag=*/0).status());
  }
  KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  if (mine == 0) return absl::OkStatus();
  auto copy_of = [&](int j) -> const void* { return j == r ? in + offset[r] * elem : copies + j * bytes; };
  if (n == 1) return res.kernels.Copy(args.recv, copy_of(0), bytes);
  KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, args.recv, copy_of(0), copy_of(1), mine));
  for (int j = 2; j < n; ++j) {
    KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, args.recv, args.recv, copy_of(j), mine));
  }
  return absl::OkStatus();
}

}  // namespace kcoll
