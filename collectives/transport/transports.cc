#include "collectives/transport/transports.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "collectives/transport/mpi/mpi_execution.h"
#include "collectives/transport/nccl/nccl_execution.h"
#include "collectives/transport/shm/shm_execution.h"

namespace kcoll {

absl::Span<const TransportEntry> Transports() {
  static constexpr TransportEntry kTransports[] = {
      {TransportKind::kMpi, std::nullopt, MakeMpiExecution},
      {TransportKind::kShm, MemoryKind::kHost, MakeShmExecution},
      {TransportKind::kNccl, MemoryKind::kDevice, MakeNcclExecution},
  };
  return kTransports;
}

absl::StatusOr<Execution> MakeExecution(TransportKind kind, ExecutionRequest request) {
  for (const TransportEntry& entry : Transports()) {
    if (entry.kind != kind) continue;
    const MemoryKind memory = request.backend == ExecBackend::kCuda ? MemoryKind::kDevice : MemoryKind::kHost;
    if (entry.buffers.has_value() && *entry.buffers != memory) {
      return absl::InvalidArgumentError(absl::StrCat("transport '", TransportKindName(kind), "' needs ",
                                                     *entry.buffers == MemoryKind::kDevice
                                                         ? "the cuda execution backend (its buffers are device memory)"
                                                         : "a host execution backend (its buffers are host memory)",
                                                     ", not '", ExecBackendName(request.backend), "'"));
    }
    return entry.make(std::move(request));
  }
  return absl::InvalidArgumentError(absl::StrCat("no transport of kind ", static_cast<int>(kind)));
}

}  // namespace kcoll
