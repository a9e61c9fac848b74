// AllToAllV with Bruck's index algorithm (kBruck), for small blocks on many ranks: 2 ceil(log2 n) messages per rank
// instead of pairwise's n-1. The blocks move as in bruck's AllToAll (alltoall/bruck.cc): position i of a rank's
// rotated blocks starts as its block for rank r+i; in the step of distance d (d = 1, 2, 4, ... < n) every position
// whose bit d is set travels, packed with the others, to rank r+d, and after the last step position i holds the block
// rank r-i has for r. Here blocks have sizes of their own, and a rank knows only the sizes of its own blocks and of
// those it finally receives, not of those it relays. So the schedule runs twice over the steps:
//   1. sizes: each step sends the 8-byte sizes of the positions it packs (a header message), and the receiver puts
//      them in place of its own, exactly as the blocks will move: afterwards every rank knows what each step brings;
//   2. blocks: each step packs its positions into one message and receives the peer's straight into a region of its
//      own (each step's region is kept: a received block may be relayed by a later step), so nothing is unpacked.
// The blocks a rank holds at the end must have the sizes its recv_counts give: when they do not (the ranks' counts
// arrays disagree), the rank still takes part in every step, writes nothing and returns InvalidArgument naming the
// sending rank, so that no rank is left waiting.
//   T = sum over steps (2 alpha + m_d b beta), m_d = #{i < n : i & d}, b the mean block size
// plus one pass over the blocks for packing and one for the copy out. The steps read received sizes on the host, so
// the schedule runs on host ranks only (host buffers, a transport that completes transfers on the host); on GPU ranks
// it is refused (NeedsHostRanks in base/names.h keeps `auto` from it there). Separate buffers (no in place).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/local_copy.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {
namespace {

// The positions whose bit d is set, in increasing order.
std::vector<int> StepPositions(int n, int d) {
  std::vector<int> positions;
  for (int i = d; i < n; ++i) {
    if (i & d) positions.push_back(i);
  }
  return positions;
}

}  // namespace

absl::Status BruckAllToAllV(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t elem = DataTypeSize(args.type);
  const char* in = static_cast<const char*>(args.send);
  char* out = static_cast<char*>(args.recv);
  if (n == 1) {
    return CopyUnlessSame(res.kernels, out + args.recv_displs[0] * elem, in + args.send_displs[0] * elem,
                          args.send_counts[0] * elem);
  }
  if (res.transport.StreamOrdered() || res.kernels.memory() != MemoryKind::kHost) {
    return absl::FailedPreconditionError(absl::StrCat(
        "alltoallv algorithm bruck runs on host ranks only (it reads each step's block sizes on the host); this "
        "communicator has ",
        res.kernels.name(), " kernels over ", res.transport.name(), ": use pairwise or linear"));
  }
  // 1. Sizes. size[i]: the bytes position i holds now; for step s, sent[s] and arrived[s] are the sizes of the blocks
  // it packs and receives (in StepPositions order), region[s] where its blocks will arrive (one region per step).
  std::vector<uint64_t> size(n);
  for (int i = 0; i < n; ++i) size[i] = args.send_counts[Mod(r + i, n)] * elem;
  std::vector<std::vector<int>> positions;
  std::vector<std::vector<uint64_t>> sent, arrived;
  std::vector<size_t> region = {0};
  size_t most_packed = 0;
  for (int d = 1; d < n; d <<= 1) {
    positions.push_back(StepPositions(n, d));
    const std::vector<int>& step = positions.back();
    sent.emplace_back(step.size());
    arrived.emplace_back(step.size());
    for (size_t k = 0; k < step.size(); ++k) sent.back()[k] = size[step[k]];
    const size_t header_bytes = step.size() * sizeof(uint64_t);
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(Mod(r - d, n), arrived.back().data(), header_bytes, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(Mod(r + d, n), sent.back().data(), header_bytes, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    for (size_t k = 0; k < step.size(); ++k) size[step[k]] = arrived.back()[k];
    most_packed = std::max<size_t>(most_packed, std::accumulate(sent.back().begin(), sent.back().end(), uint64_t{0}));
    region.push_back(region.back() + std::accumulate(arrived.back().begin(), arrived.back().end(), uint64_t{0}));
  }
  KCOLL_ASSIGN_OR_RETURN(void* arrivals_ptr, res.kernels.Scratch(0, std::max<size_t>(region.back(), 1)));
  KCOLL_ASSIGN_OR_RETURN(void* outgoing_ptr, res.kernels.Scratch(1, std::max<size_t>(most_packed, 1)));
  char* arrivals = static_cast<char*>(arrivals_ptr);
  char* outgoing = static_cast<char*>(outgoing_ptr);
  // 2. Blocks. at[i]: where position i's block is now (its send block at first, then a step's region).
  std::vector<const char*> at(n);
  for (int i = 0; i < n; ++i) at[i] = in + args.send_displs[Mod(r + i, n)] * elem;
  for (size_t s = 0, d = 1; s < positions.size(); ++s, d <<= 1) {
    size_t packed = 0;
    for (size_t k = 0; k < positions[s].size(); ++k) {
      KCOLL_RETURN_IF_ERROR(res.kernels.Copy(outgoing + packed, at[positions[s][k]], sent[s][k]));
      packed += sent[s][k];
    }
    char* landing = arrivals + region[s];
    const int dist = static_cast<int>(d);
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(Mod(r - dist, n), landing, region[s + 1] - region[s], 0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(Mod(r + dist, n), outgoing, packed, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    for (size_t k = 0, offset = 0; k < positions[s].size(); offset += arrived[s][k], ++k) {
      at[positions[s][k]] = landing + offset;
    }
  }
  // Position i holds the block rank r-i sent to r: its size must be what recv_counts expects from that rank.
  for (int i = 0; i < n; ++i) {
    const int from = Mod(r - i, n);
    if (size[i] != args.recv_counts[from] * elem) {
      res.failed_in_step = true;
      return absl::InvalidArgumentError(absl::StrCat("alltoallv: rank ", from, " sent ", size[i] / elem,
                                                     " elements to rank ", r, ", whose recv_counts[", from, "] is ",
                                                     args.recv_counts[from], " (the ranks' counts arrays disagree)"));
    }
  }
  for (int i = 0; i < n; ++i) {
    const int from = Mod(r - i, n);
    KCOLL_RETURN_IF_ERROR(CopyUnlessSame(res.kernels, out + args.recv_displs[from] * elem, at[i], size[i]));
  }
  return absl::OkStatus();
}

}  // namespace kcoll
