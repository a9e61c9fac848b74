#include "mpi_drop_in/device_memory.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "collectives/kernels/backend.h"

namespace kcoll::drop_in {
namespace {

// The few entry points of CUDA's driver API the library calls, with the driver's ABI (cuda.h): results are ints,
// device addresses 64-bit integers, contexts opaque pointers. Looked up by their exported names.
using CuResult = int;
using CuContext = void*;
constexpr CuResult kCudaSuccess = 0;
constexpr int kAttributeMemoryType = 2;     // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr int kAttributeIsManaged = 8;      // CU_POINTER_ATTRIBUTE_IS_MANAGED
constexpr int kAttributeDeviceOrdinal = 9;  // CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
constexpr unsigned kMemoryTypeDevice = 2;   // CU_MEMORYTYPE_DEVICE

struct Driver {
  CuResult (*pointer_get_attributes)(unsigned, int*, void**, unsigned long long);
  CuResult (*memcpy_dtoh)(void*, unsigned long long, size_t);
  CuResult (*memcpy_htod)(unsigned long long, const void*, size_t);
  CuResult (*ctx_get_current)(CuContext*);
  CuResult (*ctx_push_current)(CuContext);
  CuResult (*ctx_pop_current)(CuContext*);
  CuResult (*primary_ctx_retain)(CuContext*, int);
  CuResult (*primary_ctx_release)(int);
  CuResult (*get_error_name)(CuResult, const char**);
};

enum class Mode { kStage, kOff, kDeviceRoute, kInvalid };

struct ModeSetting {
  Mode mode = Mode::kStage;
  std::optional<TransportKind> transport;  // kDeviceRoute's
  absl::Status status;
};

const ModeSetting& Setting() {
  static const ModeSetting* const setting = [] {
    auto* s = new ModeSetting();
    const char* value = std::getenv("KCOLL_MPI_DEVICE");
    const std::string text = value == nullptr ? "" : value;
    const absl::StatusOr<TransportKind> transport = ParseTransportKind(text);
    if (text.empty() || text == "stage") {
      s->mode = Mode::kStage;
    } else if (text == "off") {
      s->mode = Mode::kOff;
    } else if (transport.ok() && MemoryMovedBy(*transport) != TransportMemory::kHost) {
      if (IsAvailable(ExecBackend::kCuda)) {
        s->mode = Mode::kDeviceRoute;
        s->transport = *transport;
      } else {
        s->mode = Mode::kInvalid;
        s->status = absl::FailedPreconditionError(
            absl::StrCat("KCOLL_MPI_DEVICE=", text,
                         ": the device route needs a libkcoll_mpi.so built with CUDA kernels (--config=cuda); this one "
                         "has none (stage copies device buffers through host memory)"));
      }
    } else {
      s->mode = Mode::kInvalid;
      s->status = absl::InvalidArgumentError(
          absl::StrCat("KCOLL_MPI_DEVICE=", text,
                       ": expected stage (device buffers copied through host memory), off, or the device route's "
                       "transport: nccl, cuda_ipc or mpi"));
    }
    return s;
  }();
  return *setting;
}

std::atomic<const Driver*> found_driver{nullptr};
std::mutex search_mutex;

// Whether objects were loaded since the process was last searched for the driver, asked on every call, so cheaply.
// The dynamic linker appends each object it loads to its list of loaded objects: the last object of that list when
// the process was searched has a successor once another is loaded. That object is held open here (a reference from
// dlopen), so it cannot be unloaded and its list entry stays valid to read. Where it cannot be held, dl_iterate_phdr's
// count of objects ever loaded tells instead (a lock and a walk, tens of nanoseconds).
std::atomic<const link_map*> watched_last{nullptr};
void* watched_handle = nullptr;
std::atomic<unsigned long long> searched_at_adds{~0ull};

struct LoadedObjects {
  unsigned long long adds = 0;
  std::string last_name;
};

int ReadLoadedObjects(dl_phdr_info* info, size_t, void* data) {
  auto* objects = static_cast<LoadedObjects*>(data);
  objects->adds = info->dlpi_adds;
  objects->last_name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  return 0;  // on to the last object
}

int ReadAdds(dl_phdr_info* info, size_t, void* adds) {
  *static_cast<unsigned long long*>(adds) = info->dlpi_adds;
  return 1;  // the first object carries the count
}

bool LoadedSinceSearch() {
  if (const link_map* last = watched_last.load(std::memory_order_acquire)) {
    return __atomic_load_n(&last->l_next, __ATOMIC_ACQUIRE) != nullptr;
  }
  unsigned long long adds = 0;
  dl_iterate_phdr(ReadAdds, &adds);
  return adds != searched_at_adds.load(std::memory_order_relaxed);
}

// Under search_mutex: holds the last loaded object and records the count of objects ever loaded.
void WatchLoadedObjects() {
  LoadedObjects objects;
  dl_iterate_phdr(ReadLoadedObjects, &objects);
  searched_at_adds.store(objects.adds, std::memory_order_relaxed);
  void* handle = objects.last_name.empty() ? nullptr : dlopen(objects.last_name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  link_map* last = nullptr;
  if (handle != nullptr && dlinfo(handle, RTLD_DI_LINKMAP, &last) != 0) last = nullptr;
  if (last == nullptr && handle != nullptr) {
    dlclose(handle);
    handle = nullptr;
  }
  watched_last.store(last, std::memory_order_release);
  if (watched_handle != nullptr) dlclose(watched_handle);
  watched_handle = handle;
}

template <typename Fn>
bool Lookup(void* handle, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, name));
  return *fn != nullptr;
}

const Driver* LoadDriver(void* handle) {
  Driver d{};
  const bool all = Lookup(handle, "cuPointerGetAttributes", &d.pointer_get_attributes) &&
                   Lookup(handle, "cuMemcpyDtoH_v2", &d.memcpy_dtoh) &&
                   Lookup(handle, "cuMemcpyHtoD_v2", &d.memcpy_htod) &&
                   Lookup(handle, "cuCtxGetCurrent", &d.ctx_get_current) &&
                   Lookup(handle, "cuCtxPushCurrent_v2", &d.ctx_push_current) &&
                   Lookup(handle, "cuCtxPopCurrent_v2", &d.ctx_pop_current) &&
                   Lookup(handle, "cuDevicePrimaryCtxRetain", &d.primary_ctx_retain) &&
                   Lookup(handle, "cuDevicePrimaryCtxRelease_v2", &d.primary_ctx_release) &&
                   Lookup(handle, "cuGetErrorName", &d.get_error_name);
  return all ? new Driver(d) : nullptr;
}

// CUDA's driver once the process has loaded it, else null. The search (a dlopen that loads nothing, tens of
// microseconds) runs again only after objects were loaded. The driver's handle opened here is never closed, so the
// driver stays for as long as the library may call it.
const Driver* FindDriver() {
  const Driver* driver = found_driver.load(std::memory_order_acquire);
  if (driver != nullptr || !LoadedSinceSearch()) return driver;
  std::lock_guard<std::mutex> lock(search_mutex);
  driver = found_driver.load(std::memory_order_acquire);
  if (driver != nullptr || !LoadedSinceSearch()) return driver;
  WatchLoadedObjects();
  if (void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) {
    driver = LoadDriver(handle);
    if (driver == nullptr) dlclose(handle);
  }
  found_driver.store(driver, std::memory_order_release);
  return driver;
}

absl::Status DriverError(const Driver& d, CuResult result, const char* what) {
  const char* name = nullptr;
  if (d.get_error_name(result, &name) != kCudaSuccess || name == nullptr) name = "an unknown CUDA error";
  return absl::InternalError(absl::StrCat(what, " failed: ", name, " (", result, ")"));
}

// Runs `copy` with a context current: the thread's own, else the primary context of the device holding `device`.
template <typename Copy>
absl::Status InContextOf(const Driver& d, const void* device, const char* what, Copy copy) {
  CuContext current = nullptr;
  if (d.ctx_get_current(&current) == kCudaSuccess && current != nullptr) {
    const CuResult result = copy();
    return result == kCudaSuccess ? absl::OkStatus() : DriverError(d, result, what);
  }
  int ordinal = -1;
  int attribute = kAttributeDeviceOrdinal;
  void* data[] = {&ordinal};
  CuResult result = d.pointer_get_attributes(1, &attribute, data, reinterpret_cast<uintptr_t>(device));
  if (result != kCudaSuccess) return DriverError(d, result, "cuPointerGetAttributes(DEVICE_ORDINAL)");
  CuContext primary = nullptr;
  result = d.primary_ctx_retain(&primary, ordinal);
  if (result != kCudaSuccess) return DriverError(d, result, "cuDevicePrimaryCtxRetain");
  result = d.ctx_push_current(primary);
  if (result == kCudaSuccess) {
    result = copy();
    CuContext popped = nullptr;
    d.ctx_pop_current(&popped);
  }
  d.primary_ctx_release(ordinal);
  return result == kCudaSuccess ? absl::OkStatus() : DriverError(d, result, what);
}

}  // namespace

