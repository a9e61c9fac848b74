// Inputs and expected outputs of every collective, computed on the host from exact values, for tests that run a
// collective on some backend and compare the result bit for bit. Counts follow NCCL's conventions (see
// CollectiveArgs): `count` is the per-rank receive count of ReduceScatter, the per-rank send count of AllGather and
// the per-peer count of AllToAll, Gather and Scatter.
//
// Reductions use ExactInput/ExactReduction (exact in every type). Collectives that move data use values that differ
// between most (rank, element) pairs, so a block delivered to the wrong place shows.
#ifndef KCOLL_TESTS_COLLECTIVE_REFERENCE_H_
#define KCOLL_TESTS_COLLECTIVE_REFERENCE_H_

#include <cstddef>
#include <vector>

#include "base/names.h"
#include "base/types.h"
#include "tests/exact_values.h"

namespace kcoll {
namespace testing {

inline bool IsReduction(Collective c) { return Reduces(c); }

// Element j of rank r's send buffer for a collective that moves data: integers in [0, 100], exact in every type.
inline double MovedValue(int rank, size_t j) {
  return static_cast<double>((static_cast<size_t>(rank) * 37 + j * 11) % 101);
}

// The v-collectives as Communicator::Call runs them: equal blocks, their non-v forms' layout.
inline Collective EqualCountForm(Collective c) {
  switch (c) {
    case Collective::kAllGatherV:
      return Collective::kAllGather;
    case Collective::kAllToAllV:
      return Collective::kAllToAll;
    case Collective::kReduceScatterV:
      return Collective::kReduceScatter;
    case Collective::kGatherV:
      return Collective::kGather;
    case Collective::kScatterV:
      return Collective::kScatter;
    default:
      return c;
  }
}

inline size_t SendElements(Collective c, size_t count, int root, int rank, int nranks) {
  const size_t n = static_cast<size_t>(nranks);
  switch (EqualCountForm(c)) {
    case Collective::kReduceScatter:
    case Collective::kAllToAll:
      return count * n;
    case Collective::kScatter:
      return rank == root ? count * n : 0;
    case Collective::kBroadcast:
      return rank == root ? count : 0;
    case Collective::kBarrier:
      return 0;
    default:
      return count;
  }
}

inline size_t RecvElements(Collective c, size_t count, int root, int rank, int nranks) {
  const size_t n = static_cast<size_t>(nranks);
  switch (EqualCountForm(c)) {
    case Collective::kAllGather:
    case Collective::kAllToAll:
      return count * n;
    case Collective::kGather:
      return rank == root ? count * n : 0;
    case Collective::kReduce:
      return rank == root ? count : 0;
    case Collective::kExScan:
      return rank == 0 ? 0 : count;  // rank 0's recv is not written
    case Collective::kBarrier:
      return 0;
    default:
      return count;
  }
}

// The value of element j of rank r's send buffer.
inline double SendValue(Collective c, DataType type, ReduceOp op, int rank, size_t j) {
  return IsReduction(c) ? ExactInput(type, op, rank, j) : MovedValue(rank, j);
}

inline std::vector<char> SendBuffer(Collective c, DataType type, ReduceOp op, size_t count, int root, int rank,
                                    int nranks) {
  const size_t n = SendElements(c, count, root, rank, nranks);
  std::vector<char> out(n * DataTypeSize(type));
  for (size_t j = 0; j < n; ++j) EncodeAt(type, out.data(), j, SendValue(c, type, op, rank, j));
  return out;
}

// What rank `rank` must hold in its receive buffer afterwards.
inline std::vector<char> ExpectedRecv(Collective c, DataType type, ReduceOp op, size_t count, int root, int rank,
                                      int nranks) {
  const size_t n = RecvElements(c, count, root, rank, nranks);
  std::vector<char> out(n * DataTypeSize(type));
  const size_t me = static_cast<size_t>(rank);
  for (size_t j = 0; j < n; ++j) {
    const size_t block = count == 0 ? 0 : j / count, i = count == 0 ? 0 : j % count;
    double v = 0;
    switch (EqualCountForm(c)) {
      case Collective::kAllReduce:
      case Collective::kReduce:
        v = ExactReduction(type, op, nranks, j);
        break;
      case Collective::kReduceScatter:
        v = ExactReduction(type, op, nranks, me * count + j);
        break;
      case Collective::kAllGather:
      case Collective::kGather:
        v = MovedValue(static_cast<int>(block), i);
        break;
      case Collective::kBroadcast:
        v = MovedValue(root, j);
        break;
      case Collective::kAllToAll:
        v = MovedValue(static_cast<int>(block), me * count + i);
        break;
      case Collective::kScatter:
        v = MovedValue(root, me * count + j);
        break;
      case Collective::kSendRecv:
        v = MovedValue((rank + nranks - 1) % nranks, j);
        break;
      case Collective::kScan:
        v = ExactReduction(type, op, rank + 1, j);
        break;
      case Collective::kExScan:
        v = ExactReduction(type, op, rank, j);
        break;
      case Collective::kBarrier:
      case Collective::kAllGatherV:  // as their equal-count forms, above
      case Collective::kAllToAllV:
      case Collective::kReduceScatterV:
      case Collective::kGatherV:
      case Collective::kScatterV:
        break;
    }
    EncodeAt(type, out.data(), j, v);
  }
  return out;
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_COLLECTIVE_REFERENCE_H_
