// AllToAll: block j (count elements) of rank i's send buffer lands as block i of rank j's receive buffer.
//
// Pairwise exchange (kPairwise). Each rank copies its own block across, then in step s (s = 1..n-1) sends its block
// for rank r+s to rank r+s and receives the block rank r-s has for it, straight into its place. Every step is a
// permutation of the ranks (each sends to one and receives from one), so no rank is flooded, for any n:
//   T = (n-1) (alpha + (N/n) beta)       (N = n * count * elem, the whole send buffer)
//
// In place (send == recv) the send buffer is first copied to scratch, since incoming blocks would overwrite
// outgoing ones.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

absl::Status PairwiseAllToAll(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes == 0) return absl::OkStatus();
  char* out = static_cast<char*>(args.recv);
  const char* in = static_cast<const char*>(args.send);
  if (args.send == args.recv) {
    KCOLL_ASSIGN_OR_RETURN(void* copy, res.kernels.Scratch(0, n * bytes));
    KCOLL_RETURN_IF_ERROR(res.kernels.Copy(copy, in, n * bytes));
    in = static_cast<const char*>(copy);
  } else {
    KCOLL_RETURN_IF_ERROR(res.kernels.Copy(out + r * bytes, in + r * bytes, bytes));
  }
  for (int s = 1; s < n; ++s) {
    const int to = Mod(r + s, n), from = Mod(r - s, n);
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(from, out + from * bytes, bytes, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(to, in + to * bytes, bytes, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  }
  return absl::OkStatus();
}

}  // namespace kcoll
