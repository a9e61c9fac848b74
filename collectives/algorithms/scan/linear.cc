// Linear Scan and ExScan (kLinear): the prefix walks the ranks in order, 0 -> 1 -> ... -> n-1. Rank r receives the
// reduction over ranks 0..r-1 from r-1 (ExScan's result), combines it with its own contribution (Scan's result) and
// sends that on to r+1. The buffer travels in stages of `chunk_bytes` (AlgorithmOptions; kDefaultChunkBytes when 0),
// so rank r+1 combines stage c while rank r works on stage c+1: n-1 latencies plus the buffer's time about once, the
// choice for large buffers (recursive doubling takes log2 n latencies, each moving the whole buffer). The lower
// ranks' prefix is always the left operand, as MPI_Scan combines. ExScan leaves rank 0's recvbuf as it was.
#include <algorithm>
#include <vector>

#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/chunking.h"

namespace kcoll {
namespace {

constexpr int kTag = 0;

absl::Status ChainScan(const CollectiveArgs& args, Resources& res, bool exclusive) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t elem = DataTypeSize(args.type), count = args.count;
  const char* in = static_cast<const char*>(args.send);
  char* out = static_cast<char*>(args.recv);
  if (count == 0) return absl::OkStatus();
  if (n == 1) return exclusive || in == out ? absl::OkStatus() : res.kernels.Copy(out, in, count * elem);
  const size_t chunk = ChunkElems(args.options, args.type);
  const size_t stages = DivCeil(count, chunk);
  auto first = [&](size_t c) { return c * chunk * elem; };
  auto length = [&](size_t c) { return std::min(chunk, count - c * chunk); };
  const bool last = r == n - 1;

  if (r == 0) {  // the head of the chain: its prefix is its own contribution
    if (!exclusive && in != out) KCOLL_RETURN_IF_ERROR(res.kernels.Copy(out, in, count * elem));
    const char* forward = exclusive ? in : out;
    for (size_t c = 0; c < stages; ++c) {
      KCOLL_RETURN_IF_ERROR(res.transport.Send(r + 1, forward + first(c), length(c) * elem, kTag).status());
    }
    return res.transport.WaitAll();
  }
  // Scan receives the prefix into scratch and reduces it with its input into recv, which it forwards. ExScan's
  // result is the prefix itself: received straight into recv unless recv is the input (in place), and what it
  // forwards (prefix op input) is built in a second scratch.
  const bool into_recv = exclusive && in != out;
  char* incoming = out;
  if (!into_recv) {
    KCOLL_ASSIGN_OR_RETURN(void* scratch, res.kernels.Scratch(0, count * elem));
    incoming = static_cast<char*>(scratch);
  }
  char* forward = out;
  if (exclusive && !last) {
    KCOLL_ASSIGN_OR_RETURN(void* scratch, res.kernels.Scratch(1, count * elem));
    forward = static_cast<char*>(scratch);
  }
  std::vector<Transport::Request> arrivals(stages);
  KCOLL_ASSIGN_OR_RETURN(arrivals[0], res.transport.Recv(r - 1, incoming, length(0) * elem, kTag));
  for (size_t c = 0; c < stages; ++c) {
    if (c + 1 < stages) {
      KCOLL_ASSIGN_OR_RETURN(arrivals[c + 1],
                             res.transport.Recv(r - 1, incoming + first(c + 1), length(c + 1) * elem, kTag));
    }
    KCOLL_RETURN_IF_ERROR(res.transport.Wait(arrivals[c]));
    const size_t at = first(c);
    if (!exclusive || !last) {
      KCOLL_RETURN_IF_ERROR(res.kernels.Reduce(args.op, args.type, forward + at, incoming + at, in + at, length(c)));
    }
    if (exclusive && !into_recv) KCOLL_RETURN_IF_ERROR(res.kernels.Copy(out + at, incoming + at, length(c) * elem));
    if (!last) KCOLL_RETURN_IF_ERROR(res.transport.Send(r + 1, forward + at, length(c) * elem, kTag).status());
  }
  return res.transport.WaitAll();
}

}  // namespace

absl::Status LinearScan(const CollectiveArgs& args, Resources& res) { return ChainScan(args, res, false); }

absl::Status LinearExScan(const CollectiveArgs& args, Resources& res) { return ChainScan(args, res, true); }

}  // namespace kcoll
