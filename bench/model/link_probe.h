// How fast the machine's links are now, against the profile the model prices them with.
//
// A model is only as current as its profile. Some machines change under a benchmark: on a virtual machine the host
// may move the virtual cores so that handing modified cache lines from one to the other costs several times as long
// for minutes at a time (models/README.md). With --model the benchmark probes the links around every case with the
// calibration's own collective step (calibration/calibrate.h: MeasureStep) at one size, and reports the ratio of its
// exchange to the profile's curve: near 1, the
// case ran on the machine the profile describes; far from it, the model's error measures the machine's change, not
// the model.
#ifndef KCOLL_BENCH_MODEL_LINK_PROBE_H_
#define KCOLL_BENCH_MODEL_LINK_PROBE_H_

#include <mpi.h>

#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "base/topology.h"
#include "base/transport_kind.h"
#include "calibration/calibrate.h"
#include "collectives/kernels/kernels.h"
#include "collectives/transport/transport.h"
#include "models/machine.h"

namespace kcoll {
namespace bench {

class LinkProbe {
 public:
  static constexpr size_t kBytes = 256 * 1024;
  static constexpr int kReps = 5;

  // The pairs and the link are the calibration's (ExchangePairs): the intra-node class when the topology has one,
  // else the inter-node class; the transport is `transport` (the communicator's, which the calibration measured
  // through). Collective over `comm` (it duplicates it for its own transport).
  static absl::StatusOr<LinkProbe> Create(MPI_Comm comm, const Topology& topology, TransportKind transport);

  // Collective over `comm`: the exchange of the calibration's step on kBytes, kReps repetitions, now. Rank 0 gets its
  // time, the other ranks 0; 0 too when there is no pair (one rank). Over ProfileSeconds: the probe's ratio.
  absl::StatusOr<double> Seconds();
  // `profile`'s time for the same exchange (0 without a pair): what Seconds() measures on the machine it describes.
  double ProfileSeconds(const models::Profile& profile) const;

 private:
  LinkProbe(MPI_Comm comm, std::unique_ptr<Transport> transport, std::unique_ptr<Kernels> kernels,
            std::vector<std::pair<int, int>> pairs, calibration::LinkClass link_class)
      : comm_(comm),
        transport_(std::move(transport)),
        kernels_(std::move(kernels)),
        pairs_(std::move(pairs)),
        link_class_(link_class) {}

  MPI_Comm comm_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Kernels> kernels_;
  std::vector<std::pair<int, int>> pairs_;
  calibration::LinkClass link_class_;
};

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_MODEL_LINK_PROBE_H_
