#include "bench/data/device_memory.h"

namespace kcoll {
namespace bench {
namespace {

absl::Status NoCuda() {
  return absl::FailedPreconditionError(
      "this build has no CUDA runtime (install the CUDA toolkit, then tools/setup_cuda.sh and --config=cuda)");
}

}  // namespace

absl::StatusOr<void*> DeviceAlloc(size_t) { return NoCuda(); }
int CurrentDevice() { return -1; }
void DeviceFree(void*) {}
absl::Status DeviceFill(void*, int, size_t) { return NoCuda(); }
absl::Status CopyToDevice(void*, const void*, size_t) { return NoCuda(); }
absl::Status CopyToHost(void*, const void*, size_t) { return NoCuda(); }
absl::Status DeviceCopyAsync(void*, const void*, size_t, void*) { return NoCuda(); }
absl::Status SynchronizeStream(void*) { return NoCuda(); }
absl::StatusOr<double> TimeOnStream(void*, const std::function<absl::Status()>&) { return NoCuda(); }

}  // namespace bench
}  // namespace kcoll
