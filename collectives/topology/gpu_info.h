// The GPU fields of a rank's RankInfo. The CUDA backend and the NCCL transport own the device; they call this (or
// fill RankInfo::gpu themselves) once the device is selected. CPU-only communicators never touch CUDA.
#ifndef KCOLL_COLLECTIVES_TOPOLOGY_GPU_INFO_H_
#define KCOLL_COLLECTIVES_TOPOLOGY_GPU_INFO_H_

#include <optional>

#include "absl/status/statusor.h"
#include "base/rank_info.h"

namespace kcoll {

// Whether kcoll was compiled with the CUDA runtime.
bool CompiledWithCuda();

// The current CUDA device of the calling thread: ordinal, PCI bus id and name. nullopt when kcoll was compiled
// without CUDA; FailedPrecondition when it was but no device is usable (the CUDA error string says why).
absl::StatusOr<std::optional<GpuInfo>> CurrentCudaDevice();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TOPOLOGY_GPU_INFO_H_
