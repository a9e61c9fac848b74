// Whether a multi-rank test can run on GPUs: every rank sees a CUDA device and no two ranks of a node need the same
// one. The same answer on every rank, so all ranks skip together; otherwise `reason` says why (for GTEST_SKIP),
// e.g. "no CUDA device: cudaGetDeviceCount failed: ... (rank 0)".
#ifndef KCOLL_TESTS_GPU_TEST_ENV_H_
#define KCOLL_TESTS_GPU_TEST_ENV_H_

#include <cuda_runtime.h>
#include <mpi.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "collectives/transport/cuda/cuda_errors.h"
#include "collectives/transport/cuda/gpu_placement.h"
#include "tests/mpi_test_env.h"

namespace kcoll {
namespace testing {

// The PCI bus id of `device` ("" if the runtime cannot tell), padded to a fixed width for an allgather.
inline std::string PciBusId(int device) {
  char id[32] = {0};
  if (cudaDeviceGetPCIBusId(id, sizeof(id), device) != cudaSuccess) return std::string(sizeof(id), '\0');
  return std::string(id, sizeof(id));
}

// Who may drive one GPU from several ranks of a node: the MPI transports always (device memory travels through
// MPI), NCCL only where NCCL_MULTI_RANK_GPU_ENABLE=1 asks it to.
enum class SharedGpu { kAllowed, kOnlyIfNcclAllows };

// On success, *device is this rank's device (one per local rank where the node has enough). Ranks of a node that
// would share one GPU (a node with fewer GPUs than ranks, where each rank is handed device 0) make every rank skip,
// naming the shared device, unless `shared_gpu` allows it.
inline bool GpusForEveryRank(std::string* reason, int* device, SharedGpu shared_gpu) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, WorldRank(), MPI_INFO_NULL, &node);
  int local_rank = 0, local_size = 1;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);
  absl::StatusOr<int> chosen = CudaDeviceCount();
  if (chosen.ok()) chosen = ChooseCudaDevice(local_rank, local_size, *chosen, {});
  const std::string mine = chosen.ok() ? PciBusId(*chosen) : std::string(32, '\0');
  std::vector<char> all(32 * local_size);
  MPI_Allgather(mine.data(), 32, MPI_CHAR, all.data(), 32, MPI_CHAR, node);
  MPI_Comm_free(&node);
  std::vector<std::string> ids;
  for (int r = 0; r < local_size; ++r) ids.emplace_back(all.data() + 32 * r);  // up to the first NUL
  const bool may_share = shared_gpu == SharedGpu::kAllowed || NcclMayShareGpus();
  std::optional<std::pair<int, int>> shared;
  if (!may_share) shared = FindSharedDevice(ids);
  const bool everywhere = AllRanks(chosen.ok() && !shared.has_value());
  if (everywhere) {
    *device = *chosen;
    return true;
  }
  if (AllRanks(chosen.ok())) {
    *reason = shared.has_value() ? absl::StrCat("local ranks ", shared->first, " and ", shared->second,
                                                " would share GPU ", ids[shared->first],
                                                ": NCCL needs a GPU per rank (NCCL_MULTI_RANK_GPU_ENABLE=1 to try)")
                                 : std::string("another node's ranks would share a GPU: NCCL needs a GPU per rank");
    return false;
  }
  *reason = chosen.ok() ? std::string("no CUDA device for another rank")
                        : absl::StrCat(chosen.status().message(), " (rank ", WorldRank(), ")");
  return false;
}

// NCCL's answer where ranks share a GPU and NCCL_MULTI_RANK_GPU_ENABLE=1 asked it to try: an NCCL that does not
// support several ranks on one GPU refuses at creation ("Duplicate GPU detected"), which the tests take as a skip.
inline bool NcclRefusedASharedGpu(const absl::Status& status) {
  return !status.ok() && NcclMayShareGpus() && absl::StrContains(status.message(), "Duplicate GPU");
}

}  // namespace testing
}  // namespace kcoll

#endif  // KCOLL_TESTS_GPU_TEST_ENV_H_
