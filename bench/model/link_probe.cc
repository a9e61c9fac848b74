#include "bench/model/link_probe.h"

#include "base/status_macros.h"
#include "bench/calibration/calibrate_in_run.h"
#include "calibration/calibrate.h"

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

absl::StatusOr<LinkProbe> LinkProbe::Create(MPI_Comm comm, const Topology& topology, TransportKind transport) {
  LinkClass link_class = LinkClass::kIntra;
  std::vector<std::pair<int, int>> pairs = ExchangePairs(topology, link_class);
  if (pairs.empty()) {
    link_class = LinkClass::kInter;
    pairs = ExchangePairs(topology, link_class);
  }
  // Built as the calibration builds its own, with Serial kernels as its steps reduce: a probe through MPI alone
  // would time Open MPI's shared memory against a curve measured through kcoll's. A transport that cannot move host
  // buffers with Serial kernels (a GPU's) fails alike on every rank: the probe then goes through MPI.
  absl::StatusOr<Execution> execution = MeasuredExecution(comm, topology, ExecBackend::kSerial, transport);
  if (!execution.ok() && transport != TransportKind::kMpi) {
    execution = MeasuredExecution(comm, topology, ExecBackend::kSerial, TransportKind::kMpi);
  }
  KCOLL_RETURN_IF_ERROR(execution.status());
  return LinkProbe(comm, std::move(execution->transport), std::move(execution->kernels), std::move(pairs), link_class);
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
