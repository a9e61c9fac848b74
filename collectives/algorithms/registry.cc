#include "collectives/algorithms/registry.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/listed_function.h"

namespace kcoll {

// Every schedule of base/algorithm_list.h, declared here from the list: each is defined in its algorithm's file.
#define KCOLL_DECLARE_SCHEDULE(collective, algorithm, schedule, price) \
  absl::Status schedule(const CollectiveArgs& args, Resources& resources);
KCOLL_SCHEDULES(KCOLL_DECLARE_SCHEDULE)
#undef KCOLL_DECLARE_SCHEDULE

constexpr ListedFunction<AlgorithmFn> kSchedules[] = {KCOLL_SCHEDULES(KCOLL_SCHEDULE_ROW)};

absl::StatusOr<AlgorithmFn> FindAlgorithm(Collective collective, Algorithm algorithm) {
  if (AlgorithmFn fn = FindListedFunction(kSchedules, collective, algorithm)) return fn;
  std::string valid;
  for (Algorithm a : AlgorithmsFor(collective)) absl::StrAppend(&valid, valid.empty() ? "" : ", ", AlgorithmName(a));
  return absl::InvalidArgumentError(absl::StrCat("algorithm '", AlgorithmName(algorithm), "' does not apply to ",
                                                 CollectiveName(collective), " (available: ", valid, ")"));
}

}  // namespace kcoll
