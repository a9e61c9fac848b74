// One AllReduce through a Communicator, checked bit for bit against the exact result (computed in double from
// exact_values.h inputs) and against MPI_Allreduce on the same inputs. Shared by the AllReduce test suites.
#ifndef KCOLL_TESTS_ALL_REDUCE_CHECK_H_
#define KCOLL_TESTS_ALL_REDUCE_CHECK_H_

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collectives/communicator.h"
#include "gtest/gtest.h"
#include "tests/exact_values.h"
#include "tests/mpi_reference.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {

// Collective over MPI_COMM_WORLD: every rank calls it with the same arguments, and it succeeds on every rank or
// fails on every rank (so an ASSERT on it never leaves ranks behind in a collective).
inline ::testing::AssertionResult AllReduceMatches(Communicator& comm, const CallOptions& options, DataType type,
                                                   ReduceOp op, size_t count, bool in_place) {
  const int rank = WorldRank(), nranks = WorldSize();
  const size_t elem = DataTypeSize(type);
  const std::string what =
      absl::StrCat(AlgorithmName(options.algorithm), " ", DataTypeName(type), " ", ReduceOpName(op), " count=", count,
                   in_place ? " in-place" : " out-of-place", " nchannels=", options.tuning.nchannels,
                   " chunk_bytes=", options.tuning.chunk_bytes, " on ", nranks, " ranks");
  std::vector<char> send(count * elem), recv(count * elem);
  for (size_t i = 0; i < count; ++i) {
    EncodeAt(type, send.data(), i, ExactInput(type, op, rank, i));
    EncodeAt(type, recv.data(), i, 99);  // garbage the algorithm must overwrite
  }
  if (in_place) recv = send;
  const void* src = in_place ? recv.data() : send.data();
  const absl::Status status = comm.AllReduce(src, recv.data(), count, type, op, options);
  if (!AllRanks(status.ok())) {
    return ::testing::AssertionFailure() << what << ": "
                                         << (status.ok() ? "failed on another rank" : status.ToString());
  }
  std::string error;
  std::vector<char> expected(elem);
  for (size_t i = 0; i < count && error.empty(); ++i) {
    EncodeAt(type, expected.data(), 0, ExactReduction(type, op, nranks, i));
    if (std::memcmp(expected.data(), recv.data() + i * elem, elem) != 0) {
      error = absl::StrCat("rank ", rank, ": element ", i, " is ", DecodeAt(type, recv.data(), i), ", expected ",
                           DecodeAt(type, expected.data(), 0));
    }
  }
  const std::vector<char> mpi = MpiAllReduceOfExactInputs(type, op, count, MPI_COMM_WORLD);
  if (error.empty() && mpi != recv) {
    error = absl::StrCat("rank ", rank, ": differs from MPI_Allreduce");
  }
  if (!AllRanks(error.empty())) {
    return ::testing::AssertionFailure() << what << ": " << (error.empty() ? "wrong on another rank" : error);
  }
  return ::testing::AssertionSuccess();
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_ALL_REDUCE_CHECK_H_
