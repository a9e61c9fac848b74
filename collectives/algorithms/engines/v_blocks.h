// The blocks of a V-collective (AllGatherV, AllToAllV, GatherV, ScatterV): rank `peer`'s block in the receive buffer
// (recv_displs[peer], recv_counts[peer] elements) and in the send buffer (send_displs, send_counts), as bytes.
#ifndef KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_V_BLOCKS_H_
#define KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_V_BLOCKS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "collectives/algorithms/algorithm.h"

namespace kcoll {

inline char* RecvBlock(const CollectiveArgs& args, int peer) {
  return static_cast<char*>(args.recv) + args.recv_displs[peer] * DataTypeSize(args.type);
}
inline size_t RecvBytes(const CollectiveArgs& args, int peer) {
  return args.recv_counts[peer] * DataTypeSize(args.type);
}
inline const char* SendBlock(const CollectiveArgs& args, int peer) {
  return static_cast<const char*>(args.send) + args.send_displs[peer] * DataTypeSize(args.type);
}
inline size_t SendBytes(const CollectiveArgs& args, int peer) {
  return args.send_counts[peer] * DataTypeSize(args.type);
}

// Posts the receive of every other rank's block straight into its place, from r-1, r-2, ... (the peers send to r+1,
// r+2, ... first), so that no rank is everyone's first. Tag 0.
absl::Status PostReceivesFromEveryPeer(const CollectiveArgs& args, Resources& res);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_ALGORITHMS_ENGINES_V_BLOCKS_H_
