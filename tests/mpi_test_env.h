// Helpers for tests that run on every rank of MPI_COMM_WORLD.
#ifndef KCOLL_TESTS_MPI_TEST_ENV_H_
#define KCOLL_TESTS_MPI_TEST_ENV_H_

#include <mpi.h>

namespace kcoll {
namespace testing {

inline int WorldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int WorldSize() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// True on every rank iff `ok` is true on every rank: use before an ASSERT that must not leave some ranks waiting
// in a collective the others skipped.
inline bool AllRanks(bool ok) {
  int v = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return v == 1;
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_MPI_TEST_ENV_H_