const absl::Status& DeviceModeStatus() { return Setting().status; }

const std::optional<TransportKind>& DeviceRouteTransport() { return Setting().transport; }

bool DeviceMemoryPossible() {
  const Mode mode = Setting().mode;
  return (mode == Mode::kStage || mode == Mode::kDeviceRoute) && FindDriver() != nullptr;
}

bool IsDeviceMemory(const void* p) {
  const Driver* d = FindDriver();
  if (d == nullptr || p == nullptr) return false;
  // 64-bit slots, zeroed: the driver writes an unsigned int for the memory type and a boolean for managed.
  unsigned long long memory_type = 0, managed = 0;
  int attributes[] = {kAttributeMemoryType, kAttributeIsManaged};
  void* data[] = {&memory_type, &managed};
  // Host memory CUDA does not know gives success and a memory type of 0 (and so does anything before cuInit: no
  // device memory exists yet).
  if (d->pointer_get_attributes(2, attributes, data, reinterpret_cast<uintptr_t>(p)) != kCudaSuccess) return false;
  return static_cast<unsigned>(memory_type) == kMemoryTypeDevice && managed == 0;
}

absl::Status CopyDeviceToHost(void* host, const void* device, size_t bytes) {
  const Driver* d = FindDriver();
  if (d == nullptr) return absl::FailedPreconditionError("CUDA's driver is not loaded");
  return InContextOf(*d, device, "cuMemcpyDtoH",
                     [&] { return d->memcpy_dtoh(host, reinterpret_cast<uintptr_t>(device), bytes); });
}

absl::Status CopyHostToDevice(void* device, const void* host, size_t bytes) {
  const Driver* d = FindDriver();
  if (d == nullptr) return absl::FailedPreconditionError("CUDA's driver is not loaded");
  return InContextOf(*d, device, "cuMemcpyHtoD",
                     [&] { return d->memcpy_htod(reinterpret_cast<uintptr_t>(device), host, bytes); });
}

}  // namespace kcoll::drop_in
