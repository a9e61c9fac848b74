// How long one round of simultaneous transfers takes on a Topology: the building block of the cost model.
//
// Link model (see cost_model.h for how the algorithms use it):
//  * Links are full duplex: sending and receiving do not slow each other down.
//  * Inside a node every ordered pair of ranks has its own link: a rank can send to two different peers at once at
//    full speed each. Transfers on the same directed link in one round share it (their bytes add up). With
//    Topology::intra_links_per_rank = k > 0, a rank's simultaneous intra-node sends also share k links' bandwidth
//    (they need at least their total / k of link time), and so do its receives.
//  * Between nodes, the streams leaving a node share its NICs: each inter-node transfer is one stream, which runs at
//    one NIC's speed, and k streams need at least (sum of their bytes) / nics_per_node of NIC time; the same holds
//    for the streams entering a node. Two transfers between the same two ranks are two streams and may use two NICs.
//    Sharing slows the bandwidth term only: the latencies of concurrent messages overlap. Where the profile measured
//    the link both with one stream and with all of a node's ranks crossing at once (LinkParams::one_stream_curve), a
//    round with one stream per NIC each way is priced with the first, any other with the second.
//  * A round lasts as long as its slowest transfer: with intra- and inter-node transfers in one round, the round
//    costs max(alpha_intra + m_intra * beta_intra, alpha_inter + m_inter * beta_inter), plus the time the busiest rank
//    spends reducing what it received (gamma * bytes) when the round reduces.
#ifndef KCOLL_MODELS_LINK_LOAD_H_
#define KCOLL_MODELS_LINK_LOAD_H_

#include <cstdint>
#include <vector>

#include "models/machine.h"

namespace kcoll {
namespace models {

// One message of a round: `amount` is in whatever unit the caller scales by later (a fraction of the message size,
// or a number of pipeline chunks).
struct Transfer {
  int64_t src = 0;
  int64_t dst = 0;
  double amount = 0;
};

// The load of one round, in the caller's unit.
struct RoundLoad {
  bool has_intra = false;  // some transfer stays inside a node
  double intra = 0;        // amount on the busiest directed intra-node link (or rank, see intra_links_per_rank)
  bool has_inter = false;  // some transfer crosses nodes
  double inter = 0;        // NIC load of the busiest node: max(largest stream, total / nics_per_node)
  // The most streams that leave or enter one node in the round, per NIC (rounded up): 1 when each NIC carries one
  // stream each way, which the link's one-stream curve prices (machine.h). 0: not counted.
  int64_t inter_streams = 0;
  double reduce = 0;  // amount the busiest rank reduces (0 for rounds that do not reduce)
  // What each rank receives and reduces in the round (the distinct combinations, with how many ranks have each;
  // ranks that receive nothing included): when the ranks' cores copy (Profile::transfers_use_cores) a rank copies its
  // messages one after the other, each paying its own per-message cost.
  struct Receive {
    double intra_amount = 0;
    double intra_messages = 0;
    double inter_amount = 0;
    double inter_messages = 0;
    double reduce_amount = 0;
    int64_t ranks = 0;  // ranks with this combination
    bool operator<(const Receive& o) const;
  };
  std::vector<Receive> receives;
};

// Summarises a round of simultaneous transfers (transfers from a rank to itself are ignored). Each rank reduces
// everything it receives when `reduces` is true. The ranks must be in [0, topology.ranks()).
RoundLoad SummarizeRound(const Topology& topology, std::vector<Transfer> transfers, bool reduces);

// Seconds to move the round's data when one unit is `unit_bytes` bytes, without the reduction. With
// Profile::transfers_use_cores, the slowest rank's copies of everything it receives, one message after the other
// (a class's amount split evenly over its messages). `working_set_bytes`
// is the buffer of the whole operation per rank, for links priced by a measured curve (machine.h); 0: the message.
double TransferSeconds(const RoundLoad& load, double unit_bytes, const Profile& profile, double working_set_bytes = 0);

// TransferSeconds plus the busiest rank's reduction (Profile::ReduceSeconds of reduce * unit_bytes). When the ranks'
// cores copy and the profile was measured with ranks sharing cores (Profile::rank_core_share < 1), a round whose ranks
// are unevenly loaded takes the longer of that times the share (the busiest rank alone on a core) and the mean
// rank's copies and reduction (all the ranks' work over the cores); a round where every rank does the same is priced
// the same either way.
double RoundSeconds(const RoundLoad& load, double unit_bytes, const Profile& profile, double working_set_bytes = 0);

// `streams` concurrent streams leaving (or entering) one node, per NIC: rounded up over topology.nics_per_node.
int64_t StreamsPerNic(const Topology& topology, int64_t streams);

// Pairwise exchange step `shift` (1 <= shift < ranks): every rank r sends to (r + shift) mod ranks. Returns how many
// ranks of each node (the count is the same for every node) send to another node.
int64_t PairwiseCrossingSenders(const Topology& topology, int64_t shift);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_LINK_LOAD_H_
