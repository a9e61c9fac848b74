// How fast the machine's links are now, against the profile the model prices them with.
//
// A model is only as current as its profile. Some machines change under a benchmark: on a virtual machine the host
// may move the virtual cores so that handing modified cache lines from one to the other costs several times as long
// for a while (a 256 KiB exchange between two ranks took 3-4x as long for minutes at a time on the 2-core machine
// the checked-in profiles come from). With --model the benchmark probes the links around every case with the
// calibration's own exchange at one size, and reports the ratio: near 1, the case ran on the machine the profile
// describes; far from it, the model's error measures the machine's change, not the model.
#ifndef KCOLL_BENCH_LINK_PROBE_H_
#define KCOLL_BENCH_LINK_PROBE_H_

#include <mpi.h>

#include <utility>
#include <vector>

#include "collectives/topology/topology.h"
#include "models/machine.h"

namespace kcoll {
namespace bench {

class LinkProbe {
 public:
  static constexpr size_t kBytes = 256 * 1024;
  static constexpr int kReps = 5;

  // The pairs and the link are the calibration's (ExchangePairs): the intra-node class when the topology has one,
  // else the inter-node class.
  LinkProbe(MPI_Comm comm, const Topology& topology, const models::Profile& profile);

  // Collective over `comm`: every pair exchanges kBytes both ways kReps times (after one untimed exchange), each one
  // sending what it last received; the slowest rank's median exchange time over the profile's time for the same
  // exchange. 0 when there is no pair (one rank).
  double Ratio();

 private:
  MPI_Comm comm_;
  int peer_ = -1;
  double profile_seconds_ = 0;
  std::vector<char> a_, b_;
};

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_LINK_PROBE_H_
