// The order statistics every kcoll report uses, with one convention: nearest rank. The p-th percentile of n values
// is the smallest value with at least p% of them at or below it (the ceil(p/100 * n)-th smallest); the median is the
// 50th percentile, the lower of the middle two for an even count. Every reported value is then a value that was
// measured (or predicted), and a measured median and a predicted one compare like for like.
#ifndef KCOLL_MODELS_ANALYSIS_STATISTICS_H_
#define KCOLL_MODELS_ANALYSIS_STATISTICS_H_

#include <vector>

namespace kcoll {
namespace models {

// The nearest-rank `percentile` (0 < percentile <= 100; 0 gives the smallest) of `values`; 0 for none.
double Percentile(std::vector<double> values, double percentile);

// Percentile(values, 50).
double Median(std::vector<double> values);

}  // namespace models
}  // namespace kcoll

#endif  // KCOLL_MODELS_ANALYSIS_STATISTICS_H_
