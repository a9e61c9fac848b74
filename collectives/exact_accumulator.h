// Sums of many terms per element that give the same bits however the terms are spread over ranks: the accumulator
// numerics=exact promises for applications that add up local terms first (a domain's cells, a particle's forces) and
// reduce once. Each rank adds its terms, in any number of Add calls and in any order; AllReduce then gives every rank
// the bits that an exact AllReduce of every term on its own rank would give (collectives/kernels/exact_sum.h): the
// same for 1 rank holding every term as for 16 ranks holding a few each, so a re-decomposed domain sums to the same
// bits. Terms are held as fixed-point bins per element (K int64s, K = 5 for float64, 3 for the others), in host
// memory; at most kExactMaxTerms (2^30) terms per element over every rank.
//
//   kcoll::ExactAccumulator energy(kcoll::DataType::kFloat64, 1);
//   for (const Cell& c : my_cells) energy.Add(&c.energy);  // one term per element per call
//   double total;
//   KCOLL_RETURN_IF_ERROR(energy.AllReduce(*comm, &total));
#ifndef KCOLL_COLLECTIVES_EXACT_ACCUMULATOR_H_
#define KCOLL_COLLECTIVES_EXACT_ACCUMULATOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/types.h"
#include "collectives/communicator.h"

namespace kcoll {

class ExactAccumulator {
 public:
  // `type`: kFloat64, kFloat32, kFloat16 or kBfloat16. InvalidArgument names any other.
  static absl::StatusOr<ExactAccumulator> Create(DataType type, size_t count);

  DataType type() const { return type_; }
  size_t count() const { return count_; }
  // Terms added to each element so far on this rank.
  int64_t terms() const { return terms_; }

  // Adds terms[i] to element i for i < count(): `count()` elements of type() in host memory.
  absl::Status Add(const void* terms);
  // result[i] = the exact sum of element i's terms over every rank of `comm` (count() elements of type() in host
  // memory, on every rank). Collective: every rank calls it with an accumulator of the same type and count. The
  // accumulator keeps its terms. No terms on any rank: +0.
  absl::Status AllReduce(Communicator& comm, void* result) const;
  // Forgets every term.
  void Clear();

 private:
  ExactAccumulator(DataType type, size_t count, int limbs);
  DataType type_;
  size_t count_;
  int limbs_;                   // bins per element
  std::vector<uint8_t> codes_;  // per element: the largest code of its terms so far (exact_sum.h)
  std::vector<int64_t> sums_;   // per element: limbs_ bin sums in the window codes_ names
  int64_t terms_ = 0;
};

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_EXACT_ACCUMULATOR_H_
