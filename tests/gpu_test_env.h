// Whether a multi-rank test can run on GPUs: every rank sees a CUDA device and no two ranks of a node need the same
// one. The same answer on every rank, so all ranks skip together; otherwise `reason` says why (for GTEST_SKIP),
// e.g. "no CUDA device: cudaGetDeviceCount failed: ... (rank 0)".
#ifndef KCOLL_TESTS_GPU_TEST_ENV_H_
#define KCOLL_TESTS_GPU_TEST_ENV_H_

#include <mpi.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "collectives/transport/cuda_errors.h"
#include "collectives/transport/gpu_placement.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {

// On success, *device is this rank's device (one per local rank).
inline bool GpusForEveryRank(std::string* reason, int* device) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, WorldRank(), MPI_INFO_NULL, &node);
  int local_rank = 0, local_size = 1;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);
  MPI_Comm_free(&node);
  absl::StatusOr<int> chosen = CudaDeviceCount();
  if (chosen.ok()) chosen = ChooseCudaDevice(local_rank, local_size, *chosen, {});
  const bool everywhere = AllRanks(chosen.ok());
  if (everywhere) {
    *device = *chosen;
    return true;
  }
  *reason = chosen.ok() ? std::string("no CUDA device for another rank")
                        : absl::StrCat(chosen.status().message(), " (rank ", WorldRank(), ")");
  return false;
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_GPU_TEST_ENV_H_
