// Inputs and expected results for checking a collective exactly (the -c option), computed by every rank for every
// rank without communication.
//
// Inputs are small integers, so every reduction of them is exact in every data type, for up to 127 ranks, and the
// expected result does not depend on the order of the reduction:
//   sum, avg   signed types: -1, 0, 1; unsigned: 0, 1 (varying with the element and the rank)
//   prod       1, except one rank in each group of 8 contributes 2 and (signed types) another -1
//   min, max   signed: -3..3; unsigned: 0..7
//   no op      values in -50..50 (0..100 unsigned) that differ between ranks and between neighbouring elements,
//              so misplaced blocks show up
// Averages divide the exact sum once (integer types truncate toward zero), as NCCL's avg does.
//
// Element i of rank r's send buffer is Input(r, i), i counting over the whole send buffer (for alltoall, scatter and
// reduce_scatter it spans every block). Results are compared bit for bit.
#ifndef KCOLL_BENCH_DATA_EXACT_DATA_H_
#define KCOLL_BENCH_DATA_EXACT_DATA_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "base/names.h"
#include "base/types.h"
#include "bench/data/layout.h"

namespace kcoll {
namespace bench {

// What the check needs to know about a call. `op` is empty for collectives that do not reduce.
struct CheckSpec {
  Collective collective = Collective::kAllReduce;
  DataType type = DataType::kFloat32;
  std::optional<ReduceOp> op;
  int root = 0;
  int rank = 0;
  int nranks = 1;
  Layout layout;
};

// Inputs repeat along the element index with these periods (168 = lcm(2, 3, 7, 8)).
inline constexpr size_t kReductionPeriod = 168;
inline constexpr size_t kMovementPeriod = 101;

// Rank `rank`'s input element i, as a double (exactly representable in the type).
double InputValue(const CheckSpec& spec, int rank, size_t i);

// Fills `count` elements of this rank's send data (spec.rank), starting at element `first`.
void FillInput(const CheckSpec& spec, void* buffer, size_t first, size_t count);

// Fills `bytes` bytes with a pattern that is no expected value (so unwritten results count as wrong).
void FillPoison(void* buffer, size_t bytes);

// Whether this rank holds a result (reduce and gather: only the root).
bool HasResult(const CheckSpec& spec);

// Elements of this rank's result that differ from the expected result; 0 when HasResult is false.
int64_t CountWrong(const CheckSpec& spec, const void* result);

// The first element of this rank's result that differs from the expected result: its index, the expected value and
// the value found (decoded as doubles). Empty when every element matches or HasResult is false.
struct WrongElement {
  size_t index = 0;
  double expected = 0;
  double got = 0;
};
std::optional<WrongElement> FirstWrong(const CheckSpec& spec, const void* result);

}  // namespace bench
}  // namespace kcoll

#endif  // KCOLL_BENCH_DATA_EXACT_DATA_H_
