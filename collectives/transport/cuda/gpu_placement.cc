#include "collectives/transport/cuda/gpu_placement.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/env.h"

namespace kcoll {

absl::StatusOr<std::vector<int>> ParseCudaDeviceList(absl::string_view text, absl::string_view source) {
  std::vector<int> devices;
  for (absl::string_view piece : absl::StrSplit(text, ',')) {
    piece = absl::StripAsciiWhitespace(piece);
    int device = -1;
    if (!absl::SimpleAtoi(piece, &device) || device < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": '", text, "' is not a device number or a comma-separated list of them"));
    }
    devices.push_back(device);
  }
  return devices;
}

absl::StatusOr<int> ChooseCudaDevice(int local_rank, int local_size, int device_count,
                                     const std::vector<int>& override_devices) {
  if (device_count <= 0) return absl::FailedPreconditionError("no CUDA device is visible to this rank");
  if (local_rank < 0 || local_rank >= local_size) {
    return absl::InvalidArgumentError(absl::StrCat("local rank ", local_rank, " is not in [0, ", local_size, ")"));
  }
  int device = 0;
  if (!override_devices.empty()) {
    if (override_devices.size() == 1) {
      device = override_devices[0];
    } else if (local_rank < static_cast<int>(override_devices.size())) {
      device = override_devices[local_rank];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("KCOLL_CUDA_DEVICE lists ", override_devices.size(),
                                                     " devices but local rank ", local_rank, " needs one"));
    }
    if (device >= device_count) {
      return absl::InvalidArgumentError(absl::StrCat("KCOLL_CUDA_DEVICE: device ", device, " is not in [0, ",
                                                     device_count, "), the devices this rank sees"));
    }
    return device;
  }
  if (device_count == 1) return 0;
  if (local_size > device_count) {
    return absl::FailedPreconditionError(absl::StrCat(local_size, " ranks share this node but it has ", device_count,
                                                      " CUDA devices: NCCL needs one device per rank"));
  }
  return local_rank;
}

absl::Status CheckKokkosDevice(int chosen_device, int kokkos_device, int local_rank) {
  if (chosen_device == kokkos_device) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "local rank ", local_rank, " should use CUDA device ", chosen_device, " but Kokkos was initialised on device ",
      kokkos_device, ": start Kokkos on device ", chosen_device, " (--kokkos-device-id=", chosen_device,
      ", or --kokkos-num-devices=<devices per node> so Kokkos maps local ranks to devices), or set "
      "KCOLL_CUDA_DEVICE=",
      kokkos_device, " to run where Kokkos is"));
}

std::optional<std::pair<int, int>> FindSharedDevice(const std::vector<std::string>& device_ids) {
  for (int j = 1; j < static_cast<int>(device_ids.size()); ++j) {
    if (device_ids[j].empty()) continue;
    for (int i = 0; i < j; ++i) {
      if (device_ids[i] == device_ids[j]) return std::make_pair(i, j);
    }
  }
  return std::nullopt;
}

bool NcclMayShareGpus() {
  const char* enabled = GetEnv("NCCL_MULTI_RANK_GPU_ENABLE");
  return enabled != nullptr && absl::string_view(enabled) == "1";
}

}  // namespace kcoll
