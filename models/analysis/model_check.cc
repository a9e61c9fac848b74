#include "models/analysis/model_check.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/seconds_format.h"
#include "models/analysis/statistics.h"

namespace kcoll {
namespace models {

absl::StatusOr<ModelCheck> ModelCheck::Create(const Topology& topology, const Profile& profile,
                                              const CostOptions& options) {
  absl::StatusOr<AlgorithmChooser> chooser = AlgorithmChooser::Create(topology, profile, options);
  if (!chooser.ok()) return chooser.status();
  return ModelCheck(*std::move(chooser));
}

absl::StatusOr<RowPrediction> ModelCheck::Predict(const Measurement& row) const {
  if (row.algorithm == Algorithm::kAuto) {
    return absl::InvalidArgumentError("algorithm=auto: give the algorithm that ran (resolve auto first)");
  }
  if (!std::isfinite(row.bytes) || row.bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat("bytes=", row.bytes, " must be finite and >= 0"));
  }
  if (!std::isfinite(row.seconds) || row.seconds <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("seconds=", row.seconds, " must be finite and > 0"));
  }
  RowPrediction out;
  out.measured = row;
  const CostModel* model = chooser_.Model(row.collective, row.algorithm);
  if (model == nullptr) return out;
  out.modeled = true;
  out.predicted_seconds = model->Seconds(row.bytes);
  out.error_percent = 100.0 * (out.predicted_seconds - row.seconds) / row.seconds;
  return out;
}

std::vector<AlgorithmError> SummarizeErrors(const std::vector<RowPrediction>& rows) {
  std::vector<AlgorithmError> out;
  std::vector<std::vector<double>> errors;
  for (const RowPrediction& row : rows) {
    if (!row.modeled) continue;
    size_t i = 0;
    while (i < out.size() &&
           !(out[i].collective == row.measured.collective && out[i].algorithm == row.measured.algorithm)) {
      ++i;
    }
    if (i == out.size()) {
      out.push_back({row.measured.collective, row.measured.algorithm, 0, 0});
      errors.emplace_back();
    }
    ++out[i].rows;
    errors[i].push_back(std::abs(row.error_percent));
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].median_abs_error_percent = Median(errors[i]);
  return out;
}

absl::StatusOr<ModelComparison> CompareWithModel(const std::vector<Measurement>& rows, const Topology& topology,
                                                 const Profile& profile, const CostOptions& options) {
  absl::StatusOr<ModelCheck> check = ModelCheck::Create(topology, profile, options);
  if (!check.ok()) return check.status();
  ModelComparison out;
  for (size_t i = 0; i < rows.size(); ++i) {
    absl::StatusOr<RowPrediction> row = check->Predict(rows[i]);
    if (!row.ok()) return absl::InvalidArgumentError(absl::StrCat("rows[", i, "]: ", row.status().message()));
    out.rows.push_back(*row);
  }
  out.per_algorithm = SummarizeErrors(out.rows);
  return out;
}

std::string FormatPrediction(const RowPrediction& row) {
  if (!row.modeled) return "no model";
  return absl::StrFormat("%s (%+.1f%%)", FormatSeconds(row.predicted_seconds), row.error_percent);
}

}  // namespace models
}  // namespace kcoll
