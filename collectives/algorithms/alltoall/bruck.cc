// AllToAll: block j (count elements) of rank i's send buffer lands as block i of rank j's receive buffer.
//
// Bruck's index algorithm (kBruck), for small blocks on many ranks: ceil(log2 n) messages per rank instead of
// pairwise's n-1. Each rank first copies its blocks into scratch rotated, so that position i holds its block for rank
// r+i. In the step of distance d (d = 1, 2, 4, ... < n) it packs every position whose bit d is set into one message
// to rank r+d, and unpacks the same positions received from rank r-d in their place: a block travels the binary
// digits of its distance, one hop per set bit, and after the last step position i holds the block rank r-i has for r.
// A last copy puts position i at block r-i of the receive buffer. Each step moves about half of the buffer, so the
// bytes sent are about ceil(log2 n)/2 times pairwise's: the schedule for latency-bound sizes.
//   T = sum over steps (alpha + m_d (N/n) beta), m_d = #{i < n : i & d}   (N = n * count * elem)
// plus the local rotation, packing and unpacking (about 2 + 2 ceil(log2 n) / 2 passes over N).
//
// In place (send == recv) needs nothing more: the send buffer is read whole into the rotated scratch first.
#include <algorithm>

#include "base/status_macros.h"
#include "collectives/algorithms/algorithm.h"
#include "collectives/algorithms/engines/local_copy.h"
#include "collectives/algorithms/engines/partition.h"

namespace kcoll {
namespace {

// Copies the positions of `d`'s step (i & d set) between the rotated blocks and a packed message, in runs of d
// consecutive positions: [d, 2d), [3d, 4d), ... cut at n. `pack` copies into `packed`, else out of it.
absl::Status CopyStepPositions(Kernels& kernels, char* rotated, char* packed, int n, int d, size_t block, bool pack) {
  size_t at = 0;
  for (int first = d; first < n; first += 2 * d) {
    const size_t run = static_cast<size_t>(std::min(first + d, n) - first) * block;
    char* position = rotated + static_cast<size_t>(first) * block;
    KCOLL_RETURN_IF_ERROR(pack ? kernels.Copy(packed + at, position, run) : kernels.Copy(position, packed + at, run));
    at += run;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BruckAllToAll(const CollectiveArgs& args, Resources& res) {
  const int n = res.topology.nranks, r = res.topology.rank;
  const size_t block = args.count * DataTypeSize(args.type);
  if (block == 0) return absl::OkStatus();
  const char* in = static_cast<const char*>(args.send);
  char* out = static_cast<char*>(args.recv);
  if (n == 1) return CopyUnlessSame(res.kernels, out, in, block);
  const size_t whole = static_cast<size_t>(n) * block;
  // Rotation: position i holds the block for rank r+i, i.e. blocks r..n-1, then 0..r-1.
  KCOLL_ASSIGN_OR_RETURN(void* rotated_ptr, res.kernels.Scratch(0, whole));
  char* rotated = static_cast<char*>(rotated_ptr);
  const size_t head = static_cast<size_t>(n - r) * block;
  KCOLL_RETURN_IF_ERROR(res.kernels.Copy(rotated, in + static_cast<size_t>(r) * block, head));
  if (r > 0) KCOLL_RETURN_IF_ERROR(res.kernels.Copy(rotated + head, in, static_cast<size_t>(r) * block));
  // The largest step moves at most half the positions, rounded up.
  const size_t most = static_cast<size_t>((n + 1) / 2) * block;
  KCOLL_ASSIGN_OR_RETURN(void* outgoing_ptr, res.kernels.Scratch(1, most));
  KCOLL_ASSIGN_OR_RETURN(void* incoming_ptr, res.kernels.Scratch(2, most));
  char* outgoing = static_cast<char*>(outgoing_ptr);
  char* incoming = static_cast<char*>(incoming_ptr);
  for (int d = 1; d < n; d <<= 1) {
    int positions = 0;
    for (int i = 0; i < n; ++i) positions += (i & d) ? 1 : 0;
    const size_t bytes = static_cast<size_t>(positions) * block;
    KCOLL_RETURN_IF_ERROR(CopyStepPositions(res.kernels, rotated, outgoing, n, d, block, /*pack=*/true));
    KCOLL_RETURN_IF_ERROR(res.transport.Recv(Mod(r - d, n), incoming, bytes, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.Send(Mod(r + d, n), outgoing, bytes, /*tag=*/0).status());
    KCOLL_RETURN_IF_ERROR(res.transport.WaitAll());
    KCOLL_RETURN_IF_ERROR(CopyStepPositions(res.kernels, rotated, incoming, n, d, block, /*pack=*/false));
  }
  // Position i holds rank r-i's block: r, r-1, ..., 0 for i = 0..r, then n-1, ..., r+1.
  for (int i = 0; i < n; ++i) {
    KCOLL_RETURN_IF_ERROR(res.kernels.Copy(out + static_cast<size_t>(Mod(r - i, n)) * block,
                                           rotated + static_cast<size_t>(i) * block, block));
  }
  return absl::OkStatus();
}

}  // namespace kcoll
