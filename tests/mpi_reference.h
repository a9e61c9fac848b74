// The vendor MPI's answer for the same inputs, to check kcoll's results against: MPI datatypes and ops for kcoll's
// types and ops. 16-bit floats have no MPI type: their exact inputs are reduced as float and rounded back.
#ifndef KCOLL_TESTS_MPI_REFERENCE_H_
#define KCOLL_TESTS_MPI_REFERENCE_H_

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "base/types.h"
#include "collectives/transport/mpi/mpi_datatypes.h"
#include "tests/exact_values.h"

namespace kcoll {
namespace testing {

// MPI's type for kcoll's `type` as these references pass it: 16-bit floats as float copies (MPI cannot reduce them).
inline MPI_Datatype ReferenceTypeOf(DataType type) { return IsHalfPrecision(type) ? MPI_FLOAT : MpiDatatypeOf(type); }

// MPI has no average: kAvg is MPI_SUM, divided afterwards.
inline MPI_Op ReferenceOpOf(ReduceOp op) { return op == ReduceOp::kAvg ? MPI_SUM : *MpiOpOf(op); }

// MPI_Allreduce of this rank's exact inputs (ExactInput), returned encoded in `type`, so it can be compared byte
// for byte with kcoll's result.
inline std::vector<char> MpiAllReduceOfExactInputs(DataType type, ReduceOp op, size_t count, MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  const size_t elem = DataTypeSize(type);
  const size_t mpi_elem = IsHalfPrecision(type) ? sizeof(float) : elem;
  std::vector<char> in(count * mpi_elem), out(count * mpi_elem);
  for (size_t i = 0; i < count; ++i) {
    const double v = ExactInput(type, op, rank, i);
    if (IsHalfPrecision(type)) {
      reinterpret_cast<float*>(in.data())[i] = static_cast<float>(v);
    } else {
      EncodeAt(type, in.data(), i, v);
    }
  }
  MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), ReferenceTypeOf(type), ReferenceOpOf(op), comm);
  std::vector<char> result(count * elem);
  for (size_t i = 0; i < count; ++i) {
    double v = IsHalfPrecision(type) ? reinterpret_cast<float*>(out.data())[i] : DecodeAt(type, out.data(), i);
    if (op == ReduceOp::kAvg) v = IsInteger(type) ? static_cast<double>(static_cast<int64_t>(v) / nranks) : v / nranks;
    EncodeAt(type, result.data(), i, v);
  }
  return result;
}

// A kcoll-encoded buffer of `count` elements as MPI sees it (16-bit floats widened to float), and back.
inline std::vector<char> ToMpiBuffer(DataType type, const void* data, size_t count) {
  if (!IsHalfPrecision(type)) {
    const char* bytes = static_cast<const char*>(data);
    return std::vector<char>(bytes, bytes + count * DataTypeSize(type));
  }
  std::vector<char> out(count * sizeof(float));
  for (size_t i = 0; i < count; ++i)
    reinterpret_cast<float*>(out.data())[i] = static_cast<float>(DecodeAt(type, data, i));
  return out;
}

// `op` kAvg: the MPI_SUM result is divided by `nranks` here, as kcoll's average does (integers truncate).
inline std::vector<char> FromMpiBuffer(DataType type, const std::vector<char>& mpi, size_t count,
                                       ReduceOp op = ReduceOp::kSum, int nranks = 1) {
  std::vector<char> out(count * DataTypeSize(type));
  for (size_t i = 0; i < count; ++i) {
    double v = IsHalfPrecision(type) ? reinterpret_cast<const float*>(mpi.data())[i] : DecodeAt(type, mpi.data(), i);
    if (op == ReduceOp::kAvg) v = IsInteger(type) ? static_cast<double>(static_cast<int64_t>(v) / nranks) : v / nranks;
    EncodeAt(type, out.data(), i, v);
  }
  return out;
}

inline size_t MpiElementSize(DataType type) { return IsHalfPrecision(type) ? sizeof(float) : DataTypeSize(type); }

inline int CommRank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

inline int CommSize(MPI_Comm comm) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  return n;
}

// The vendor MPI collectives on kcoll-encoded inputs, results kcoll-encoded. Counts follow kcoll's (NCCL's)
// conventions; rooted results are empty on the other ranks.

// send: nranks * recvcount elements.
inline std::vector<char> MpiReduceScatterBlock(DataType type, ReduceOp op, const void* send, size_t recvcount,
                                               MPI_Comm comm) {
  const int n = CommSize(comm);
  const std::vector<char> in = ToMpiBuffer(type, send, recvcount * n);
  std::vector<char> out(recvcount * MpiElementSize(type));
  MPI_Reduce_scatter_block(in.data(), out.data(), static_cast<int>(recvcount), ReferenceTypeOf(type), ReferenceOpOf(op),
                           comm);
  return FromMpiBuffer(type, out, recvcount, op, n);
}

