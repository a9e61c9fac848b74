// The ideal (upper-bound) bus bandwidth of a collective on a machine, for judging a measured busbw.
//
// nccl-tests defines busbw = D / (T * N), where D is the total data the collective must move between ranks and N
// the number of ranks (bus_bandwidth.h). Replacing T by the shortest time the hardware allows, T_ideal, gives the
// ideal busbw D / (T_ideal * N); efficiency = measured busbw / ideal busbw.
//
// Inputs: B = unidirectional bandwidth of one rank's intra-node link (bytes/s), I = unidirectional inter-node
// bandwidth of one node (all its NICs together), P = ranks per node, Q = nodes, N = P * Q.
//
// Single node (Q == 1). Assumptions: every rank can send and receive at B at the same time; the ranks are joined by
// a network of full bisection bandwidth that only moves data (no in-network reduction); time not spent moving data
// (e.g. reducing) is negligible. Then all N ranks move data at B all the time, T_ideal = D / (B * N), and
//   ideal = B.
//
// Several nodes (Q > 1). Assumptions: the single-node ones inside each node; every node can send and receive at I at
// the same time over an inter-node network of full bisection bandwidth that only moves data; intra- and inter-node
// transfers do not slow each other down; the shorter of the two transfer times hides under the longer. So
//   T_ideal = max(D_inter / (I * Q), D_intra / (B * N)).
// Every collective makes each rank exchange data with the N - 1 others. Of those N - 1 transfers, those to ranks of
// other nodes need only reach one rank per node through the network (Q - 1 transfers); that rank forwards inside its
// node (N - Q transfers). With the fewest inter-node transfers, D_inter = D (Q-1)/(N-1) and D_intra = D (N-Q)/(N-1),
// and
//   ideal = D / (T_ideal * N) = min( I (N-1) Q / (N ),  B (N-1) / (N-Q) ).
// The second term tends to B(N-1)/(N-Q) as I grows without bound.
//
// Refused: Q < 1, P < 1, non-positive or non-finite B (and I when Q > 1), and N == Q > 1 (one rank per node on
// several nodes): then N - Q = 0 and the intra-node term has no data, so the formula has no finite intra-node bound.
#ifndef KCOLL_MODELS_BANDWIDTH_IDEAL_BANDWIDTH_H_
#define KCOLL_MODELS_BANDWIDTH_IDEAL_BANDWIDTH_H_

#include "absl/status/statusor.h"

namespace kcoll {
namespace models {

struct IdealBandwidthInputs {
  double intra_bw = 0;     // B: one rank's intra-node bandwidth, bytes/s
  double inter_bw = 0;     // I: one node's inter-node bandwidth, bytes/s (unused when nodes == 1)
  int ranks_per_node = 0;  // P
  int nodes = 0;           // Q
};

struct IdealBandwidth {
  double busbw = 0;            // the ideal busbw, bytes/s: min of the two terms below
  double inter_term = 0;       // I (N-1) Q / (N ); +infinity on a single node
  double intra_term = 0;       // B (N-1) / (N-Q); B on a single node; +infinity with one rank per node (N = Q)
  bool inter_limited = false;  // inter_term < intra_term
};

// The ideal busbw with both terms. InvalidArgument, naming the argument and its value, for the refused cases above.
absl::StatusOr<IdealBandwidth> ComputeIdealBandwidth(const IdealBandwidthInputs& inputs);

// ComputeIdealBandwidth(inputs)->busbw.
absl::StatusOr<double> IdealBusBw(const IdealBandwidthInputs& inputs);

// busbw / ideal_busbw. InvalidArgument unless busbw >= 0 and ideal_busbw > 0 (both finite).
absl::StatusOr<double> Efficiency(double busbw, double ideal_busbw);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_BANDWIDTH_IDEAL_BANDWIDTH_H_
