#include "models/analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace kcoll {
namespace models {

double Percentile(std::vector<double> values, double percentile) {
  if (values.empty()) return 0;
  const auto rank = static_cast<size_t>(std::ceil(percentile / 100.0 * static_cast<double>(values.size())));
  const size_t index = std::min(values.size() - 1, rank == 0 ? 0 : rank - 1);
  std::nth_element(values.begin(), values.begin() + index, values.end());
  return values[index];
}

double Median(std::vector<double> values) { return Percentile(std::move(values), 50); }

}  // namespace models
}  // namespace kcoll
