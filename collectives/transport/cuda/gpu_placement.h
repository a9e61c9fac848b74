// Which CUDA device each rank uses, and the GPU settings read from options or the environment. Pure functions of
// their arguments (no CUDA calls), so every rule is tested on machines without a GPU.
//
// Default placement: one device per rank of a node, device = local rank (the rank's position among the ranks that
// share the node). When a rank sees a single device (CUDA_VISIBLE_DEVICES narrowed per rank by the launcher, or a
// one-GPU node) it uses device 0. KCOLL_CUDA_DEVICE overrides: "3" puts every rank of the node on device 3 (useful
// with one rank per node), "0,2,4,6" gives local rank i the i-th device of the list.
#ifndef KCOLL_COLLECTIVES_TRANSPORT_CUDA_GPU_PLACEMENT_H_
#define KCOLL_COLLECTIVES_TRANSPORT_CUDA_GPU_PLACEMENT_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace kcoll {

// Parses a device override: one device for every local rank ("3") or one per local rank ("0,1,2,3").
// `source` names the setting in errors (e.g. "KCOLL_CUDA_DEVICE").
absl::StatusOr<std::vector<int>> ParseCudaDeviceList(absl::string_view text, absl::string_view source);

// The device for `local_rank` of `local_size` ranks on a node that sees `device_count` devices, honouring
// `override_devices` (empty: no override). Errors: no device, a device out of range, more ranks than devices.
absl::StatusOr<int> ChooseCudaDevice(int local_rank, int local_size, int device_count,
                                     const std::vector<int>& override_devices);

// Kernels run on the device Kokkos was initialised with; transfers must use the same one. An error that says how
// to make them agree when they differ.
absl::Status CheckKokkosDevice(int chosen_device, int kokkos_device, int local_rank);

// The first two positions whose device ids (PCI bus ids) are equal, if any: two ranks of a node on one GPU, which
// NCCL does not support. Empty ids (ranks that could not tell) never match.
std::optional<std::pair<int, int>> FindSharedDevice(const std::vector<std::string>& device_ids);

// Whether NCCL may be asked to run several ranks of a node on one GPU: only when NCCL_MULTI_RANK_GPU_ENABLE=1 (a
// switch of newer NCCL releases; an NCCL without it refuses at ncclCommInitRank, and that error is reported). The
// MPI transports never need this: ranks sharing a GPU exchange its memory through MPI.
bool NcclMayShareGpus();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_TRANSPORT_CUDA_GPU_PLACEMENT_H_
