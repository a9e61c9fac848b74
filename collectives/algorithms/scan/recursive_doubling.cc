// Recursive doubling Scan and ExScan (kRecursiveDoubling). Each rank keeps `partial`, the reduction over the aligned
// block of 2^k ranks around it seen so far (at first its own input). At distance d = 1, 2, 4, ... rank r exchanges
// `partial` with r XOR d (when that rank exists); the received block lies wholly below r or wholly above it. From
// below, it joins both `partial` and the result (the prefix grows by exactly that block); from above, only
// `partial`. After ceil(log2 n) steps the result holds ranks 0..r (Scan) or 0..r-1 (ExScan, which starts empty).
// Each step moves the whole buffer: the fewest steps, the choice for the small buffers a scan usually numbers
// unknowns with. Any rank count, no folding. Lower ranks' data is always the left operand, as MPI_Scan combines;
// ExScan leaves rank 0's recvbuf as it was.
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {
namespace {

constexpr int kTag = 0;

absl::Status DoublingScan(const CollectiveArgs& args, Resources& res, bool exclusive) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t bytes = args.count * DataTypeSize(args.type);
  const char* in = static_cast<const char*>(args.send);
  char* out = static_cast<char*>(args.recv);
  if (args.count == 0) return absl::OkStatus();
  if (n == 1) return exclusive || in == out ? absl::OkStatus() : res.kernels.Copy(out, in, bytes);
  KCOLL_ASSIGN_OR_RETURN(void* partial_ptr, res.kernels.Scratch(0, bytes));
  KCOLL_ASSIGN_OR_RETURN(void* incoming_ptr, res.kernels.Scratch(1, bytes));
  char* partial = static_cast<char*>(partial_ptr);
  char* incoming = static_cast<char*>(incoming_ptr);
  KCOLL_RETURN_IF_ERROR(res.kernels.Copy(partial, in, bytes));
  if (!exclusive && in != out) KCOLL_RETURN_IF_ERROR(res.kernels.Copy(out, in, bytes));
  bool have_prefix = !exclusive;  // ExScan's result is empty until a block from below arrives
  for (int d = 1; d < n; d *= 2) {
    const int peer = r ^ d;
    if (peer >= n) continue;
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(peer, incoming, bytes, kTag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(peer, partial, bytes, kTag).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    if (peer < r) {
      if (have_prefix) {
        KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, out, incoming, out, args.count));
      } else {
        KCOLL_RETURN_IF_ERROR(res.kernels.Copy(out, incoming, bytes));
        have_prefix = true;
      }
      KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, partial, incoming, partial, args.count));
    } else {
      KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, partial, partial, incoming, args.count));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RecursiveDoublingScan(const CollectiveArgs& args, Resources& res) {
  return DoublingScan(args, res, false);
}

absl::Status RecursiveDoublingExScan(const CollectiveArgs& args, Resources& res) {
  return DoublingScan(args, res, true);
}

}  // namespace kcoll
