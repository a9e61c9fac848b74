#include "collectives/kernels/backend.h"

#include <Kokkos_Core.hpp>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collectives/kernels/backend_factories.h"
#include "collectives/kernels/streaming_stores.h"

namespace kcoll {

std::vector<ExecBackend> AvailableBackends() {
  std::vector<ExecBackend> out;
#if defined(KOKKOS_ENABLE_SERIAL)
  out.push_back(ExecBackend::kSerial);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  out.push_back(ExecBackend::kOpenMP);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  out.push_back(ExecBackend::kCuda);
#endif
  return out;
}

bool IsAvailable(ExecBackend backend) {
  for (ExecBackend b : AvailableBackends()) {
    if (b == backend) return true;
  }
  return false;
}

bool KokkosRunning() { return Kokkos::is_initialized(); }

bool StartKokkos(int* argc, char*** argv) {
  if (Kokkos::is_initialized()) return false;
  if (argc != nullptr && argv != nullptr) {
    Kokkos::initialize(*argc, *argv);
  } else {
    int no_args = 0;
    Kokkos::initialize(no_args, static_cast<char**>(nullptr));
  }
  return true;
}

void InitializeKokkosQuietly(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  char disable_warnings[] = "--kokkos-disable-warnings";
  args.push_back(disable_warnings);
  int args_count = static_cast<int>(args.size());
  Kokkos::initialize(args_count, args.data());
}

void AtKokkosFinalize(std::function<void()> hook) { Kokkos::push_finalize_hook(std::move(hook)); }

void StopKokkos() {
  if (Kokkos::is_initialized()) Kokkos::finalize();
}

absl::StatusOr<std::unique_ptr<Kernels>> MakeKernels(ExecBackend backend, bool synchronous) {
  absl::StatusOr<size_t> streaming_min_bytes = StreamingStoreMinBytesFromEnv();
  if (!streaming_min_bytes.ok()) return streaming_min_bytes.status();
  return MakeKernels(backend, synchronous, *streaming_min_bytes);
}

absl::StatusOr<std::unique_ptr<Kernels>> MakeKernels(ExecBackend backend, bool synchronous,
                                                     size_t streaming_min_bytes) {
  if (!Kokkos::is_initialized()) {
    return absl::FailedPreconditionError("Kokkos is not initialized: call Kokkos::initialize first");
  }
  std::unique_ptr<Kernels> kernels;
  switch (backend) {
    case ExecBackend::kSerial:
      kernels = kernels_internal::MakeSerialKernels(synchronous, streaming_min_bytes);
      break;
    case ExecBackend::kOpenMP:
      kernels = kernels_internal::MakeOpenMPKernels(synchronous, streaming_min_bytes);
      break;
    case ExecBackend::kCuda:
      kernels = kernels_internal::MakeCudaKernels(synchronous);
      break;
  }
  if (kernels == nullptr) {
    std::string available;
    for (ExecBackend b : AvailableBackends())
      absl::StrAppend(&available, available.empty() ? "" : ", ", ExecBackendName(b));
    return absl::InvalidArgumentError(absl::StrCat("execution backend '", ExecBackendName(backend),
                                                   "' is not enabled in this Kokkos (enabled: ", available, ")"));
  }
  return kernels;
}

absl::StatusOr<CudaPlacement> CudaKernelsPlacement() {
  if (!Kokkos::is_initialized()) {
    return absl::FailedPreconditionError("Kokkos is not initialized: call Kokkos::initialize first");
  }
  CudaPlacement placement;
  if (!kernels_internal::GetCudaPlacement(&placement.device, &placement.stream)) {
    return absl::FailedPreconditionError("this Kokkos has no CUDA backend (build kcoll with --config=cuda)");
  }
  return placement;
}

}  // namespace kcoll
