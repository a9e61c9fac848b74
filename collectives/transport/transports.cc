#include "collectives/transport/transports.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace kcoll {

// Every transport's factory, declared here from base/transport_kind.h's list: each is defined in its folder.
#define KCOLL_DECLARE_FACTORY(enumerator, name, moves, node_memory, factory) \
  absl::StatusOr<Execution> factory(ExecutionRequest request);
KCOLL_TRANSPORTS(KCOLL_DECLARE_FACTORY)
#undef KCOLL_DECLARE_FACTORY

namespace {

using Factory = absl::StatusOr<Execution> (*)(ExecutionRequest request);

constexpr Factory kFactories[] = {
#define KCOLL_FACTORY(enumerator, name, moves, node_memory, factory) &factory,
    KCOLL_TRANSPORTS(KCOLL_FACTORY)
#undef KCOLL_FACTORY
};

}  // namespace

absl::StatusOr<Execution> MakeExecution(TransportKind kind, ExecutionRequest request) {
  const size_t index = static_cast<size_t>(kind);
  if (index >= std::size(kFactories)) {
    return absl::InvalidArgumentError(absl::StrCat("no transport of kind ", static_cast<int>(kind)));
  }
  const MemoryKind memory = request.backend == ExecBackend::kCuda ? MemoryKind::kDevice : MemoryKind::kHost;
  const TransportMemory moves = MemoryMovedBy(kind);
  const bool host_only = moves == TransportMemory::kHost, device_only = moves == TransportMemory::kDevice;
  if ((host_only && memory != MemoryKind::kHost) || (device_only && memory != MemoryKind::kDevice)) {
    return absl::InvalidArgumentError(absl::StrCat("transport '", TransportKindName(kind), "' needs ",
                                                   device_only
                                                       ? "the cuda execution backend (its buffers are device memory)"
                                                       : "a host execution backend (its buffers are host memory)",
                                                   ", not '", ExecBackendName(request.backend), "'"));
  }
  return kFactories[index](std::move(request));
}

}  // namespace kcoll
