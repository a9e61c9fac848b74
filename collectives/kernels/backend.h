// Which Kokkos execution space runs a communicator's kernels, and the factory that makes them.
#ifndef KCOLL_COLLECTIVES_KERNELS_BACKEND_H_
#define KCOLL_COLLECTIVES_KERNELS_BACKEND_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "collectives/kernels/kernels.h"
#include "collectives/options.h"

namespace kcoll {

// The backends the Kokkos install kcoll was built against provides.
std::vector<ExecBackend> AvailableBackends();
bool IsAvailable(ExecBackend backend);

// Whether Kokkos is initialised now (kernels can run and their memory can be freed).
bool KokkosRunning();
// For applications that do not use Kokkos themselves (the C API's kcoll_initialize): initialises Kokkos with these
// arguments (both may be null) unless it is initialised already; true if this call initialised it.
bool StartKokkos(int* argc, char*** argv);
void StopKokkos();
// Runs `hook` at the start of Kokkos::finalize, while kernels can still run and free their memory (Kokkos'
// push_finalize_hook): for code that keeps kernels alive in an application that finalises Kokkos itself.
void AtKokkosFinalize(std::function<void()> hook);
// Kokkos::initialize with the program's arguments plus --kokkos-disable-warnings, for jobs whose ranks outnumber
// the cores on purpose (Kokkos would print its oversubscription warning on every rank).
void InitializeKokkosQuietly(int argc, char** argv);

// Kernels on `backend`. `synchronous`: fence after each kernel (needed when a transport reads the memory from the
// host). On host backends, destinations of at least $KCOLL_STREAMING_STORES bytes (streaming_stores.h) are written
// with streaming stores. Errors: the backend is not compiled into Kokkos, Kokkos is not initialised, or
// $KCOLL_STREAMING_STORES is not a valid setting.
absl::StatusOr<std::unique_ptr<Kernels>> MakeKernels(ExecBackend backend, bool synchronous = true);
// The same with the streaming-store threshold given (kNoStreamingStores: never; 0: always), for benchmarks and tests
// that compare the two ways of storing.
absl::StatusOr<std::unique_ptr<Kernels>> MakeKernels(ExecBackend backend, bool synchronous, size_t streaming_min_bytes);

// Where the kCuda kernels run: the device of Kokkos' default Cuda instance and its stream (a cudaStream_t, passed as
// void* so this header needs no CUDA). A stream-ordered transport enqueues its transfers on that stream. Errors:
// Kokkos has no CUDA backend, or is not initialised.
struct CudaPlacement {
  int device = -1;
  void* stream = nullptr;
};
absl::StatusOr<CudaPlacement> CudaKernelsPlacement();

}  // namespace kcoll

#endif  // KCOLL_COLLECTIVES_KERNELS_BACKEND_H_
