// linear (broadcast, reduce, gather, scatter, barrier; schedules: collectives/algorithms/<collective>/linear.cc): the
// root (rank 0) talks to every other rank in turn, one message per round: S for broadcast and reduce (reducing), S/n
// for gather and scatter, empty messages for barrier (n-1 to the root, then n-1 releases). The root's link carries
// everything: only for few ranks, tiny messages, or as a baseline. all_gatherv and alltoallv (all_gatherv/linear.cc,
// alltoallv/linear.cc): every rank posts all its messages at once, one round in which every link carries its blocks
// (their latencies overlap: one alpha per receiving rank, also where the cores copy). reduce_scatterv
// (reduce_scatterv/linear.cc) posts the same round, but on one node whose cores copy (shared memory) it runs the
// buffer in slices of n pieces of kOwnerPieceBytes, one per block: the owner folds each piece over all n copies while
// it is in cache. Each slice is priced as its copies, read from the buffer in memory (the whole buffer is their
// working set), and then the owner's fold of n-1 pieces, at the slice's working set (the fold so far stays in cache
// between its steps, where a ring reduces into memory at every step).
//
// cost broadcast: alpha + (n-1) S beta
// cost reduce: alpha + (n-1) S (beta + gamma)
// cost gather: (n-1) alpha + (n-1)/n S beta
// cost scatter: (n-1) alpha + (n-1)/n S beta
// cost barrier: 2 alpha + 2 (n-1) o (o: the root's per-message overhead)
// cost all_gatherv: alpha + (n-1)/n S beta (every block to every rank at once; priced with equal blocks)
// cost alltoallv: alpha + (n-1)/n S beta (every block to its rank at once; priced with equal blocks)
// cost reduce_scatterv: alpha + (n-1)/n S beta + (n-1)/n S gamma (every block to its rank at once, reduced there)
// cost gatherv: (n-1) alpha + (n-1)/n S beta (as gather, with equal blocks)
// cost scatterv: (n-1) alpha + (n-1)/n S beta (as scatter, with equal blocks)
#include <algorithm>
#include <vector>

#include "models/link_load.h"
#include "models/prices/rounds.h"

namespace kcoll {
namespace models {

namespace {

// The piece the linear ReduceScatterV sends within a node (kOwnerPieceBytes in reduce_scatterv/linear.cc).
constexpr double kOwnerPieceBytes = 64 * 1024;

// reduce_scatterv within one node whose cores copy: slices of n pieces, each its copies (cold) and its fold (warm).
void AddFoldsInPieces(PriceBuilder& b, const std::vector<Transfer>& transfers) {
  const double n = static_cast<double>(b.ranks());
  RoundLoad copies = SummarizeRound(b.topology(), transfers, /*reduces=*/false);
  for (RoundLoad::Receive& r : copies.receives) r.intra_messages = std::min(r.intra_messages, 1.0);
  RoundLoad fold = SummarizeRound(b.topology(), transfers, /*reduces=*/true);
  fold.has_intra = false;
  fold.intra = 0;
  for (RoundLoad::Receive& r : fold.receives) r.intra_amount = r.intra_messages = 0;
  b.AddRoundLoad(1, copies, /*sent_fraction=*/n - 1);
  b.AddRoundLoad(1, fold, /*sent_fraction=*/0);
  b.InSlices(n * kOwnerPieceBytes, /*cold_rounds=*/1);
}

}  // namespace

void PriceLinear(PriceBuilder& b) {
  const double n = static_cast<double>(b.ranks());
  switch (b.collective()) {
    case Collective::kBroadcast:
      AddLinear(b, /*to_root=*/false, 1, /*reduces=*/false);
      break;
    case Collective::kReduce:
      AddLinear(b, /*to_root=*/true, 1, /*reduces=*/true);
      break;
    case Collective::kGather:
      AddLinear(b, /*to_root=*/true, 1.0 / n, /*reduces=*/false);
      break;
    case Collective::kScatter:
    case Collective::kScatterV:
      AddLinear(b, /*to_root=*/false, 1.0 / n, /*reduces=*/false);
      break;
    case Collective::kGatherV:
      AddLinear(b, /*to_root=*/true, 1.0 / n, /*reduces=*/false);
      break;
    case Collective::kAllGatherV:
    case Collective::kAllToAllV:
    case Collective::kReduceScatterV: {
      // One round: every rank sends a block (S/n) to every other rank (the same block to all, for all_gatherv).
      std::vector<Transfer> transfers;
      for (int64_t i = 0; i < b.ranks(); ++i) {
        for (int64_t j = 0; j < b.ranks(); ++j) {
          if (i != j) transfers.push_back({i, j, 1.0 / n});
        }
      }
      if (b.collective() == Collective::kReduceScatterV && b.topology().nodes == 1 && b.profile().transfers_use_cores) {
        AddFoldsInPieces(b, transfers);
        break;
      }
      RoundLoad load = SummarizeRound(b.topology(), transfers, b.collective() == Collective::kReduceScatterV);
      // Each rank posts all its receives at once, so their latencies overlap: where the cores copy, a rank's copies
      // are priced as one message per class of link (one alpha and all its bytes), not n-1 messages one after the
      // other as in a round of separate steps.
      for (RoundLoad::Receive& r : load.receives) {
        r.intra_messages = std::min(r.intra_messages, 1.0);
        r.inter_messages = std::min(r.inter_messages, 1.0);
      }
      b.AddRoundLoad(1, load, /*sent_fraction=*/n - 1);
      break;
    }
    default:  // barrier
      AddLinear(b, /*to_root=*/true, 0, /*reduces=*/false);
      AddLinear(b, /*to_root=*/false, 0, /*reduces=*/false);
      break;
  }
}

}  // namespace models
}  // namespace kcoll
