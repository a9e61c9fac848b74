#include "collectives/call_sizes.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace kcoll {
namespace {

// Elements a buffer laid out by per-rank counts and displacements spans.
size_t Extent(const size_t* counts, const size_t* displs, int nranks) {
  size_t extent = 0;
  if (counts == nullptr || displs == nullptr) return 0;
  for (int j = 0; j < nranks; ++j) {
    if (counts[j] > 0) extent = std::max(extent, displs[j] + counts[j]);
  }
  return extent;
}

}  // namespace

uint64_t TotalCount(const size_t* counts, int nranks) {
  uint64_t total = 0;
  for (int j = 0; counts != nullptr && j < nranks; ++j) total += counts[j];
  return total;
}

size_t SendCount(const CollectiveArgs& args, int rank, int nranks) {
  const size_t n = static_cast<size_t>(nranks);
  switch (args.collective) {
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
      return args.count * n;
    case Collective::kScatter:
      return rank == args.root ? args.count * n : 0;
    case Collective::kBroadcast:
      return rank == args.root ? args.count : 0;
    case Collective::kBarrier:
      return 0;
    case Collective::kAllToAllV:
      return Extent(args.send_counts, args.send_displs, nranks);
    case Collective::kReduceScatterV:
      return static_cast<size_t>(TotalCount(args.recv_counts, nranks));
    case Collective::kScatterV:
      return rank == args.root ? Extent(args.send_counts, args.send_displs, nranks) : 0;
    default:
      return args.count;
  }
}

size_t RecvCount(const CollectiveArgs& args, int rank, int nranks) {
  const size_t n = static_cast<size_t>(nranks);
  switch (args.collective) {
    case Collective::kAllGather:
    case Collective::kAllToAll:
      return args.count * n;
    case Collective::kGather:
      return rank == args.root ? args.count * n : 0;
    case Collective::kReduce:
      return rank == args.root ? args.count : 0;
    case Collective::kExScan:
      return rank == 0 ? 0 : args.count;  // rank 0 has no lower rank to reduce
    case Collective::kAllGatherV:
    case Collective::kAllToAllV:
      return Extent(args.recv_counts, args.recv_displs, nranks);
    case Collective::kReduceScatterV:
      return args.recv_counts == nullptr ? 0 : args.recv_counts[rank];
    case Collective::kGatherV:
      return rank == args.root ? Extent(args.recv_counts, args.recv_displs, nranks) : 0;
    case Collective::kBarrier:
      return 0;
    default:
      return args.count;
  }
}

uint64_t CallBytes(const CollectiveArgs& args, int rank, int nranks) {
  const size_t elem = DataTypeSize(args.type);
  if (!IsVariable(args.collective)) return NcclTestsBytes(args.collective, args.count, elem, nranks);
  // A non-root rank of GatherV and ScatterV does not see the counts: its size is n times its own block.
  const bool root = rank == args.root;
  switch (args.collective) {
    case Collective::kAllToAllV:
      return TotalCount(args.send_counts, nranks) * elem;
    case Collective::kGatherV:
      return root ? TotalCount(args.recv_counts, nranks) * elem : uint64_t{args.count} * nranks * elem;
    case Collective::kScatterV:
      return root ? TotalCount(args.send_counts, nranks) * elem : uint64_t{args.count} * nranks * elem;
    default:  // AllGatherV, ReduceScatterV: the recvcounts every rank has
      return TotalCount(args.recv_counts, nranks) * elem;
  }
}

size_t PricedBytes(const CollectiveArgs& args, int rank, int nranks) {
  if (!IsVariable(args.collective)) return args.count * DataTypeSize(args.type);
  return static_cast<size_t>(CallBytes(args, rank, nranks) / static_cast<uint64_t>(nranks));
}

}  // namespace kcoll
