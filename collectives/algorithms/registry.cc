#include "collectives/algorithms/registry.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collectives/algorithms/ring.h"

namespace kcoll {
namespace {

struct Entry {
  Collective collective;
  Algorithm algorithm;
  AlgorithmFn fn;
};

const std::vector<Entry>& Table() {
  static const auto* table = new std::vector<Entry>{
      {Collective::kAllReduce, Algorithm::kRing, &RingAllReduce},
  };
  return *table;
}

}  // namespace

std::vector<Algorithm> AlgorithmsFor(Collective collective) {
  std::vector<Algorithm> out;
  for (const Entry& e : Table()) {
    if (e.collective == collective) out.push_back(e.algorithm);
  }
  return out;
}

absl::StatusOr<AlgorithmFn> FindAlgorithm(Collective collective, Algorithm algorithm) {
  for (const Entry& e : Table()) {
    if (e.collective == collective && e.algorithm == algorithm) return e.fn;
  }
  std::string valid;
  for (Algorithm a : AlgorithmsFor(collective)) absl::StrAppend(&valid, valid.empty() ? "" : ", ", AlgorithmName(a));
  return absl::InvalidArgumentError(absl::StrCat("algorithm '", AlgorithmName(algorithm), "' does not apply to ",
                                                 CollectiveName(collective), " (available: ", valid, ")"));
}

}  // namespace kcoll
