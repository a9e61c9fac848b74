// Building a communicator's Topology over MPI: every rank discovers its RankInfo, the records are gathered to all
// ranks, nodes come from MPI's shared-memory split (or the emulated ranks-per-node setting), and the rings and trees
// are built for the chosen number of channels.
#ifndef KCOLL_COLLECTIVES_TOPOLOGY_DISCOVER_H_
#define KCOLL_COLLECTIVES_TOPOLOGY_DISCOVER_H_

#include <mpi.h>

#include <optional>

#include "absl/status/statusor.h"
#include "base/rank_info.h"
#include "base/topology.h"

namespace kcoll {

// Channels when neither the options nor $KCOLL_NCHANNELS say: the flat ring and one rotated copy, as NCCL
// duplicates the rings it finds.
inline constexpr int kDefaultChannels = 2;

// The same on a transport that one host thread progresses (MPI): every channel's messages go through that thread,
// so a second ring only interleaves its messages with the first one's and adds per-message work without adding
// progress.
inline constexpr int kHostDefaultChannels = 1;

struct TopologyOptions {
  // Emulated nodes of this many consecutive ranks. 0: $KCOLL_RANKS_PER_NODE if set, else MPI's nodes.
  int ranks_per_node = 0;
  // Rings (1..32). 0: $KCOLL_NCHANNELS if set, else default_nchannels.
  int nchannels = 0;
  int default_nchannels = kDefaultChannels;
  // This rank's GPU, when it drives one (see gpu_info.h).
  std::optional<GpuInfo> gpu;
  // This rank's node in a communicator that emulated its nodes, for one split from it (Communicator::Split): the
  // ranks keep the nodes they had, and ranks_per_node and $KCOLL_RANKS_PER_NODE do not apply.
  std::optional<int> emulated_node;
};

// The ranks per node to emulate (0: none) from `requested` and $KCOLL_RANKS_PER_NODE; InvalidArgument names the
// setting and value when it is not a positive divisor of nranks.
absl::StatusOr<int> ChooseRanksPerNode(int requested, int nranks);

// The channel count from `requested`, then $KCOLL_NCHANNELS, then `default_count`; InvalidArgument names the setting
// and value when it is not an integer in [1, 32].
absl::StatusOr<int> ChooseChannelCount(int requested, int default_count = kDefaultChannels);

// Collective over `comm`.
absl::StatusOr<Topology> DiscoverTopology(MPI_Comm comm, const TopologyOptions& options);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TOPOLOGY_DISCOVER_H_
