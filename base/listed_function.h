// A table of one function per row of KCOLL_SCHEDULES (base/algorithm_list.h), looked up by collective and algorithm:
// the library's registry holds the schedules, the model's price table the prices.
#ifndef KCOLL_BASE_LISTED_FUNCTION_H_
#define KCOLL_BASE_LISTED_FUNCTION_H_

#include <cstddef>

#include "base/names.h"

namespace kcoll {

template <typename Fn>
struct ListedFunction {
  Collective collective;
  Algorithm algorithm;
  Fn fn;
};

// The function of `collective`'s `algorithm` in `table`, or nullptr where the table has no such row.
template <typename Fn, size_t N>
Fn FindListedFunction(const ListedFunction<Fn> (&table)[N], Collective collective, Algorithm algorithm) {
  for (const ListedFunction<Fn>& row : table) {
    if (row.collective == collective && row.algorithm == algorithm) return row.fn;
  }
  return nullptr;
}

}  // namespace kcoll

// The row of a KCOLL_SCHEDULES line in a table of its schedules, or of its prices (inside namespace kcoll):
//   constexpr ListedFunction<AlgorithmFn> kSchedules[] = {KCOLL_SCHEDULES(KCOLL_SCHEDULE_ROW)};
#define KCOLL_SCHEDULE_ROW(collective, algorithm, schedule, price) \
  {Collective::k##collective, Algorithm::k##algorithm, &schedule},
#define KCOLL_PRICE_ROW(collective, algorithm, schedule, price) \
  {Collective::k##collective, Algorithm::k##algorithm, &price},

#endif  // KCOLL_BASE_LISTED_FUNCTION_H_
