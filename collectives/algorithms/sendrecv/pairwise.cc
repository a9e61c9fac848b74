// SendRecv (nccl-tests' sendrecv): rank r sends its `count` elements to rank r+1 and receives as many from rank
// r-1, ranks taken modulo n, so with one rank it is a copy.
//
// Pairwise (kPairwise): both transfers are posted at once, one message each way per rank:
//   T = alpha + N beta                   (N = count * elem)
//
// In place (send == recv) the message is received into scratch and copied over once the outgoing one has left.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {

absl::Status PairwiseSendRecv(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  if (bytes == 0) return absl::OkStatus();
  if (n == 1) return args.send == args.recv ? absl::OkStatus() : res.kernels.Copy(args.recv, args.send, bytes);
  void* landing = args.recv;
  if (args.send == args.recv) {
    KCOLL_ASSIGN_OR_RETURN(landing, res.kernels.Scratch(0, bytes));
  }
  KCOLL_RETURN_IF_ERROR(res.transport.Recv(Mod(r - 1, n), landing, bytes, /*tag=*/0).status());
  KCOLL_RETURN_IF_ERROR(res.transport.Send(Mod(r + 1, n), args.send, bytes, /*tag=*/0).status());
  KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
  if (landing != args.recv) return res.kernels.Copy(args.recv, landing, bytes);
  return absl::OkStatus();
}

}  // namespace kcoll
