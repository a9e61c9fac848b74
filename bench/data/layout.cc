#include "bench/data/layout.h"

#include <algorithm>

namespace kcoll {
namespace bench {

Layout MakeLayout(Collective collective, size_t requested_bytes, size_t elem_bytes, int nranks) {
  Layout l;
  if (elem_bytes == 0 || nranks < 1) return l;
  const size_t total = requested_bytes / elem_bytes;
  const size_t n = static_cast<size_t>(nranks);
  const size_t per_rank = total / n;
  switch (collective) {
    case Collective::kAllReduce:
    case Collective::kBroadcast:
    case Collective::kReduce:
    case Collective::kSendRecv:
    case Collective::kScan:
    case Collective::kExScan:
      l.count = l.send_count = l.recv_count = total;
      break;
    case Collective::kReduceScatter:
    case Collective::kReduceScatterV:
    case Collective::kScatter:
    case Collective::kScatterV:
      l.count = per_rank;
      l.send_count = per_rank * n;
      l.recv_count = per_rank;
      l.recv_inplace_offset = per_rank;
      break;
    case Collective::kAllGather:
    case Collective::kAllGatherV:  // equal counts (Communicator::Call's layout)
    case Collective::kGather:
    case Collective::kGatherV:
      l.count = per_rank;
      l.send_count = per_rank;
      l.recv_count = per_rank * n;
      l.send_inplace_offset = per_rank;
      break;
    case Collective::kAllToAll:
    case Collective::kAllToAllV:
      l.count = per_rank;
      l.send_count = l.recv_count = per_rank * n;
      break;
    case Collective::kBarrier:
      break;
  }
  l.bytes = std::max(l.send_count, l.recv_count) * elem_bytes;
  return l;
}

}  // namespace bench
}  // namespace kcoll
