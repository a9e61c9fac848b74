// From measurements to a Profile (models/machine.h): the fits of every series and the profile they make.
#ifndef KCOLL_CALIBRATION_PROFILE_H_
#define KCOLL_CALIBRATION_PROFILE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "calibration/calibrate.h"
#include "calibration/fit.h"
#include "models/machine.h"

namespace kcoll {
namespace calibration {

// Fits every measured series (in place) with `weighting` (the fits the profile takes) and with the other weighting
// (for the report). InvalidArgument from FitLink names the series.
absl::Status FitAll(CalibrationResult& result, FitWeighting weighting = FitWeighting::kRelative);

// The profile of a fitted result. A link class the topology lacks takes the other class's parameters (one node:
// inter = intra; one rank per node: intra = inter), and the description says so. gamma = the reduction's beta;
// memcpy_bytes_per_s = 1 / the memcpy beta.
absl::StatusOr<models::Profile> MakeProfile(const CalibrationResult& result);

// The fit weighting a result is not saved with: the report shows it for reference.
FitWeighting OtherWeighting(FitWeighting weighting);

// The class whose collective steps price intra-node messages, and whose step reduction is the gamma curve: the
// intra-node class when it ran steps, else the inter-node one.
const LinkMeasurement& IntraStepSource(const CalibrationResult& result);

// The messages a point of the profile's inter-node curve stands for: the inter-node step's streams_per_node across
// real nodes, where the model loads a node's link with the sum of its streams; 1 where each rank copies its own
// messages (one node, emulated nodes) or no inter-node step ran.
int InterCurveMessagesPerPoint(const CalibrationResult& result);

// "0-1, 2-3": pairs as the profile's description and the report name them.
std::string PairsText(const std::vector<std::pair<int, int>>& pairs);

// "median", or "10th-percentile": which repetition stood for a size.
std::string StatName(double percentile);

}  // namespace calibration
}  // namespace kcoll

#endif  // KCOLL_CALIBRATION_PROFILE_H_