inline std::vector<char> MpiAllgather(DataType type, const void* send, size_t sendcount, MPI_Comm comm) {
  const int n = CommSize(comm);
  const std::vector<char> in = ToMpiBuffer(type, send, sendcount);
  std::vector<char> out(sendcount * n * MpiElementSize(type));
  MPI_Allgather(in.data(), static_cast<int>(sendcount), ReferenceTypeOf(type), out.data(), static_cast<int>(sendcount),
                ReferenceTypeOf(type), comm);
  return FromMpiBuffer(type, out, sendcount * n);
}

// `data` is read on the root only.
inline std::vector<char> MpiBcast(DataType type, const void* data, size_t count, int root, MPI_Comm comm) {
  std::vector<char> buffer(count * MpiElementSize(type));
  if (CommRank(comm) == root) buffer = ToMpiBuffer(type, data, count);
  MPI_Bcast(buffer.data(), static_cast<int>(count), ReferenceTypeOf(type), root, comm);
  return FromMpiBuffer(type, buffer, count);
}

inline std::vector<char> MpiReduce(DataType type, ReduceOp op, const void* send, size_t count, int root,
                                   MPI_Comm comm) {
  const bool at_root = CommRank(comm) == root;
  const std::vector<char> in = ToMpiBuffer(type, send, count);
  std::vector<char> out(at_root ? count * MpiElementSize(type) : 0);
  MPI_Reduce(in.data(), out.data(), static_cast<int>(count), ReferenceTypeOf(type), ReferenceOpOf(op), root, comm);
  return at_root ? FromMpiBuffer(type, out, count, op, CommSize(comm)) : std::vector<char>();
}

// send and result: nranks * count elements.
inline std::vector<char> MpiAlltoall(DataType type, const void* send, size_t count, MPI_Comm comm) {
  const int n = CommSize(comm);
  const std::vector<char> in = ToMpiBuffer(type, send, count * n);
  std::vector<char> out(count * n * MpiElementSize(type));
  MPI_Alltoall(in.data(), static_cast<int>(count), ReferenceTypeOf(type), out.data(), static_cast<int>(count),
               ReferenceTypeOf(type), comm);
  return FromMpiBuffer(type, out, count * n);
}

inline std::vector<char> MpiGather(DataType type, const void* send, size_t count, int root, MPI_Comm comm) {
  const int n = CommSize(comm);
  const bool at_root = CommRank(comm) == root;
  const std::vector<char> in = ToMpiBuffer(type, send, count);
  std::vector<char> out(at_root ? count * n * MpiElementSize(type) : 0);
  MPI_Gather(in.data(), static_cast<int>(count), ReferenceTypeOf(type), out.data(), static_cast<int>(count),
             ReferenceTypeOf(type), root, comm);
  return at_root ? FromMpiBuffer(type, out, count * n) : std::vector<char>();
}

// `send` (nranks * count elements) is read on the root only.
inline std::vector<char> MpiScatter(DataType type, const void* send, size_t count, int root, MPI_Comm comm) {
  const int n = CommSize(comm);
  std::vector<char> in;
  if (CommRank(comm) == root) in = ToMpiBuffer(type, send, count * n);
  std::vector<char> out(count * MpiElementSize(type));
  MPI_Scatter(in.data(), static_cast<int>(count), ReferenceTypeOf(type), out.data(), static_cast<int>(count),
              ReferenceTypeOf(type), root, comm);
  return FromMpiBuffer(type, out, count);
}

// nccl-tests' sendrecv: to rank + 1, from rank - 1.
inline std::vector<char> MpiSendrecvRing(DataType type, const void* send, size_t count, MPI_Comm comm) {
  const int n = CommSize(comm), r = CommRank(comm);
  const std::vector<char> in = ToMpiBuffer(type, send, count);
  std::vector<char> out(count * MpiElementSize(type));
  MPI_Sendrecv(in.data(), static_cast<int>(count), ReferenceTypeOf(type), (r + 1) % n, 0, out.data(),
               static_cast<int>(count), ReferenceTypeOf(type), (r - 1 + n) % n, 0, comm, MPI_STATUS_IGNORE);
  return FromMpiBuffer(type, out, count);
}

// MPI_Scan (or MPI_Exscan when `exclusive`): kAvg divides by the ranks reduced (rank + 1, or rank). MPI_Exscan
// leaves rank 0's result undefined: empty there.
inline std::vector<char> MpiScan(DataType type, ReduceOp op, const void* send, size_t count, bool exclusive,
                                 MPI_Comm comm) {
  const int r = CommRank(comm);
  const std::vector<char> in = ToMpiBuffer(type, send, count);
  std::vector<char> out(count * MpiElementSize(type));
  if (exclusive) {
    MPI_Exscan(in.data(), out.data(), static_cast<int>(count), ReferenceTypeOf(type), ReferenceOpOf(op), comm);
  } else {
    MPI_Scan(in.data(), out.data(), static_cast<int>(count), ReferenceTypeOf(type), ReferenceOpOf(op), comm);
  }
  if (exclusive && r == 0) return {};
  return FromMpiBuffer(type, out, count, op, exclusive ? r : r + 1);
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_MPI_REFERENCE_H_
