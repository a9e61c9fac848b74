#include "collectives/transport/cuda_ipc/stream_memory_ops.h"

#include "absl/strings/str_cat.h"
#include "collectives/transport/cuda/cuda_errors.h"

namespace kcoll {
namespace cuda_ipc {
namespace {

// The driver API version whose signatures the function types above have (the memory operations' second version).
constexpr unsigned int kDriverApiVersion = 12000;

absl::Status LoadSymbol(const char* symbol, void** fn) {
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const absl::Status s =
      CudaStatus(cudaGetDriverEntryPointByVersion(symbol, fn, kDriverApiVersion, cudaEnableDefault, &found),
                 absl::StrCat("cudaGetDriverEntryPointByVersion(", symbol, ")"));
  if (!s.ok()) return s;
  if (found != cudaDriverEntryPointSuccess || *fn == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("cuda_ipc: the CUDA driver has no ", symbol, " (query result ",
                                                      static_cast<int>(found), "); a driver for CUDA 12 or later has"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<StreamMemoryOps> StreamMemoryOps::Load() {
  StreamMemoryOps ops;
  void* fn = nullptr;
  if (absl::Status s = LoadSymbol("cuStreamWaitValue32", &fn); !s.ok()) return s;
  ops.wait_ = reinterpret_cast<WaitFn>(fn);
  if (absl::Status s = LoadSymbol("cuStreamWriteValue32", &fn); !s.ok()) return s;
  ops.write_ = reinterpret_cast<WriteFn>(fn);
  if (absl::Status s = LoadSymbol("cuGetErrorName", &fn); !s.ok()) return s;
  ops.error_name_ = reinterpret_cast<ErrorNameFn>(fn);
  return ops;
}

absl::Status StreamMemoryOps::Check(CUresult result, const char* call) const {
  if (result == CUDA_SUCCESS) return absl::OkStatus();
  const char* name = nullptr;
  if (error_name_ == nullptr || error_name_(result, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown";
  return absl::InternalError(absl::StrCat(call, " failed: ", name, " (", static_cast<int>(result), ")"));
}

absl::Status StreamMemoryOps::Wait(cudaStream_t stream, void* counter, uint32_t value) const {
  return Check(wait_(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(counter), value,
                     CU_STREAM_WAIT_VALUE_GEQ),
               "cuStreamWaitValue32");
}

absl::Status StreamMemoryOps::Write(cudaStream_t stream, void* counter, uint32_t value) const {
  return Check(write_(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(counter), value,
                      CU_STREAM_WRITE_VALUE_DEFAULT),
               "cuStreamWriteValue32");
}

}  // namespace cuda_ipc
}  // namespace kcoll
