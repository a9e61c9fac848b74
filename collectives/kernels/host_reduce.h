// Reductions on the calling thread, with no kernel launch: for payloads so small that a launch costs more than the
// arithmetic (the inline AllReduce). The element arithmetic is the kernels' own (element_ops.h), so the bits agree
// with theirs.
#ifndef KCOLL_COLLECTIVES_KERNELS_HOST_REDUCE_H_
#define KCOLL_COLLECTIVES_KERNELS_HOST_REDUCE_H_

#include <cstddef>

#include "base/types.h"

namespace kcoll {

// out[i] = inputs[0][i] op inputs[1][i] op ... op inputs[n-1][i] for i < count, combined in input order (kAvg as a
// sum: the division is the caller's); 16-bit floats accumulate in float and round once, as Kernels::FoldInOrder.
// `out` may be one of the inputs. False for a type or op out of range.
bool HostReduceInOrder(ReduceOp op, DataType type, void* out, const unsigned char* const* inputs, int n, size_t count);

// HostReduceInOrder of one op and type, found once for a call that repeats them (the inline lane's repeated calls);
// null for a type or op out of range.
using HostFoldFn = void (*)(unsigned char* out, const unsigned char* const* inputs, int n, size_t count);
HostFoldFn HostFoldInOrderFor(ReduceOp op, DataType type);

// numerics=exact's sum (exact_sum.h) of each element: the window chosen by inputs 0..window_terms-1, the sum of
// inputs 0..sum_terms-1 (a scan's prefix). The bits of Kernels::ExactFold. False for a type that is not
// floating-point, or sum_terms outside 1..window_terms.
bool HostExactSum(DataType type, void* out, const unsigned char* const* inputs, int window_terms, int sum_terms,
                  size_t count);

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_HOST_REDUCE_H_
