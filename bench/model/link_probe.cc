#include "bench/model/link_probe.h"

#include "base/status_macros.h"
#include "calibration/calibrate.h"
#include "collectives/kernels/backend.h"
#include "collectives/transport/mpi/mpi_transport.h"

// GCC 12 at -O2 reports the absl::StatusOr members of the step series, destroyed at the end of Seconds(), as "may be
// used uninitialized" inside std::vector's destructor: a false positive (every member is constructed), silenced here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace kcoll {
namespace bench {

using calibration::CalibrationOptions;
using calibration::ExchangePairs;
using calibration::LinkClass;
using calibration::MeasureStep;
using calibration::StepSeries;

absl::StatusOr<LinkProbe> LinkProbe::Create(MPI_Comm comm, const Topology& topology) {
  LinkClass link_class = LinkClass::kIntra;
  std::vector<std::pair<int, int>> pairs = ExchangePairs(topology, link_class);
  if (pairs.empty()) {
    link_class = LinkClass::kInter;
    pairs = ExchangePairs(topology, link_class);
  }
  KCOLL_ASSIGN_OR_RETURN(std::unique_ptr<MpiTransport> transport, MpiTransport::Create(comm));
  // The calibration's steps reduce with Serial kernels.
  KCOLL_ASSIGN_OR_RETURN(std::unique_ptr<Kernels> kernels, MakeKernels(ExecBackend::kSerial, /*synchronous=*/true));
  return LinkProbe(comm, std::move(transport), std::move(kernels), std::move(pairs), link_class);
}

double LinkProbe::ProfileSeconds(const models::Profile& profile) const {
  if (pairs_.empty()) return 0;
  return (link_class_ == LinkClass::kIntra ? profile.intra : profile.inter).Seconds(kBytes);
}

absl::StatusOr<double> LinkProbe::Seconds() {
  if (pairs_.empty()) return 0.0;
  CalibrationOptions options;
  options.min_reps = options.max_reps = kReps;
  options.seconds_per_size = 0;
  KCOLL_ASSIGN_OR_RETURN(StepSeries series,
                         MeasureStep(*transport_, *kernels_, comm_, pairs_, {double{kBytes}}, options));
  return series.exchange.samples.empty() ? 0.0 : series.exchange.samples[0].seconds;
}

}  // namespace bench
}  // namespace kcoll
