// Measured collective times against the cost model's predictions: the benchmarks' "model" column.
//
// For each measured row (collective, algorithm, size S in nccl-tests' convention, seconds of one call) the cost
// model (cost_model.h) of that pair on the given machine predicts the time, and
//
//   error % = 100 * (predicted - measured) / measured
//
// is positive when the model is pessimistic (predicts a slower call than measured) and negative when it is
// optimistic. Per (collective, algorithm), the median of |error %| over its rows summarises how well the model
// describes that algorithm on this machine. A pair the models have no cost for (Applies() is false) gets no
// prediction: its rows say so and it has no summary.
//
// To compare with what a Communicator's `auto` assumes, pass ModelTopology(comm.topology()),
// comm.auto_choice().profile() and ModelCostOptions(comm.topology()) (choice/auto_choice.h).
#ifndef KCOLL_MODELS_ANALYSIS_MODEL_CHECK_H_
#define KCOLL_MODELS_ANALYSIS_MODEL_CHECK_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "base/names.h"
#include "models/algorithm_choice.h"
#include "models/cost_model.h"
#include "models/machine.h"

namespace kcoll {
namespace models {

struct Measurement {
  Collective collective = Collective::kAllReduce;
  Algorithm algorithm = Algorithm::kRing;  // the algorithm that ran (resolve kAuto first)
  double bytes = 0;                        // nccl-tests' S (bus_bandwidth.h CollectiveBytes)
  double seconds = 0;                      // measured time of one call
};

struct RowPrediction {
  Measurement measured;
  bool modeled = false;  // false: no cost model for this (collective, algorithm); the fields below are 0
  double predicted_seconds = 0;
  double error_percent = 0;
};

struct AlgorithmError {
  Collective collective = Collective::kAllReduce;
  Algorithm algorithm = Algorithm::kRing;
  int rows = 0;
  double median_abs_error_percent = 0;
};

struct ModelComparison {
  std::vector<RowPrediction> rows;            // in the order given
  std::vector<AlgorithmError> per_algorithm;  // modeled pairs, in order of first appearance
};

// The models of every (collective, algorithm) pair on one machine, built once; then one row at a time (for a
// benchmark printing as it measures).
class ModelCheck {
 public:
  // InvalidArgument for an invalid topology, profile or options.
  static absl::StatusOr<ModelCheck> Create(const Topology& topology, const Profile& profile,
                                           const CostOptions& options = {});

  // InvalidArgument for kAuto, or bytes / seconds that are not finite, bytes < 0 or seconds <= 0.
  absl::StatusOr<RowPrediction> Predict(const Measurement& row) const;

 private:
  explicit ModelCheck(AlgorithmChooser chooser) : chooser_(std::move(chooser)) {}
  AlgorithmChooser chooser_;
};

// Every row predicted, plus the median |error %| per (collective, algorithm). Errors name the row: "rows[3]: ...".
absl::StatusOr<ModelComparison> CompareWithModel(const std::vector<Measurement>& rows, const Topology& topology,
                                                 const Profile& profile, const CostOptions& options = {});

// The median |error %| per (collective, algorithm) of predicted rows (unmodeled rows are skipped).
std::vector<AlgorithmError> SummarizeErrors(const std::vector<RowPrediction>& rows);

// "12.3 us (+5.2%)" for a modeled row, "no model" otherwise: a table cell.
std::string FormatPrediction(const RowPrediction& row);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_ANALYSIS_MODEL_CHECK_H_
