// The reports of the predictor (//models:predict): predicted time, algbw, busbw, ideal busbw and efficiency of
// every algorithm of a collective, the chosen one and the crossovers, for one size or a sweep of sizes. Built as
// JSON, then printed as JSON or as text tables.
#ifndef KCOLL_MODELS_ANALYSIS_PREDICT_REPORT_H_
#define KCOLL_MODELS_ANALYSIS_PREDICT_REPORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "base/names.h"
#include "base/seconds_format.h"  // FormatSeconds, used by the reports
#include "models/analysis/crossover.h"
#include "models/cost_model.h"
#include "models/machine.h"
#include "nlohmann/json.hpp"

namespace kcoll {
namespace models {

struct PredictRequest {
  Collective collective = Collective::kAllReduce;
  Topology topology;
  Profile profile;
  CostOptions options;
  CrossoverSearch search;  // size range of the crossover search
};

// The ideal busbw uses B = max(1, intra_links_per_rank) * the intra-node link bandwidth and I = nics_per_node * the
// NIC bandwidth; when it is not defined (ideal_bandwidth.h) the report says why instead.
absl::StatusOr<nlohmann::json> SizeReport(const PredictRequest& request, double bytes);

// Sizes min_bytes, min_bytes * step_factor, ... while <= max_bytes, then max_bytes itself.
absl::StatusOr<nlohmann::json> SweepReport(const PredictRequest& request, double min_bytes, double max_bytes,
                                           double step_factor);

std::string FormatSizeReport(const nlohmann::json& report);
std::string FormatSweepReport(const nlohmann::json& report);

// "1.14 MB", "512 B" (decimal units: 1 MB = 1e6 B).
std::string FormatBytes(double bytes);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_ANALYSIS_PREDICT_REPORT_H_
